package app

import (
	"context"
	"encoding/json"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/internal/uitest"
	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/testutil"
)

// emptyActivityTooTall says that the Activity tab, while its log is empty,
// needs some 1800 px of height: its empty-state line, a word-wrapping label
// in a Center container (activitytab.go, newActivityTab), is given its
// minimum width, about one character, and wraps after every letter. A real
// window cannot be smaller than its content: on first start, with nothing
// logged yet, the manager would grow taller than any laptop screen. Set it
// to false once the line gets the tab's width (a VBox between two spacers,
// say, instead of the Center container).
const emptyActivityTooTall = false

// TestRenderManagerTabs renders the manager's tabs with an editor open on
// each catalog tab, for people to look at (MCPTRAY_SHOTS keeps them); the
// checks are that each shows what it edits, and that the window fits a
// laptop's screen.
func TestRenderManagerTabs(t *testing.T) {
	m, s := newTestManager(t)
	test.ApplyTheme(t, theme.DefaultTheme()) // the sizes of the real look
	ctx := context.Background()
	if err := s.St.Import(ctx, &catalog.Catalog{Format: catalog.CatalogFormat, Version: catalog.CatalogVersion,
		Tools: []catalog.Tool{{Name: "weather", Title: "Weather", Description: "Today's weather in a city.",
			Params: []catalog.Param{{Name: "city", Type: "string", Required: true, Description: "City name"}},
			Steps:  []catalog.InputStep{{Key: "units", Kind: catalog.StepForm, Message: "Which units?", Schema: json.RawMessage(`{"type":"object","properties":{"units":{"type":"string","enum":["metric","imperial"]}}}`)}},
			Action: catalog.Action{HTTP: &catalog.HTTP{URL: "https://wttr.in/{{pathescape .args.city}}", Query: map[string]catalog.Template{"format": "3"}}}},
			{Name: "wttr_old", Description: "The weather, the old way.", Disabled: true,
				Action: catalog.Action{Respond: &catalog.Respond{Content: []catalog.Content{{Type: "text", Text: "sunny"}}}}}},
		Resources: []catalog.Resource{{URI: "notes://todo", Name: "todo", Title: "My to-do list", MimeType: "text/markdown", Text: "- buy milk"}},
		Prompts: []catalog.Prompt{{Name: "review", Title: "Review code", Description: "Reviews a change.",
			Arguments: []catalog.PromptArgument{{Name: "diff", Required: true}},
			Messages: []catalog.PromptMessage{{Role: "user", Content: catalog.Content{Type: "text", Text: "Review this change:\n{{.args.diff}}"}},
				{Role: "user", Content: catalog.Content{Type: "resource_link", URI: "notes://style", Name: "style guide"}}}}},
	}, true); err != nil {
		t.Fatal(err)
	}
	m.reloadEntries()
	m.win.Resize(fyne.NewSize(1100, 900))
	m.win.Show()
	if got := m.win.Title(); got != "mcptray" {
		t.Errorf("title %q", got)
	}
	tabs := []string{"Tools", "Resources", "Prompts", "Servers", "Activity", "Settings"}
	for _, tab := range []struct {
		name  string
		index int
		open  func()
		shows func() bool
		// sees are lines the tab shows, in order (see seenIn); save is
		// the button that keeps its changes, which must be in view.
		sees []string
		save string
	}{
		{"tools", 0, func() { m.tools.list.Select(0) }, func() bool { return m.editor != nil && m.editor.Name.Text == "weather" }, []string{
			// A disabled tool, not served, is dimmed.
			"entry: (Search tools)", "check: [x]", "label: weather — Weather", "check: [ ]", "label: wttr_old {low}", "button: New tool", "button: From an example…",
			"label: Name", "entry: weather", "label: Title", "entry: Weather", "label: Description", "entry: Today's weather in a city.",
			"label: Parameters", "label: Parameter 1", "check: [x] Required", "button: (delete icon)",
			"label: Name", "entry: city", "label: Type", "select: text", "label: Description", "entry: City name",
			"label: Allowed values", "label: Default", "button: Advanced {low}", "button: Add parameter",
			"label: Action", "select: Call a URL", "label: Method", "select: GET",
			// Every templated field offers Insert ▸ and previews itself.
			"label: URL", "entry: https://wttr.in/{{pathescape .args.city}}", "button: Insert {low}",
			"label: With Try it's sample arguments: https://wttr.in/%5Bcity%5D",
			"label: Query parameters", "entry: format=3", "button: Insert {low}",
			"label: Headers", "button: Insert {low}", "label: Body", "button: Insert {low}",
			"label: Input steps", "label: Step 1", "button: (arrow-up icon) {disabled}", "button: (arrow-down icon) {disabled}",
			"label: What it asks", "select: Questions to fill in (form)", "label: Name of its answer", "entry: units", "label: Turn",
			"label: Message — tells the person what to fill in", "entry: Which units?", "button: Insert {low}",
			// The form's questions as fields, its JSON Schema under
			// Advanced.
			"label: The questions", "label: Question 1", "label: Name", "entry: units", "label: Label", "label: Type", "select: choice",
			"label: Help", "check: [ ] Required", "label: Default", "label: Choices", "entry: metric\nimperial",
			"button: Add question", "button: Advanced: the form's schema (JSON) {low}",
			"label: Who answers", "select: the AI app (client)", "label: The AI app asks its user (or its model) and sends the answer.",
			"button: Add input step",
			"label: Approval", "select: Ask before destructive calls",
			"label: Hints", "check: [ ] Read-only", "check: [ ] Destructive",
			"label: It may delete or overwrite things; mcptray asks you before it runs (destructive).",
			"check: [ ] Safe to repeat", "check: [ ] Reaches the outside world",
			"label: Run in the background", "select: never",
			"label: Which AI apps see it (client tokens)",
			"button: Advanced: raw schemas {low}", "button: Delete", "button: Save {high}",
		}, "Save"},
		{"resources", 1, func() { m.resources.list.Select(0) }, func() bool { return m.resEditor != nil && m.resEditor.Uri.Text == "notes://todo" }, []string{
			"entry: (Search resources)", "check: [x]", "label: Resource · todo  —  notes://todo", "button: New resource", "button: New template",
			"label: URI", "entry: notes://todo", "label: Name", "entry: todo", "label: Title", "entry: My to-do list",
			"label: Media type (MIME)", "entry: text/markdown", "label: Content comes from", "select: Text written here",
			"label: Text", "entry: - buy milk", "button: Delete", "button: Save {high}",
		}, "Save"},
		{"prompts", 2, func() { m.prompts.list.Select(0) }, func() bool {
			return m.promptEditor != nil && len(m.promptEditor.Messages.Items) == 2 && m.promptEditor.Messages.Items[1].Kind.Selected == "Resource link"
		}, []string{
			"entry: (Search prompts)", "check: [x]", "label: review — Review code", "button: New prompt",
			"label: Name", "entry: review", "label: Title", "entry: Review code", "label: Description", "entry: Reviews a change.",
			"label: Arguments", "label: Argument 1", "check: [x] Required", "label: Name", "entry: diff",
			"label: Suggested values", "button: Add argument",
			"label: Messages",
			"label: Message 1", "button: (arrow-up icon) {disabled}", "button: (arrow-down icon)",
			"label: Role", "select: the person (user)", "label: Kind", "select: Text", "label: Text", "entry: Review this change:\n{{.args.diff}}",
			"label: Message 2", "button: (arrow-up icon)", "button: (arrow-down icon) {disabled}",
			"label: Role", "select: the person (user)", "label: Kind", "select: Resource link",
			"label: URI", "entry: notes://style", "label: Name", "entry: style guide",
			"button: Add message", "label: Input steps", "button: Add input step", "button: Delete", "button: Save {high}",
		}, "Save"},
		// Shown, the tab follows the log from a goroutine: once it read
		// the (empty) log, it is stopped, leaving the canvas to the
		// capture.
		{"activity", 4, func() {
			testutil.Eventually(t, "the activity log read", func() (read bool) {
				m.activity.locked(func() { read = m.activity.read })
				return read
			})
			m.activity.stopAndWait()
		}, func() bool { return m.activity.read && !m.activity.Following() }, []string{
			"label: AI app", "select: All", "label: Tool", "select: All", "label: Outcome", "select: All",
			"label: Search", "entry: (Search requests, tools, AI apps, details…)", "label: Live · 0 requests", "check: [ ] Pause live",
			"label: " + activityEmpty, "label: Select a request to see its details.",
		}, ""},
		{"settings", 5, func() {}, func() bool { return m.settings.name.Text == "mcptray" }, []string{
			// What applies at once comes first; whether mcptray starts
			// at login is this machine's.
			"label: This computer", "label: These apply at once.",
			`re:check: \[[ x]\] Start mcptray at login`, "check: [ ] Open the task window when a long call starts",
			// Nothing is selected: nothing to act on.
			"label: Client tokens", "button: Create token", "button: Tools… {disabled}", "button: Revoke {disabled}",
			"label: Not listed: the tokens mcptray keeps for itself, mcptray-app (Try it) and stdio-shim (shared by every AI app started over stdio).",
			// Secrets need the system's keyring, which this machine may
			// lack.
			"label: Secrets", `re:button: Add / replace( \{disabled\})?`, "button: Rename {disabled}", "button: Delete {disabled}",
			"label: Server settings", "label: Saved together with Save settings, at the end of this page; the running server applies them at once.",
			"label: Server", "label: Name", "entry: mcptray", "label: The name AI apps know this server by (serverName).",
			"label: Port", "entry: 8731", "label: Address", "label: not serving",
			"label: Web pages", "label: Allowed origins", "button: Add origin", "button: Allow MCP Inspector",
			"label: Caching & limits", "label: Lists stay fresh for", "entry: 5", "label: seconds",
			"label: Who may reuse a list", "select: any AI app (public)",
			"label: Time to answer a step", "entry: 600", "label: seconds",
			// Each client token's limits, after what the log keeps.
			"label: Calls at once, per token", "entry: 16", "label: calls",
			"label: Background calls, per token", "entry: 64", "label: calls",
			"label: Waiting background calls, per token", "entry: 16", "label: calls",
			"label: Open connections, per token", "entry: 64", "label: connections",
			"label: Largest answer", "entry: 8192", "label: KB",
			"label: Questions", "label: Answer within", "entry: 300", "label: seconds",
			"label: Without the app", "select: Decline them (deny)",
			"button: Save settings {high}", "button: Revert",
		}, ""},
	} {
		m.tabs.SelectIndex(tab.index)
		tab.open()
		if !tab.shows() {
			t.Errorf("the %s tab does not show what it edits", tab.name)
		}
		uitest.Capture(t, m.win, "manager-"+tab.name+".png")
		var head []string
		for i, name := range tabs {
			if i == tab.index {
				name += " {selected}"
			}
			head = append(head, "tab: "+name)
		}
		uitest.Sees(t, "the "+tab.name+" tab", uitest.SeenIn(m.win.Canvas()), append(head, tab.sees...)...)
		if tab.name != "activity" {
			fitsSmallScreen(t, m, tab.name)
		}
		if tab.index < 3 || !emptyActivityTooTall {
			uitest.Fits(t, m.win)
		} else {
			// The tabs' minimum size is the largest of theirs: once the
			// Activity tab showed, every tab is too tall.
			t.Run(tab.name+" fits a laptop", func(t *testing.T) {
				t.Skip("known: the Activity tab's empty-state line is laid out one character wide (see emptyActivityTooTall)")
				uitest.Fits(t, m.win)
			})
		}
		if tab.save != "" {
			uitest.InView(t, m.win, tab.save)
		}
	}
}

// smallScreen is the room the manager window has on an 800×600 screen,
// less a window manager's frame: every tab but Activity (which is not
// this test's) must fit it at scale 1.0.
var smallScreen = fyne.NewSize(760, 540)

// fitsSmallScreen fails t unless the tab shown in m's window, with the tab
// bar and a menu bar, fits smallScreen: whatever an editor holds, its form
// scrolls, and nothing on the tab widens the window past it.
func fitsSmallScreen(t *testing.T, m *Manager, tab string) {
	t.Helper()
	c := m.tabs.Selected().Content
	bar := m.tabs.Size().Height - c.Size().Height
	menu := widget.NewLabel("File").MinSize().Height
	need := c.MinSize().AddWidthHeight(0, bar+menu)
	t.Logf("the %s tab needs %v with its tab bar and a menu bar (the window's content, all tabs: %v)", tab, need, m.win.Content().MinSize())
	if need.Width > smallScreen.Width || need.Height > smallScreen.Height {
		t.Errorf("the %s tab needs %v, more than the %v an 800×600 screen leaves", tab, need, smallScreen)
	}
}
