package app

import (
	"context"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptray/mcptray/app/internal/uitest"
	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/testcatalog"
	"github.com/mcptray/mcptray/internal/testserver"
	"github.com/mcptray/mcptray/internal/testutil"
)

// approvalsFixture is the Remembered approvals section on a real server
// whose desktop questions the real Asker asks, serving one destructive
// tool, "wipe", and a client connected to it.
type approvalsFixture struct {
	asker *Asker
	srv   *uitest.Served
	sec   *approvalsSection
	win   fyne.Window
	cs    *mcp.ClientSession
}

func newApprovalsFixture(t *testing.T) *approvalsFixture {
	t.Helper()
	app := uitest.NewRecordingApp(t)
	test.ApplyTheme(t, theme.DefaultTheme()) // before any widget: the real look
	asker := NewAsker(app)
	wipe := testcatalog.RespondTool("wipe", "wiped")
	wipe.Title, wipe.Hints = "Wipe old files", &catalog.Hints{Destructive: &yes}
	srv := uitest.ServedBy(testserver.Start(t, testserver.Options{Asker: asker,
		Catalog: &catalog.Catalog{Format: catalog.CatalogFormat, Version: catalog.CatalogVersion, Tools: []catalog.Tool{wipe}}}))
	w := test.NewTempWindow(t, nil)
	sec := newApprovalsSection(t.Context(), srv.Eng, srv.St, w)
	w.SetContent(sec.Content())
	w.Resize(fyne.NewSize(760, 420))
	cs := srv.Connect(t.Context(), t)
	t.Cleanup(func() { _ = cs.Close() })
	return &approvalsFixture{asker: asker, srv: srv, sec: sec, win: w, cs: cs}
}

// listed waits for the section to list one approval, whose last column
// reads last.
func (f *approvalsFixture) listed(t *testing.T, last string) {
	t.Helper()
	testutil.EventuallyShows(t, "the approval in the list", func() (bool, string) {
		got := uitest.Seen(f.sec.Content())
		return len(f.sec.items) == 1 && slices.Contains(got, "label: app-test") && slices.Contains(got, last), strings.Join(got, "\n")
	})
}

// call calls wipe; answer, when set, answers the approval it asks.
func (f *approvalsFixture) call(t *testing.T, answer func(*pending)) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), testutil.Patience)
	defer cancel()
	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := f.cs.CallTool(ctx, &mcp.CallToolParams{Name: "wipe"})
		if err != nil {
			t.Errorf("calling wipe: %v", err)
		}
		done <- res
	}()
	if answer != nil {
		answer(shownQuestion(t, f.asker, "wipe"))
	}
	res := <-done
	if res == nil {
		t.FailNow()
	}
	if answer == nil && f.asker.Pending() != 0 {
		t.Error("asked, though remembered")
	}
	return res
}

