// Package uitest holds what the desktop packages' tests share: one Fyne
// test app, a real server on a temporary database to check what the
// windows save, and ways to read what a window shows (its texts, whether
// it fits a laptop screen, a screenshot).
package uitest

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/daemon"
	"github.com/mcptray/mcptray/internal/localefix"
	"github.com/mcptray/mcptray/internal/testserver"
	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/storage"
	"github.com/mcptray/mcptray/upstream"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/zalando/go-keyring"
)

// SeenIn is what a person sees on c: one line per visible label, button,
// entry, check, select, radio choice, progress bar and tab, in reading
// order (the children of a container or widget top to bottom, then left
// to right), the overlays last. Positions and sizes are left out, so the
// render tests survive layout changes that keep the texts, their order and
// their states. The lines read:
//
//	label: Text {danger}           importance, when not the default
//	button: Deny {high}            {disabled} too; (delete icon) when no text
//	entry: typed text              entry: (placeholder) when empty
//	check: [x] Breakfast included
//	select: double                 select: (placeholder) when none
//	radio: (•) HTTP with a token
//	progress: 3/10                 progress: running (no total)
//	tab: Tools {selected}
//	text: Port                     a widget.Form's caption, a RichText
func SeenIn(c fyne.Canvas) []string {
	out := Seen(c.Content())
	for _, o := range c.Overlays().List() {
		out = append(out, Seen(o)...)
	}
	return out
}

// Seen is seenIn for the objects under o.
func Seen(o fyne.CanvasObject) []string {
	var out []string
	add := func(kind, text string, o fyne.CanvasObject, flags ...string) {
		if d, ok := o.(fyne.Disableable); ok && d.Disabled() {
			flags = append(flags, "disabled")
		}
		line := kind + ": " + text
		if len(flags) > 0 {
			line += " {" + strings.Join(flags, ", ") + "}"
		}
		out = append(out, line)
	}
	var visit func(fyne.CanvasObject)
	// Tree order is not reading order: a Border container lists its
	// centre before its top.
	visitAll := func(objs []fyne.CanvasObject) {
		objs = slices.Clone(objs)
		slices.SortStableFunc(objs, func(a, b fyne.CanvasObject) int {
			pa, pb := a.Position(), b.Position()
			if c := cmp.Compare(pa.Y, pb.Y); c != 0 {
				return c
			}
			return cmp.Compare(pa.X, pb.X)
		})
		for _, o := range objs {
			visit(o)
		}
	}
	visit = func(o fyne.CanvasObject) {
		if o == nil || !o.Visible() {
			return // nor anything under it
		}
		if x, ok := o.(extension); ok {
			o = x.Extends() // shows as the widget it extends
		}
		switch w := o.(type) {
		case *widget.Label:
			if w.Text != "" {
				add("label", w.Text, w, importance(w.Importance)...)
			}
		case *widget.Button:
			text := w.Text
			if text == "" && w.Icon != nil {
				name := strings.TrimPrefix(w.Icon.Name(), string(theme.ColorNameForeground)+"_")
				text = "(" + strings.TrimSuffix(name, ".svg") + " icon)"
			}
			add("button", text, w, importance(w.Importance)...)
		case *widget.Entry:
			if w.Text == "" {
				add("entry", "("+w.PlaceHolder+")", w)
			} else {
				add("entry", w.Text, w)
			}
		case *widget.Check:
			mark := "[ ]"
			if w.Checked {
				mark = "[x]"
			}
			add("check", strings.TrimSpace(mark+" "+w.Text), w)
		case *widget.Select:
			if w.Selected == "" {
				add("select", "("+w.PlaceHolder+")", w)
			} else {
				add("select", w.Selected, w)
			}
		case *widget.RadioGroup:
			for _, opt := range w.Options {
				mark := "( ) "
				if opt == w.Selected {
					mark = "(•) "
				}
				add("radio", mark+opt, w)
			}
		case *widget.ProgressBar:
			add("progress", fmt.Sprintf("%g/%g", w.Value, w.Max), w)
		case *widget.ProgressBarInfinite:
			add("progress", "running", w)
		case *widget.RichText:
			if text := w.String(); text != "" {
				add("text", text, w)
			}
		case *canvas.Text: // a widget.Form's captions
			if w.Text != "" {
				add("text", w.Text, w)
			}
		case *widget.TextGrid:
			add("textgrid", w.Text(), w)
		case *container.AppTabs:
			for _, it := range w.Items {
				var flags []string
				if it == w.Selected() {
					flags = append(flags, "selected")
				}
				add("tab", it.Text, w, flags...)
			}
			if sel := w.Selected(); sel != nil {
				visit(sel.Content)
			}
		case *fyne.Container:
			visitAll(w.Objects)
		case fyne.Widget:
			visitAll(test.WidgetRenderer(w).Objects())
		}
	}
	visit(o)
	return out
}

