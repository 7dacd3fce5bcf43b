package app

import (
	"context"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/mcptray/mcptray/app/internal/uitest"
	"github.com/mcptray/mcptray/storage"
)

// opID is the id of the chooser's operation method path.
func opID(t *testing.T, c *openAPIChooser, method, path string) string {
	t.Helper()
	for _, o := range c.conv.Operations {
		if o.Method == method && o.Path == path {
			return o.ID
		}
	}
	t.Fatalf("no operation %s %s", method, path)
	return ""
}

// reimportSkipsOrReplaces imports from the petstore again, find_pet and
// deletePet stored from the first import: the chooser marks deletePet's
// operation as a duplicate at once, before Import, with skip and replace;
// skipped, it is left as it is; replaced, it is replaced.
func reimportSkipsOrReplaces(t *testing.T, m *Manager, st *storage.Store) {
	t.Helper()
	c := m.showOpenAPIChooser(mustSpec(t), petstore)
	test.Tap(uitest.OverlayButton(t, m.win, "Select none"))
	get, _ := opRow(t, m.win, "GET /pet/{petId}")
	get.SetChecked(true)
	del, _ := opRow(t, m.win, "DELETE /pet/{petId}")
	del.SetChecked(true)
	uitest.Sees(t, "the chooser on a spec imported before", uitest.SeenIn(m.win.Canvas()),
		"check: [x]", "button: GET /pet/{petId} — Find pet by ID. {low}",
		"check: [x]", "button: DELETE /pet/{petId} — Deletes a pet. {low}",
		"label: You have a tool named deletePet already. {warning}",
		"radio: (•) "+dupSkip, "radio: ( ) "+dupReplace,
		"button: Import 1 tool {high}")
	uitest.Capture(t, m.win, "openapi-reimport.png")
	ctx := context.Background()
	before, err := st.Tool(ctx, "deletePet")
	if err != nil {
		t.Fatal(err)
	}
	before.Description = "Mine, changed since."
	if err := st.PutTool(ctx, before); err != nil {
		t.Fatal(err)
	}

	// Replace: both are imported, deletePet replacing the one stored.
	c.dups[opID(t, c, "DELETE", "/pet/{petId}")].choice.SetSelected(dupReplace)
	test.Tap(uitest.OverlayButton(t, m.win, "Import 2 tools (1 replacing yours)"))
	m.background.Wait()
	if got, _ := st.Tool(ctx, "deletePet"); got.Description == "Mine, changed since." {
		t.Error("deletePet was not replaced")
	}
	if _, err := st.Tool(ctx, "getPetById"); err != nil {
		t.Errorf("getPetById was not imported: %v", err)
	}
	if top := m.win.Canvas().Overlays().Top(); top != nil {
		top.Hide()
	}

	// Skip: nothing is imported, and Import says so before it is pressed.
	before.Description = "Mine again."
	if err := st.PutTool(ctx, before); err != nil {
		t.Fatal(err)
	}
	m.showOpenAPIChooser(mustSpec(t), petstore)
	test.Tap(uitest.OverlayButton(t, m.win, "Select none"))
	del, _ = opRow(t, m.win, "DELETE /pet/{petId}")
	del.SetChecked(true)
	uitest.Sees(t, "a duplicate skipped", uitest.SeenIn(m.win.Canvas()),
		"label: You have a tool named deletePet already. {warning}", "radio: (•) "+dupSkip,
		"button: Import {high, disabled}")
	if got, _ := st.Tool(ctx, "deletePet"); got.Description != "Mine again." {
		t.Errorf("a skipped duplicate changed: %q", got.Description)
	}
}
