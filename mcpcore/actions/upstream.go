package actions

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcptray/mcptray/catalog"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// UpstreamCaller calls the tools of the other MCP servers mcptray fronts
// (catalog.Upstream). The daemon provides it; without one, an upstream
// action answers that servers are not available.
type UpstreamCaller interface {
	// UpstreamSecrets names the secrets the server's definition reads (its
	// environment or headers), so that a call redacts their values from
	// what the server answers, as it does for a command's.
	UpstreamSecrets(server string) []string
	// CallUpstream calls tool on server with args, when the server offers
	// it with the definition whose hash is pin; round carries the AI
	// client's side of the server's input rounds (nil: none); progress
	// receives the server's progress notifications for the call. A server
	// asking for input answers with a result whose InputRequests are set.
	CallUpstream(ctx context.Context, server, tool, pin string, args map[string]any, round *UpstreamRound, progress func(progress, total float64, message string)) (*mcp.CallToolResult, error)
}

// UpstreamRound is what a call of a server's tool carries of the AI
// client: a server asks for input (elicitation, sampling, roots) with an
// input_required result, which the engine passes on to the client, and
// the client's answers come back through the engine in the next call.
type UpstreamRound struct {
	// Capabilities are the client capabilities the AI client declared,
	// as the JSON value of the request's _meta
	// "io.modelcontextprotocol/clientCapabilities": the server then asks
	// only what the client can answer. nil declares none.
	Capabilities any
	// Responses answer the server's last InputRequests, by key.
	Responses mcp.InputResponseMap
	// State is the requestState the server sent with them.
	State string
}

// errNoUpstreams is the answer of an upstream action where no caller is
// set (a test engine, Try it without a server).
var errNoUpstreams = errors.New("other MCP servers are not available here")

func validateUpstream(u *catalog.UpstreamTool) []Problem {
	var ps []Problem
	if u.Server == "" {
		ps = append(ps, problemf("server", "required: the name of the server the tool belongs to"))
	}
	if u.Tool == "" {
		ps = append(ps, problemf("tool", "required: the tool's name on its server"))
	}
	if u.Pin == "" {
		ps = append(ps, problemf("pin", "required: the hash of the definition the person approved"))
	}
	return ps
}

func runUpstream(ctx context.Context, u *catalog.UpstreamTool, data *Data, rep Reporter) (*mcp.CallToolResult, error) {
	if data == nil || data.Upstreams == nil {
		return nil, errNoUpstreams
	}
	data.ResolveSecrets(data.Upstreams.UpstreamSecrets(u.Server))
	progress := func(p, total float64, message string) {
		if rep != nil {
			_ = rep.Progress(ctx, p, total, data.Redact(message))
		}
	}
	res, err := data.Upstreams.CallUpstream(ctx, u.Server, u.Tool, u.Pin, data.Args, data.Round, progress)
	if err != nil {
		return nil, fmt.Errorf("server %q: %w", u.Server, err)
	}
	return res, nil
}

// describeUpstream says what a call of a server's tool runs. It does not
// say where the arguments are: the approval window shows them after it.
func describeUpstream(u *catalog.UpstreamTool) []string {
	return []string{fmt.Sprintf("Calls the tool %q of the server %q, passing on what the AI app sends", u.Tool, u.Server)}
}

// ResolveSecrets reads the named secrets only so that everything the call
// produces is redacted of them: those a server was started with, which
// its answers may echo. A secret that cannot be read now did not reach the
// server either.
func (d *Data) ResolveSecrets(names []string) {
	for _, name := range names {
		_, _ = d.secret(name)
	}
}
