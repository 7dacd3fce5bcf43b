// Package catalog is what a person defines in mcptray, as plain data: the
// tools (their parameters, input steps and action: respond, command or
// http), resources, resource templates and prompts, the server's settings,
// and the catalog file's JSON form.
//
// It holds the rules that need nothing but the standard library (names,
// required fields, settings' bounds, origins) and the strict decoding of a
// catalog file. The rules that compile JSON Schemas and parse templates and
// command lines need go-sdk, the JSON Schema libraries and mvdan/sh, and
// live in mcpcore (ValidateTool and its siblings, mcpcore.Validator), which
// storage is handed when it opens. This package imports no other package of
// mcptray's, so that storage, clientconfig, importer, the desktop and the
// engine can all share it without sharing anything else.
package catalog
