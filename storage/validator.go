package storage

import "github.com/mcptray/mcptray/catalog"

// Validator checks what a Store is asked to keep, before it is written.
// The rules that need the engine's libraries (JSON Schema compilation,
// template and command-line parsing) live in mcpcore, which the storage
// layer does not import: the Store is handed them at Open, so that no
// caller can store an entry without them. mcpcore.Validator is the one
// mcptray uses.
type Validator interface {
	Tool(catalog.Tool) []catalog.Problem
	Resource(catalog.Resource) []catalog.Problem
	ResourceTemplate(catalog.ResourceTemplate) []catalog.Problem
	Prompt(catalog.Prompt) []catalog.Problem
	Upstream(catalog.Upstream) []catalog.Problem
	// Catalog checks a whole catalog, the uniqueness of names and URIs
	// included: nil, or a *catalog.ValidationError.
	Catalog(*catalog.Catalog) error
	// ToolChecks returns a check of tools handed to it one at a time, as
	// Catalog checks a catalog's tools (a name an earlier one had
	// included), for one goroutine.
	ToolChecks() func(catalog.Tool) []catalog.Problem
}
