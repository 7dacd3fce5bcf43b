package app

import (
	"context"
	"os"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/mcptray/mcptray/app/editor"
	"github.com/mcptray/mcptray/app/internal/uitest"
	"github.com/mcptray/mcptray/app/tryit"
	"github.com/mcptray/mcptray/app/ui"
	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/testutil"
	"github.com/mcptray/mcptray/record"
)

// TestShotsIssue28 draws the screens issue 28's items 1, 2, 5, 6 and 7
// changed, at 1366x768 in the dark and the light theme, for people to look
// at: only with MCPTRAY_SHOTS set.
func TestShotsIssue28(t *testing.T) {
	if os.Getenv("MCPTRAY_SHOTS") == "" {
		t.Skip("MCPTRAY_SHOTS names no folder for the screenshots")
	}
	for _, v := range uitest.Variants {
		t.Run(v.Name, func(t *testing.T) {
			a := uitest.NewTestApp(t)
			a.Settings().SetTheme(ui.ThemeVariant(v.Variant))
			s := uitest.NewAuthServed(t)
			ctx := context.Background()
			tr, err := tryit.New(s.St, func() string { return s.Url })
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { tr.Close() })
			m := NewManager(a, Config{Store: s.St, Approvals: s.Eng, Secrets: s.D.Secrets(), TryIt: editor.TryItTrier(tr, s.Eng)})
			t.Cleanup(m.win.Close)
			m.win.Resize(fyne.NewSize(1366, 768))
			m.win.Show()
			slow := catalog.Tool{Name: "sync_photos", Title: "Sync photos", Description: "Pretends to sync photo folders, slowly.", TaskMode: catalog.TaskRequired,
				Action: catalog.Action{Respond: &catalog.Respond{
					Steps: []catalog.Step{{Progress: &catalog.ProgressStep{Progress: 3, Total: 10, Message: "synced 3 of 10 folders"}},
						{DelayMs: 60000, Progress: &catalog.ProgressStep{Progress: 10, Total: 10}}},
					Content: []catalog.Content{{Type: "text", Text: "synced"}}}}}
			keyed := catalog.Tool{Name: "list_items", Title: "List items", Description: "Lists the items.",
				Action: catalog.Action{HTTP: &catalog.HTTP{URL: "https://api.example.com/items", Headers: map[string]catalog.Template{"Authorization": `Bearer {{secret "list_items_token"}}`}}}}
			for _, tl := range []catalog.Tool{slow, keyed} {
				if err := s.St.PutTool(ctx, tl); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := s.St.CreateToken(ctx, "tester", nil); err != nil {
				t.Fatal(err)
			}
			m.reloadEntries()

			// Item 1: Try it on a tool that runs in the background.
			m.tools.list.Select(indexOf(t, m, "sync_photos"))
			e := m.Editor()
			e.TryBox.Open()
			e.Try.Run()
			testutil.Eventually(t, "the task's progress", func() bool {
				var ok bool
				fyne.DoAndWait(func() { ok = uitest.HasText(e.Content(), "Latest: synced 3 of 10 folders") })
				return ok
			})
			uitest.Capture(t, m.win, "28-1-tryit-background-"+v.Name+".png")
			e.Try.Abandon() // Cancel
			e.Try.Calls.Wait()

			// Items 5 and 6: the list's note on a tool lacking a secret;
			// the highlight on the tool open.
			m.tools.list.Select(indexOf(t, m, "list_items"))
			uitest.Capture(t, m.win, "28-6-tool-needs-secret-"+v.Name+".png")

			// Items 2 and 6: Settings lists the token made elsewhere and
			// the secret with no value, with its field.
			m.tabs.SelectIndex(5)
			m.settings.background.Wait()
			uitest.Capture(t, m.win, "28-2-settings-tokens-"+v.Name+".png")
			m.settings.scroll.ScrollToOffset(fyne.NewPos(0, 620))
			uitest.Capture(t, m.win, "28-6-settings-missing-secret-"+v.Name+".png")

			// Item 5: Activity shows a finished call once.
			start := time.Now().Add(-3 * time.Second)
			for _, o := range []string{record.OutcomeRunning, record.OutcomeOK} {
				a := callRecord("Claude Code", "sync_photos", o, "")
				a.Time = start
				s.D.Activity().Record(a)
			}
			if err := s.D.Activity().Flush(ctx); err != nil {
				t.Fatal(err)
			}
			m.tabs.SelectIndex(4)
			testutil.Eventually(t, "the finished call in Activity", func() bool {
				return rowOutcomes(m.activity) != ""
			})
			uitest.Capture(t, m.win, "28-5-activity-"+v.Name+".png")
			m.activity.stopAndWait()

			// Item 7: re-import marks the duplicates.
			m.tabs.SelectIndex(0)
			m.showOpenAPIChooser(mustSpec(t), petstore)
			test.Tap(uitest.OverlayButton(t, m.win, "Import 19 tools"))
			m.background.Wait()
			uitest.Capture(t, m.win, "28-6-import-report-"+v.Name+".png")
			m.win.Canvas().Overlays().Top().Hide()
			m.showOpenAPIChooser(mustSpec(t), petstore)
			uitest.Capture(t, m.win, "28-7-reimport-"+v.Name+".png")
			m.win.Canvas().Overlays().Top().Hide()
		})
	}
}
