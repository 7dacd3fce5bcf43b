package editor

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
	"github.com/mcptray/mcptray/app/internal/uitest"
	"github.com/mcptray/mcptray/catalog"
)

// TestInsertMenuAndPreview: a templated field's Insert ▸ lists the
// parameters, the answers of the steps asked before it (a form's fields
// by name), the secrets, mcptray's paths and the functions, and inserts
// the expression where the cursor is; the preview under it renders the
// field with Try it's sample arguments, a secret as [secret:NAME], and a
// template's mistake shows at the field as it is typed.
func TestInsertMenuAndPreview(t *testing.T) {
	uitest.NewTestApp(t)
	s := uitest.NewServed(t)
	tool := catalog.Tool{Name: "weather", Description: "d",
		Params: []catalog.Param{{Name: "city", Type: "string", Required: true}},
		Steps: []catalog.InputStep{{Key: "prefs", Kind: catalog.StepForm, Message: "Units for {{.args.city}}?",
			Schema: json.RawMessage(`{"type":"object","properties":{"units":{"type":"string","enum":["metric","imperial"]}}}`)}},
		Action: catalog.Action{HTTP: &catalog.HTTP{URL: "https://wttr.in/"}}}
	if err := s.D.Secrets().SetSecret(context.Background(), "api_token", "s3cret-value"); err != nil {
		t.Fatal(err)
	}
	e := newEditor(t, s.St, tool, true)
	e.Tmpl.ReadSecrets(s.D.Secrets()) // read off the UI thread
	e.Tmpl.Work.Wait()
	url := e.http.url

	m := url.Menu()
	for _, path := range [][]string{{"Parameter", "city"}, {"Answer of a step", "prefs", "units"}, {"Secret", "api_token"},
		{"mcptray", "Your home folder"}, {"Function", "upper: in capitals"}} {
		if uitest.MenuPath(m, path...) == nil {
			t.Fatalf("Insert ▸ has no %q", path)
		}
	}
	// The step's own message cannot use its answer: nothing is asked
	// before it.
	if it := uitest.MenuPath(e.Steps.Items[0].message.Menu(), "Answer of a step"); it == nil || len(it.ChildMenu.Items) != 1 || !it.ChildMenu.Items[0].Disabled {
		t.Fatalf("the step's message offers answers: %+v", it)
	}

	// Inserted where the cursor is, the preview follows.
	test.Type(url.Entry, "")
	url.Entry.CursorColumn = len([]rune(url.Entry.Text))
	uitest.MenuPath(m, "Parameter", "city").Action()
	test.Type(url.Entry, "?u=")
	uitest.MenuPath(m, "Answer of a step", "prefs", "units").Action()
	test.Type(url.Entry, "&k=")
	uitest.MenuPath(url.Menu(), "Secret", "api_token").Action()
	want := `https://wttr.in/{{.args.city}}?u={{.inputs.prefs.content.units}}&k={{secret "api_token"}}`
	if url.Entry.Text != want {
		t.Fatalf("after inserting: %q, want %q", url.Entry.Text, want)
	}
	e.Tmpl.Refresh()
	if !url.Preview.Visible() || url.Preview.Text != "With Try it's sample arguments: https://wttr.in/[city]?u=metric&k=[secret:api_token]" || strings.Contains(url.Preview.Text, "s3cret") {
		t.Fatalf("preview %q (shown %v)", url.Preview.Text, url.Preview.Visible())
	}
	// Try it's arguments are the samples.
	e.Try.fields[0].Entry.SetText("Paris")
	e.Tmpl.Refresh()
	if !strings.Contains(url.Preview.Text, "https://wttr.in/Paris?") {
		t.Fatalf("preview with Try it's city: %q", url.Preview.Text)
	}

	// Mistakes show at the field as they are typed, after a pause.
	for text, msg := range map[string]string{
		"https://x/{{.args.town}}":  `unknown parameter "town" (parameters: city)`,
		"https://x/{{.args.city":    `"{{" is not closed by "}}"`,
		"https://x/{{shout 1}}":     `function "shout" not defined`,
		"https://x/{{.inputs.q.a}}": `no input step before this has the key "q" (keys: prefs)`,
	} {
		url.Entry.SetText(text)
		e.Tmpl.Work.Wait()
		if p := e.Errs["action.http.url"]; !p.Visible() || !strings.Contains(p.Text, msg) || url.Preview.Visible() {
			t.Errorf("%s: the field says %q (shown %v), want %q", text, p.Text, p.Visible(), msg)
		}
	}
	url.Entry.SetText("https://x/{{.args.city}}")
	e.Tmpl.Work.Wait()
	if p := e.Errs["action.http.url"]; p.Visible() {
		t.Errorf("a right template still shows %q", p.Text)
	}
}

// TestCommandLineField: the command is one line as typed in a terminal,
// shown back as the arguments it runs; shell syntax is refused at the
// field saying why; stored, it is the argv; a program that is not found
// is a warning after saving, which goes on.
func TestCommandLineField(t *testing.T) {
	uitest.NewTestApp(t)
	s := uitest.NewServed(t)
	e := newEditor(t, s.St, catalog.Tool{}, true)
	fillBasics(e, "run_it")
	e.ActionKind.SetSelected(KindCommand)
	e.AddParam(catalog.Param{Type: "string"})
	test.Type(e.Params[0].Name, "repo")
	line := e.Command.Line
	test.Type(line.Entry, `git -C "{{.args.repo}}" log -5 '--format=%h %s'`)
	e.Tmpl.Refresh()
	if want := "It runs “git” with 5 arguments: “-C” “[repo]” “log” “-5” “--format=%h %s” (templates filled in with Try it's sample arguments)"; e.Command.runs.Text != want {
		t.Fatalf("shown back as %q\nwant %q", e.Command.runs.Text, want)
	}
	line.Entry.SetText("ls | wc -l")
	e.Tmpl.Refresh()
	if p := e.Errs["action.command.argv"]; !p.Visible() || !strings.Contains(p.Text, `"|" pipes`) || !strings.Contains(p.Text, "script") || e.Command.runs.Visible() {
		t.Fatalf("a pipe: %q (shown %v)", p.Text, p.Visible())
	}
	if e.Save() {
		t.Fatal("saved a command line with a pipe")
	}

	line.Entry.SetText("no-such-program-12a -R {{.args.repo}}")
	if !e.Save() {
		t.Fatalf("not saved: %q %v", e.Status.Text, e.Errs.Shown())
	}
	got, err := s.St.Tool(context.Background(), "run_it")
	if err != nil {
		t.Fatal(err)
	}
	if argv := got.Action.Command.Argv; len(argv) != 3 || argv[0] != "no-such-program-12a" || argv[2] != "{{.args.repo}}" {
		t.Fatalf("stored argv %q", argv)
	}
	if !e.Command.warn.Visible() || !strings.Contains(e.Command.warn.Text, "no-such-program-12a") || !strings.Contains(e.Command.warn.Text, "Saved, but it will not run yet") {
		t.Fatalf("no warning about the missing program: %q (shown %v)", e.Command.warn.Text, e.Command.warn.Visible())
	}
	line.Entry.SetText("date -R")
	if !e.Save() || e.Command.warn.Visible() {
		t.Fatalf("date: saved %q, warning %q (shown %v)", e.Status.Text, e.Command.warn.Text, e.Command.warn.Visible())
	}
}