// importance is the flag of a label's or button's colour, if it has one.
func importance(i widget.Importance) []string {
	name, ok := map[widget.Importance]string{
		widget.LowImportance: "low", widget.HighImportance: "high", widget.DangerImportance: "danger",
		widget.WarningImportance: "warning", widget.SuccessImportance: "success",
	}[i]
	if !ok {
		return nil
	}
	return []string{name}
}

// Sees fails t unless got has the lines want, in that order (others may
// come between them). A want starting with "re:" is a regular expression
// a whole line must match (for times and ids).
func Sees(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	is := func(w string) func(string) bool {
		if re, ok := strings.CutPrefix(w, "re:"); ok {
			return regexp.MustCompile("^(?:" + re + ")$").MatchString
		}
		return func(line string) bool { return line == w }
	}
	i := 0
	for k, w := range want {
		j := slices.IndexFunc(got[i:], is(w))
		if j < 0 {
			if slices.ContainsFunc(got, is(w)) {
				t.Errorf("%s shows %q, but not after %q; it shows:\n\t%s", what, w, want[k-1], strings.Join(got, "\n\t"))
			} else {
				t.Errorf("%s does not show %q; it shows:\n\t%s", what, w, strings.Join(got, "\n\t"))
			}
			return
		}
		i += j + 1
	}
}

// SeesNone fails t if a line of got contains one of the parts.
func SeesNone(t *testing.T, what string, got []string, parts ...string) {
	t.Helper()
	for _, s := range parts {
		for _, line := range got {
			if strings.Contains(line, s) {
				t.Errorf("%s shows %q (in %q)", what, s, line)
			}
		}
	}
}

// Fits fails t unless w's content fits a laptop screen and w is at least
// as large as its content needs: the test driver, unlike a real one, lets
// a window be smaller than that, and the picture then shows it squeezed.
// The canvas's padding is not counted: the Asker sizes its windows to the
// content's minimum alone, and a real driver adds the padding by itself.
func Fits(t *testing.T, w fyne.Window) {
	t.Helper()
	need, size := w.Content().MinSize(), w.Canvas().Size()
	if need.Width > laptop.Width || need.Height > laptop.Height {
		t.Errorf("%q needs %v, more than a %v screen", w.Title(), need, laptop)
	}
	if need.Width > size.Width || need.Height > size.Height {
		t.Errorf("%q is %v, smaller than its content's %v", w.Title(), size, need)
	}
}

// InView fails t unless the button labelled text is on w's canvas, whole:
// a person can press it without scrolling or resizing.
func InView(t *testing.T, w fyne.Window, text string) {
	t.Helper()
	var b *widget.Button
	var at fyne.Position
	// The driver's AbsolutePositionForObject looks only in the newest
	// window: the position is summed here, in w.
	var visit func(fyne.CanvasObject, fyne.Position)
	visit = func(o fyne.CanvasObject, parent fyne.Position) {
		if o == nil || !o.Visible() || b != nil {
			return
		}
		pos := parent.Add(o.Position())
		if x, ok := o.(extension); ok {
			o = x.Extends()
		}
		switch x := o.(type) {
		case *widget.Button:
			if x.Text == text {
				b, at = x, pos
			}
		case *fyne.Container:
			for _, ch := range x.Objects {
				visit(ch, pos)
			}
		case fyne.Widget:
			for _, ch := range test.WidgetRenderer(x).Objects() {
				visit(ch, pos)
			}
		}
	}
	visit(w.Content(), fyne.Position{})
	if b == nil {
		t.Errorf("%q has no visible %q button", w.Title(), text)
		return
	}
	end, size := at.Add(b.Size()), w.Canvas().Size()
	if at.X < 0 || at.Y < 0 || end.X > size.Width || end.Y > size.Height || b.Size().IsZero() {
		t.Errorf("%q's %q button is at %v–%v, outside the window's %v", w.Title(), text, at, end, size)
	}
}

