// Package deptest enforces the arrows of docs/ARCHITECTURE.md: which of
// mcptray's packages may import which, checked on the real import graph as
// built for Linux, Windows and macOS (Rules). Each rule is there so that a
// part can be built, tested and run alone; each is shown to catch its own
// broken arrow.
package deptest
