// Package editor draws the editors of the manager window: a tool's (its
// parameters, steps, action, content and Try it), a resource's, a resource
// template's and a prompt's, with the form builder, the schema editor and
// the Insert ▸ menu they share. Each editor checks what is typed as it is
// typed and saves to the store; the manager window (package app) places
// them and is the only package that imports this one.
package editor
