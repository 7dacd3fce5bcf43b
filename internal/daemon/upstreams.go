package daemon

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/mcptray/mcptray/internal/gateway"
	"github.com/mcptray/mcptray/record"
	"github.com/mcptray/mcptray/upstream"
)

// upstreams runs the other MCP servers the catalog holds and keeps their
// tools in the catalog in line with what they offer.
type upstreams struct {
	d   *Daemon
	run *upstream.Manager
	gw  *gateway.Gateway

	mu sync.Mutex
	// waiting are the changes each server had waiting at its last read,
	// tool → hash, so that the activity log records each change once.
	waiting map[string]map[string]string
}

// startUpstreams makes the manager and the gateway; follow keeps them in
// line with the catalog.
func (d *Daemon) startUpstreams() *upstreams {
	u := &upstreams{d: d, waiting: map[string]map[string]string{}}
	u.run = upstream.New(upstream.Config{
		Expand:        gateway.Expander(d.sec),
		Logger:        d.cfg.Logger,
		OnListChanged: u.listChanged,
		Processes:     d.procs,
		Version:       d.cfg.Version,
		// Sign-ins to servers behind OAuth, made by `mcptray upstream
		// signin`: the serving process opens no browser by itself.
		Tokens: d.sec,
	})
	u.gw = gateway.New(u.run, d.st)
	return u
}

// follow hands the stored servers to the manager and the gateway now and
// after every change of the catalog, until ctx ends.
func (u *upstreams) follow(ctx context.Context) {
	changes := u.d.st.Changes(ctx)
	for {
		ups, err := u.d.st.Upstreams(ctx)
		if err != nil && ctx.Err() == nil {
			slog.Error("reading the servers mcptray fronts", "err", err)
		}
		if err == nil {
			u.gw.SetUpstreams(ups)
			u.run.Set(ups)
		}
		select {
		case <-ctx.Done():
			return
		case _, ok := <-changes:
			if !ok {
				return
			}
		}
	}
}

// syncTimeout bounds reading a server's tools after it said they changed.
const syncTimeout = time.Minute

// listChanged reads server's tools again (the server said they changed,
// or it (re)started), off the manager's goroutine.
func (u *upstreams) listChanged(server string) {
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), syncTimeout)
		defer cancel()
		changes, err := u.gw.Sync(ctx, server)
		if err != nil {
			slog.Warn("reading a server's tools", "server", server, "err", err)
			return
		}
		u.recordChanges(server, changes)
	}()
}

// recordChanges writes each change seen for the first time to the
// activity log.
func (u *upstreams) recordChanges(server string, changes []record.UpstreamChange) {
	now := make(map[string]string, len(changes))
	u.mu.Lock()
	before := u.waiting[server]
	for _, c := range changes {
		now[c.Tool] = c.Kind + c.Hash
	}
	u.waiting[server] = now
	u.mu.Unlock()
	for _, c := range changes {
		if before[c.Tool] == c.Kind+c.Hash {
			continue
		}
		u.d.activity.Record(record.Activity{
			Time: time.Now(), Method: "server tool " + c.Kind, Target: server + "/" + c.Tool, Outcome: record.OutcomeOK,
			Detail: fmt.Sprintf("%s's tool %s is %s: held back until you approve it", server, c.Tool, c.Kind),
		})
	}
}

// close stops every server and waits for their processes.
func (u *upstreams) close() {
	if err := u.run.Close(); err != nil {
		slog.Warn("stopping the servers mcptray fronts", "err", err)
	}
}
