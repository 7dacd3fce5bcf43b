// Package ui holds the pieces every mcptray window is drawn with: forms
// that scroll to their first problem, the red line under a field, cards
// that move up and down, pick lists, a form built from a JSON Schema (the
// form a question or Try it shows), the header of a question window,
// buttons and fields that pass Escape on, and selects that show words
// instead of values. It draws no window of its own.
package ui
