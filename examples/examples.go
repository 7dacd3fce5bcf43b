// Package examples holds the catalogs that ship with mcptray, embedded so
// the program needs no files beside it.
package examples

import (
	_ "embed"
	"slices"

	"github.com/mcptray/mcptray/catalog"
)

// Starter is the catalog a new user's database starts with: a few useful
// tools, a resource and a prompt (see docs/install.md). Seed it through
// On, which leaves out what does not run on the computer.
//
//go:embed starter.json
var Starter []byte

// Gallery holds more example tools, beside the starter catalog's, that
// the app offers under New tool ▸ From an example: each opens in the
// editor as a copy to adapt. Offer them through On.
//
//go:embed gallery.json
var Gallery []byte

// On is what of example catalog c runs on the operating system goos (a
// GOOS name): the examples' own command lines are written for Linux and
// macOS, so on Windows a tool or resource that runs a command is kept only
// when it says what to run there (its command's "os": {"windows": …}). A
// person is never offered an example that could only fail. c is left as
// it is.
func On(orig *catalog.Catalog, goos string) *catalog.Catalog {
	c := *orig
	c.Tools = slices.DeleteFunc(slices.Clone(c.Tools), func(t catalog.Tool) bool { return !runsOn(t.Action.Command, goos) })
	c.Resources = slices.DeleteFunc(slices.Clone(c.Resources), func(r catalog.Resource) bool { return !runsOn(r.Command, goos) })
	return &c
}

// runsOn says whether an example's command (nil: none) runs on goos.
func runsOn(c *catalog.Command, goos string) bool {
	if c == nil || goos != "windows" {
		return true
	}
	_, ok := c.OS[goos]
	return ok
}
