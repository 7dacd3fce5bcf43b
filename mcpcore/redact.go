package mcpcore

//lint:file-ignore SA1019 a server fronted may still ask for sampling, which go-sdk marks deprecated as of 2026-07-28 (SEP-2577); its questions are redacted like the rest.

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Redaction: once a request is answered, every secret value a template of
// the request resolved is replaced in the answer — the result the client
// gets, the error, and so the activity log and the server's log. The values
// come from the template data the call record keeps (callrecord.go).

// redact replaces the secret values any of the call's templates resolved.
func (c *callRecord) redact(s string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, d := range c.data {
		s = d.Redact(s)
	}
	return s
}

// redactResult redacts, in place, every text a result carries to the
// client: content blocks, structured content, prompt messages and resource
// contents (text, and blobs, which may be text under another MIME type).
func (c *callRecord) redactResult(res mcp.Result) mcp.Result {
	if !c.secrets.Load() {
		return res
	}
	switch r := res.(type) {
	case *mcp.CallToolResult:
		if r == nil {
			return res
		}
		for _, b := range r.Content {
			c.redactContent(b)
		}
		if r.StructuredContent != nil {
			r.StructuredContent = c.redactJSON(r.StructuredContent)
		}
		c.redactInputRequests(r.InputRequests)
	case *mcp.GetPromptResult:
		if r == nil {
			return res
		}
		c.redactInputRequests(r.InputRequests)
		r.Description = c.redact(r.Description)
		for _, m := range r.Messages {
			if m != nil {
				c.redactContent(m.Content)
			}
		}
	case *mcp.ReadResourceResult:
		if r == nil {
			return res
		}
		for _, rc := range r.Contents {
			c.redactResourceContents(rc)
		}
	}
	return res
}

// redactInputRequests redacts, in place, what an upstream server's
// questions show the client: the messages, prompts and forms.
func (c *callRecord) redactInputRequests(reqs mcp.InputRequestMap) {
	for _, ir := range reqs {
		c.redactInputRequest(ir)
	}
}

func (c *callRecord) redactInputRequest(ir mcp.InputRequest) {
	if !c.secrets.Load() {
		return
	}
	switch p := ir.(type) {
	case *mcp.ElicitParams:
		p.Message, p.URL = c.redact(p.Message), c.redact(p.URL)
		if p.RequestedSchema != nil {
			p.RequestedSchema = c.redactJSON(p.RequestedSchema)
		}
	case *mcp.CreateMessageParams:
		p.SystemPrompt = c.redact(p.SystemPrompt)
		for _, m := range p.Messages {
			if m != nil {
				c.redactContent(m.Content)
			}
		}
	case *mcp.CreateMessageWithToolsParams:
		p.SystemPrompt = c.redact(p.SystemPrompt)
		for _, m := range p.Messages {
			if m != nil {
				for _, b := range m.Content {
					c.redactContent(b)
				}
			}
		}
	}
}

func (c *callRecord) redactContent(b mcp.Content) {
	switch x := b.(type) {
	case *mcp.TextContent:
		x.Text = c.redact(x.Text)
	case *mcp.EmbeddedResource:
		c.redactResourceContents(x.Resource)
	case *mcp.ResourceLink:
		x.URI, x.Name, x.Title, x.Description = c.redact(x.URI), c.redact(x.Name), c.redact(x.Title), c.redact(x.Description)
	}
}

func (c *callRecord) redactResourceContents(rc *mcp.ResourceContents) {
	if rc == nil {
		return
	}
	rc.Text = c.redact(rc.Text)
	if len(rc.Blob) > 0 {
		if s := c.redact(string(rc.Blob)); s != string(rc.Blob) {
			rc.Blob = []byte(s)
		}
	}
}

// redactJSON redacts the string leaves (and keys) of a JSON value, keeping
// its shape; go-sdk hands structured content over as json.RawMessage.
func (c *callRecord) redactJSON(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var x any
	if err := json.Unmarshal(b, &x); err != nil {
		return v
	}
	out, err := json.Marshal(c.redactValue(x))
	if err != nil {
		return v
	}
	return json.RawMessage(out)
}

func (c *callRecord) redactValue(v any) any {
	switch x := v.(type) {
	case string:
		return c.redact(x)
	case []any:
		for i := range x {
			x[i] = c.redactValue(x[i])
		}
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[c.redact(k)] = c.redactValue(e)
		}
		return out
	}
	return v
}

// redactError redacts an error's message (and a JSON-RPC error's data),
// keeping its JSON-RPC code.
func (c *callRecord) redactError(err error) error {
	if err == nil || !c.secrets.Load() {
		return err
	}
	if je, ok := err.(*jsonrpc.Error); ok {
		out := &jsonrpc.Error{Code: je.Code, Message: c.redact(je.Message)}
		if len(je.Data) > 0 {
			if d := c.redact(string(je.Data)); json.Valid([]byte(d)) {
				out.Data = json.RawMessage(d)
			}
		}
		return out
	}
	if msg := c.redact(err.Error()); msg != err.Error() {
		return &redactedError{msg: msg, err: err}
	}
	return err
}

// redactedError shows a redacted message and still unwraps to the
// original, so its JSON-RPC code and errors.Is keep working.
type redactedError struct {
	msg string
	err error
}

func (r *redactedError) Error() string { return r.msg }
func (r *redactedError) Unwrap() error { return r.err }
