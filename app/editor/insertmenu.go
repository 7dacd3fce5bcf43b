package editor

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/ui"
	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/mcpcore/actions"
	"github.com/mcptray/mcptray/storage"
)

// This file holds what every templated field of the editors has: an
// Insert ▸ menu listing what a template can use at that point — the
// parameters, the answers of the steps asked before, the secrets by name,
// mcptray's own paths, the functions — and a live preview under the field,
// rendered with Try it's sample arguments (a secret shows as
// [secret:NAME]), or the template's error, as the person types.

// previewDelay is how long typing must pause before the previews follow.
const previewDelay = 250 * time.Millisecond

// stepInfo is an input step as a template can use its answer.
type stepInfo struct {
	key, kind string
	round     int
	// fields are a form's field names, in order.
	fields []string
	// answer is a sample answer, for the previews.
	answer any
}

// secretLister lists the secrets' names: the server's secret store.
type secretLister interface {
	SecretNames(ctx context.Context) ([]string, error)
}

// storedSecrets lists the names of the server's secrets.
type storedSecrets struct{ sec *storage.Secrets }

func (s storedSecrets) SecretNames(ctx context.Context) ([]string, error) {
	list, err := s.sec.ListSecrets(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing the secrets: %w", err)
	}
	names := make([]string, len(list))
	for i, x := range list {
		names[i] = x.Name
	}
	return names, nil
}

// afterAllRounds is the round of what is asked after every step (the
// implicit approval): no step's own fields can use its answer.
const afterAllRounds = 1 << 30

// templateContext is what an editor's templated fields insert and preview
// with: it asks the editor for its parameters and steps each time, so it
// follows the form as it changes.
type templateContext struct {
	// params are the parameters' names and sample values; nil names mean
	// any name goes (a hand-written input schema).
	params func() (names []string, sample map[string]any)
	// steps are the input steps in the order they are asked.
	steps func() []stepInfo
	// server are the values of .server.
	server map[string]string
	// samples names the sample values the previews use, for people: Try
	// it's arguments in the tool editor.
	samples string
	// secrets, when set, lists the secrets' names, read off the UI thread.
	secrets secretLister

	fields []*templated
	mu     sync.Mutex
	gen    uint64
	// names are the secrets' names, once read.
	names []string
	// Work counts the reading of secrets and the previews scheduled, for
	// tests to wait for.
	Work sync.WaitGroup
}

// newTemplateContext makes the context of an editor whose database is db.
func newTemplateContext(db string, params func() ([]string, map[string]any), steps func() []stepInfo) *templateContext {
	exe, _ := os.Executable()
	home, _ := os.UserHomeDir()
	return &templateContext{params: params, steps: steps, samples: "sample values",
		server: map[string]string{"executable": exe, "db": db, "home": home}}
}

// ReadSecrets lets Insert ▸ list the secrets of the server's store (nil:
// none), read in the background, once.
func (c *templateContext) ReadSecrets(sec *storage.Secrets) {
	if sec != nil {
		c.setSecrets(storedSecrets{sec})
	}
}

// setSecrets lets Insert ▸ list the secrets; they are read in the
// background, once.
func (c *templateContext) setSecrets(s secretLister) {
	c.secrets = s
	if s == nil {
		return
	}
	c.Work.Add(1)
	go func() {
		defer c.Work.Done()
		names, err := s.SecretNames(context.Background())
		if err != nil {
			return // Insert ▸ then says none are readable
		}
		fyne.Do(func() {
			c.mu.Lock()
			c.names = names
			c.mu.Unlock()
		})
	}()
}

// sample is the data the previews render with: for a step's own fields,
// only the answers of earlier rounds exist (before < 0: all steps).
func (c *templateContext) sample(before int) actions.Sample {
	names, args := c.params()
	s := actions.Sample{Args: args, Inputs: map[string]any{}, Server: c.server, Params: names}
	for _, st := range c.steps() {
		if before >= 0 && st.round >= before {
			continue
		}
		s.Steps = append(s.Steps, st.key)
		s.Inputs[st.key] = st.answer
	}
	return s
}

// changed follows an edit anywhere in the editor: once typing pauses,
// every preview is rendered again.
func (c *templateContext) changed() {
	c.mu.Lock()
	c.gen++
	gen := c.gen
	c.mu.Unlock()
	c.Work.Add(1)
	time.AfterFunc(previewDelay, func() {
		defer c.Work.Done()
		fyne.Do(func() {
			c.mu.Lock()
			stale := gen != c.gen
			c.mu.Unlock()
			if !stale {
				c.Refresh()
			}
		})
	})
}

