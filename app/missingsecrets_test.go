package app

import (
	"context"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/internal/uitest"
	"github.com/mcptray/mcptray/internal/testutil"
)

// missingSecretAfterImport: right after an import whose tools read a
// secret with no value, the report lists it with a field, and so do
// Settings ▸ Secrets, the tool's line in the list and Try it; the value
// typed in the report is stored, and every one of them stops saying so.
func missingSecretAfterImport(t *testing.T, m *Manager, s *uitest.Served) {
	t.Helper()
	const name = "swagger_petstore_openapi_api_key"
	uitest.Sees(t, "the import's report", uitest.SeenIn(m.win.Canvas()),
		"label: Imported 2 tools from Swagger Petstore - OpenAPI 3.0.",
		"label: They read these secrets, which have no value yet: type each one's value here (or later in Settings › Secrets).",
		"label: "+name,
		`label: It holds the API key of Swagger Petstore - OpenAPI 3.0 (sent in the header "api_key"). Read by find_pet.`,
		"entry: (its value (never shown again))", "button: Save",
		"button: Close")
	uitest.Capture(t, m.win, "import-missing-secret.png")
	uitest.Sees(t, "the tool list", uitest.Seen(m.tools.list),
		"label: needs a secret {warning}")
	m.tabs.SelectIndex(5)
	testutil.EventuallyShows(t, "the missing secret in Settings", func() (bool, string) {
		m.settings.background.Wait()
		var seen []string
		fyne.DoAndWait(func() { seen = uitest.Seen(m.settings.missingBox) })
		return len(seen) > 0 && seen[0] == "label: Secrets your tools read that have no value yet", fmtList(seen)
	})
	uitest.Sees(t, "Settings ▸ Secrets", uitest.Seen(m.settings.missingBox),
		"label: "+name, "entry: (its value (never shown again))", "button: Save")
	m.tabs.SelectIndex(0)
	m.tools.list.Select(indexOf(t, m, "find_pet"))
	// (Try it shows once the editor has a trier: the label is set all
	// the same.)
	if !uitest.HasText(m.Editor().Content(), "This tool reads the secret "+name+", which has no value yet: it fails until you give it one in Settings › Secrets.") {
		t.Error("Try it does not say the tool's secret has no value")
	}

	var value *widget.Entry
	uitest.Walk(m.win.Canvas().Overlays().Top(), func(o fyne.CanvasObject) {
		if e, ok := o.(*widget.Entry); ok && e.Password {
			value = e
		}
	})
	if value == nil {
		t.Fatal("the report has no field for the secret")
	}
	test.Type(value, "pet-KEY")
	test.Tap(uitest.OverlayButton(t, m.win, "Save"))
	m.background.Wait()
	if v, err := s.D.Secrets().Secret(context.Background(), name); err != nil || v != "pet-KEY" {
		t.Fatalf("the secret typed in the report: %q, %v", v, err)
	}
	uitest.Sees(t, "the report once saved", uitest.SeenIn(m.win.Canvas()), "label: Saved: the tools that read it work now. {success}")
	testutil.EventuallyShows(t, "the tool list, Settings and Try it no longer saying the secret is missing", func() (bool, string) {
		m.settings.background.Wait()
		var list, settings, tryit bool
		fyne.DoAndWait(func() {
			m.reloading.Lock()
			defer m.reloading.Unlock()
			list = len(uitest.Seen(m.tools.list)) > 0 && !uitest.HasText(m.tools.list, "needs a secret")
			settings = !m.settings.missingBox.Visible()
			tryit = !uitest.HasText(m.Editor().Content(), "which has no value yet")
		})
		return list && settings && tryit, "list ok " + boolWord(list) + ", settings ok " + boolWord(settings) + ", Try it ok " + boolWord(tryit)
	})
	m.win.Canvas().Overlays().Top().Hide()
}

func indexOf(t *testing.T, m *Manager, name string) int {
	t.Helper()
	for i, e := range m.tools.shown {
		if e.key == name {
			return i
		}
	}
	t.Fatalf("%s not listed", name)
	return -1
}

func boolWord(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