// RecordingApp is the test app, recording notifications and opened URLs.
type RecordingApp struct {
	fyne.App
	Mu     sync.Mutex
	notes  []*fyne.Notification
	Opened []string
}

// SendNotification records n.
func (r *RecordingApp) SendNotification(n *fyne.Notification) {
	r.Mu.Lock()
	defer r.Mu.Unlock()
	r.notes = append(r.notes, n)
}

// OpenURL records u instead of opening it.
func (r *RecordingApp) OpenURL(u *url.URL) error {
	r.Mu.Lock()
	defer r.Mu.Unlock()
	r.Opened = append(r.Opened, u.String())
	return nil
}

// Notifications are the notifications sent so far.
func (r *RecordingApp) Notifications() []*fyne.Notification {
	r.Mu.Lock()
	defer r.Mu.Unlock()
	return slices.Clone(r.notes)
}

// NewRecordingApp is the shared test app, recording the notifications it
// sends and the pages it opens.
func NewRecordingApp(t *testing.T) *RecordingApp {
	t.Helper()
	return &RecordingApp{App: NewTestApp(t)}
}

// HasText reports whether a label or entry under o shows s.
func HasText(o fyne.CanvasObject, s string) bool {
	found := false
	Walk(o, func(o fyne.CanvasObject) {
		switch w := o.(type) {
		case *widget.Label:
			found = found || (w.Visible() && strings.Contains(w.Text, s))
		case *widget.Entry:
			found = found || strings.Contains(w.Text, s)
		}
	})
	return found
}

// Walk visits o and everything under it; an extended widget shows as
// the widget it extends.
func Walk(o fyne.CanvasObject, f func(fyne.CanvasObject)) {
	if x, ok := o.(extension); ok {
		f(x.Extends())
		return
	}
	f(o)
	switch c := o.(type) {
	case *fyne.Container:
		for _, ch := range c.Objects {
			Walk(ch, f)
		}
	case fyne.Widget:
		if _, ok := c.(*widget.Label); ok {
			return
		}
		for _, ch := range test.WidgetRenderer(c).Objects() {
			Walk(ch, f)
		}
	}
}

// shotDir is where screenshots go: $MCPTRAY_SHOTS, or a temp dir.
func shotDir(t *testing.T) string {
	if d := os.Getenv("MCPTRAY_SHOTS"); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	return t.TempDir()
}

// Variants are the theme's two variants, each named for the screenshots
// drawn in it: every screen is looked at in both.
var Variants = []struct {
	Name    string
	Variant fyne.ThemeVariant
}{{"dark", theme.VariantDark}, {"light", theme.VariantLight}}

// Capture writes w's canvas to name under shotDir.
func Capture(t *testing.T, w fyne.Window, name string) {
	t.Helper()
	path := filepath.Join(shotDir(t), name)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, w.Canvas().Capture()); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s", path)
}

// Texts are the texts every label, entry and rich text in the window
// (content and overlays) holds.
func Texts(w fyne.Window) []string {
	var out []string
	fn := func(o fyne.CanvasObject) {
		switch x := o.(type) {
		case *widget.Label:
			out = append(out, x.Text)
		case *widget.Entry:
			out = append(out, x.Text)
		case *widget.RichText:
			out = append(out, x.String())
		case *widget.Button:
			out = append(out, x.Text)
		}
	}
	Walk(w.Content(), fn)
	for _, o := range w.Canvas().Overlays().List() {
		Walk(o, fn)
	}
	return out
}

// OverlayButton is the button labelled text in the top overlay.
func OverlayButton(t *testing.T, w fyne.Window, text string) *widget.Button {
	t.Helper()
	var b *widget.Button
	Walk(w.Canvas().Overlays().Top(), func(o fyne.CanvasObject) {
		if x, ok := o.(*widget.Button); ok && x.Text == text {
			b = x
		}
	})
	if b == nil {
		t.Fatalf("no %q button in the top overlay", text)
	}
	return b
}

