// Package examples holds the catalogs that ship with mcptray, embedded so
// the program needs no files beside it.
package examples

import _ "embed"

// Starter is the catalog a new user's database starts with: a few useful
// tools, a resource template and a prompt (see README, Setup).
//
//go:embed starter.json
var Starter []byte
