package daemon

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/mcptray/mcptray/mcpcore"
)

// codeNotServing is the JSON-RPC error code of a request turned away
// because the server stopped serving: -32000, the first code JSON-RPC
// leaves to servers, which the stdio shim gives the requests it cannot
// deliver too.
const codeNotServing = -32000

// Halted says why the server stopped answering on its own, in words for
// the person (clients get them with a 503, the tray shows them); "" while
// it answers. It stops when its database file is deleted or moved while
// it runs: it would otherwise go on serving a catalog and tokens nobody
// can change any more, while `mcptray token create` and the app's window
// write a new database at the path that it never reads. Only a restart
// makes it serve again.
func (d *Daemon) Halted() string {
	if d.st == nil || d.st.GoneErr() == nil {
		return ""
	}
	return fmt.Sprintf("mcptray's database was deleted or moved while it was running (%s). Restart mcptray to start again with a new one.", d.db)
}

// haltable answers every request with 503 and the reason once the server
// halted. Requests already past it (a call running, a stream open) finish
// as they would have.
func (d *Daemon) haltable(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if why := d.Halted(); why != "" {
			mcpcore.WriteHTTPError(w, http.StatusServiceUnavailable, codeNotServing, why)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// logHalt logs, once, that the server halted (on standard error for
// `mcptray serve`), unless the server stops first.
func (d *Daemon) logHalt(ctx context.Context) {
	select {
	case <-ctx.Done():
		return
	case <-d.st.Gone():
	}
	log := cmp.Or(d.cfg.Logger, slog.Default())
	log.Error("no longer answering calls: "+d.Halted(), "err", d.st.GoneErr())
}
