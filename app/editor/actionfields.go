package editor

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/ui"
	"github.com/mcptray/mcptray/app/words"
	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/mcpcore/actions"
)

// httpFields edits an HTTP request: a tool's action or a resource's
// source. Fields the form does not show (timeout, size cap) are kept from
// the definition; the body, which only tools have, is the tool editor's.
type httpFields struct {
	method              *widget.Select
	url, query, headers *templated
	box                 *fyne.Container
}

// newHTTPFields edits h; its problems are under errs' "<under>.…" lines.
// ctx offers Insert ▸ and previews.
func newHTTPFields(errs FieldErrors, under string, h *catalog.HTTP, ctx *templateContext) *httpFields {
	f := &httpFields{}
	f.method = widget.NewSelect(catalog.HTTPMethods, nil)
	url := widget.NewEntry()
	url.SetPlaceHolder("https://…")
	query := widget.NewMultiLineEntry()
	query.SetPlaceHolder("name=value, one per line (optional; values are escaped for you)")
	headers := widget.NewMultiLineEntry()
	headers.SetPlaceHolder("Name: value, one per line (optional)")
	f.method.SetSelected("GET")
	if h != nil {
		f.method.SetSelected(cmp.Or(strings.ToUpper(h.Method), "GET"))
		url.SetText(string(h.URL))
		query.SetText(joinMap(h.Query, "="))
		headers.SetText(joinMap(h.Headers, ": "))
	}
	action := func() int { return -1 }
	f.url, f.query, f.headers = ctx.templatedEntry(url, action), ctx.templatedEntry(query, action), ctx.templatedEntry(headers, action)
	f.box = container.NewVBox(errs.sub("Method", f.method, under+".method"), errs.templatedSub("URL", f.url, under+".url"),
		errs.templatedSub("Query parameters", f.query, under+".query"),
		errs.templatedSub("Headers", f.headers, under+".headers"), errs[under])
	return f
}

// spec is the request the fields describe, over orig's other fields.
func (f *httpFields) spec(orig *catalog.HTTP, under string, bad func(field string, msgs ...string)) *catalog.HTTP {
	h := &catalog.HTTP{}
	if orig != nil {
		*h = *orig
	}
	h.Method = f.method.Selected
	h.URL = catalog.Template(strings.TrimSpace(f.url.Entry.Text))
	var msgs []string
	h.Query, msgs = splitMap(f.query.Entry.Text, "=")
	bad(under+".query", msgs...)
	h.Headers, msgs = splitMap(f.headers.Entry.Text, ": ")
	bad(under+".headers", msgs...)
	return h
}

// entries are the fields' entries, for an editor to follow their edits.
func (f *httpFields) entries() []*widget.Entry {
	return []*widget.Entry{f.url.Entry, f.query.Entry, f.headers.Entry}
}

// Which of mcptray's environment variables a command sees, as the editor
// names the choices; inheritList is a list of names typed beside it.
const inheritList = "only these:"

var inheritChoices = ui.Choices{
	{Label: "those that locate things, no credentials (default)", Value: "default"},
	{Label: "none", Value: "none"},
	{Label: "all of mcptray's", Value: "all"},
	{Label: inheritList, Value: "list"},
}

// streamChoices say what a command's output lines do while it runs.
var streamChoices = ui.Choices{
	{Label: "nothing: the output comes at the end", Value: ""},
	{Label: "each line as progress (progress)", Value: "progress"},
	{Label: "each line as a log message (log)", Value: "log"},
}

// commandFields edit a command — a tool's action or a resource's source —
// with the program and its arguments as one command line, as a person
// types it in a terminal, shown back as the arguments it runs.
type commandFields struct {
	Line *templated
	// runs lists the arguments the line runs; warn says the program was
	// not found (a warning: saving goes on).
	runs, warn   *widget.Label
	dir, env     *templated
	stdin        *templated
	inherit      *widget.Select
	inheritNames *widget.Entry
	stream       *widget.Select
	timeout      *widget.Entry
	maxOutput    *widget.Entry
	// WinLine and winDir are what runs instead on Windows (the command's
	// "os": {"windows": …}); winRuns lists its arguments. The lines the
	// command holds for other systems are kept as they are.
	WinLine *templated
	winDir  *templated
	winRuns *widget.Label
	box     *fyne.Container
}