// Served is the real server (internal/daemon) on a temporary database:
// its store, engine and endpoint.
type Served struct {
	D   *daemon.Daemon
	St  *storage.Store
	Eng *mcpcore.Engine
	Url string
}

// UpstreamStatus is how the real server runs its upstream server named
// name (app.Upstreams): what the serving process answers over the link.
func (s *Served) UpstreamStatus(_ context.Context, name string) (upstream.Status, error) {
	return s.D.UpstreamStatus(name), nil
}

// NewServed starts the real server on a temporary database for t.
func NewServed(t *testing.T) *Served {
	t.Helper()
	return ServedBy(testserver.Start(t, testserver.Options{}))
}

// ServedBy is the served view of a test server.
func ServedBy(s *testserver.Server) *Served {
	return &Served{D: s.Daemon, St: s.Store, Eng: s.Engine, Url: s.URL}
}

// Connect opens a session of the official go-sdk client on the server.
func (s *Served) Connect(ctx context.Context, t *testing.T) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "app-test", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.Url, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatalf("connecting: %v", err)
	}
	return cs
}

// ToolNames lists the tools the server serves, over MCP.
func (s *Served) ToolNames(t *testing.T) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs := s.Connect(ctx, t)
	defer cs.Close()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	return names
}

// CallText calls the tool name over MCP and returns its text.
func (s *Served) CallText(t *testing.T, name string, args map[string]any) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs := s.Connect(ctx, t)
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("tools/call: %v", err)
	}
	return ResultText(res)
}

// ReadResource reads a resource over MCP; it returns the error text on failure.
func (s *Served) ReadResource(t *testing.T, uri string) (*mcp.ReadResourceResult, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs := s.Connect(ctx, t)
	defer cs.Close()
	return cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
}

// NewAuthServed is newServed with token auth on.
func NewAuthServed(t *testing.T) *Served {
	t.Helper()
	return ServedBy(testserver.Start(t, testserver.Options{Auth: true}))
}

// ResultText is the text of a result's text blocks.
func ResultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// shared is the one Fyne test app this package's tests use, made once.
// test.NewTempApp makes one per test, and each throws Fyne's font and
// text-size caches away: measuring the same words again was two thirds of
// these tests' time (31 s, 11 s shared).
var shared struct {
	once   sync.Once
	app    fyne.App
	theme  fyne.Theme
	keeper fyne.Window
	mu     sync.Mutex
	tests  map[testing.TB]bool
}

// NewTestApp is the shared test app as a new one would be when t first
// asks: no window of an earlier test, no preference, its first theme.
func NewTestApp(t testing.TB) fyne.App {
	t.Helper()
	shared.once.Do(func() {
		shared.app = test.NewApp()
		shared.theme = shared.app.Settings().Theme()
		// Fyne's test driver takes a widget outside any window to be in
		// the last one made, and panics when there is none.
		shared.keeper = shared.app.NewWindow("keeper")
		shared.tests = map[testing.TB]bool{}
	})
	a := shared.app
	shared.mu.Lock()
	first := !shared.tests[t]
	shared.tests[t] = true
	shared.mu.Unlock()
	if !first {
		return a // a second manager in the same test shares the first's state
	}
	// The windows earlier tests left (their cleanups have all run by now):
	// one at a time, as closing one may close others, and the test driver
	// panics on a window closed twice.
	for {
		ws := a.Driver().AllWindows()
		i := slices.IndexFunc(ws, func(w fyne.Window) bool { return w != shared.keeper })
		if i < 0 {
			break
		}
		ws[i].Close()
	}
	clearState(a)
	t.Cleanup(func() {
		shared.mu.Lock()
		delete(shared.tests, t)
		shared.mu.Unlock()
	})
	return a
}

// clearState forgets the preferences and the theme a test set.
func clearState(a fyne.App) {
	if p, ok := a.Preferences().(interface{ WriteValues(func(map[string]any)) }); ok {
		p.WriteValues(func(m map[string]any) { clear(m) })
	} else {
		panic("the test app's preferences cannot be cleared")
	}
	if a.Settings().Theme() != shared.theme {
		a.Settings().SetTheme(shared.theme) // only then: setting it clears the caches
	}
	fyne.SetCurrentApp(a)
}

