package testcatalog

import (
	"testing"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/mcpcore"
)

// TestToolsAreValid: tests store these; an invalid one would fail them for
// the wrong reason.
func TestToolsAreValid(t *testing.T) {
	for _, tool := range []catalog.Tool{RespondTool("a", "hi {{.args.x}}"), CommandTool("b", "echo", "x"), SyncTool()} {
		if ps := mcpcore.ValidateTool(tool); len(ps) > 0 {
			t.Errorf("%s: %v", tool.Name, ps)
		}
	}
}
