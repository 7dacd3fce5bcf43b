package app

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/internal/uitest"
	"github.com/mcptray/mcptray/internal/testutil"
	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/record"
	"github.com/mcptray/mcptray/storage"
)

// activityLog is a real SQLite store with a real activity writer.
type activityLog struct {
	st *storage.Store
	w  *storage.ActivityWriter
}

func newActivityLog(t *testing.T) *activityLog {
	t.Helper()
	st, err := storage.Open(filepath.Join(t.TempDir(), "mcptray.db"), mcpcore.Validator{})
	if err != nil {
		t.Fatal(err)
	}
	w := st.NewActivityWriter(storage.ActivityWriterOptions{})
	t.Cleanup(func() {
		_ = w.Close()
		_ = st.Close()
	})
	return &activityLog{st: st, w: w}
}

// write records the activities and waits until they are in the database.
func (l *activityLog) write(t *testing.T, as ...record.Activity) {
	t.Helper()
	for _, a := range as {
		l.w.Record(a)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testutil.Patience)
	defer cancel()
	if err := l.w.Flush(ctx); err != nil {
		t.Fatal(err)
	}
}

// callRecord is a tools/call record.
func callRecord(client, tool, outcome, detail string) record.Activity {
	return record.Activity{Era: "2026-07-28", Client: client, ClientVersion: "1.2", Token: "laptop",
		Method: "tools/call", Target: tool, Duration: 2300 * time.Microsecond, Outcome: outcome, Detail: detail,
		Capabilities: []string{"forms", "tasks"}}
}

// shownActivityTab is an Activity tab on l in a test window, following the
// log until the test ends.
func shownActivityTab(t *testing.T, l *activityLog) *ActivityTab {
	t.Helper()
	tab := newActivityTab(Config{Store: l.st})
	w := test.NewTempWindow(t, tab.Content())
	w.Resize(fyne.NewSize(1000, 700))
	t.Cleanup(tab.stopAndWait)
	tab.locked(tab.Reload)
	return tab
}

// inTab runs f the way the app would, through fyne.DoAndWait (and the
// tab's lock, since the test driver runs it inline).
func inTab[T any](tab *ActivityTab, f func() T) T {
	var v T
	fyne.DoAndWait(func() { tab.locked(func() { v = f() }) })
	return v
}

// rowTargets are the targets of the rows shown, top first.
func rowTargets(tab *ActivityTab) []string {
	return inTab(tab, func() []string {
		var out []string
		for _, r := range tab.shown {
			out = append(out, r.Target)
		}
		return out
	})
}

func waitRows(t *testing.T, tab *ActivityTab, what string, want ...string) {
	t.Helper()
	testutil.Eventually(t, what, func() bool { return strings.Join(rowTargets(tab), ",") == strings.Join(want, ",") })
}

// clickRow taps the row at index i, as a person's click would.
func clickRow(tab *ActivityTab, i int) {
	c := fyne.CurrentApp().Driver().CanvasForObject(tab.list)
	at := fyne.CurrentApp().Driver().AbsolutePositionForObject(tab.list)
	test.TapCanvas(c, at.Add(fyne.NewPos(40, tab.rowHeight*(float32(i)+0.5))))
}

