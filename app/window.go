package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"fyne.io/fyne/v2"

	"github.com/mcptray/mcptray/app/editor"
	"github.com/mcptray/mcptray/app/link"
	"github.com/mcptray/mcptray/app/tryit"
	"github.com/mcptray/mcptray/app/ui"
	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/signals"
	"github.com/mcptray/mcptray/internal/winlink"
	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/record"
	"github.com/mcptray/mcptray/storage"
	"github.com/mcptray/mcptray/upstream"
)

// WindowEnv is what the window process runs on.
type WindowEnv struct {
	// Link is the process's stdin and Out its stdout: the serving
	// process's pipe.
	Link io.Reader
	Out  io.Writer
	// App makes the Fyne app, or says why windows cannot show here (no
	// display, no OpenGL): the serving process is told, and this process
	// ends.
	App func() (fyne.App, error)
	// Screen is as Config.Screen.
	Screen func() (width, height int)
}

// startTimeout bounds the wait for the serving process's first answer:
// only it starts this process, and answers at once, so anything else on
// stdin (a person running the command) ends it.
const startTimeout = 30 * time.Second

// exitGrace is how long this process may take to quit once the serving
// process is gone, before it exits all the same: a window left behind
// would save to nothing.
const exitGrace = 5 * time.Second

// RunWindow is the window process (`mcptray window`, started by the
// serving process, app/tray): it shows the windows the serving process
// asks for, and returns once it holds none, the person has quit, or the
// serving process has gone.
func RunWindow(ctx context.Context, env WindowEnv) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	p := newParentLink(env.Link, env.Out)
	linkDone := make(chan error, 1)
	go func() { linkDone <- p.run(ctx) }()
	a, err := env.App()
	if err != nil {
		p.cannotShow(ctx, err)
		return err
	}
	a.Settings().SetTheme(ui.Theme()) // Fyne's, with text colours that read in both variants
	u, done, err := p.open(ctx, a, env.Screen)
	if err != nil {
		p.cannotShow(ctx, err)
		return err
	}
	defer done()
	// Fyne quits when its last window closes. This process ends through
	// Idle instead, once the serving process agrees that nothing is on its
	// way to it: a window never shown keeps Fyne from quitting between a
	// question's window and the next.
	a.NewWindow("mcptray")
	a.Lifecycle().SetOnStarted(func() { go p.ready(ctx) })
	go func() {
		// The serving process gone (quit, or killed): nothing is left to
		// save to; the windows go with it.
		if err := <-linkDone; err != nil {
			slog.Warn("the link to the serving mcptray broke", "err", err)
		}
		fyne.Do(u.quitApp)
		time.AfterFunc(exitGrace, func() {
			slog.Error("the window process did not end after the serving mcptray went; ending it")
			os.Exit(1)
		})
	}()
	u.Run(ctx)
	return nil
}

// open asks the serving process what to show, opens what it names (the
// store, the secrets, Try it) and builds the windows' UI; done closes what
// it opened.
func (p *parentLink) open(ctx context.Context, a fyne.App, screen func() (int, int)) (u *UI, done func(), err error) {
	sctx, cancel := context.WithTimeout(ctx, startTimeout)
	start, err := link.Hello.Call(sctx, p.conn, link.None{})
	cancel()
	if err != nil {
		return nil, nil, fmt.Errorf("asking the serving mcptray what to show: %w", err)
	}
	p.mu.Lock()
	p.state = start.State
	p.mu.Unlock()
	st, err := storage.Open(start.DB, mcpcore.Validator{})
	if err != nil {
		return nil, nil, err
	}
	closers := []func() error{st.Close}
	done = func() {
		for i := len(closers) - 1; i >= 0; i-- {
			_ = closers[i]()
		}
	}
	cfg := Config{Store: st, Server: p, Approvals: p, Serving: p, Upstreams: p, DB: start.DB, Version: start.Version,
		ShimPath: start.ShimPath, Screen: screen, Tray: start.Tray, TrayHost: start.TrayHost}
	if start.HasTasks {
		cfg.Tasks = p
	}
	if s := start.Secrets; s.Kind != "" {
		sec, err := st.OpenSecrets(ctx, storage.WithKeyringService(s.Service), storage.WithSecretsFile(s.File),
			storage.WithKnownBackend(s.Kind, s.Reason))
		if err != nil {
			slog.Warn("the manager window cannot manage secrets", "err", err)
		} else {
			cfg.Secrets = sec
		}
	}
	if tr, err := tryit.New(st, p.URL); err != nil {
		slog.Warn("the tool editor's Try it is off", "err", err)
	} else {
		closers = append(closers, tr.Close)
		cfg.TryIt = editor.TryItTrier(tr, p)
	}
	u = newUI(a, cfg)
	u.view = viewOf(start.View)
	p.ui.Store(u)
	return u, done, nil
}

// ready tells the serving process the windows can show: it sends them
// what is to be shown from now on.
func (p *parentLink) ready(ctx context.Context) {
	if _, err := link.Ready.Call(ctx, p.conn, link.Readiness{}); err != nil {
		slog.Warn("telling the serving mcptray the windows are ready", "err", err)
	}
}

