package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/upstream"
)

// BigUpstream is what a server mcptray fronts with many tools costs
// mcptray (issue 29: "big catalogs stay light, whether the tools are
// mcptray's own or come from upstreams"): its target is
// BigListedRSSTarget, as for BigCatalog's own tools.
type BigUpstream struct {
	// Tools is how many tools the server offers, all approved.
	Tools int
	// Pages is how many tools/list pages listing them all took, ListedRSS
	// the mcptray server's resident memory after it (its child, the
	// fronted server, apart).
	Pages     int
	ListedRSS int64
}

// bigUpstreamSchema is the input schema of each generated tool: the three
// parameters of BigToolCatalog's, so that both measures list alike.
var bigUpstreamSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"id":{"type":"string","description":"the resource id"},` +
	`"limit":{"type":"number","description":"how many at most"},` +
	`"verbose":{"type":"boolean","description":"include details"}},"required":["id"]}`)

// BigUpstreamTools returns n distinct tools, like BigToolCatalog's, as a
// server offers them.
func BigUpstreamTools(n int) []*mcp.Tool {
	out := make([]*mcp.Tool, n)
	for i := range n {
		out[i] = &mcp.Tool{
			Name:        fmt.Sprintf("op_%05d", i),
			Description: fmt.Sprintf("Operation %d of a big imported API.", i),
			InputSchema: bigUpstreamSchema,
		}
	}
	return out
}

// MeasureBigUpstream measures `bin serve` fronting, over stdio, the server
// that server (a program taking UpstreamServeFlag: mcpbench) starts as,
// offering n tools in all: echo and n-1 generated ones (ServeUpstream).
// The server starts with mcptray, its tools all approved: a go-sdk client on mcptray's HTTP endpoint
// (2025-11-25) calls the echo tool, so that the server runs and mcptray
// has read its tools, then lists every tool, every page; then mcptray's
// memory is read.
func MeasureBigUpstream(ctx context.Context, bin, dir string, server []string, n int) (BigUpstream, error) {
	m := BigUpstream{Tools: n}
	argv := append(slices.Clone(server), UpstreamServeFlag, UpstreamToolsFlag, strconv.Itoa(n-1))
	u := catalog.Upstream{Name: "big", Start: catalog.UpstreamAtStart, Command: &catalog.UpstreamCommand{Argv: argv}}
	tools, err := upstream.Test(ctx, u, upstream.Config{})
	if err != nil {
		return m, fmt.Errorf("the upstream server of %d tools: %w", n, err)
	}
	if len(tools) != m.Tools {
		return m, fmt.Errorf("the upstream server offers %d tools, want %d", len(tools), m.Tools)
	}
	cat, err := pinnedCatalog(u, tools)
	if err != nil {
		return m, err
	}
	file, err := writeCatalog(cat, filepath.Join(dir, "big-upstream.json"))
	if err != nil {
		return m, err
	}
	srv, err := startServe(ctx, bin, dir, "bigupstream", "-catalog", file)
	if err != nil {
		return m, err
	}
	defer srv.stop()
	cs, err := Connect(ctx, srv.url, http.DefaultClient, Legacy)
	if err != nil {
		return m, err
	}
	defer cs.Close()
	if err := callEchoNamed(ctx, cs, u.ToolPrefix()+ToolName); err != nil {
		return m, fmt.Errorf("the echo tool through mcptray: %w", err)
	}
	first, err := cs.ListTools(ctx, nil)
	if err != nil {
		return m, fmt.Errorf("first tools/list: %w", err)
	}
	if m.Pages, err = listRest(ctx, cs, first, m.Tools); err != nil {
		return m, err
	}
	if m.ListedRSS, err = ProcessRSS(srv.cmd.Process.Pid); err != nil {
		return m, err
	}
	return m, nil
}

// listRest lists the pages of cs's tools after first, checks they are
// want in all, first's included, and returns how many pages that took.
func listRest(ctx context.Context, cs *mcp.ClientSession, first *mcp.ListToolsResult, want int) (int, error) {
	res, listed, pages := first, len(first.Tools), 1
	for ; res.NextCursor != ""; pages++ {
		var err error
		if res, err = cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: res.NextCursor}); err != nil {
			return pages, fmt.Errorf("tools/list page %d: %w", pages+1, err)
		}
		listed += len(res.Tools)
	}
	if listed != want {
		return pages, fmt.Errorf("tools/list: %d tools in %d pages, want %d", listed, pages, want)
	}
	return pages, nil
}