// newCommandFields edits c; its problems are under errs' "<under>.…"
// lines. ctx offers Insert ▸ and previews.
func newCommandFields(errs FieldErrors, under string, c *catalog.Command, ctx *templateContext) *commandFields {
	f := &commandFields{}
	line := widget.NewEntry()
	line.SetPlaceHolder("e.g. git -C {{.args.repo}} log -5 --oneline")
	dir := widget.NewEntry()
	dir.SetPlaceHolder("working folder (optional; mcptray's by default)")
	env := widget.NewMultiLineEntry()
	env.SetPlaceHolder("NAME=value, one per line (optional)")
	stdin := widget.NewMultiLineEntry()
	stdin.SetPlaceHolder("text written to the program's standard input (optional)")
	stdin.Wrapping = fyne.TextWrapWord
	f.inheritNames = widget.NewEntry()
	f.inheritNames.SetPlaceHolder("e.g. @default, HTTPS_PROXY (@default: the default ones)")
	f.timeout = widget.NewEntry()
	f.timeout.SetPlaceHolder("optional")
	f.maxOutput = widget.NewEntry()
	f.maxOutput.SetPlaceHolder("optional")
	winLine := widget.NewEntry()
	winLine.SetPlaceHolder("optional; e.g. cmd /d /c echo %DATE% %TIME%")
	winDir := widget.NewEntry()
	winDir.SetPlaceHolder("working folder on Windows (optional; the one above by default)")
	inherit, stream := "default", ""
	if c != nil {
		line.SetText(actions.JoinCommandLine(c.Argv))
		dir.SetText(string(c.Dir))
		if w, ok := c.OS["windows"]; ok {
			winLine.SetText(actions.JoinCommandLine(w.Argv))
			winDir.SetText(string(w.Dir))
		}
		env.SetText(joinMap(c.Env, "="))
		stdin.SetText(string(c.Stdin))
		switch {
		case c.InheritEnv.Names != nil:
			inherit = "list"
			f.inheritNames.SetText(strings.Join(c.InheritEnv.Names, ", "))
		case c.InheritEnv.Mode != "":
			inherit = c.InheritEnv.Mode
		}
		stream = c.Stream
		if c.TimeoutMs > 0 {
			f.timeout.SetText(inUnits(c.TimeoutMs, 1000))
		}
		if c.MaxOutputBytes > 0 {
			f.maxOutput.SetText(inUnits(c.MaxOutputBytes, 1024))
		}
	}
	f.inherit = ui.NewChoiceSelect(inheritChoices, inherit)
	f.inherit.OnChanged = func(string) { f.showNames() }
	f.showNames()
	f.stream = ui.NewChoiceSelect(streamChoices, stream)
	action := func() int { return -1 }
	f.Line = ctx.templatedEntry(line, action)
	// The line's problems are those of argv: one line shows them, live
	// and on saving.
	f.Line.problem = errs[under+".argv"]
	f.runs = ui.Hint("")
	f.Line.renderFn = func() (string, error) { return "", showRuns(f.runs, f.Line.Entry.Text, "It runs", ctx) }
	f.WinLine = ctx.templatedEntry(winLine, action)
	f.WinLine.problem = errs[under+".os"]
	f.winRuns = ui.Hint("")
	f.WinLine.renderFn = func() (string, error) {
		return "", showRuns(f.winRuns, f.WinLine.Entry.Text, "On Windows it runs", ctx)
	}
	f.winDir = ctx.templatedEntry(winDir, action)
	f.warn = ui.WrapLabel("")
	f.warn.Importance = widget.WarningImportance
	f.warn.Hide()
	f.dir, f.env, f.stdin = ctx.templatedEntry(dir, action), ctx.templatedEntry(env, action), ctx.templatedEntry(stdin, action)

	f.box = container.NewVBox(
		widget.NewLabel("Command line"),
		ui.Hint("Typed as in a terminal: the program, then its arguments; quote an argument that has spaces. It runs as is, never through a shell, so a value can never become a second argument or a command."),
		f.Line.box(), f.runs, f.warn,
		errs.templatedSub("Working folder", f.dir, under+".dir"),
		widget.NewLabel("On Windows, run instead"),
		ui.Hint("Windows lacks many programs of Linux and macOS (date, grep, find…): give the command line Windows runs in their place, or leave it empty to run the one above there too. "+
			"Windows' cmd reads its line its own way, so a value of the call reaches it only through a variable: NAME={{.args.x}} under More variables, written !NAME! after cmd /v:on."),
		f.WinLine.box(), f.winRuns,
		errs.templatedSub("Working folder on Windows", f.winDir, under+".os.windows.dir"),
		widget.NewLabel("Environment variables it sees"),
		f.inherit, ui.Input(f.inheritNames), errs[under+".inheritEnv"],
		errs.templatedSub("More variables", f.env, under+".env"),
		errs.templatedSub("Standard input", f.stdin, under+".stdin"),
		errs.sub("While it runs, its output lines send", f.stream, under+".stream"),
		errs.sub("Time limit", container.NewHBox(ui.FixedWidth(ui.NumberWidth, f.timeout),
			widget.NewLabel(fmt.Sprintf("seconds (if empty, %s)", humanDuration(actions.DefaultCommandTimeout)))), under+".timeoutMs"),
		errs.sub("Output kept", container.NewHBox(ui.FixedWidth(ui.NumberWidth, f.maxOutput),
			widget.NewLabel(fmt.Sprintf("KB of output, and of errors (if empty, %s)", byteSize(actions.DefaultMaxOutputBytes)))), under+".maxOutputBytes"),
		errs[under])
	return f
}