// Refresh renders every preview now.
func (c *templateContext) Refresh() {
	for _, f := range c.fields {
		f.render()
	}
}

// templated is a field holding a template, with its Insert ▸ button and
// its preview line.
type templated struct {
	ctx   *templateContext
	Entry *widget.Entry
	// round is the round of the step the field belongs to (its message or
	// URL): only earlier rounds' answers exist then; -1 for the action.
	round   func() int
	insert  *widget.Button
	Preview *widget.Label
	// problem shows the template's error: the field's own error line,
	// which Save uses too; own says the preview put what it shows.
	problem *widget.Label
	own     bool
	// render shows the preview; a field whose text is no single template
	// (the command line) sets its own.
	renderFn func() (string, error)
}

// templatedEntry decorates entry with Insert ▸ and a preview.
func (c *templateContext) templatedEntry(entry *widget.Entry, round func() int) *templated {
	t := &templated{ctx: c, Entry: entry, round: round}
	t.Preview = ui.Hint("")
	t.Preview.Hide()
	t.problem = ui.FieldError()
	t.insert = widget.NewButtonWithIcon("Insert", theme.MenuExpandIcon(), t.showMenu)
	t.insert.IconPlacement = widget.ButtonIconTrailingText
	t.insert.Importance = widget.LowImportance
	c.fields = append(c.fields, t)
	return t
}

// box is the entry with Insert ▸ at its right, the preview and the
// template's problem under it.
func (t *templated) box() fyne.CanvasObject {
	return container.NewVBox(container.NewBorder(nil, nil, nil, container.NewVBox(t.insert), ui.Input(t.Entry)), t.Preview, t.problem)
}

// templatedSub is a plain-labelled templated field, its template's
// problems on the field's error line of errs.
func (f FieldErrors) templatedSub(label string, t *templated, key string) fyne.CanvasObject {
	t.problem = f[key]
	return container.NewVBox(widget.NewLabel(label), t.box())
}

// render shows the field's preview, or its template's error.
func (t *templated) render() {
	var out string
	var err error
	if t.renderFn != nil {
		out, err = t.renderFn()
	} else {
		if !strings.Contains(t.Entry.Text, "{{") {
			t.Preview.Hide()
			if t.own {
				ui.SetFieldError(t.problem, nil)
				t.own = false
			}
			return
		}
		out, err = actions.Preview(catalog.Template(t.Entry.Text), t.ctx.sample(t.round()))
	}
	if err != nil {
		t.Preview.Hide()
		ui.SetFieldError(t.problem, []string{err.Error()})
		t.own = true
		return
	}
	if t.own {
		ui.SetFieldError(t.problem, nil)
		t.own = false
	}
	if out == "" {
		t.Preview.Hide()
		return
	}
	t.Preview.SetText("With " + t.ctx.samples + ": " + out)
	t.Preview.Show()
}

// insertText types s into the entry where its cursor is, as one edit.
func (t *templated) insertText(s string) {
	cb := t.Entry.OnChanged
	t.Entry.OnChanged = nil
	for _, r := range s {
		t.Entry.TypedRune(r)
	}
	t.Entry.OnChanged = cb
	if cb != nil {
		cb(t.Entry.Text)
	}
	if c := fyne.CurrentApp().Driver().CanvasForObject(t.Entry); c != nil {
		c.Focus(t.Entry)
	}
}

// showMenu pops up the Insert menu under its button.
func (t *templated) showMenu() {
	c := fyne.CurrentApp().Driver().CanvasForObject(t.insert)
	if c == nil {
		return
	}
	menu := t.Menu()
	pos := fyne.CurrentApp().Driver().AbsolutePositionForObject(t.insert).AddXY(0, t.insert.Size().Height)
	widget.ShowPopUpMenuAtPosition(menu, c, pos)
}