// cannotShow tells the serving process why no window can show here.
func (p *parentLink) cannotShow(ctx context.Context, why error) {
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	_, _ = link.Ready.Call(ctx, p.conn, link.Readiness{Problem: why.Error()})
}

// parentLink is the serving process as the window process sees it: the
// Server, the remembered approvals, the tasks, the catalog's Sync and the
// windows' life, over the link; and what the serving process asks of the
// windows.
type parentLink struct {
	conn *winlink.Conn
	// ui is set once the windows can be built; until then the serving
	// process sends no call (it waits for Ready), and notices change
	// nothing on screen.
	ui atomic.Pointer[UI]
	// received counts the serving process's calls received (Idle).
	received atomic.Int32

	// approvals follow the serving process's remembered approvals.
	approvals signals.Set

	mu    sync.Mutex
	state link.State
	tasks map[chan record.Task]struct{}
}

// newParentLink makes the link on r and w, with the handlers of what the
// serving process sends.
func newParentLink(r io.Reader, w io.Writer) *parentLink {
	p := &parentLink{tasks: map[chan record.Task]struct{}{}}
	mux := winlink.NewMux()
	winlink.Handle(mux, link.Open, counted(p, func(_ context.Context, u *UI, win link.Window) (link.None, error) {
		fyne.DoAndWait(func() { u.open(win) })
		return link.None{}, nil
	}))
	winlink.Handle(mux, link.Ask, counted(p, func(ctx context.Context, u *UI, q link.Question) (mcpcore.Answer, error) {
		if !q.Deadline.IsZero() {
			var cancel context.CancelFunc
			ctx, cancel = context.WithDeadline(ctx, q.Deadline)
			defer cancel()
		}
		return u.Asker.Ask(ctx, q.Question)
	}))
	winlink.Handle(mux, link.AskQuit, counted(p, func(ctx context.Context, u *UI, _ link.None) (bool, error) {
		answer := make(chan bool, 1)
		fyne.Do(func() { u.askQuit(func(yes bool) { answer <- yes }) })
		select {
		case yes := <-answer:
			return yes, nil
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}))
	winlink.HandleNotice(mux, link.StateChanged, func(_ context.Context, s link.State) {
		p.mu.Lock()
		p.state = s
		p.mu.Unlock()
		if u := p.ui.Load(); u != nil {
			fyne.Do(u.stateChanged)
		}
	})
	winlink.HandleNotice(mux, link.TaskChanged, func(_ context.Context, t link.Task) {
		p.mu.Lock()
		defer p.mu.Unlock()
		for ch := range p.tasks {
			select {
			case ch <- t.Core():
			default: // a slow reader misses changes; RunningTasks tells
			}
		}
	})
	winlink.HandleNotice(mux, link.ApprovalsChanged, func(context.Context, link.None) { p.approvals.Notify() })
	winlink.HandleNotice(mux, link.CheckIdle, func(context.Context, link.None) {
		if u := p.ui.Load(); u != nil {
			fyne.Do(u.maybeEnd)
		}
	})
	winlink.HandleNotice(mux, link.Exit, func(context.Context, link.None) {
		if u := p.ui.Load(); u != nil {
			fyne.Do(u.quitApp)
		}
	})
	p.conn = winlink.New(r, w, mux)
	return p
}

// errNotReady answers a call that came before the windows could be built.
var errNotReady = errors.New("the windows are not ready")

// counted wraps a handler of the serving process's calls: it counts the
// call received and being answered, so that the process does not end
// under it, and looks again whether it may end once its answer is sent.
func counted[P, R any](p *parentLink, h func(context.Context, *UI, P) (R, error)) func(context.Context, P) (R, error) {
	return func(ctx context.Context, params P) (R, error) {
		p.received.Add(1)
		u := p.ui.Load()
		if u == nil {
			var zero R
			return zero, errNotReady
		}
		u.busy.Add(1)
		// Held until the answer is written, not only returned: an Idle
		// asked in between could let this process end with the answer
		// unsent, and the serving process would tell the AI app that
		// nobody answered a question the person had just allowed.
		done := func() {
			u.busy.Add(-1)
			fyne.Do(u.maybeEnd)
		}
		if !winlink.AfterReply(ctx, done) {
			defer done()
		}
		return h(ctx, u, params)
	}
}

// URL is the server's address (Server).
func (p *parentLink) URL() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.state.URL
}

// Paused says whether serving is paused (Server).
func (p *parentLink) Paused() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.state.Paused
}

// SetPaused pauses or resumes serving (Server); the window shows it at
// once, and the serving process answers its state.
func (p *parentLink) SetPaused(paused bool) {
	p.mu.Lock()
	p.state.Paused = paused
	p.mu.Unlock()
	s, err := link.SetPaused.Call(context.Background(), p.conn, paused)
	if err != nil {
		slog.Warn("asking the serving mcptray to pause or resume", "err", err)
		return
	}
	p.mu.Lock()
	p.state = s
	p.mu.Unlock()
}