// showNames shows the names field only when the choice is a list.
func (f *commandFields) showNames() {
	if inheritChoices.ValueOf(f.inherit.Selected) == "list" {
		f.inheritNames.Show()
	} else {
		f.inheritNames.Hide()
	}
}

// showRuns reads a command line and shows on runs the arguments it runs,
// with the templates filled in, after lead ("It runs"); the line's
// problem is returned.
func showRuns(runs *widget.Label, line, lead string, ctx *templateContext) error {
	argv, err := actions.SplitCommandLine(line)
	if err != nil || len(argv) == 0 {
		runs.Hide()
		return err
	}
	sample, templates := ctx.sample(-1), false
	shown := make([]string, len(argv))
	for i, a := range argv {
		v, err := actions.Preview(a, sample)
		if err != nil {
			runs.Hide()
			return fmt.Errorf("%s: %w", a, err)
		}
		templates = templates || strings.Contains(string(a), "{{")
		shown[i] = "“" + v + "”"
	}
	text := fmt.Sprintf("%s %s with %s", lead, shown[0], words.Count(len(argv)-1, "argument", "arguments"))
	if len(argv) > 1 {
		text += ": " + strings.Join(shown[1:], " ")
	}
	if templates {
		text += " (templates filled in with " + ctx.samples + ")"
	}
	runs.SetText(text)
	runs.Show()
	return nil
}

// spec is the command the fields describe, over orig's other fields.
func (f *commandFields) spec(orig *catalog.Command, under string, bad func(field string, msgs ...string)) *catalog.Command {
	c := &catalog.Command{}
	if orig != nil {
		*c = *orig
	}
	argv, err := actions.SplitCommandLine(f.Line.Entry.Text)
	if err != nil {
		bad(under+".argv", err.Error())
	}
	c.Argv = argv
	c.Dir = catalog.Template(strings.TrimSpace(f.dir.Entry.Text))
	c.OS = f.osLines(c.OS, under, bad)
	var msgs []string
	c.Env, msgs = splitMap(f.env.Entry.Text, "=")
	bad(under+".env", msgs...)
	c.Stdin = catalog.Template(f.stdin.Entry.Text)
	c.InheritEnv = catalog.InheritEnv{}
	switch mode := inheritChoices.ValueOf(f.inherit.Selected); mode {
	case "list":
		c.InheritEnv.Names = []string{}
		for n := range strings.SplitSeq(f.inheritNames.Text, ",") {
			if n = strings.TrimSpace(n); n != "" {
				c.InheritEnv.Names = append(c.InheritEnv.Names, n)
			}
		}
	case "default":
		if orig != nil && orig.InheritEnv.Mode == "default" {
			c.InheritEnv.Mode = "default" // spelled out, kept so
		}
	default:
		c.InheritEnv.Mode = mode
	}
	c.Stream = streamChoices.ValueOf(f.stream.Selected)
	c.TimeoutMs = readUnits(f.timeout.Text, 1000, under+".timeoutMs", "a number of seconds, like 30 or 1.5", bad)
	c.MaxOutputBytes = readUnits(f.maxOutput.Text, 1024, under+".maxOutputBytes", "a number of KB, like 512 (1024 KB is 1 MB)", bad)
	return c
}

