package daemon

//lint:file-ignore SA1019 servers fronted may still ask for sampling and roots, which go-sdk marks deprecated as of 2026-07-28 (SEP-2577).

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/gateway"
	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/record"
	"github.com/mcptray/mcptray/upstream"
	"github.com/modelcontextprotocol/go-sdk/mcp"
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
		// d.eng is made before follow hands the manager any server.
		OnResourceUpdated: func(_, uri string) { d.eng.ResourceUpdated(context.Background(), uri) },
		Processes:         d.procs,
		Version:           d.cfg.Version,
		// What a server on a 2025-11-25 session asks or logs during a
		// call or a prompt get goes to the AI app that made it (a
		// question to a call running as a task, through the task). A
		// form the app cannot show is filled in at the computer
		// (mcpcore.Engine.AnswerServer).
		Elicit: func(ctx context.Context, server string, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			return answerAs[*mcp.ElicitResult](d.eng.AnswerServer(ctx, server, p))
		},
		Sample: func(ctx context.Context, _ string, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			return askCaller[*mcp.CreateMessageResult](ctx, p)
		},
		Roots: func(ctx context.Context, _ string) ([]*mcp.Root, error) {
			r, err := askCaller[*mcp.ListRootsResult](ctx, &mcp.ListRootsParams{})
			if err != nil {
				return nil, err
			}
			return r.Roots, nil
		},
		Log: func(ctx context.Context, _ string, p *mcp.LoggingMessageParams) { mcpcore.LogToCaller(ctx, p) },
		// Sign-ins to servers behind OAuth, made by `mcptray upstream
		// signin`: the serving process opens no browser by itself.
		Tokens: d.sec,
	})
	u.gw = gateway.New(u.run, d.st)
	return u
}

// follow hands the stored servers to the manager and the gateway now and
// after every change of the catalog, until ctx ends; a server whose
// environment or headers read a secret that changed is restarted.
func (u *upstreams) follow(ctx context.Context) {
	changes := u.d.st.Changes(ctx)
	var secrets map[string]time.Time
	for {
		ups, err := u.d.st.Upstreams(ctx)
		if err != nil && ctx.Err() == nil {
			slog.Error("reading the servers mcptray fronts", "err", err)
		}
		if err == nil {
			u.gw.SetUpstreams(ups)
			u.run.Set(ups)
			secrets = u.renewOnSecrets(ctx, ups, secrets)
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

// renewOnSecrets restarts each server that reads a secret changed (set
// again, or deleted) since before, when each secret last changed; it
// returns the times now. A running server read its secrets when it
// started, and would keep the old values until its next start.
func (u *upstreams) renewOnSecrets(ctx context.Context, ups []catalog.Upstream, before map[string]time.Time) map[string]time.Time {
	if u.d.sec == nil {
		return nil
	}
	list, err := u.d.sec.ListSecrets(ctx)
	if err != nil {
		if ctx.Err() == nil {
			slog.Warn("reading when secrets changed", "err", err)
		}
		return before
	}
	now := make(map[string]time.Time, len(list))
	for _, s := range list {
		now[s.Name] = s.UpdatedAt
	}
	if before == nil {
		return now
	}
	for _, up := range ups {
		for _, name := range mcpcore.UpstreamSecrets(up) {
			was, had := before[name]
			is, has := now[name]
			if had != has || !was.Equal(is) {
				u.run.Renew(up.Name, fmt.Sprintf("the secret %s it reads changed", name))
				break
			}
		}
	}
	return now
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

// UpstreamStatus is how the server mcptray fronts named name runs now:
// its state, its last failure in words and the last lines it wrote on
// standard error. Only this process runs the servers, so the window
// process asks for it over the link (app/link.UpstreamStatus).
func (d *Daemon) UpstreamStatus(name string) upstream.Status {
	return d.ups.run.Status(name)
}

// askCaller asks the AI app whose call ctx is (mcpcore.AskCaller) and
// gives its answer as the kind R the server's request expects.
func askCaller[R mcp.InputResponse](ctx context.Context, ir mcp.InputRequest) (R, error) {
	return answerAs[R](mcpcore.AskCaller(ctx, ir))
}

// answerAs is an answer to a server's request as the kind R it expects.
func answerAs[R mcp.InputResponse](resp mcp.InputResponse, err error) (R, error) {
	var zero R
	if err != nil {
		return zero, err
	}
	r, ok := resp.(R)
	if !ok {
		return zero, fmt.Errorf("the AI app answered with %T, not %T", resp, zero)
	}
	return r, nil
}

// close stops every server and waits for their processes.
func (u *upstreams) close() {
	if err := u.run.Close(); err != nil {
		slog.Warn("stopping the servers mcptray fronts", "err", err)
	}
}
