package app

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/mcptray/mcptray/catalog"
)

// menuPath is the item of m reached through labels, nil when there is
// none.
func menuPath(m *fyne.Menu, labels ...string) *fyne.MenuItem {
	for i, l := range labels {
		var found *fyne.MenuItem
		for _, it := range m.Items {
			if it.Label == l {
				found = it
			}
		}
		if found == nil || i == len(labels)-1 {
			return found
		}
		if found.ChildMenu == nil {
			return nil
		}
		m = found.ChildMenu
	}
	return nil
}

// TestInsertMenuAndPreview: a templated field's Insert ▸ lists the
// parameters, the answers of the steps asked before it (a form's fields
// by name), the secrets, mcptray's paths and the functions, and inserts
// the expression where the cursor is; the preview under it renders the
// field with Try it's sample arguments, a secret as [secret:NAME], and a
// template's mistake shows at the field as it is typed.
func TestInsertMenuAndPreview(t *testing.T) {
	newTestApp(t)
	s := newServed(t)
	tool := catalog.Tool{Name: "weather", Description: "d",
		Params: []catalog.Param{{Name: "city", Type: "string", Required: true}},
		Steps: []catalog.InputStep{{Key: "prefs", Kind: catalog.StepForm, Message: "Units for {{.args.city}}?",
			Schema: json.RawMessage(`{"type":"object","properties":{"units":{"type":"string","enum":["metric","imperial"]}}}`)}},
		Action: catalog.Action{HTTP: &catalog.HTTP{URL: "https://wttr.in/"}}}
	if err := s.d.Secrets().SetSecret(context.Background(), "api_token", "s3cret-value"); err != nil {
		t.Fatal(err)
	}
	e := newEditor(t, s.st, tool, true)
	e.tmpl.readSecrets(s.d.Secrets()) // read off the UI thread
	e.tmpl.work.Wait()
	url := e.http.url

	m := url.menu()
	for _, path := range [][]string{{"Parameter", "city"}, {"Answer of a step", "prefs", "units"}, {"Secret", "api_token"},
		{"mcptray", "Your home folder"}, {"Function", "upper: in capitals"}} {
		if menuPath(m, path...) == nil {
			t.Fatalf("Insert ▸ has no %q", path)
		}
	}
	// The step's own message cannot use its answer: nothing is asked
	// before it.
	if it := menuPath(e.steps.items[0].message.menu(), "Answer of a step"); it == nil || len(it.ChildMenu.Items) != 1 || !it.ChildMenu.Items[0].Disabled {
		t.Fatalf("the step's message offers answers: %+v", it)
	}

	// Inserted where the cursor is, the preview follows.
	test.Type(url.entry, "")
	url.entry.CursorColumn = len([]rune(url.entry.Text))
	menuPath(m, "Parameter", "city").Action()
	test.Type(url.entry, "?u=")
	menuPath(m, "Answer of a step", "prefs", "units").Action()
	test.Type(url.entry, "&k=")
	menuPath(url.menu(), "Secret", "api_token").Action()
	want := `https://wttr.in/{{.args.city}}?u={{.inputs.prefs.content.units}}&k={{secret "api_token"}}`
	if url.entry.Text != want {
		t.Fatalf("after inserting: %q, want %q", url.entry.Text, want)
	}
	e.tmpl.refresh()
	if !url.preview.Visible() || url.preview.Text != "With Try it's sample arguments: https://wttr.in/[city]?u=metric&k=[secret:api_token]" || strings.Contains(url.preview.Text, "s3cret") {
		t.Fatalf("preview %q (shown %v)", url.preview.Text, url.preview.Visible())
	}
	// Try it's arguments are the samples.
	e.try.fields[0].entry.SetText("Paris")
	e.tmpl.refresh()
	if !strings.Contains(url.preview.Text, "https://wttr.in/Paris?") {
		t.Fatalf("preview with Try it's city: %q", url.preview.Text)
	}

	// Mistakes show at the field as they are typed, after a pause.
	for text, msg := range map[string]string{
		"https://x/{{.args.town}}":  `unknown parameter "town" (parameters: city)`,
		"https://x/{{.args.city":    `"{{" is not closed by "}}"`,
		"https://x/{{shout 1}}":     `function "shout" not defined`,
		"https://x/{{.inputs.q.a}}": `no input step before this has the key "q" (keys: prefs)`,
	} {
		url.entry.SetText(text)
		e.tmpl.work.Wait()
		if p := e.errs["action.http.url"]; !p.Visible() || !strings.Contains(p.Text, msg) || url.preview.Visible() {
			t.Errorf("%s: the field says %q (shown %v), want %q", text, p.Text, p.Visible(), msg)
		}
	}
	url.entry.SetText("https://x/{{.args.city}}")
	e.tmpl.work.Wait()
	if p := e.errs["action.http.url"]; p.Visible() {
		t.Errorf("a right template still shows %q", p.Text)
	}
}

// TestCommandLineField: the command is one line as typed in a terminal,
// shown back as the arguments it runs; shell syntax is refused at the
// field saying why; stored, it is the argv; a program that is not found
// is a warning after saving, which goes on.
func TestCommandLineField(t *testing.T) {
	newTestApp(t)
	s := newServed(t)
	e := newEditor(t, s.st, catalog.Tool{}, true)
	fillBasics(e, "run_it")
	e.actionKind.SetSelected(kindCommand)
	e.addParam(catalog.Param{Type: "string"})
	test.Type(e.params[0].name, "repo")
	line := e.command.line
	test.Type(line.entry, `git -C "{{.args.repo}}" log -5 '--format=%h %s'`)
	e.tmpl.refresh()
	if want := "It runs “git” with 5 arguments: “-C” “[repo]” “log” “-5” “--format=%h %s” (templates filled in with Try it's sample arguments)"; e.command.runs.Text != want {
		t.Fatalf("shown back as %q\nwant %q", e.command.runs.Text, want)
	}
	line.entry.SetText("ls | wc -l")
	e.tmpl.refresh()
	if p := e.errs["action.command.argv"]; !p.Visible() || !strings.Contains(p.Text, `"|" pipes`) || !strings.Contains(p.Text, "script") || e.command.runs.Visible() {
		t.Fatalf("a pipe: %q (shown %v)", p.Text, p.Visible())
	}
	if e.Save() {
		t.Fatal("saved a command line with a pipe")
	}

	line.entry.SetText("no-such-program-12a -R {{.args.repo}}")
	if !e.Save() {
		t.Fatalf("not saved: %q %v", e.status.Text, visibleErrors(e))
	}
	got, err := s.st.Tool(context.Background(), "run_it")
	if err != nil {
		t.Fatal(err)
	}
	if argv := got.Action.Command.Argv; len(argv) != 3 || argv[0] != "no-such-program-12a" || argv[2] != "{{.args.repo}}" {
		t.Fatalf("stored argv %q", argv)
	}
	if !e.command.warn.Visible() || !strings.Contains(e.command.warn.Text, "no-such-program-12a") || !strings.Contains(e.command.warn.Text, "Saved, but it will not run yet") {
		t.Fatalf("no warning about the missing program: %q (shown %v)", e.command.warn.Text, e.command.warn.Visible())
	}
	line.entry.SetText("date -R")
	if !e.Save() || e.command.warn.Visible() {
		t.Fatalf("date: saved %q, warning %q (shown %v)", e.status.Text, e.command.warn.Text, e.command.warn.Visible())
	}
}
