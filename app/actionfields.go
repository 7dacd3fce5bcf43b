package app

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/mcpcore/actions"
)

// httpFields edits an HTTP request: a tool's action or a resource's
// source. Fields the form does not show (query, timeout, size cap) are kept
// from the definition; the body, which only tools have, is the tool
// editor's.
type httpFields struct {
	method       *widget.Select
	url, headers *widget.Entry
	box          *fyne.Container
}

// newHTTPFields edits h; its problems are under errs' "<under>.…" lines.
func newHTTPFields(errs fieldErrors, under string, h *actions.HTTP) *httpFields {
	f := &httpFields{}
	f.method = widget.NewSelect(actions.HTTPMethods, nil)
	f.url = widget.NewEntry()
	f.url.SetPlaceHolder("https://…")
	f.headers = widget.NewMultiLineEntry()
	f.headers.SetPlaceHolder("Name: value, one per line (optional)")
	f.method.SetSelected("GET")
	if h != nil {
		f.method.SetSelected(cmp.Or(strings.ToUpper(h.Method), "GET"))
		f.url.SetText(string(h.URL))
		f.headers.SetText(joinMap(h.Headers, ": "))
	}
	f.box = container.NewVBox(errs.sub("Method", f.method, under+".method"), errs.sub("URL", f.url, under+".url"),
		errs.sub("Headers", f.headers, under+".headers"), errs[under])
	return f
}

// spec is the request the fields describe, over orig's other fields.
func (f *httpFields) spec(orig *actions.HTTP, under string, bad func(field string, msgs ...string)) *actions.HTTP {
	h := &actions.HTTP{}
	if orig != nil {
		*h = *orig
	}
	h.Method = f.method.Selected
	h.URL = actions.Template(strings.TrimSpace(f.url.Text))
	var msgs []string
	h.Headers, msgs = splitMap(f.headers.Text, ": ")
	bad(under+".headers", msgs...)
	return h
}

// commandFields edits a command: a tool's action or a resource's source.
// Fields the form does not show (stdin, inherited environment, output cap,
// streaming) are kept.
type commandFields struct {
	argv, dir, env, timeout *widget.Entry
	box                     *fyne.Container
}

// newCommandFields edits c; its problems are under errs' "<under>.…" lines.
func newCommandFields(errs fieldErrors, under string, c *actions.Command) *commandFields {
	f := &commandFields{}
	f.argv = widget.NewMultiLineEntry()
	f.argv.SetPlaceHolder("one argument per line, the program first (no shell)")
	f.argv.SetMinRowsVisible(3)
	f.dir = widget.NewEntry()
	f.dir.SetPlaceHolder("working directory (optional)")
	f.env = widget.NewMultiLineEntry()
	f.env.SetPlaceHolder("NAME=value, one per line (optional)")
	f.timeout = widget.NewEntry()
	f.timeout.SetPlaceHolder("optional")
	if c != nil {
		argv := make([]string, len(c.Argv))
		for i, a := range c.Argv {
			argv[i] = string(a)
		}
		f.argv.SetText(strings.Join(argv, "\n"))
		f.dir.SetText(string(c.Dir))
		f.env.SetText(joinMap(c.Env, "="))
		if c.TimeoutMs > 0 {
			f.timeout.SetText(strconv.Itoa(c.TimeoutMs))
		}
	}
	f.box = container.NewVBox(errs.sub("Command line", container.NewVBox(
		hint("One argument per line, the program first. It runs as is, never through a shell, so a value can never become a second command."),
		input(f.argv)), under+".argv"),
		errs.sub("Working folder", f.dir, under+".dir"), errs.sub("Environment", f.env, under+".env"),
		errs.sub("Time limit", container.NewHBox(fixedWidth(numberWidth, f.timeout),
			widget.NewLabel(fmt.Sprintf("milliseconds (default %v)", actions.DefaultCommandTimeout))), under+".timeoutMs"), errs[under])
	return f
}

// spec is the command the fields describe, over orig's other fields.
func (f *commandFields) spec(orig *actions.Command, under string, bad func(field string, msgs ...string)) *actions.Command {
	c := &actions.Command{}
	if orig != nil {
		*c = *orig
	}
	c.Argv = nil
	for _, a := range nonEmptyLines(f.argv.Text) {
		c.Argv = append(c.Argv, actions.Template(a))
	}
	c.Dir = actions.Template(strings.TrimSpace(f.dir.Text))
	var msgs []string
	c.Env, msgs = splitMap(f.env.Text, "=")
	bad(under+".env", msgs...)
	c.TimeoutMs = 0
	if s := strings.TrimSpace(f.timeout.Text); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			bad(under+".timeoutMs", "a whole number of milliseconds")
		}
		c.TimeoutMs = n
	}
	return c
}
