package importer

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/testserver"
)

// serve runs mcptray's real server with the tools and secrets.
func serve(t *testing.T, tools []catalog.Tool, secrets map[string]string) *testserver.Server {
	t.Helper()
	s := testserver.Start(t, testserver.Options{Catalog: &catalog.Catalog{Tools: tools}})
	for name, value := range secrets {
		if err := s.Daemon.Secrets().SetSecret(context.Background(), name, value); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// call calls a tool over MCP with the official go-sdk client and returns
// its text, failing the test on a tool error.
func call(t *testing.T, s *testserver.Server, name string, args map[string]any) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "importer-test", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.URL, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("calling %s: %v", name, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	if res.IsError {
		t.Fatalf("calling %s: tool error %s", name, b.String())
	}
	return b.String()
}