// osLines are the command lines for other systems: orig's, with Windows'
// as the fields say; nil when there are none, so that a command without
// any is stored as before.
func (f *commandFields) osLines(orig map[string]catalog.CommandLine, under string, bad func(field string, msgs ...string)) map[string]catalog.CommandLine {
	out := map[string]catalog.CommandLine{}
	for goos, l := range orig {
		if goos != "windows" {
			out[goos] = l
		}
	}
	line, dir := strings.TrimSpace(f.WinLine.Entry.Text), catalog.Template(strings.TrimSpace(f.winDir.Entry.Text))
	switch argv, err := actions.SplitCommandLine(line); {
	case err != nil:
		bad(under+".os", "On Windows: "+err.Error())
	case line != "":
		out["windows"] = catalog.CommandLine{Argv: argv, Dir: dir}
	case dir != "":
		bad(under+".os", "A working folder on Windows needs the command line Windows runs: give it, or clear the folder.")
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// inUnits writes n (milliseconds, bytes) in the unit a person reads,
// unit of them (seconds, KB): 1500 ms is "1.5".
func inUnits(n, unit int) string {
	return strconv.FormatFloat(float64(n)/float64(unit), 'f', -1, 64)
}

// readUnits reads a number of units (seconds, KB) typed in a field as
// the whole milliseconds or bytes stored: empty is 0, anything but a
// number ≥ 0 is a problem.
func readUnits(text string, unit int, field, want string, bad func(field string, msgs ...string)) int {
	s := strings.TrimSpace(text)
	if s == "" {
		return 0
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || math.IsInf(f, 0) || f*float64(unit) > math.MaxInt32 {
		bad(field, want)
		return 0
	}
	return int(math.Round(f * float64(unit)))
}

// humanDuration says d in minutes or seconds: "1 minute", "90 seconds".
func humanDuration(d time.Duration) string {
	if d >= time.Minute && d%time.Minute == 0 {
		return words.Count(int(d/time.Minute), "minute", "minutes")
	}
	return words.Count(int(d/time.Second), "second", "seconds")
}

// checkProgram shows a warning when the program of c cannot be found
// (not on PATH, or not at its path): the call would fail, but the tool
// may be meant for another computer, so saving goes on.
func (f *commandFields) checkProgram(c *catalog.Command, server map[string]string) {
	_, known, err := actions.LocateProgram(c, server)
	if !known || err == nil {
		f.warn.Hide()
		return
	}
	msg := err.Error()
	if errors.Is(err, actions.ErrProgramNotFound) {
		msg = "Saved, but it will not run yet: " + msg + ". Install the program, or give its full path."
	}
	f.warn.SetText(msg)
	f.warn.Show()
}

// entries are the fields' entries, for an editor to follow their edits.
func (f *commandFields) entries() []*widget.Entry {
	return []*widget.Entry{f.Line.Entry, f.dir.Entry, f.WinLine.Entry, f.winDir.Entry, f.env.Entry, f.stdin.Entry, f.inheritNames, f.timeout, f.maxOutput}
}

// selects are the fields' selects, for an editor to follow their edits.
func (f *commandFields) selects() []*widget.Select { return []*widget.Select{f.inherit, f.stream} }
