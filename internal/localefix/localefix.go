// Package localefix keeps Fyne from logging "Fyne error: Error parsing
// user locale C" on every start, CLI commands included, where the locale
// is C.UTF-8 (the default of Debian, Ubuntu servers and containers).
//
// Fyne's lang package reads the locale in its init, and go-locale turns
// "C.UTF-8" into the tag "C", which golang.org/x/text rejects; a plain "C"
// it understands. Go initializes, among the packages whose imports are
// ready, the first in import-path order. This one needs only the standard
// library, and fyne.io/fyne/v2/lang waits for golang.org/x/text and
// github.com/nicksnyder/go-i18n, which sort after github.com/mcptray: so
// this init runs first. It rewrites C.UTF-8-style values to "C" for that
// moment, and Restore, first thing in main, puts the person's values back,
// so the commands mcptray runs for tools inherit the environment
// unchanged. TestCUTF8LocaleIsQuiet fails if the order
// ever changes.
package localefix

import (
	"os"
	"strings"
)

// vars are the variables go-locale reads, in its order.
var vars = []string{"LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"}

// saved holds the values init rewrote. A package variable because init
// has no caller to hand them to; Restore empties it.
var saved = map[string]string{}

func init() {
	for _, k := range vars {
		if v, ok := os.LookupEnv(k); ok && isCUTF8(v) {
			saved[k] = v
			os.Setenv(k, "C")
		}
	}
}

// isCUTF8 says whether a locale value is the C or POSIX locale with a
// codeset (C.UTF-8, C.utf8, POSIX.UTF-8), which go-locale cannot parse.
func isCUTF8(v string) bool {
	lang, codeset, ok := strings.Cut(v, ".")
	return ok && codeset != "" && (lang == "C" || lang == "POSIX")
}

// Restore puts back the values init rewrote. Call it at the start of main.
func Restore() {
	for k, v := range saved {
		os.Setenv(k, v)
		delete(saved, k)
	}
}
