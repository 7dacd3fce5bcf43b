//go:build headless

package main

import "github.com/mcptray/mcptray/internal/cli"

// desktop is nil: this build has no desktop app (no Fyne, no X11/GL), and
// `mcptray` with no command serves headless.
func desktop() cli.Desktop { return nil }

// window is nil: no desktop, no window.
func window() cli.Window { return nil }
