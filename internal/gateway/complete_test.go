package gateway

import (
	"context"
	"testing"

	"github.com/mcptray/mcptray/catalog"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestCompleteAServerWithoutCompletions: a server that declares no
// completions offers no values, not an error for the AI app to show; a
// server the catalog does not hold is refused, naming it.
func TestCompleteAServerWithoutCompletions(t *testing.T) {
	l := newLiveServer(t)
	g := New(l, openStore(t))
	g.SetUpstreams([]catalog.Upstream{{Name: "up", Command: &catalog.UpstreamCommand{Argv: []string{"x"}}}})
	p := &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "p"}, Argument: mcp.CompleteParamsArgument{Name: "a", Value: "x"}}
	res, err := g.CompleteUpstream(context.Background(), "up", p)
	if err != nil || res.Completion.Values == nil || len(res.Completion.Values) != 0 {
		t.Errorf("completing with a server that offers no completions: %v %+v, want no values", err, res)
	}
	if _, err := g.CompleteUpstream(context.Background(), "other", p); err == nil || err.Error() != `no server named "other"` {
		t.Errorf("completing with a server not in the catalog: %v", err)
	}
}
