package mcpcore

//lint:file-ignore SA1019 log messages still go to clients that set a log level; go-sdk marks logging deprecated as of 2026-07-28 (SEP-2577).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/mcpcore/actions"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// addTool registers a catalog tool. go-sdk validates the arguments against
// the input schema (applying defaults) before the handler runs; the handler
// checks the structured output against the output schema itself, so that a
// mismatch is a tool error the model sees rather than a protocol error.
func (e *Engine) addTool(srv *mcp.Server, t catalog.Tool) error {
	input, err := e.schemas.schema(t.InputSchemaJSON())
	if err != nil {
		return err
	}
	mt := &mcp.Tool{
		Name:        t.Name,
		Title:       t.Title,
		Description: t.Description,
		InputSchema: input,
		Annotations: annotations(t.Hints, t.Title),
	}
	var output *jsonschema.Resolved
	if len(t.OutputSchema) > 0 {
		mt.OutputSchema = t.OutputSchema
		var s jsonschema.Schema
		if err := json.Unmarshal(t.OutputSchema, &s); err != nil {
			return fmt.Errorf("output schema: %w", err)
		}
		if output, err = s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true}); err != nil {
			return fmt.Errorf("output schema: %w", err)
		}
	}
	mcp.AddTool(srv, mt, e.toolHandler(t, output))
	return nil
}

// annotations are the hints as go-sdk's tool annotations.
func annotations(h *catalog.Hints, title string) *mcp.ToolAnnotations {
	if h == nil {
		return nil
	}
	a := &mcp.ToolAnnotations{Title: title, DestructiveHint: h.Destructive, OpenWorldHint: h.OpenWorld}
	if h.ReadOnly != nil {
		a.ReadOnlyHint = *h.ReadOnly
	}
	if h.Idempotent != nil {
		a.IdempotentHint = *h.Idempotent
	}
	return a
}

// toolHandler hands a call of t to callTool, where its flow reads top to
// bottom.
func (e *Engine) toolHandler(t catalog.Tool, output *jsonschema.Resolved) mcp.ToolHandlerFor[map[string]any, any] {
	return func(ctx context.Context, req *mcp.CallToolRequest, args map[string]any) (*mcp.CallToolResult, any, error) {
		return e.callTool(ctx, t, output, req, args)
	}
}

// runAction runs a tool's action once its inputs are known, and checks the
// structured output against the output schema. It returns the result and
// the structured value go-sdk should check and serialize.
func (e *Engine) runAction(ctx context.Context, t catalog.Tool, output *jsonschema.Resolved, data *actions.Data, rep actions.Reporter) (*mcp.CallToolResult, any, error) {
	res, err := actions.Run(ctx, t.Action, data, rep)
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		var je *jsonrpc.Error
		if errors.As(err, &je) {
			// A server's JSON-RPC error (an upstream tool's) means the
			// same to the client — -32021 for a capability it lacks,
			// -32602 for a state the server refused — and so does
			// package upstream's -32603 for a result the server
			// dropped (not the tool's failure): it goes on as it is
			// (the call record redacts it, as every error).
			return nil, nil, je
		}
		return nil, nil, err // go-sdk turns a plain error into an isError result
	}
	if output == nil || res.IsError || res.InputRequests != nil {
		return res, nil, nil
	}
	structured, fromText := res.StructuredContent, false
	if structured == nil {
		// A command or an HTTP API printing JSON: its first text
		// block is the structured content.
		if structured, fromText = jsonText(res.Content); structured == nil {
			return errorResult("the tool has an output schema, but its output is not JSON: the output must be a JSON value that matches the schema"), nil, nil
		}
	}
	if err := checkOutput(output, structured); err != nil {
		return errorResult(err.Error()), nil, nil
	}
	// Hand the value to go-sdk, which checks it against the output schema
	// again and adds the serialized text block older clients read.
	res.StructuredContent = nil
	if fromText && len(res.Content) == 1 {
		// The text was the JSON itself; go-sdk writes it back, compacted.
		res.Content = nil
	}
	return res, structured, nil
}

// withStructured puts the structured value runAction returned into its
// result, with the serialized text block older clients read, as go-sdk
// does for a call it answers: a task's result never goes through go-sdk.
func withStructured(res *mcp.CallToolResult, structured any) *mcp.CallToolResult {
	if structured != nil {
		res.StructuredContent = structured
		if len(res.Content) == 0 {
			b, _ := json.Marshal(structured)
			res.Content = []mcp.Content{&mcp.TextContent{Text: string(b)}}
		}
	}
	return res
}

// jsonText returns the JSON value of the first content block when it is a
// text block holding valid JSON.
func jsonText(content []mcp.Content) (any, bool) {
	if len(content) == 0 {
		return nil, false
	}
	tc, ok := content[0].(*mcp.TextContent)
	if !ok {
		return nil, false
	}
	b := bytes.TrimSpace([]byte(tc.Text))
	if len(b) == 0 || !json.Valid(b) {
		return nil, false
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil || v == nil {
		return nil, false
	}
	return v, true
}

// checkOutput validates structured output against the output schema, as
// go-sdk will (defaults applied to a copy first), and says what does not
// match.
func checkOutput(schema *jsonschema.Resolved, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("the tool's structured output cannot be encoded as JSON: %v", err)
	}
	var inst any
	if err := json.Unmarshal(b, &inst); err != nil {
		return fmt.Errorf("the tool's structured output is not valid JSON: %v", err)
	}
	if m, ok := inst.(map[string]any); ok {
		if err := schema.ApplyDefaults(&m); err != nil {
			return fmt.Errorf("the tool's output does not match its output schema: %v", err)
		}
		inst = m
	}
	if err := schema.Validate(inst); err != nil {
		return fmt.Errorf("the tool's output does not match its output schema: %v", err)
	}
	return nil
}

// errorResult is a tool error: a result the model reads, not a protocol
// error.
func errorResult(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}
}

// reporter streams an action's progress and logs on the request's own
// response stream; go-sdk drops logs the request did not ask for.
// Secret values are redacted from what it sends, as from the result.
type reporter struct {
	req  *mcp.CallToolRequest
	data *actions.Data
}

// Progress sends a progress notification when the request asked for them
// (it gave a progress token).
func (r *reporter) Progress(ctx context.Context, progress, total float64, message string) error {
	token := r.req.Params.GetProgressToken()
	if token == nil {
		return nil
	}
	return r.req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: progress, Total: total, Message: r.data.Redact(message)})
}

// Log sends a log message on the request's stream.
func (r *reporter) Log(ctx context.Context, level, logger string, data any) error {
	if s, ok := data.(string); ok {
		data = r.data.Redact(s)
	}
	return r.req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: mcp.LoggingLevel(level), Logger: logger, Data: data})
}

var _ actions.Reporter = (*reporter)(nil)
