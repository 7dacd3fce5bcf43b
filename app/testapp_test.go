package app

import (
	"slices"
	"sync"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

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

// newTestApp is the shared test app as a new one would be when t first
// asks: no window of an earlier test, no preference, its first theme.
func newTestApp(t testing.TB) fyne.App {
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