func TestRevokingARememberedApprovalAsksAgain(t *testing.T) {
	f := newApprovalsFixture(t)
	uitest.Sees(t, "the section with nothing remembered", uitest.Seen(f.sec.Content()),
		"label: Remembered approvals",
		`label: None. When you answer an approval with "Allow until mcptray restarts" or "Allow until I revoke it", it is listed here.`,
		"button: Revoke {disabled}", "button: Revoke all {disabled}")

	f.call(t, func(p *pending) { test.Tap(p.approval.untilRevoked) })
	f.listed(t, "label: until revoked")
	if res := f.call(t, nil); res.IsError {
		t.Fatalf("remembered call: %+v", res)
	}
	got := uitest.Seen(f.sec.Content())
	uitest.Sees(t, "the section with one approval", got,
		"label: AI app", "label: Tool", "label: Token", "label: Since", "label: Remembered",
		"label: app-test", "label: Wipe old files", "label: none", `re:label: \d{4}-\d\d-\d\d \d\d:\d\d`, "label: until revoked",
		"button: Revoke {disabled}", "button: Revoke all")
	uitest.SeesNone(t, "the section with one approval", got, "None.", "{low}")
	uitest.Capture(t, f.win, "approvals.png")

	// Selected, it says in full what it allows, and can be revoked;
	// Revoke stays where it was.
	before := uitest.Places(f.sec.Content(), f.sec.revoke)[f.sec.revoke]
	f.sec.table.Select(widget.TableCellID{Row: 0, Col: 1})
	uitest.Sees(t, "the selected approval", uitest.Seen(f.sec.Content()),
		"button: Revoke", "button: Revoke all",
		`re:label: app-test may run "Wipe old files" \(wipe\) without asking, until you revoke it \(allowed on .*\)\.`)
	if after := uitest.Places(f.sec.Content(), f.sec.revoke)[f.sec.revoke]; after != before {
		t.Errorf("selecting an approval moved Revoke from %v to %v", before, after)
	}
	test.Tap(f.sec.revoke)
	if len(f.sec.items) != 0 || !f.sec.revoke.Disabled() {
		t.Errorf("after Revoke: %d listed, Revoke enabled %v", len(f.sec.items), !f.sec.revoke.Disabled())
	}
	res := f.call(t, func(p *pending) { test.Tap(p.approval.deny) })
	if !res.IsError || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != `The person at the computer denied running "wipe".` {
		t.Errorf("denied after the revoke: %+v", res)
	}

	// Remembered again, then the tool edited: the approval no longer
	// applies, and the list says so.
	f.call(t, func(p *pending) { test.Tap(p.approval.untilRevoked) })
	f.listed(t, "label: until revoked")
	tool, err := f.srv.St.Tool(t.Context(), "wipe")
	if err != nil {
		t.Fatal(err)
	}
	tool.Description = "Wipes more."
	if err := f.srv.St.PutTool(t.Context(), tool); err != nil {
		t.Fatal(err)
	}
	f.listed(t, "label: Wipe old files — changed")
	testutil.Eventually(t, "the edited tool served", func() bool {
		// A session of its own each time: a client may reuse a list.
		cs := f.srv.Connect(t.Context(), t)
		defer cs.Close()
		res, err := cs.ListTools(t.Context(), nil)
		return err == nil && len(res.Tools) == 1 && res.Tools[0].Description == tool.Description
	})
	f.sec.table.Select(widget.TableCellID{Row: 0, Col: 0})
	uitest.Sees(t, "the approval of a changed tool", uitest.Seen(f.sec.Content()),
		`re:label: app-test was allowed to run "Wipe old files" \(wipe\) without asking on .*, but the tool has been changed, renamed or deleted since: app-test is asked again\. Revoke this to tidy the list\.`)
	f.call(t, func(p *pending) { test.Tap(p.approval.allowOnce) })
}

func TestRevokeAllAsksFirst(t *testing.T) {
	f := newApprovalsFixture(t)
	f.call(t, func(p *pending) { test.Tap(p.approval.untilRestart) })
	f.listed(t, "label: until restart")

	test.Tap(f.sec.revokeAll)
	got := uitest.SeenIn(f.win.Canvas())
	uitest.Sees(t, "the confirmation", got,
		"label: Revoke all remembered approvals?",
		"label: The AI apps are asked again the next time they run these tools (1 approval).",
		"button: Cancel", "button: Revoke all {danger}")
	uitest.Capture(t, f.win, "approvals-revoke-all.png")
	test.Tap(uitest.OverlayButton(t, f.win, "Cancel"))
	if len(f.sec.items) != 1 {
		t.Fatal("Cancel revoked")
	}
	test.Tap(f.sec.revokeAll)
	test.Tap(uitest.OverlayButton(t, f.win, "Revoke all"))
	if len(f.sec.items) != 0 {
		t.Fatal("Revoke all left some")
	}
	f.call(t, func(p *pending) { test.Tap(p.approval.allowOnce) })
}
