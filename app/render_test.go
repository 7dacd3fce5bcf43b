package app

import (
	"context"
	"encoding/json"
	"testing"

	"fyne.io/fyne/v2"

	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/mcpcore/actions"
)

// TestRenderManagerTabs renders the manager's tabs with an editor open on
// each catalog tab, for people to look at (MCPTRAY_SHOTS keeps them); the
// checks are that each shows what it edits.
func TestRenderManagerTabs(t *testing.T) {
	m, s := newTestManager(t)
	ctx := context.Background()
	if err := s.st.Import(ctx, &mcpcore.Catalog{Format: mcpcore.CatalogFormat, Version: mcpcore.CatalogVersion,
		Tools: []mcpcore.Tool{{Name: "weather", Title: "Weather", Description: "Today's weather in a city.",
			Params: []mcpcore.Param{{Name: "city", Type: "string", Required: true, Description: "City name"}},
			Steps:  []mcpcore.InputStep{{Key: "units", Kind: mcpcore.StepForm, Message: "Which units?", Schema: json.RawMessage(`{"type":"object","properties":{"units":{"type":"string","enum":["metric","imperial"]}}}`)}},
			Action: actions.Spec{HTTP: &actions.HTTP{URL: "https://wttr.in/{{pathescape .args.city}}", Query: map[string]actions.Template{"format": "3"}}}}},
		Resources: []mcpcore.Resource{{URI: "notes://todo", Name: "todo", Title: "My to-do list", MimeType: "text/markdown", Text: "- buy milk"}},
		Prompts: []mcpcore.Prompt{{Name: "review", Title: "Review code", Description: "Reviews a change.",
			Arguments: []mcpcore.PromptArgument{{Name: "diff", Required: true}},
			Messages: []mcpcore.PromptMessage{{Role: "user", Content: actions.Content{Type: "text", Text: "Review this change:\n{{.args.diff}}"}},
				{Role: "user", Content: actions.Content{Type: "resource_link", URI: "notes://style", Name: "style guide"}}}}},
	}, true); err != nil {
		t.Fatal(err)
	}
	m.reloadEntries()
	m.win.Resize(fyne.NewSize(1100, 900))
	m.win.Show()
	for _, tab := range []struct {
		name  string
		index int
		open  func()
		shows func() bool
	}{
		{"tools", 0, func() { m.tools.list.Select(0) }, func() bool { return m.editor != nil && m.editor.name.Text == "weather" }},
		{"resources", 1, func() { m.resources.list.Select(0) }, func() bool { return m.resEditor != nil && m.resEditor.uri.Text == "notes://todo" }},
		{"prompts", 2, func() { m.prompts.list.Select(0) }, func() bool {
			return m.promptEditor != nil && len(m.promptEditor.messages.items) == 2 && m.promptEditor.messages.items[1].kind.Selected == "Resource link"
		}},
		// Shown, the tab follows the log from a goroutine: stopped, it
		// leaves the canvas to the capture.
		{"activity", 3, m.activity.stopAndWait, func() bool { return true }},
		{"settings", 4, func() {}, func() bool { return m.settings.name.Text == "mcptray" }},
	} {
		m.tabs.SelectIndex(tab.index)
		tab.open()
		if !tab.shows() {
			t.Errorf("the %s tab does not show what it edits", tab.name)
		}
		capture(t, m.win, "manager-"+tab.name+".png")
	}
}
