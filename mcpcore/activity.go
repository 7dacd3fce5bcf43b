package mcpcore

//lint:file-ignore SA1019 the roots and sampling capabilities are deprecated in 2026-07-28, yet clients still declare them and the activity log says so.

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/record"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ActivitySink receives one record after every request. Record must not
// block: the call it describes has already been answered.
type ActivitySink interface {
	Record(record.Activity)
}

// maxDetail bounds an activity record's Detail, in characters.
const maxDetail = 200

// record hands one record to the activity sink. Sinks must not block
// (storage batches its writes); a sink that panics loses its record, never
// the request.
func (e *Engine) record(a record.Activity) {
	defer func() {
		if r := recover(); r != nil {
			e.log.Error("the activity log failed to record a request", "method", a.Method, "panic", r)
		}
	}()
	e.opts.Activity.Record(a)
}

// requestClient reads a request's protocol version and client from the
// 2026 per-request _meta, or from the legacy session's initialize. It reads
// the already-decoded _meta map: go-sdk's own accessors decode it again
// with a 32 KB buffer on every call, which the bench showed on every call.
func requestClient(req mcp.Request) (string, *mcp.Implementation) {
	if ss, ok := req.GetSession().(*mcp.ServerSession); ok && isLegacy(ss) {
		p := ss.InitializeParams()
		return p.ProtocolVersion, p.ClientInfo
	}
	var meta map[string]any
	// A request without params holds a typed nil (e.g. a nil *PingParams).
	if p := req.GetParams(); p != nil && !reflect.ValueOf(p).IsNil() {
		meta = p.GetMeta()
	}
	version, _ := meta["io.modelcontextprotocol/protocolVersion"].(string)
	info, _ := meta["io.modelcontextprotocol/clientInfo"].(map[string]any)
	if info == nil {
		return version, nil
	}
	name, _ := info["name"].(string)
	v, _ := info["version"].(string)
	return version, &mcp.Implementation{Name: name, Version: v}
}

// requestCapabilities are the capabilities a request's client declared: a
// session's at initialize (2025-11-25), else the request's _meta
// (2026-07-28), read from the decoded map as it is rather than through
// go-sdk's ClientCapabilities, which re-encodes it as JSON (~5.6 KB and 23
// allocations on every request). nil when the request declares none.
func requestCapabilities(req mcp.Request) *mcp.ClientCapabilities {
	if ss, ok := req.GetSession().(*mcp.ServerSession); ok && isLegacy(ss) {
		return ss.InitializeParams().Capabilities
	}
	p := req.GetParams()
	if p == nil || reflect.ValueOf(p).IsNil() {
		return nil
	}
	v, ok := p.GetMeta()[metaClientCapabilities].(map[string]any)
	if !ok {
		return nil
	}
	caps := &mcp.ClientCapabilities{}
	if e, ok := v["elicitation"].(map[string]any); ok {
		caps.Elicitation = &mcp.ElicitationCapabilities{}
		if _, ok := e["form"]; ok {
			caps.Elicitation.Form = &mcp.FormElicitationCapabilities{}
		}
		if _, ok := e["url"]; ok {
			caps.Elicitation.URL = &mcp.URLElicitationCapabilities{}
		}
	}
	if _, ok := v["sampling"]; ok {
		caps.Sampling = &mcp.SamplingCapabilities{}
	}
	if _, ok := v["roots"]; ok {
		caps.RootsV2 = &mcp.RootCapabilities{}
	}
	caps.Extensions, _ = v["extensions"].(map[string]any)
	return caps
}

// declaredCapabilities words what a client declared it can answer, in the
// terms the step routing uses (capable): forms, links, sampling, roots, and
// tasks for the tasks extension. nil caps give nil: nothing was declared in
// this request, which is not the same as declaring nothing.
func declaredCapabilities(caps *mcp.ClientCapabilities) []string {
	if caps == nil {
		return nil
	}
	out := []string{}
	for _, k := range []struct{ kind, word string }{
		{catalog.StepForm, "forms"}, {catalog.StepURL, "links"}, {catalog.StepSampling, "sampling"}, {catalog.StepRoots, "roots"},
	} {
		if capable(k.kind, caps) {
			out = append(out, k.word)
		}
	}
	if _, ok := caps.Extensions[TasksExtension]; ok {
		out = append(out, "tasks")
	}
	return out
}

// requestActivity describes a request as it came, before it is handled
// (the handler may change it): who sent it, in which era, about what. The
// record of its answer (ended) and of it still running both start from it,
// so a request is described once.
func requestActivity(start time.Time, method string, req mcp.Request) record.Activity {
	a := record.Activity{Time: start, Method: method}
	var client *mcp.Implementation
	if p, ok := req.GetParams().(*mcp.InitializeParams); ok && p != nil {
		// The session has no initialize params yet.
		a.Era, client = p.ProtocolVersion, p.ClientInfo
		a.Capabilities = declaredCapabilities(p.Capabilities)
	} else {
		a.Era, client = requestClient(req)
		a.Capabilities = declaredCapabilities(requestCapabilities(req))
		if x := req.GetExtra(); a.Era < modernVersion && x != nil && x.Header != nil {
			// A session's requests carry the version it negotiated;
			// its initialize params hold the one the client asked for.
			if v := x.Header.Get("MCP-Protocol-Version"); slices.Contains(legacyVersions, v) {
				a.Era = v
			}
		}
	}
	if a.Era == "" && (method == "server/discover" || method == "subscriptions/listen") {
		a.Era = modernVersion
	}
	if client != nil {
		a.Client, a.ClientVersion = client.Name, client.Version
	}
	if x := req.GetExtra(); x != nil && x.TokenInfo != nil {
		a.Token = x.TokenInfo.UserID
	}
	a.Target = targetOf(req.GetParams())
	return a
}