// Menu is what the field can insert, as a menu of submenus.
func (t *templated) Menu() *fyne.Menu {
	item := func(label, text string) *fyne.MenuItem {
		return fyne.NewMenuItem(label, func() { t.insertText(text) })
	}
	none := func(label string) *fyne.MenuItem {
		it := fyne.NewMenuItem(label, nil)
		it.Disabled = true
		return it
	}
	sub := func(label string, items []*fyne.MenuItem) *fyne.MenuItem {
		it := fyne.NewMenuItem(label, nil)
		it.ChildMenu = fyne.NewMenu("", items...)
		return it
	}
	names, _ := t.ctx.params()
	var params []*fyne.MenuItem
	for _, n := range names {
		params = append(params, item(n, "{{.args."+n+"}}"))
	}
	if len(params) == 0 {
		params = append(params, none("No parameters yet (add them under Parameters)"))
	}
	var answers []*fyne.MenuItem
	round := t.round()
	for _, st := range t.ctx.steps() {
		if round >= 0 && st.round >= round {
			continue
		}
		answers = append(answers, sub(st.key, answerItems(st, item)))
	}
	if len(answers) == 0 {
		answers = append(answers, none("No input steps are asked before this"))
	}
	t.ctx.mu.Lock()
	secretNames := t.ctx.names
	t.ctx.mu.Unlock()
	var secrets []*fyne.MenuItem
	for _, n := range secretNames {
		secrets = append(secrets, item(n, fmt.Sprintf("{{secret %q}}", n)))
	}
	if len(secrets) == 0 {
		secrets = append(secrets, none("No secrets yet (add them in Settings › Secrets)"))
	}
	// A function is inserted applied to the first parameter, for the
	// person to change.
	first := ".args.NAME"
	if len(names) > 0 {
		first = ".args." + names[0]
	}
	return fyne.NewMenu("",
		sub("Parameter", params),
		sub("Answer of a step", answers),
		sub("Secret", secrets),
		sub("mcptray", []*fyne.MenuItem{
			item("Your home folder", "{{.server.home}}"),
			item("The mcptray program", "{{.server.executable}}"),
			item("mcptray's database", "{{.server.db}}"),
		}),
		sub("Function", []*fyne.MenuItem{
			item("default: a value when it is empty", `{{default "…" `+first+`}}`),
			item("upper: in capitals", "{{upper "+first+"}}"),
			item("lower: in small letters", "{{lower "+first+"}}"),
			item("trim: without spaces around", "{{trim "+first+"}}"),
			item("json: as JSON", "{{json "+first+"}}"),
			item("pathescape: for a URL's path", "{{pathescape "+first+"}}"),
			item("urlquery: for a URL's query", "{{urlquery "+first+"}}"),
		}),
	)
}

// answerItems are what a step's answer offers to insert.
func answerItems(st stepInfo, item func(label, text string) *fyne.MenuItem) []*fyne.MenuItem {
	in := "{{.inputs." + st.key
	switch st.kind {
	case catalog.StepForm:
		var out []*fyne.MenuItem
		for _, f := range st.fields {
			out = append(out, item(f, in+".content."+f+"}}"))
		}
		return append(out, item("the whole answer, as JSON", "{{json .inputs."+st.key+".content}}"))
	case catalog.StepApproval:
		return []*fyne.MenuItem{item("allowed (true or false)", in+".approved}}"), item("the reason given", in+".reason}}")}
	case catalog.StepSampling:
		return []*fyne.MenuItem{item("the model's answer", in+".text}}"), item("the model's name", in+".model}}")}
	case catalog.StepRoots:
		return []*fyne.MenuItem{item("the folders, as JSON", "{{json .inputs."+st.key+".roots}}")}
	}
	return []*fyne.MenuItem{item("accepted or not (action)", in+".action}}")}
}

// sampleAnswer is an answer a step of this kind could get, for the
// previews: a form's fields hold their defaults or a sample of their type.
func sampleAnswer(st catalog.InputStep) (any, []string) {
	switch st.Kind {
	case catalog.StepForm:
		fields, _ := ui.ParseForm(st.Schema)
		content := map[string]any{}
		var names []string
		for _, f := range fields {
			names = append(names, f.Name)
			switch {
			case f.Def != nil:
				content[f.Name] = f.Def
			case len(f.Options) > 0 && f.Typ != "array":
				content[f.Name] = f.Options[0].Value
			case f.Typ == "array" && len(f.Options) > 0:
				content[f.Name] = []any{f.Options[0].Value}
			case f.Typ == "boolean":
				content[f.Name] = true
			case f.Typ == "integer" || f.Typ == "number":
				content[f.Name] = 1
			default:
				content[f.Name] = "[" + f.Title + "]"
			}
		}
		return map[string]any{"action": "accept", "content": content}, names
	case catalog.StepApproval:
		return map[string]any{"action": "accept", "approved": true}, nil
	case catalog.StepSampling:
		return map[string]any{"text": "[the model's answer]", "model": "[the model]", "role": "assistant"}, nil
	case catalog.StepRoots:
		return map[string]any{"roots": []any{map[string]any{"uri": "file:///home/me/project", "name": "project"}}}, nil
	}
	return map[string]any{"action": "accept"}, nil
}
