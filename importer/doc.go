// Package importer turns what people already have into mcptray tools: a
// curl command (curl.go) or an OpenAPI / Swagger document (openapi.go)
// becomes catalog.Tool values calling the API with an http action, plus
// the secrets those tools read. The rules — what becomes a parameter, what
// counts as a credential, how each value is escaped, which hints a method
// gets — live here, with no widget and no database: the command line
// (internal/cli) and the desktop app (app) both call it, and AddTools
// stores the result all or nothing.
package importer
