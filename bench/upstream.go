package bench

import (
	"context"
	"fmt"
	"log/slog"
	"os/exec"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/gateway"
	"github.com/mcptray/mcptray/upstream"
)

// The overhead of a call through mcptray to a server it fronts (issue 29):
// a go-sdk client calling mcptray's HTTP endpoint, mcptray calling the
// server over stdio, against the same client calling the same server over
// stdio directly.
const (
	// UpstreamOverheadTarget is the most the p50 of a call through
	// mcptray may exceed the p50 of the direct call, at one client.
	UpstreamOverheadTarget = time.Millisecond
	// upstreamRounds alternate the two ways, so that the machine's mood
	// weighs on both alike.
	upstreamRounds = 5
)

// UpstreamServeFlag makes mcpbench the upstream server of the measures:
// go-sdk's server over stdio with the echo tool, and with
// UpstreamToolsFlag N, N generated tools more (BigUpstreamTools).
const (
	UpstreamServeFlag = "-upstream-stdio"
	UpstreamToolsFlag = "-upstream-tools"
)

// ServeUpstream serves the echo tool and tools more generated tools
// (BigUpstreamTools) over standard input and output until the client
// ends.
func ServeUpstream(ctx context.Context, tools int) error {
	srv := mcp.NewServer(&mcp.Implementation{Name: "bench-upstream", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: ToolName, Description: "Echoes its text argument."},
		func(_ context.Context, _ *mcp.CallToolRequest, a struct {
			Text string `json:"text"`
		}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Text}}}, nil, nil
		})
	for _, t := range BigUpstreamTools(tools) {
		srv.AddTool(t, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: t.Name}}}, nil
		})
	}
	return srv.Run(ctx, &mcp.StdioTransport{})
}

// pinnedCatalog is a catalog fronting u with tools (as u offers them)
// approved: each served under u's prefix, pinned to its definition's hash,
// as `mcptray upstream add --yes` leaves them.
func pinnedCatalog(u catalog.Upstream, tools []*mcp.Tool) (*catalog.Catalog, error) {
	cat := &catalog.Catalog{Format: catalog.CatalogFormat, Version: catalog.CatalogVersion, Upstreams: []catalog.Upstream{u}}
	cat.Tools = make([]catalog.Tool, 0, len(tools))
	for _, t := range tools {
		h, err := gateway.DefinitionHash(t)
		if err != nil {
			return nil, err
		}
		tool, err := gateway.ToolFrom(u, t, h, nil)
		if err != nil {
			return nil, err
		}
		cat.Tools = append(cat.Tools, tool)
	}
	return cat, nil
}

// UpstreamOverhead is the measure: the p50 of each way, at one client.
type UpstreamOverhead struct {
	Direct, Through time.Duration
	// Calls is how many calls each way timed.
	Calls int
}

// Overhead is what mcptray adds to a call's p50.
func (u UpstreamOverhead) Overhead() time.Duration { return u.Through - u.Direct }

// MeasureUpstreamOverhead times calls of the echo tool of the server argv
// starts (ServeUpstream), directly over stdio and through a mcptray server
// on a fresh database in dir fronting it, calls each way in all.
func MeasureUpstreamOverhead(ctx context.Context, dir string, argv []string, calls int, logger *slog.Logger) (UpstreamOverhead, error) {
	u := catalog.Upstream{Name: "up", Command: &catalog.UpstreamCommand{Argv: argv}}
	tools, err := upstream.Test(ctx, u, upstream.Config{})
	if err != nil {
		return UpstreamOverhead{}, fmt.Errorf("the upstream server: %w", err)
	}
	cat, err := pinnedCatalog(u, tools)
	if err != nil {
		return UpstreamOverhead{}, err
	}
	ours, err := startOurs(ctx, dir, cat, true, logger)
	if err != nil {
		return UpstreamOverhead{}, err
	}
	defer ours.Close()
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpbench", Version: "1"}, nil)
	through, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ours.URL, MaxRetries: -1,
		HTTPClient: NewHTTPClient(ours.Token)}, nil)
	if err != nil {
		return UpstreamOverhead{}, fmt.Errorf("connect to mcptray: %w", err)
	}
	defer through.Close()
	direct, err := client.Connect(ctx, &mcp.CommandTransport{Command: exec.CommandContext(ctx, argv[0], argv[1:]...)}, nil)
	if err != nil {
		return UpstreamOverhead{}, fmt.Errorf("start the upstream server: %w", err)
	}
	defer direct.Close()
	per := max(calls/upstreamRounds, 1)
	var d, th []time.Duration
	// Warm both ways up (mcptray starts the server at its first call).
	for _, w := range []struct {
		cs   *mcp.ClientSession
		name string
	}{{direct, ToolName}, {through, "up_" + ToolName}} {
		if _, err := timeCalls(ctx, w.cs, w.name, per); err != nil {
			return UpstreamOverhead{}, err
		}
	}
	for range upstreamRounds {
		got, err := timeCalls(ctx, direct, ToolName, per)
		if err != nil {
			return UpstreamOverhead{}, fmt.Errorf("direct: %w", err)
		}
		d = append(d, got...)
		if got, err = timeCalls(ctx, through, "up_"+ToolName, per); err != nil {
			return UpstreamOverhead{}, fmt.Errorf("through mcptray: %w", err)
		}
		th = append(th, got...)
	}
	return UpstreamOverhead{Direct: median(d), Through: median(th), Calls: len(d)}, nil
}

// timeCalls times n calls of tool, one after another.
func timeCalls(ctx context.Context, cs *mcp.ClientSession, tool string, n int) ([]time.Duration, error) {
	out := make([]time.Duration, 0, n)
	args := map[string]any{"text": "hello"}
	for range n {
		start := time.Now()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			return nil, err
		}
		if res.IsError {
			return nil, fmt.Errorf("%s answered an error: %v", tool, res.Content)
		}
		out = append(out, time.Since(start))
	}
	return out, nil
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
