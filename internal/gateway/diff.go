package gateway

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/record"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxShown bounds each value a change shows, in bytes: a description is
// read whole, a schema in part.
const maxShown = 2000

// Explain says in lines what a waiting change is: for a changed tool,
// each part that changed, as it was approved and as the server offers it
// now. tools are the server's tools in the catalog (UpstreamTools).
func Explain(u catalog.Upstream, c record.UpstreamChange, tools []catalog.Tool) []string {
	var approved *catalog.Tool
	for i := range tools {
		if tools[i].Action.Upstream.Tool == c.Tool {
			approved = &tools[i]
		}
	}
	switch c.Kind {
	case record.UpstreamGone:
		return []string{fmt.Sprintf("%s: the server no longer offers it; approving takes it out of mcptray", c.Tool)}
	}
	var t mcp.Tool
	if err := json.Unmarshal(c.Definition, &t); err != nil {
		return []string{fmt.Sprintf("%s: its definition cannot be read: %v", c.Tool, err)}
	}
	now, err := ToolFrom(u, &t, c.Hash, approved)
	if err != nil {
		return []string{fmt.Sprintf("%s: %v", c.Tool, err)}
	}
	if c.Kind == record.UpstreamNew || approved == nil {
		return []string{fmt.Sprintf("%s: new, served as %s", c.Tool, now.Name), "  description: " + cut(now.Description)}
	}
	lines := []string{fmt.Sprintf("%s (served as %s) changed:", c.Tool, approved.Name)}
	part := func(what, was, is string) {
		if was != is {
			lines = append(lines, wasNow(what, cut(was), cut(is))...)
		}
	}
	part("title", approved.Title, now.Title)
	part("description", approved.Description, now.Description)
	if compact(approved.InputSchema) != compact(now.InputSchema) {
		lines = append(lines, paramChanges(approved.InputSchema, now.InputSchema)...)
	}
	part("output schema", compact(approved.OutputSchema), compact(now.OutputSchema))
	was, _ := json.Marshal(approved.Hints)
	is, _ := json.Marshal(now.Hints)
	part("hints", string(was), string(is))
	if len(lines) == 1 {
		lines = append(lines, "  only in what mcptray does not show (its annotations' details)")
	}
	return lines
}

func compact(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "(none)"
	}
	b, err := canonical(raw)
	if err != nil {
		return string(raw)
	}
	return string(b)
}

func cut(s string) string {
	if len(s) <= maxShown {
		return fmt.Sprintf("%q", s)
	}
	end := maxShown
	for end > 0 && !utf8.RuneStart(s[end]) {
		end--
	}
	return fmt.Sprintf("%q… (%d more bytes)", s[:end], len(s)-end)
}