// SaveSettings stores and applies set in the serving process (Server).
func (p *parentLink) SaveSettings(ctx context.Context, set catalog.Settings, movePort bool) (bool, error) {
	res, err := link.SaveSettings.Call(ctx, p.conn, link.SettingsChange{Settings: set, MovePort: movePort})
	if err != nil {
		return false, link.SettingsProblem(err)
	}
	// The settings tab says where mcptray serves now, before the serving
	// process's next state could arrive.
	p.mu.Lock()
	p.state.URL = res.URL
	p.mu.Unlock()
	return res.Moved, nil
}

// Sync brings the server in line with the stored catalog (Syncer).
func (p *parentLink) Sync(ctx context.Context) error {
	_, err := link.Sync.Call(ctx, p.conn, link.None{})
	return err
}

// UpstreamStatus is how the other MCP server named name runs (Upstreams).
func (p *parentLink) UpstreamStatus(ctx context.Context, name string) (upstream.Status, error) {
	return link.UpstreamStatus.Call(ctx, p.conn, name)
}

// RememberedApprovals lists the server's remembered approvals
// (ApprovalKeeper).
func (p *parentLink) RememberedApprovals(ctx context.Context) ([]record.RememberedApproval, error) {
	return link.Approvals.Call(ctx, p.conn, link.None{})
}

// ForgetApproval revokes one (ApprovalKeeper).
func (p *parentLink) ForgetApproval(ctx context.Context, k record.ApprovalKey) error {
	_, err := link.ForgetApproval.Call(ctx, p.conn, k)
	return err
}

// ForgetAllApprovals revokes them all (ApprovalKeeper).
func (p *parentLink) ForgetAllApprovals(ctx context.Context) error {
	_, err := link.ForgetAllApprovals.Call(ctx, p.conn, link.None{})
	return err
}

// SubscribeApprovals signals each change the serving process reports,
// until ctx ends or the link does (ApprovalKeeper).
func (p *parentLink) SubscribeApprovals(ctx context.Context) <-chan struct{} {
	return p.approvals.Subscribe(ctx)
}

// run carries the link until it ends; then nothing more comes from the
// serving process.
func (p *parentLink) run(ctx context.Context) error {
	defer p.approvals.Close()
	return p.conn.Run(ctx)
}

// RunningTasks are the tasks the server runs (TaskSource).
func (p *parentLink) RunningTasks(ctx context.Context) ([]record.Task, error) {
	ts, err := link.RunningTasks.Call(ctx, p.conn, link.None{})
	if err != nil {
		return nil, err
	}
	out := make([]record.Task, 0, len(ts))
	for _, t := range ts {
		out = append(out, t.Core())
	}
	return out, nil
}

// SubscribeTasks delivers the tasks' changes the serving process sends
// while someone here follows them, until ctx ends or the link does
// (TaskSource).
func (p *parentLink) SubscribeTasks(ctx context.Context) <-chan record.Task {
	ch := make(chan record.Task, 64)
	p.mu.Lock()
	first := len(p.tasks) == 0
	p.tasks[ch] = struct{}{}
	p.mu.Unlock()
	if first {
		p.watchTasks(true)
	}
	go func() {
		select {
		case <-ctx.Done():
		case <-p.conn.Done():
		}
		p.mu.Lock()
		delete(p.tasks, ch)
		close(ch)
		last := len(p.tasks) == 0
		p.mu.Unlock()
		if last {
			p.watchTasks(false)
		}
	}()
	return ch
}

// watchTasks asks the serving process to start or stop sending the tasks'
// changes.
func (p *parentLink) watchTasks(on bool) {
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	if _, err := link.WatchTasks.Call(ctx, p.conn, on); err != nil && !errors.Is(err, winlink.ErrClosed) {
		slog.Warn("following the tasks", "err", err)
	}
}

// CancelTask cancels a running task (TaskSource).
func (p *parentLink) CancelTask(ctx context.Context, id string) error {
	_, err := link.CancelTask.Call(ctx, p.conn, id)
	return err
}

// Quit tells the serving process the person quits (Serving).
func (p *parentLink) Quit() {
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	if _, err := link.Quit.Call(ctx, p.conn, link.None{}); err != nil {
		slog.Warn("telling the serving mcptray to quit", "err", err)
	}
}

// Closed tells the serving process where the manager window was left
// (Serving).
func (p *parentLink) Closed(v link.View) {
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	if _, err := link.Closed.Call(ctx, p.conn, v); err != nil {
		slog.Warn("telling the serving mcptray where the window was left", "err", err)
	}
}

// Idle asks the serving process whether this process may end (Serving);
// a link gone says yes.
func (p *parentLink) Idle() bool {
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	ans, err := link.Idle.Call(ctx, p.conn, link.Idleness{Received: int(p.received.Load())})
	if err != nil {
		return errors.Is(err, winlink.ErrClosed)
	}
	return ans.End
}
