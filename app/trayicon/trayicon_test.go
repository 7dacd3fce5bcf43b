package trayicon

import (
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/app/tray"
	"github.com/mcptray/mcptray/internal/testserver"
	"github.com/mcptray/mcptray/internal/testutil"
)

// itemString is how systray names an item: its id and its title.
func itemString(ic *Icon, it *tray.Item) string { return ic.items[it].sys.String() }

// item is the menu's item labelled label.
func item(t *testing.T, items []*tray.Item, label string) *tray.Item {
	t.Helper()
	for _, it := range items {
		if it.Label == label {
			return it
		}
	}
	t.Fatalf("no %q in the menu", label)
	return nil
}

// TestItemsChangeInPlaceAndClicksRunWhatTheyShow: the tray's menu, on a
// real server, in systray (no tray host needed: the items are its data).
func TestItemsChangeInPlaceAndClicksRunWhatTheyShow(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{})
	items := tray.New(tray.Config{Server: srv.Daemon}).Menu()
	ic := New()
	ic.Add(items)
	pause, resume := item(t, items, "Pause serving"), item(t, items, "Resume serving")
	if !ic.items[resume].hidden {
		t.Error("Resume serving shows while serving")
	}
	before := itemString(ic, pause)

	// A click, as the tray host sends it, runs the item's action.
	ic.items[pause].sys.ClickedCh <- struct{}{}
	testutil.Eventually(t, "the server paused", srv.Daemon.Paused)

	// Labels, enabled and hidden change in place: the ids stay.
	pause.Label = "Pause serving now"
	resume.Disabled = true
	ic.Sync()
	id := func(str string) string { return str[:strings.Index(str, ",")] }
	if after := itemString(ic, pause); id(after) != id(before) || !strings.Contains(after, `"Pause serving now"`) {
		t.Errorf("item %s became %s: its id must stay, its title change", before, after)
	}
	if !ic.items[resume].sys.Disabled() {
		t.Error("Resume serving is not disabled")
	}
	// A disabled item runs nothing.
	ic.items[resume].sys.ClickedCh <- struct{}{}
	time.Sleep(100 * time.Millisecond) // what a click would have done by now
	if !srv.Daemon.Paused() {
		t.Fatal("a disabled item ran")
	}
}
