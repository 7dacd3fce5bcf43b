package gateway

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/mcptray/mcptray/catalog"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// definition is what of a server's tool the person approves: what the
// model reads and what the tool takes and gives. Its _meta and icons are
// left out: they change nothing the model is told.
type definition struct {
	Name         string               `json:"name"`
	Title        string               `json:"title,omitempty"`
	Description  string               `json:"description,omitempty"`
	InputSchema  any                  `json:"inputSchema,omitempty"`
	OutputSchema any                  `json:"outputSchema,omitempty"`
	Annotations  *mcp.ToolAnnotations `json:"annotations,omitempty"`
}

func definitionOf(t *mcp.Tool) definition {
	return definition{Name: t.Name, Title: t.Title, Description: t.Description,
		InputSchema: t.InputSchema, OutputSchema: t.OutputSchema, Annotations: t.Annotations}
}

// DefinitionHash is the hash a server's tool is pinned by: SHA-256 of its
// definition's canonical JSON (keys sorted, numbers as written), so that
// the same tool sent with its keys in another order hashes the same.
func DefinitionHash(t *mcp.Tool) (string, error) {
	canon, err := canonical(definitionOf(t))
	if err != nil {
		return "", fmt.Errorf("hashing tool %q: %w", t.Name, err)
	}
	sum := sha256.Sum256(canon)
	return hex.EncodeToString(sum[:]), nil
}

// canonical is v's JSON with object keys sorted and no spaces.
func canonical(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var generic any
	if err := d.Decode(&generic); err != nil {
		return nil, err
	}
	return json.Marshal(generic) // maps marshal with sorted keys
}

// maxServedName is the longest name every client accepts
// (catalog.ServedNamePattern).
const maxServedName = 64

// notServed are the characters catalog.ServedNamePattern refuses.
var notServed = regexp.MustCompile(`[^A-Za-z0-9_-]`)

// ServedName is the name a server's tool or prompt is served under: prefix
// then name, when that is a name every client accepts. Otherwise the
// refused characters become "_", a name too long is cut, and it ends with
// "_" and 8 characters of the full name's hash, so that two names that
// read the same after that stay apart.
func ServedName(prefix, name string) string {
	full := prefix + name
	if catalog.ServedNamePattern.MatchString(full) {
		return full
	}
	clean := notServed.ReplaceAllString(full, "_")
	sum := sha256.Sum256([]byte(full))
	suffix := "_" + hex.EncodeToString(sum[:])[:8]
	if len(clean) > maxServedName-len(suffix) {
		clean = clean[:maxServedName-len(suffix)]
	}
	return strings.TrimRight(clean, "_") + suffix
}

// noDescription stands in for a server's tool without a description:
// mcptray's catalog requires one, as it is how the model decides when to
// call the tool.
const noDescription = "(the server gives this tool no description)"

// ToolFrom is the catalog tool serving server u's tool t, pinned by hash.
// What the person set on the tool they had (kept: nil for none) stays:
// whether it is on, "ask first", its input steps, whether it runs as a task.
func ToolFrom(u catalog.Upstream, t *mcp.Tool, hash string, kept *catalog.Tool) (catalog.Tool, error) {
	out := catalog.Tool{
		Name:        ServedName(u.ToolPrefix(), t.Name),
		Title:       t.Title,
		Description: t.Description,
		Action:      catalog.Action{Upstream: &catalog.UpstreamTool{Server: u.Name, Tool: t.Name, Pin: hash}},
		// A server's call may be slow, and the server may know nothing of
		// tasks: a client that declares them gets the call as a task of
		// mcptray's, with the task window and the server's progress as its
		// message.
		TaskMode: catalog.TaskOptional,
	}
	if strings.TrimSpace(out.Description) == "" {
		out.Description = noDescription
	}
	var err error
	if out.InputSchema, err = schemaJSON(t.InputSchema); err != nil {
		return out, fmt.Errorf("tool %q: input schema: %w", t.Name, err)
	}
	if len(out.InputSchema) == 0 {
		out.InputSchema = json.RawMessage(`{"type":"object"}`)
	}
	if out.OutputSchema, err = schemaJSON(t.OutputSchema); err != nil {
		return out, fmt.Errorf("tool %q: output schema: %w", t.Name, err)
	}
	if a := t.Annotations; a != nil {
		out.Hints = &catalog.Hints{Destructive: a.DestructiveHint, OpenWorld: a.OpenWorldHint}
		if a.ReadOnlyHint {
			out.Hints.ReadOnly = &a.ReadOnlyHint
		}
		if a.IdempotentHint {
			out.Hints.Idempotent = &a.IdempotentHint
		}
		if out.Title == "" {
			out.Title = a.Title
		}
	}
	if kept != nil {
		out.Disabled, out.Approval, out.Steps, out.TaskMode = kept.Disabled, kept.Approval, kept.Steps, kept.TaskMode
	}
	return out, nil
}

// schemaJSON is a schema as JSON, nil for none.
func schemaJSON(s any) (json.RawMessage, error) {
	switch v := s.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		return v, nil
	}
	return json.Marshal(s)
}
