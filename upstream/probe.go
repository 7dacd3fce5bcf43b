package upstream

import (
	"context"

	"github.com/mcptray/mcptray/catalog"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Test connects to u once, lists its tools and stops it: the Test button,
// and `mcptray upstream test`. Its errors are the words a Manager would
// give; ctx bounds the whole of it (cfg.StartTimeout the start).
func Test(ctx context.Context, u catalog.Upstream, cfg Config) ([]*mcp.Tool, error) {
	m := New(cfg)
	defer m.Close()
	u.Start, u.Disabled, u.IdleStopMs = catalog.UpstreamOnUse, false, -1
	m.Set([]catalog.Upstream{u})
	return m.Tools(ctx, u.Name)
}