func TestActivityTabFiltersAndShowsDetails(t *testing.T) {
	uitest.NewTestApp(t)
	l := newActivityLog(t)
	l.write(t,
		callRecord("Claude Code", "notes.add", record.OutcomeOK, "added"),
		callRecord("Cursor", "files.wipe", record.OutcomeToolError, `{"path":"/tmp/x"} → refused: not empty`),
		callRecord("Cursor", "notes.add", record.OutcomeOK, "added again"),
	)
	tab := shownActivityTab(t, l)
	waitRows(t, tab, "the three records, newest first", "notes.add", "files.wipe", "notes.add")
	inTab(tab, func() bool {
		if got := tab.client.Options; strings.Join(got, ",") != "All,Claude Code,Cursor" {
			t.Errorf("client options %q", got)
		}
		if got := tab.outcome.Options; strings.Join(got, ",") != "All,ok,tool error" {
			t.Errorf("outcome options %q", got)
		}
		if tab.empty.Visible() {
			t.Error("the empty-state line shows with records")
		}
		return true
	})

	inTab(tab, func() bool { tab.client.SetSelected("Cursor"); return true })
	waitRows(t, tab, "Cursor's records", "notes.add", "files.wipe")
	inTab(tab, func() bool { tab.outcome.SetSelected("tool error"); return true })
	waitRows(t, tab, "Cursor's tool errors", "files.wipe")
	inTab(tab, func() bool {
		// The options stay all those seen, so the filter can be widened.
		if got := tab.client.Options; strings.Join(got, ",") != "All,Claude Code,Cursor" {
			t.Errorf("client options while filtered %q", got)
		}
		return true
	})

	// Details on click.
	inTab(tab, func() bool { clickRow(tab, 0); return true })
	inTab(tab, func() bool {
		d := tab.detail
		want := map[string]string{"AI app": "Cursor 1.2", "It can answer": "forms, tasks", "Token": "laptop", "Protocol": "2026-07-28", "Request": "tools/call",
			"About": "files.wipe", "Outcome": "tool error", "Took": "2.3 ms", "Task": "—"}
		for field, v := range want {
			if got := d.values[field].Text; got != v {
				t.Errorf("details %s = %q, want %q", field, got, v)
			}
		}
		if d.outcome.Importance != widget.WarningImportance {
			t.Errorf("a tool error's outcome has importance %v", d.outcome.Importance)
		}
		if !strings.Contains(d.values["Time"].Text, time.Now().Format("2006")) {
			t.Errorf("time without its date: %q", d.values["Time"].Text)
		}
		if d.text.Text != `{"path":"/tmp/x"} → refused: not empty` || !d.text.Selectable || !d.text.TextStyle.Monospace {
			t.Errorf("detail text %q (selectable %v, monospace %v)", d.text.Text, d.text.Selectable, d.text.TextStyle.Monospace)
		}
		if !d.fields.Visible() || d.none.Visible() {
			t.Error("the details panel is not showing the record")
		}
		test.Tap(d.copy)
		if got := fyne.CurrentApp().Clipboard().Content(); !strings.Contains(got, "target: files.wipe") || !strings.Contains(got, "client: Cursor 1.2") ||
			!strings.Contains(got, "capabilities: forms, tasks") {
			t.Errorf("Copy put %q on the clipboard", got)
		}
		return true
	})

	// Back to every record, then the search text narrows in memory.
	inTab(tab, func() bool { tab.client.SetSelected(allOption); tab.outcome.SetSelected(allOption); return true })
	waitRows(t, tab, "all records again", "notes.add", "files.wipe", "notes.add")
	inTab(tab, func() bool { test.Type(tab.search, "AGAIN"); return true })
	waitRows(t, tab, "the record whose detail says again", "notes.add")
	inTab(tab, func() bool { tab.search.SetText("nothing like it"); return true })
	inTab(tab, func() bool {
		if !tab.empty.Visible() || tab.empty.Text != "No request matches these filters." {
			t.Errorf("no match: empty line %v %q", tab.empty.Visible(), tab.empty.Text)
		}
		return true
	})
}

func TestActivityTabEmptyState(t *testing.T) {
	uitest.NewTestApp(t)
	tab := shownActivityTab(t, newActivityLog(t))
	testutil.Eventually(t, "the empty log's line", func() bool {
		return inTab(tab, func() bool { return tab.empty.Visible() && tab.empty.Text == activityEmpty })
	})
}

func TestActivityTabIsLive(t *testing.T) {
	testutil.Long(t, "follows the activity log for seconds")
	uitest.NewTestApp(t)
	l := newActivityLog(t)
	l.write(t, callRecord("Claude Code", "first", record.OutcomeOK, ""), callRecord("Claude Code", "second", record.OutcomeOK, ""))
	tab := shownActivityTab(t, l)
	waitRows(t, tab, "the records", "second", "first")
	inTab(tab, func() bool { clickRow(tab, 1); return true }) // "first"
	firstID := inTab(tab, func() int64 { return tab.selected })

	// Written after the tab showed: it appears at the top by itself.
	l.write(t, callRecord("Zed", "third", record.OutcomeError, "boom"))
	waitRows(t, tab, "the new record at the top", "third", "second", "first")
	inTab(tab, func() bool {
		if tab.selected != firstID || tab.detail.values["About"].Text != "first" {
			t.Errorf("the selection moved: record %d, details of %q", tab.selected, tab.detail.values["About"].Text)
		}
		if !strings.Contains(strings.Join(tab.client.Options, ","), "Zed") {
			t.Errorf("the new client is not a filter option: %q", tab.client.Options)
		}
		return true
	})

	// Paused, nothing new shows; resumed, it does.
	inTab(tab, func() bool { test.Tap(tab.pause); return true })
	l.write(t, callRecord("Zed", "fourth", record.OutcomeOK, ""))
	time.Sleep(2 * activityPoll) // a paused tab would have had two polls
	if got := rowTargets(tab); got[0] != "third" {
		t.Errorf("a paused tab shows new records: %q", got)
	}
	inTab(tab, func() bool { test.Tap(tab.pause); return true })
	waitRows(t, tab, "the record written while paused", "fourth", "third", "second", "first")

	// A filter applies to the records that arrive too.
	inTab(tab, func() bool { tab.client.SetSelected("Zed"); return true })
	waitRows(t, tab, "Zed's records", "fourth", "third")
	l.write(t, callRecord("Claude Code", "fifth", record.OutcomeOK, ""), callRecord("Zed", "sixth", record.OutcomeOK, ""))
	waitRows(t, tab, "Zed's new record only", "sixth", "fourth", "third")

	// The tab left, it stops reading the log.
	inTab(tab, func() bool { tab.content.Hide(); return true })
	testutil.Eventually(t, "the follower to stop", func() bool { return inTab(tab, func() bool { return tab.stop == nil }) })
}

