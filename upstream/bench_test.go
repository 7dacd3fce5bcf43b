package upstream

import (
	"context"
	"os/exec"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkEcho is a call of the test server's echo over stdio, through a
// Manager and on a bare go-sdk session: what the Manager adds to a call.
func BenchmarkEcho(b *testing.B) {
	args := map[string]any{"text": "hello"}
	b.Run("manager", func(b *testing.B) {
		m := newManager(b, Config{}, command(b, "up"))
		call(b, m, "up", "echo", args)
		for b.Loop() {
			if _, err := m.CallTool(context.Background(), "up", &mcp.CallToolParams{Name: "echo", Arguments: args}, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("bare session", func(b *testing.B) {
		c := mcp.NewClient(&mcp.Implementation{Name: "bench"}, nil)
		cs, err := c.Connect(context.Background(), &mcp.CommandTransport{Command: exec.Command(upserver(b))}, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer cs.Close()
		for b.Loop() {
			if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: args}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
