package daemon

import (
	"context"
	"log/slog"

	"github.com/mcptray/mcptray/mcpcore/actions"
)

// guardCommands kills the command processes the last server on this
// database left running — it crashed or was killed before they ended (see
// actions.KillLeftovers) — and forgets them; then it starts recording this
// server's (actions.Reaper, whose watcher kills them should this server
// die). It runs at start, holding the instance lock, before any command of
// this server can run.
func (d *Daemon) guardCommands(ctx context.Context) {
	if groups, err := d.st.TakeProcessGroups(ctx); err != nil {
		slog.Warn("the commands a crash left running cannot be stopped", "err", err)
	} else if n := actions.KillLeftovers(groups); n > 0 {
		slog.Warn("stopped the command processes the last run left when it ended without stopping them", "processes", n, "groups", len(groups))
	}
	var err error
	if d.procs, err = actions.StartReaper(d.st); err != nil {
		slog.Debug("commands are stopped at the next start only if mcptray dies", "err", err)
	}
}