func TestRenderActivityTab(t *testing.T) {
	uitest.NewTestApp(t)
	test.ApplyTheme(t, theme.DefaultTheme()) // before any widget: the real look
	l := newActivityLog(t)
	task := callRecord("Claude Code", "backup.run", record.OutcomeTask, "task 7f3e9a2c-41d7-4c1e-9b0a-55e2d9c0a1f4")
	l.write(t,
		callRecord("Claude Code", "notes.add", record.OutcomeOK, `added "buy milk" to notes/today.md`),
		callRecord("Cursor", "files.wipe", record.OutcomeToolError, "refused: /home/ann/projects is not empty"),
		record.Activity{Token: "laptop", Method: "HTTP POST", Target: "/mcp", Outcome: record.OutcomeError, ErrorCode: -32600,
			Detail: "403 Forbidden: Origin https://evil.example is not allowed"},
		callRecord("Cursor", "weather.today", record.OutcomeInputRequired, "asks for city"),
		task,
	)
	tab := newActivityTab(Config{Store: l.st})
	w := test.NewTempWindow(t, tab.Content())
	w.Resize(fyne.NewSize(1000, 640))
	t.Cleanup(tab.stopAndWait)
	tab.locked(tab.Reload)
	testutil.Eventually(t, "the records", func() bool { return len(rowTargets(tab)) == 5 })
	inTab(tab, func() bool { clickRow(tab, 0); return true })
	inTab(tab, func() bool {
		if got := tab.detail.values["Task"].Text; got != "7f3e9a2c-41d7-4c1e-9b0a-55e2d9c0a1f4" {
			t.Errorf("task id %q", got)
		}
		uitest.Capture(t, w, "activity.png")
		// A row's time is today's time of day (the date too, should the
		// day change meanwhile).
		const when = `re:label: (\d\d:\d\d:\d\d|\d\d \w{3} \d\d:\d\d)`
		// The filters and the count; the rows newest first, each with its
		// time, coloured outcome, what was asked, and who asked; the
		// details of the clicked row, the task's id in full.
		got := uitest.SeenIn(w.Canvas())
		uitest.Sees(t, "the activity tab", got,
			"label: AI app", "select: All", "label: Tool", "select: All", "label: Outcome", "select: All",
			"label: Search", "entry: (Search requests, tools, AI apps, details…)",
			"label: Live · 5 requests", "check: [ ] Pause live",
			when, "label: task {high}", "label: tools/call backup.run", "label: Claude Code",
			when, "label: needs input {high}", "label: tools/call weather.today", "label: Cursor",
			when, "label: rejected {danger}", "label: HTTP POST /mcp", "label: laptop",
			when, "label: tool error {warning}", "label: tools/call files.wipe", "label: Cursor",
			when, "label: ok {success}", "label: tools/call notes.add", "label: Claude Code",
			"label: Time", `re:label: \w{3} \d{1,2} \w{3} \d{4} \d\d:\d\d:\d\d\.\d{3} \S+`,
			"label: AI app", "label: Claude Code 1.2", "label: Token", "label: laptop",
			"label: Request", "label: tools/call", "label: About", "label: backup.run", "label: Outcome", "label: task {high}",
			"label: Error code", "label: —", "label: Took", "label: 2.3 ms",
			"label: Task", "label: 7f3e9a2c-41d7-4c1e-9b0a-55e2d9c0a1f4", "label: Approvals", "label: —",
			"label: Protocol", "label: 2026-07-28",
			"label: Detail", "label: task 7f3e9a2c-41d7-4c1e-9b0a-55e2d9c0a1f4", "button: Copy")
		uitest.SeesNone(t, "the activity tab", got, "No request", "Select a request", "Reading the activity log")
		uitest.Fits(t, w)
		uitest.InView(t, w, "Copy")
		return true
	})
}

func TestActivityTabKeepsTheRowsInView(t *testing.T) {
	uitest.NewTestApp(t)
	l := newActivityLog(t)
	var old []record.Activity
	for i := range 40 {
		old = append(old, callRecord("Claude Code", fmt.Sprintf("tool-%02d", i), record.OutcomeOK, ""))
	}
	l.write(t, old...)
	tab := shownActivityTab(t, l)
	testutil.Eventually(t, "the records", func() bool { return len(rowTargets(tab)) == 40 })
	// The person scrolled down to read.
	const offset = 200
	inTab(tab, func() bool { tab.list.ScrollToOffset(offset); return true })

	l.write(t, callRecord("Zed", "new-1", record.OutcomeOK, ""), callRecord("Zed", "new-2", record.OutcomeOK, ""))
	testutil.Eventually(t, "the new records", func() bool { return len(rowTargets(tab)) == 42 })
	inTab(tab, func() bool {
		if got, want := tab.list.GetScrollOffset(), offset+2*tab.rowHeight; got != want {
			t.Errorf("scroll offset %v after two new rows, want %v: the rows being read moved", got, want)
		}
		return true
	})
}
