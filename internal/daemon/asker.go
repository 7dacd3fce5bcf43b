package daemon

import (
	"context"

	"github.com/mcptray/mcptray/mcpcore"
)

// stoppingAsker withdraws its questions when the server's ctx ends:
// closing a session waits for its calls, and a call waiting for a person
// would hold shutdown forever.
type stoppingAsker struct {
	mcpcore.Asker
	stop context.Context
}

// Ask asks the wrapped Asker until ctx or the server's ctx ends.
func (a stoppingAsker) Ask(ctx context.Context, q mcpcore.Question) (mcpcore.Answer, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(a.stop, cancel)()
	return a.Asker.Ask(ctx, q)
}

// ClientFallback passes on the wrapped Asker's (mcpcore.ClientFallbacker):
// forms and URLs meant for the desktop go to a client that can answer
// them while the desktop cannot ask.
func (a stoppingAsker) ClientFallback() bool {
	f, ok := a.Asker.(mcpcore.ClientFallbacker)
	return ok && f.ClientFallback()
}
