package app

import (
	"context"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/internal/uitest"
	"github.com/mcptray/mcptray/internal/testutil"
)

// newImportManager is a manager on a real server whose secret store it
// manages (as the desktop app's does), with its window shown.
func newImportManager(t *testing.T, size fyne.Size) (*Manager, *uitest.Served) {
	t.Helper()
	a := uitest.NewTestApp(t)
	s := uitest.NewServed(t)
	m := NewManager(a, Config{Store: s.St, Approvals: s.Eng, Secrets: s.D.Secrets()})
	t.Cleanup(m.win.Close)
	m.win.Resize(size)
	m.win.Show()
	return m, s
}

// checkNamed is the check whose text starts with prefix.
func checkNamed(t *testing.T, root fyne.CanvasObject, prefix string) *widget.Check {
	t.Helper()
	return firstIn(t, root, "check "+prefix, func(c *widget.Check) bool { return strings.HasPrefix(c.Text, prefix) })
}

func TestRenderCurlImport(t *testing.T) {
	m, s := newImportManager(t, fyne.NewSize(1000, 760))
	api := testutil.NewAPI(t)
	c := m.showCurlImport()
	if !c.create.Disabled() {
		t.Error("Create is enabled before a command is pasted")
	}
	c.name.SetText("weather")
	c.command.SetText("curl -H \"Authorization: Bearer abc123\" \\\n  \"" + api.URL + "/v1/weather?city=Paris\"")
	test.Tap(checkNamed(t, m.win.Canvas().Overlays().Top(), `Make the query parameter "city"`))

	// What a person sees, in reading order: the command, the call, each
	// credential with its secret (the value never whole), each value with
	// its check, then the request the tool will send.
	uitest.Sees(t, "the curl dialog", uitest.SeenIn(m.win.Canvas()),
		"label: curl command", `re:(?s)entry: curl -H "Authorization: Bearer abc123".*`,
		"label: It is read here, never run. Credentials in it (tokens, API keys, passwords) become secrets: the tool holds only their names.",
		"label: Tool name", "entry: weather",
		"label: It calls GET "+api.URL+"/v1/weather.",
		"label: Its values",
		"check: [ ] Make the path segment 1 (v1) a parameter",
		"check: [ ] Make the path segment 2 (weather) a parameter",
		`check: [x] Make the query parameter "city" (Paris) a parameter`, "label: Parameter name", "entry: city",
		`label: The header "Authorization" (abc••••) is a credential: it becomes the secret`, "entry: weather_token",
		"label: The request the tool sends",
		"label: GET "+api.URL+"/v1/weather\n  query city = {{.args.city}}\n  Authorization: Bearer {{secret \"weather_token\"}}\n\nParameters: city (string)",
		"button: Cancel", "button: Create tool {high}",
	)
	// Past the command pasted, the token shows nowhere.
	shown := uitest.SeenIn(m.win.Canvas())
	uitest.SeesNone(t, "the curl dialog", slices.DeleteFunc(shown, func(l string) bool { return strings.HasPrefix(l, "entry: curl ") }), "abc123")
	uitest.Capture(t, m.win, "curl-import.png")
	test.Tap(c.create)
	m.background.Wait()
	if m.win.Canvas().Overlays().Top() != nil {
		t.Errorf("the dialog is still open: %v", uitest.SeenIn(m.win.Canvas()))
	}
	if e := m.Editor(); e == nil || e.Name.Text != "weather" {
		t.Fatal("the new tool is not open in the editor")
	}
	export, _ := s.St.Export(context.Background())
	if stored := testutil.MustJSON(t, export); len(export.Tools) != 1 || strings.Contains(stored, "abc123") {
		t.Fatalf("stored %s", stored)
	}
	if v, err := s.D.Secrets().Secret(context.Background(), "weather_token"); err != nil || v != "abc123" {
		t.Fatalf("secret weather_token = %q, %v", v, err)
	}
	if got := s.CallText(t, "weather", map[string]any{"city": "Oslo"}); got != testutil.APIReply {
		t.Errorf("the call returned %q", got)
	}
	if r := api.Last(t); r.Header.Get("Authorization") != "Bearer abc123" || r.Query().Get("city") != "Oslo" {
		t.Errorf("the API got %s?%s with %q", r.Path, r.RawQuery, r.Header.Get("Authorization"))
	}

	// A command that cannot be a tool says why; the same name again is
	// refused at Create with the reason, and nothing is written.
	c = m.showCurlImport()
	c.command.SetText("curl -k https://example.com")
	if !strings.HasPrefix(c.summary.Text, "This command cannot become a tool: -k/--insecure turns off") || !c.create.Disabled() {
		t.Errorf("-k: %q, create disabled %v", c.summary.Text, c.create.Disabled())
	}
	c.name.SetText("weather")
	c.command.SetText("curl " + api.URL + "/other")
	test.Tap(c.create)
	m.background.Wait()
	if !strings.Contains(c.preview.Text, "Not created: ") || !strings.Contains(c.preview.Text, "the catalog already has a tool of this name") {
		t.Errorf("a clash shows %q", c.preview.Text)
	}
}
