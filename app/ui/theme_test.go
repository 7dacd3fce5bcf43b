package ui

import (
	"fmt"
	"image/color"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// textColors are the colours text is drawn in, each with the backgrounds
// it is drawn on. Every window, dialog and menu draws on one of
// surfaces; a list's selected or hovered row blends over the window's.
var (
	surfaces = []fyne.ThemeColorName{theme.ColorNameBackground, theme.ColorNameInputBackground,
		theme.ColorNameOverlayBackground, theme.ColorNameMenuBackground, theme.ColorNameHeaderBackground,
		theme.ColorNameButton}
	textColors = map[fyne.ThemeColorName][]fyne.ThemeColorName{
		theme.ColorNameForeground: surfaces,
		theme.ColorNamePrimary:    surfaces, // a high importance label
		theme.ColorNameHyperlink:  surfaces,
		theme.ColorNameSuccess:    surfaces, // Activity's "ok", the diff's added lines
		theme.ColorNameWarning:    surfaces, // "tool error", the question's countdown
		theme.ColorNameError:      surfaces, // problems, the diff's removed lines
		theme.ColorNameDisabled: append([]fyne.ThemeColorName{theme.ColorNameDisabledButton}, // a low importance label, dimmed entries
			surfaces...),
		theme.ColorNamePlaceHolder: {theme.ColorNameInputBackground},
		// A button's text on its importance's colour.
		theme.ColorNameForegroundOnPrimary: {theme.ColorNamePrimary},
		theme.ColorNameForegroundOnSuccess: {theme.ColorNameSuccess},
		theme.ColorNameForegroundOnWarning: {theme.ColorNameWarning},
		theme.ColorNameForegroundOnError:   {theme.ColorNameError},
	}
	// overRows are the translucent colours a list row blends over the
	// window's background, under its text, while selected or under the
	// pointer (pressed is a flash: nothing is read in it).
	overRows = []fyne.ThemeColorName{theme.ColorNameSelection, theme.ColorNameHover}
	// notText are the colours no text is drawn in: lines, fills, shadows.
	notText = []fyne.ThemeColorName{theme.ColorNameBackground, theme.ColorNameInputBackground,
		theme.ColorNameOverlayBackground, theme.ColorNameMenuBackground, theme.ColorNameHeaderBackground,
		theme.ColorNameButton, theme.ColorNameDisabledButton, theme.ColorNameSelection, theme.ColorNameHover,
		theme.ColorNamePressed, theme.ColorNameFocus, theme.ColorNameInputBorder, theme.ColorNameScrollBar,
		theme.ColorNameScrollBarBackground, theme.ColorNameSeparator, theme.ColorNameShadow}
)

// TestThemeContrast: every text colour reads at 4.5:1 or more on every
// background it is drawn on, in the light and the dark theme.
func TestThemeContrast(t *testing.T) {
	for _, v := range []fyne.ThemeVariant{theme.VariantLight, theme.VariantDark} {
		th := ThemeVariant(v)
		name := map[fyne.ThemeVariant]string{theme.VariantLight: "light", theme.VariantDark: "dark"}[v]
		check := func(fg fyne.ThemeColorName, bgName string, bg color.Color) {
			if r := Contrast(th.Color(fg, v), bg); r < 4.5 {
				t.Errorf("%s theme: %s %v on %s %v reads at %.2f:1, want 4.5:1 or more",
					name, fg, hex(th.Color(fg, v)), bgName, hex(bg), r)
			}
		}
		for fg, bgs := range textColors {
			for _, bg := range bgs {
				check(fg, string(bg), th.Color(bg, v))
			}
		}
		// A list's row: normal or dimmed text on a selected, hovered or
		// pressed row.
		for _, fg := range []fyne.ThemeColorName{theme.ColorNameForeground, theme.ColorNameDisabled} {
			for _, over := range overRows {
				bg := Blend(th.Color(theme.ColorNameBackground, v), th.Color(over, v))
				check(fg, string(over)+" over "+string(theme.ColorNameBackground), bg)
			}
		}
		// The app's own: a question's code block on the input background.
		check(theme.ColorNameForeground, "a code block", th.Color(theme.ColorNameInputBackground, v))
	}
}

// TestContrastCoversEveryColourTheAppUses: a colour name, an importance
// or a colour of its own that app's code draws with is one the contrast
// test knows, so a new one cannot slip past it.
func TestContrastCoversEveryColourTheAppUses(t *testing.T) {
	known := map[string]bool{}
	for fg, bgs := range textColors {
		known[strings.ToLower(string(fg))] = true
		for _, bg := range bgs {
			known[strings.ToLower(string(bg))] = true
		}
	}
	for _, n := range notText {
		known[strings.ToLower(string(n))] = true
	}
	// What a label or button of each importance draws with (Fyne's
	// widget.Label and widget.Button).
	importances := map[string][]fyne.ThemeColorName{
		"Low":     {theme.ColorNameDisabled},
		"Medium":  {theme.ColorNameForeground},
		"High":    {theme.ColorNamePrimary, theme.ColorNameForegroundOnPrimary},
		"Danger":  {theme.ColorNameError, theme.ColorNameForegroundOnError},
		"Warning": {theme.ColorNameWarning, theme.ColorNameForegroundOnWarning},
		"Success": {theme.ColorNameSuccess, theme.ColorNameForegroundOnSuccess},
	}
	colorName := regexp.MustCompile(`theme\.ColorName(\w+)`)
	importance := regexp.MustCompile(`widget\.(\w+)Importance\b`)
	ownColor := regexp.MustCompile(`color\.N?RGBA(64)?\{`)
	seen := 0
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") ||
			strings.Contains(path, "internal/uitest") || strings.Contains(path, string(filepath.Separator)+"tray") {
			return err // the tray draws no window: its icons have their own halo
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		src := string(b)
		seen++
		for _, m := range colorName.FindAllStringSubmatch(src, -1) {
			if !known[strings.ToLower(m[1])] { // ForegroundOnError is "foregroundOnError"
				t.Errorf("%s draws with theme.ColorName%s, which the contrast test does not check", path, m[1])
			}
		}
		for _, m := range importance.FindAllStringSubmatch(src, -1) {
			if _, ok := importances[m[1]]; !ok {
				t.Errorf("%s uses widget.%sImportance, whose colours the contrast test does not know", path, m[1])
			}
		}
		if ownColor.MatchString(src) && filepath.Base(path) != "theme.go" {
			t.Errorf("%s has a colour of its own: draw with the theme's colours, or add it to the contrast test", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen < 20 {
		t.Fatalf("read only %d of app's files: is the test run from app/ui?", seen)
	}
	for _, names := range importances {
		for _, n := range names {
			if !known[strings.ToLower(string(n))] {
				t.Errorf("%s is not checked", n)
			}
		}
	}
}

func hex(c color.Color) string {
	n := color.NRGBAModel.Convert(c).(color.NRGBA)
	return fmt.Sprintf("#%02X%02X%02X", n.R, n.G, n.B)
}
