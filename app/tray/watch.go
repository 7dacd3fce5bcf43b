package tray

import (
	"context"
	"log/slog"
	"slices"
	"time"

	"github.com/mcptray/mcptray/app/link"
	"github.com/mcptray/mcptray/app/tryit"
	"github.com/mcptray/mcptray/record"
)

const (
	// recentClientWindow is how far back the tray looks for clients.
	recentClientWindow = 10 * time.Minute
	// minRound is the least time between two rounds of watch: a command
	// that streams its output as progress changes its task many times a
	// second, and each change of a line is a D-Bus signal to the tray
	// host.
	minRound = 500 * time.Millisecond
)

// watch keeps the menu current. It is woken by what changes it: a task
// starting, changing or ending; a question coming or going; a request (the
// clients line); a stored change (the settings: the port); the database
// file going (the server halts); and the moment a listed client's last
// request leaves the clients line's window. With
// nothing happening nothing of it runs: no polling round, no timer (make
// bench's tray figures). When a task starts and the person asked for it,
// it opens the task window.
func (t *Tray) watch(ctx context.Context, w *watcher) {
	cfg := t.cfg
	var (
		tasks, questions, stored, gone <-chan struct{}
		activity                       <-chan record.Activity
	)
	if cfg.Engine != nil {
		tasks = coalesce(cfg.Engine.SubscribeTasks(ctx))
	}
	if cfg.Asker != nil {
		questions = cfg.Asker.Subscribe(ctx)
	}
	if cfg.Store != nil {
		stored, gone = cfg.Store.Changes(ctx), cfg.Store.Gone()
	}
	if cfg.Activity != nil {
		activity = cfg.Activity.SubscribeActivity(ctx)
	}
	// leaves fires when the first client listed leaves the window.
	leaves := time.NewTimer(time.Hour)
	leaves.Stop()
	defer leaves.Stop()
	for {
		w.round(ctx)
		select {
		case <-ctx.Done():
			return
		case <-time.After(minRound):
		}
		leaves.Stop()
		if !w.leaves.IsZero() {
			// A second late: the query counts a request at the window's
			// very edge as in it.
			leaves.Reset(time.Until(w.leaves) + time.Second)
		}
		// A channel closed (the server stopping) is nil from then on:
		// nothing more comes from it.
		select {
		case <-ctx.Done():
			return
		case _, ok := <-tasks:
			tasks = nilIfClosed(tasks, ok)
		case _, ok := <-questions:
			questions = nilIfClosed(questions, ok)
		case _, ok := <-stored:
			stored = nilIfClosed(stored, ok)
		case <-gone:
			gone = nil // closed: it said all it will
		case a, ok := <-activity:
			if !ok {
				activity = nil
			} else {
				w.heard(a)
			}
		case <-leaves.C:
			w.clientsDue = true
		}
	}
}

// nilIfClosed is ch, or nil once a receive from it said it is closed.
func nilIfClosed[T any](ch <-chan T, ok bool) <-chan T {
	if !ok {
		return nil
	}
	return ch
}

// coalesce turns a stream of values into signals that coalesce, so that a
// burst of task changes wakes the watcher once. The channel it returns is
// closed after in is.
func coalesce[T any](in <-chan T) <-chan struct{} {
	out := make(chan struct{}, 1)
	go func() {
		defer close(out)
		for range in {
			select {
			case out <- struct{}{}:
			default:
			}
		}
	}()
	return out
}

// watcher is what watch remembers from one round to the next.
type watcher struct {
	t *Tray
	// running are the ids of the tasks running at the last round.
	running map[string]bool
	// recent are the clients last read, and leaves when the first of them
	// leaves the clients line's window; clientsDue says to read them again
	// at the next round.
	recent     []string
	leaves     time.Time
	clientsDue bool
}

// newWatcher starts watching; the tasks running already open nothing.
func (t *Tray) newWatcher() *watcher {
	w := &watcher{t: t, running: map[string]bool{}, clientsDue: true}
	if eng := t.cfg.Engine; eng != nil {
		w.running = runningTaskIDs(eng.RunningTasks())
	}
	return w
}

// heard notes a request: the clients line is read again unless the
// request came from the client it names first, which it would only name
// first again.
func (w *watcher) heard(a record.Activity) {
	name := a.Client
	if name == "" {
		name = a.Token
	}
	if name == "" || isTryIt(a.Client, a.Token) {
		return
	}
	if len(w.recent) == 0 || w.recent[0] != name {
		w.clientsDue = true
	}
}

// round reads what changed (SQLite, the engine), then updates the menu,
// the tray and the window process.
func (w *watcher) round(ctx context.Context) {
	t := w.t
	if st := t.cfg.Store; st != nil && w.clientsDue {
		w.clientsDue = false
		qctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		names, leaves, err := recentClients(qctx, st)
		cancel()
		if err != nil {
			slog.Warn("the tray could not read the recent clients", "err", err)
		} else {
			w.recent, w.leaves = names, leaves
			t.mu.Lock()
			t.recent = names
			t.mu.Unlock()
		}
	}
	started := false
	if eng := t.cfg.Engine; eng != nil {
		now := runningTaskIDs(eng.RunningTasks())
		for id := range now {
			started = started || !w.running[id]
		}
		w.running = now
	}
	t.refresh()
	if started && t.wantsTaskWindow(ctx) {
		t.Open(link.Window{What: link.OpenTasks})
	}
}

// wantsTaskWindow says whether the person asked for the task window when a
// task starts.
func (t *Tray) wantsTaskWindow(ctx context.Context) bool {
	if t.cfg.Store == nil {
		return false
	}
	var on bool
	if _, err := t.cfg.Store.State(ctx, link.StateOpenTaskWindow, &on); err != nil {
		slog.Warn("whether to open the task window", "err", err)
	}
	return on
}

// recentClients names the clients with requests in the last
// recentClientWindow, most recent first, leaving out the app's own Try it,
// and says when the first of them leaves that window (zero: none listed).
func recentClients(ctx context.Context, st Store) ([]string, time.Time, error) {
	seen, err := st.RecentClients(ctx, time.Now().Add(-recentClientWindow))
	if err != nil {
		return nil, time.Time{}, err
	}
	names := []string{}
	var leaves time.Time
	for _, c := range seen {
		// The app's own Try it is the person at the desktop, not a client.
		if isTryIt(c.Name, c.Token) {
			continue
		}
		if t := c.Last.Add(recentClientWindow); leaves.IsZero() || t.Before(leaves) {
			leaves = t
		}
		if !slices.Contains(names, c.Name) {
			names = append(names, c.Name)
		}
	}
	return names, leaves, nil
}

// isTryIt says whether a request's client or token is the app's own Try it.
func isTryIt(client, token string) bool {
	return client == tryit.ClientName || token == tryit.TokenName
}

// runningTaskIDs is the set of the tasks' ids.
func runningTaskIDs(ts []record.Task) map[string]bool {
	ids := make(map[string]bool, len(ts))
	for _, t := range ts {
		ids[t.ID] = true
	}
	return ids
}
