package app

import (
	"encoding/json"
	"net/url"
	"os"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/internal/uitest"
	"github.com/mcptray/mcptray/app/ui"
	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/testutil"
	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/upstream/oauthtest"
)

// TestShotsIssue29 draws the Servers tab of issue 29's item 7 at 1366x768
// in the dark and the light theme, for people to look at: the Add form
// with a Test's result (and with a failure), a server with a change
// waiting and what it wrote on standard error, its Edit form, and one of
// its tools in the Tools tab. Only with MCPTRAY_SHOTS set.
func TestShotsIssue29(t *testing.T) {
	if os.Getenv("MCPTRAY_SHOTS") == "" {
		t.Skip("MCPTRAY_SHOTS names no folder for the screenshots")
	}
	bin := testutil.Upserver(t)
	for _, v := range uitest.Variants {
		t.Run(v.Name, func(t *testing.T) {
			a := uitest.NewTestApp(t)
			a.Settings().SetTheme(ui.ThemeVariant(v.Variant))
			s := uitest.NewServed(t)
			m := serversManager(t, a, s)

			f := addServer(m, "gone", "npx -y @example/not-a-server", "")
			test.Tap(f.testBtn)
			f.work.Wait()
			uitest.Capture(t, m.win, "29-7-add-failed-"+v.Name+".png")

			f = addServer(m, "notes", bin+" -stderr 12", "NOTES_API_KEY=k-123\nNOTES_DIR=/home/me/notes")
			test.Tap(f.testBtn)
			f.work.Wait()
			uitest.Capture(t, m.win, "29-7-add-tested-"+v.Name+".png")
			test.Tap(f.saveBtn)
			f.work.Wait()

			// A new tool, and echo replaced by one that says less: a diff.
			s.CallText(t, "notes_add", map[string]any{"name": "delete_all"})
			s.CallText(t, "notes_add", map[string]any{"name": "echo"})
			d := m.servers.detail
			testutil.Eventually(t, "the new tool to wait for approval", func() bool {
				fyne.DoAndWait(m.servers.Reload)
				ok, _ := changesShow(m, "delete_all: new")
				changed, _ := changesShow(m, "echo (served as notes_echo) changed:")
				return ok && changed
			})
			statusShows(t, m, "Running since")
			uitest.Capture(t, m.win, "29-7-servers-"+v.Name+".png")
			d.page.ScrollToBottom()
			uitest.Capture(t, m.win, "29-7-servers-stderr-"+v.Name+".png")
			test.Tap(labelledIn[*widget.Button](t, d.content, "Edit…"))
			uitest.Capture(t, m.win, "29-7-edit-"+v.Name+".png")
			fyne.DoAndWait(func() { m.servers.Show("notes") })

			m.tabs.SelectIndex(0)
			selectEntry(t, m.tools, "notes_echo")
			if !strings.Contains(strings.Join(uitest.Texts(m.win), "\n"), "Its name there") {
				t.Error("the tool of the server does not show")
			}
			uitest.Capture(t, m.win, "29-7-upstream-tool-"+v.Name+".png")
		})
	}
}

// TestShotsSignIn draws the Add form of a server behind a sign-in while
// it waits for the person to sign in in their browser, and once signed
// in, then the server's page once signed in again, at 1366x768 in both
// themes. Only with MCPTRAY_SHOTS set.
func TestShotsSignIn(t *testing.T) {
	if os.Getenv("MCPTRAY_SHOTS") == "" {
		t.Skip("MCPTRAY_SHOTS names no folder for the screenshots")
	}
	for _, v := range uitest.Variants {
		t.Run(v.Name, func(t *testing.T) {
			w := oauthtest.New(t)
			a := uitest.NewTestApp(t)
			a.Settings().SetTheme(ui.ThemeVariant(v.Variant))
			s := uitest.NewServed(t)
			m := serversManager(t, a, s)
			signInWith(m, w, func(*url.URL) { uitest.Capture(t, m.win, "29-signin-waiting-"+v.Name+".png") })
			f := testCloud(m, w)
			uitest.Capture(t, m.win, "29-signin-tested-"+v.Name+".png")
			test.Tap(f.saveBtn)
			f.work.Wait()
			fyne.DoAndWait(func() { m.servers.Show("cloud") })
			signInWith(m, w, func(*url.URL) {})
			test.Tap(m.servers.detail.signInBtn)
			m.servers.detail.work.Wait()
			uitest.Capture(t, m.win, "29-signin-again-"+v.Name+".png")
		})
	}
}

// TestShotsPromptForm draws the form a fronted server asks for while an
// AI app gets its prompt (the app cannot show forms, so it is filled in
// at the computer), in both themes. Only with MCPTRAY_SHOTS set.
func TestShotsPromptForm(t *testing.T) {
	if os.Getenv("MCPTRAY_SHOTS") == "" {
		t.Skip("MCPTRAY_SHOTS names no folder for the screenshots")
	}
	for _, v := range uitest.Variants {
		t.Run(v.Name, func(t *testing.T) {
			app := uitest.NewRecordingApp(t)
			app.Settings().SetTheme(ui.ThemeVariant(v.Variant))
			a := NewAsker(app)
			q := mcpcore.Question{Client: "claude-code", Prompt: "notes_weekly_summary", Server: "notes", Key: "form", Kind: catalog.StepForm,
				Message: "Which week should the summary cover? (key [secret:notes_key])",
				Schema:  json.RawMessage(`{"type":"object","properties":{"week":{"type":"string","title":"Week","description":"For example 2026-W48"}},"required":["week"]}`)}
			call := ask(t.Context(), a, q)
			p := shownQuestion(t, a, "notes_weekly_summary")
			uitest.Capture(t, p.win, "29-prompt-form-"+v.Name+".png")
			test.Tap(p.form.Cancel)
			if _, err := call.wait(t); err != nil {
				t.Fatal(err)
			}
		})
	}
}