// TripSchema is a form's schema with a field of every kind.
const TripSchema = `{
  "type": "object",
  "properties": {
    "name":      {"type": "string", "title": "Your name", "description": "As it appears on the booking.", "minLength": 2},
    "email":     {"type": "string", "title": "Email", "format": "email"},
    "nights":    {"type": "integer", "title": "Nights", "minimum": 1, "maximum": 30, "default": 2},
    "budget":    {"type": "number", "title": "Budget (EUR)"},
    "breakfast": {"type": "boolean", "title": "Breakfast included", "default": true},
    "room":      {"type": "string", "title": "Room", "enum": ["single", "double", "suite"]},
    "view":      {"type": "string", "title": "View", "oneOf": [{"const": "sea", "title": "Sea view"}, {"const": "city", "title": "City view"}]},
    "extras":    {"type": "array", "title": "Extras", "items": {"type": "string", "enum": ["parking", "late-checkout", "pet"]}, "maxItems": 2},
    "arrival":   {"type": "string", "title": "Arrival", "format": "date"}
  },
  "required": ["name", "nights", "room"]
}`

// TripQuestion is a form question from an AI app, on TripSchema.
func TripQuestion() mcpcore.Question {
	return mcpcore.Question{Client: "claude-code", Tool: "hotel.book", ToolTitle: "Book a hotel", Key: "trip", Kind: catalog.StepForm,
		Message: "A few details for the booking.", Arguments: `{"city": "Lisbon"}`, Schema: json.RawMessage(TripSchema)}
}

// laptop is the smallest screen the windows must fit.
var laptop = fyne.NewSize(1366, 768)

// extension is one of mcptray's widgets extending one of Fyne's; Extends
// is that widget, which is what tests and people look at.
type extension interface {
	Extends() fyne.CanvasObject
}

// GetPrompt gets a prompt over MCP and joins its text messages as "role: text" lines.
func (s *Served) GetPrompt(t *testing.T, name string, args map[string]string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs := s.Connect(ctx, t)
	defer cs.Close()
	res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: name, Arguments: args})
	if err != nil {
		return "", err
	}
	var lines []string
	for _, m := range res.Messages {
		if tc, ok := m.Content.(*mcp.TextContent); ok {
			lines = append(lines, string(m.Role)+": "+tc.Text)
		}
	}
	return strings.Join(lines, "\n"), nil
}

// MenuPath is the item of m reached through labels, nil when there is
// none.
func MenuPath(m *fyne.Menu, labels ...string) *fyne.MenuItem {
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

// Main runs a package's tests with go-keyring's in-memory mock in place of
// the OS keyring, so no test touches the user's keyring. Importing
// localefix keeps Fyne from logging a locale error under LANG=C.UTF-8, as
// in the mcptray command.
func Main(m *testing.M) {
	localefix.Restore()
	keyring.MockInit()
	os.Exit(m.Run())
}

// Places are where the objects want are under root, relative to it, laid
// out first as the window's next frame would lay them out (the test
// driver lays a container out only when its size changes); an object not
// shown has no place. It looks into containers and scrolls, not into
// other widgets.
func Places(root fyne.CanvasObject, want ...fyne.CanvasObject) map[fyne.CanvasObject]fyne.Position {
	out := map[fyne.CanvasObject]fyne.Position{}
	var visit func(o fyne.CanvasObject, at fyne.Position, layout bool)
	visit = func(o fyne.CanvasObject, at fyne.Position, layout bool) {
		if o == nil || !o.Visible() {
			return
		}
		if slices.Contains(want, o) {
			out[o] = at
		}
		switch x := o.(type) {
		case *fyne.Container:
			if layout {
				x.Refresh()
			}
			for _, ch := range x.Objects {
				visit(ch, at.Add(ch.Position()), layout)
			}
		case *container.Scroll:
			visit(x.Content, at.Add(x.Content.Position()), layout)
		}
	}
	visit(root, fyne.Position{}, true)
	visit(root, fyne.Position{}, false)
	return out
}