// ended is the record of the request a describes (requestActivity),
// answered with res or err as sent, secrets already redacted. abandoned
// says the client gave up on the request before its answer: it cancelled
// it (notifications/cancelled) or dropped its HTTP request (Try it's Stop,
// a client that closed the connection).
func ended(a record.Activity, res mcp.Result, err error, abandoned bool) record.Activity {
	a.Duration = time.Since(a.Time)
	if r, ok := res.(*mcp.InitializeResult); ok && r != nil {
		a.Era = r.ProtocolVersion // what the session speaks, not what was asked
	}
	// go-sdk turns a tool handler's error into a tool error result, so a
	// call stopped because its client gave up comes back as the tool error
	// "context canceled": that is a cancellation, not the tool failing.
	if errors.Is(err, context.Canceled) || (abandoned && err == nil && isErrorResult(res)) {
		// A cancelled request gets no response, so it has no code.
		a.Outcome, a.Detail = record.OutcomeCancelled, "cancelled by the client"
		return a
	}
	if err != nil {
		a.Outcome = record.OutcomeError
		a.ErrorCode, a.Detail = jsonrpc.CodeInternalError, excerpt(err.Error())
		var je *jsonrpc.Error
		if errors.As(err, &je) {
			a.ErrorCode = je.Code
		}
		return a
	}
	a.Outcome, a.Detail = outcomeOf(res)
	return a
}

// targetOf names what a request is about: a tool or prompt name, a
// resource URI, or a completion's reference.
func targetOf(p mcp.Params) string {
	switch x := p.(type) {
	case *mcp.CallToolParamsRaw:
		if x != nil {
			return x.Name
		}
	case *mcp.CallToolParams:
		if x != nil {
			return x.Name
		}
	case *mcp.GetPromptParams:
		if x != nil {
			return x.Name
		}
	case *mcp.ReadResourceParams:
		if x != nil {
			return x.URI
		}
	case *mcp.SubscribeParams:
		if x != nil {
			return x.URI
		}
	case *mcp.UnsubscribeParams:
		if x != nil {
			return x.URI
		}
	case *mcp.CompleteParams:
		if x != nil && x.Ref != nil {
			if x.Ref.URI != "" {
				return x.Ref.URI
			}
			return x.Ref.Name
		}
	}
	return ""
}

// outcomeOf classifies a result and takes a short excerpt of it.
func outcomeOf(res mcp.Result) (string, string) {
	switch r := res.(type) {
	case *createTaskResult:
		if r != nil {
			return record.OutcomeTask, "task " + r.TaskID
		}
	case *mcp.CallToolResult:
		if r == nil {
			break
		}
		if r.InputRequests != nil {
			return record.OutcomeInputRequired, asks(r.InputRequests)
		}
		detail := ""
		for _, c := range r.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				detail = excerpt(tc.Text)
				break
			}
		}
		if r.IsError {
			return record.OutcomeToolError, detail
		}
		return record.OutcomeOK, detail
	case *mcp.GetPromptResult:
		if r == nil {
			break
		}
		if r.InputRequests != nil {
			return record.OutcomeInputRequired, asks(r.InputRequests)
		}
		for _, m := range r.Messages {
			if tc, ok := m.Content.(*mcp.TextContent); ok {
				return record.OutcomeOK, excerpt(tc.Text)
			}
		}
	case *mcp.ReadResourceResult:
		if r == nil {
			break
		}
		if r.InputRequests != nil {
			return record.OutcomeInputRequired, asks(r.InputRequests)
		}
		for _, c := range r.Contents {
			if c != nil && c.Text != "" {
				return record.OutcomeOK, excerpt(c.Text)
			}
		}
	}
	return record.OutcomeOK, ""
}

// asks names the inputs an input_required result asks for.
func asks(m mcp.InputRequestMap) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return excerpt("asks for " + strings.Join(keys, ", "))
}

// excerpt is the start of s, at most maxDetail characters. It walks only
// the characters it keeps: s may be a command's whole output, which as
// runes would take four bytes a character.
func excerpt(s string) string {
	s = strings.TrimSpace(s)
	n := 0
	for i := range s {
		if n == maxDetail-1 {
			if _, size := utf8.DecodeRuneInString(s[i:]); i+size == len(s) {
				return s // maxDetail characters exactly
			}
			// As runes, so that a byte that is not UTF-8 reads U+FFFD.
			return string([]rune(s[:i])) + "…"
		}
		n++
	}
	return s
}
