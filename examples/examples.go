// Package examples holds the catalogs that ship with mcptray, embedded so
// the program needs no files beside it.
package examples

import _ "embed"

// Starter is the catalog a new user's database starts with: a few useful
// tools, a resource template and a prompt (see docs/install.md).
//
//go:embed starter.json
var Starter []byte

// Gallery holds more example tools, beside the starter catalog's, that
// the app offers under New tool ▸ From an example: each opens in the
// editor as a copy to adapt.
//
//go:embed gallery.json
var Gallery []byte
