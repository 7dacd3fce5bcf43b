package tray

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/mcptray/mcptray/app/link"
	"github.com/mcptray/mcptray/internal/winlink"
	"github.com/mcptray/mcptray/record"
	"github.com/mcptray/mcptray/upstream"
)

// Process is a started window process (`mcptray window`): its stdin and
// stdout, which carry the link, Wait, which returns once it has exited,
// and Kill, which ends it at once.
type Process struct {
	Stdin  io.WriteCloser
	Stdout io.ReadCloser
	Wait   func() error
	Kill   func() error
}

// Starter starts a window process.
type Starter func() (Process, error)

const (
	// readyTimeout bounds the wait for a new window process to say it can
	// show windows: one that hangs (a display that accepts the connection
	// and never answers) is ended, and what waited for it gets its reason.
	readyTimeout = 30 * time.Second
	// leaveTimeout bounds the wait for a window process that may end to
	// have ended, before the next one starts.
	leaveTimeout = 3 * time.Second
	// retryAfter is how long after a window process failed to show windows
	// the desktop questions are answered at once with the reason, rather
	// than each starting a process that fails the same way. A click in the
	// tray always tries again.
	retryAfter = 30 * time.Second
)

// windows starts the window process when something is to be shown, and
// talks to it over the link. There is at most one current window process;
// one that said it may end (Idle) is left to end, and the next thing to
// show starts a new one.
type windows struct {
	t     *Tray
	start Starter

	mu  sync.Mutex
	cur *proc
	// leaving is the window process that said it may end, until it has:
	// the next one starts after it, so that two never share the windows'
	// preferences file.
	leaving *proc
	// problem is why the last window process could not show windows, and
	// failed when it did; "" once one could.
	problem string
	failed  time.Time
	// view is where the person left the last manager window; welcomeDue
	// says the welcome is yet to be shown (with the first manager).
	view       link.View
	welcomeDue bool
	// relaunched is when the window process was last started again after
	// it ended unasked (without a tray: the window is the app).
	relaunched time.Time
}

// proc is one window process as the serving process sees it.
type proc struct {
	link *winlink.Conn
	// ready is closed once the process said whether it can show windows,
	// or ended before it did; problem is then why it cannot ("" it can).
	ready     chan struct{}
	readyOnce sync.Once
	problem   string
	// gone is closed once the process has ended.
	gone chan struct{}

	// Under windows.mu: sent counts the calls given to it (reserved in
	// get, so that an Idle answered meanwhile sees them); closing, that
	// Idle let it end; state, what it was last told of the server.
	sent    int
	closing bool
	state   link.State
	// stopTasks ends the TaskChanged notices (under windows.mu).
	stopTasks context.CancelFunc
}

// markReady records the process's readiness, once; it reports whether
// this call was the one that did.
func (p *proc) markReady(problem string) bool {
	first := false
	p.readyOnce.Do(func() {
		p.problem = problem
		close(p.ready)
		first = true
	})
	return first
}

// errCannotOpen is the error of a window process that cannot show windows.
type errCannotOpen struct{ why string }

func (e errCannotOpen) Error() string { return "mcptray's window could not open (" + e.why + ")" }

// get returns the current window process once it can show windows,
// starting one when none runs, and counts a call given to it: the caller
// makes that call, or gives it back with unreserve. Without retry, a
// failure less than retryAfter ago is answered at once.
func (w *windows) get(ctx context.Context, retry bool) (*proc, error) {
	w.mu.Lock()
	if l := w.leaving; l != nil && w.cur == nil {
		w.mu.Unlock()
		select {
		case <-l.gone:
		case <-time.After(leaveTimeout):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		w.mu.Lock()
		if w.leaving == l {
			w.leaving = nil
		}
	}
	p := w.cur
	if p == nil {
		if !retry && w.problem != "" && time.Since(w.failed) < retryAfter {
			why := w.problem
			w.mu.Unlock()
			return nil, errCannotOpen{why}
		}
		var err error
		if p, err = w.launch(); err != nil {
			w.failedWith(err.Error())
			w.mu.Unlock()
			w.t.refresh()
			return nil, errCannotOpen{err.Error()}
		}
	}
	p.sent++
	w.mu.Unlock()
	select {
	case <-p.ready:
		if p.problem != "" {
			w.unreserve(p)
			return nil, errCannotOpen{p.problem}
		}
		return p, nil
	case <-ctx.Done():
		w.unreserve(p)
		return nil, ctx.Err()
	}
}

// current is the current window process if it is ready, else nil; like
// get, it counts a call given to it.
func (w *windows) current() *proc {
	w.mu.Lock()
	defer w.mu.Unlock()
	p := w.cur
	if p == nil || !isClosed(p.ready) || p.problem != "" {
		return nil
	}
	p.sent++
	return p
}

// unreserve gives back a call get counted and that was never made; the
// process, if it waits on it to end, is told to look again.
func (w *windows) unreserve(p *proc) {
	w.mu.Lock()
	p.sent--
	w.mu.Unlock()
	if isClosed(p.ready) && p.problem == "" {
		_ = link.CheckIdle.Send(p.link, link.None{})
	}
}

// failedWith records why windows cannot open; the caller holds mu.
func (w *windows) failedWith(why string) {
	if w.problem == "" {
		slog.Warn("mcptray's windows cannot open: desktop questions get the AI app's answer where it can give one, else they are declined", "why", why)
	}
	w.problem, w.failed = why, time.Now()
}

// launch starts a window process and makes it the current one; the
// caller holds mu.
func (w *windows) launch() (*proc, error) {
	started, err := w.start()
	if err != nil {
		return nil, fmt.Errorf("starting mcptray window: %w", err)
	}
	p := &proc{ready: make(chan struct{}), gone: make(chan struct{})}
	ctx, stop := context.WithCancel(context.Background())
	p.link = winlink.New(started.Stdout, started.Stdin, w.mux(ctx, p))
	w.cur = p
	go w.followApprovals(ctx, p)
	hung := time.AfterFunc(readyTimeout, func() {
		if p.markReady(fmt.Sprintf("it showed no window within %s", readyTimeout)) {
			_ = started.Kill()
		}
	})
	go func() {
		err := p.link.Run(ctx)
		stop()
		hung.Stop()
		_ = started.Stdin.Close()
		werr := started.Wait()
		why := "it ended before it could show a window"
		if werr != nil {
			why = fmt.Sprintf("it ended before it could show a window: %v", werr)
		}
		p.markReady(why)
		close(p.gone)
		w.ended(p, err, werr)
	}()
	return p, nil
}

// ended is what follows a window process's end: one that could not show
// windows makes the problem known; without a tray, a window that went
// unasked comes back (the window is the app), once a minute at most.
func (w *windows) ended(p *proc, linkErr, exitErr error) {
	w.mu.Lock()
	if w.cur == p {
		w.cur = nil
	}
	if w.leaving == p {
		w.leaving = nil
	}
	if p.stopTasks != nil {
		p.stopTasks()
	}
	unasked := !p.closing && p.problem == ""
	if p.problem != "" {
		w.failedWith(p.problem)
	}
	relaunch := unasked && !w.t.cfg.Host.Present && !w.t.quitting() && time.Since(w.relaunched) > time.Minute
	if relaunch {
		w.relaunched = time.Now()
	}
	w.mu.Unlock()
	if unasked && !w.t.quitting() {
		slog.Warn("mcptray's window process ended unasked; the next window starts a new one", "link", linkErr, "exit", exitErr)
	}
	w.t.refresh()
	if relaunch {
		w.open(link.Window{What: link.OpenManager})
	}
}

// open opens a window in the window process, starting it when none runs.
// It returns at once; what fails is logged, and shown in the tray when
// windows cannot open. A question waiting is only raised where it shows.
func (w *windows) open(win link.Window) {
	go func() {
		var p *proc
		if win.What == link.OpenQuestion {
			if p = w.current(); p == nil {
				return // its window is on its way
			}
		} else {
			var err error
			if p, err = w.get(context.Background(), true); err != nil {
				slog.Warn("a window could not open", "window", win.What, "err", err)
				return
			}
		}
		if win.What == link.OpenManager {
			// The first manager shown greets the person.
			w.mu.Lock()
			win.Welcome, w.welcomeDue = w.welcomeDue, false
			w.mu.Unlock()
		}
		if _, err := link.Open.Call(context.Background(), p.link, win); err != nil && !errors.Is(err, winlink.ErrClosed) {
			slog.Warn("a window could not open", "window", win.What, "err", err)
		}
	}()
}

// askQuit asks the window process, if one runs, whether to quit (it asks
// about unsaved changes); without one, or once it is gone, the answer is
// yes.
func (w *windows) askQuit() bool {
	p := w.current()
	if p == nil {
		return true
	}
	yes, err := link.AskQuit.Call(context.Background(), p.link, link.None{})
	if err != nil {
		return true // nothing is left to lose
	}
	return yes
}

// exit tells the window process, if one runs, to end now.
func (w *windows) exit() {
	w.mu.Lock()
	p := w.cur
	w.mu.Unlock()
	if p != nil {
		_ = link.Exit.Send(p.link, link.None{})
	}
}

// sendState tells the window process the server's state, when it
// changed since it was last told.
func (w *windows) sendState(s link.State) {
	w.mu.Lock()
	p := w.cur
	if p == nil || !isClosed(p.ready) || p.state == s {
		w.mu.Unlock()
		return
	}
	p.state = s
	w.mu.Unlock()
	_ = link.StateChanged.Send(p.link, s)
}

// followApprovals tells the window process when a remembered approval
// comes or goes, as long as its link lives.
func (w *windows) followApprovals(ctx context.Context, p *proc) {
	eng := w.t.cfg.Engine
	if eng == nil {
		return
	}
	for range eng.SubscribeApprovals(ctx) {
		_ = link.ApprovalsChanged.Send(p.link, link.None{})
	}
}

// mux is what the serving process answers window process p with; ctx
// ends with p's link.
func (w *windows) mux(ctx context.Context, p *proc) *winlink.Mux {
	t := w.t
	mux := winlink.NewMux()
	winlink.Handle(mux, link.Hello, func(context.Context, link.None) (link.Start, error) { return w.hello(), nil })
	winlink.Handle(mux, link.Ready, func(_ context.Context, r link.Readiness) (link.None, error) {
		w.readied(p, r.Problem)
		return link.None{}, nil
	})
	winlink.Handle(mux, link.SetPaused, func(_ context.Context, paused bool) (link.State, error) {
		if s := t.cfg.Server; s != nil {
			s.SetPaused(paused)
		}
		t.refresh()
		return t.linkState(), nil
	})
	winlink.Handle(mux, link.SaveSettings, func(ctx context.Context, c link.SettingsChange) (link.SettingsSaved, error) {
		s := t.cfg.Server
		if s == nil {
			return link.SettingsSaved{}, errors.New("mcptray is not serving")
		}
		moved, err := s.SaveSettings(ctx, c.Settings, c.MovePort)
		if err != nil {
			return link.SettingsSaved{}, link.SettingsError(err)
		}
		t.refresh()
		return link.SettingsSaved{Moved: moved, URL: s.URL()}, nil
	})
	winlink.Handle(mux, link.Sync, func(ctx context.Context, _ link.None) (link.None, error) {
		if t.cfg.Engine == nil {
			return link.None{}, nil
		}
		return link.None{}, t.cfg.Engine.Sync(ctx)
	})
	winlink.Handle(mux, link.Approvals, func(ctx context.Context, _ link.None) ([]record.RememberedApproval, error) {
		if t.cfg.Engine == nil {
			return []record.RememberedApproval{}, nil
		}
		return t.cfg.Engine.RememberedApprovals(ctx)
	})
	winlink.Handle(mux, link.ForgetApproval, func(ctx context.Context, k record.ApprovalKey) (link.None, error) {
		if t.cfg.Engine == nil {
			return link.None{}, nil
		}
		return link.None{}, t.cfg.Engine.ForgetApproval(ctx, k)
	})
	winlink.Handle(mux, link.ForgetAllApprovals, func(ctx context.Context, _ link.None) (link.None, error) {
		if t.cfg.Engine == nil {
			return link.None{}, nil
		}
		return link.None{}, t.cfg.Engine.ForgetAllApprovals(ctx)
	})
	winlink.Handle(mux, link.RunningTasks, func(context.Context, link.None) ([]link.Task, error) {
		out := []link.Task{}
		if t.cfg.Engine != nil {
			for _, task := range t.cfg.Engine.RunningTasks() {
				out = append(out, link.TaskOf(task))
			}
		}
		return out, nil
	})
	winlink.Handle(mux, link.WatchTasks, func(_ context.Context, on bool) (link.None, error) {
		w.watchTasks(ctx, p, on)
		return link.None{}, nil
	})
	winlink.Handle(mux, link.CancelTask, func(_ context.Context, id string) (link.None, error) {
		if t.cfg.Engine == nil {
			return link.None{}, record.ErrUnknownTask
		}
		return link.None{}, t.cfg.Engine.CancelTask(id)
	})
	winlink.Handle(mux, link.UpstreamStatus, func(_ context.Context, name string) (upstream.Status, error) {
		if t.cfg.Upstreams == nil {
			return upstream.Status{State: upstream.Stopped}, nil
		}
		return t.cfg.Upstreams.UpstreamStatus(name), nil
	})
	winlink.Handle(mux, link.Closed, func(_ context.Context, v link.View) (link.None, error) {
		w.mu.Lock()
		w.view = v
		w.mu.Unlock()
		return link.None{}, nil
	})
	winlink.Handle(mux, link.Idle, func(_ context.Context, i link.Idleness) (link.IdleAnswer, error) {
		return link.IdleAnswer{End: w.idle(p, i.Received)}, nil
	})
	winlink.Handle(mux, link.Quit, func(context.Context, link.None) (link.None, error) {
		go t.quit()
		return link.None{}, nil
	})
	return mux
}

// hello is what a new window process is told.
func (w *windows) hello() link.Start {
	t := w.t
	w.mu.Lock()
	view := w.view
	w.mu.Unlock()
	c := t.cfg
	return link.Start{DB: c.DB, Version: c.Version, ShimPath: c.ShimPath, Tray: c.Host.Present, TrayHost: c.Host.About,
		Secrets: c.Secrets, HasTasks: c.Engine != nil, View: view, State: t.linkState()}
}

// readied records what a window process said of its windows.
func (w *windows) readied(p *proc, problem string) {
	if !p.markReady(problem) {
		return // too late: it was given up on
	}
	w.mu.Lock()
	if problem != "" {
		w.failedWith(problem)
	} else {
		w.problem = ""
	}
	idle := p.sent == 0
	p.state = w.t.linkState()
	w.mu.Unlock()
	w.t.refresh()
	if idle && problem == "" {
		// What it was started for was withdrawn meanwhile.
		_ = link.CheckIdle.Send(p.link, link.None{})
	}
}

// idle answers a window process that holds nothing: it may end when it has
// received every call given to it. Without a tray it never ends so: its
// window is the app, and closing it quits.
func (w *windows) idle(p *proc, received int) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if received != p.sent || !w.t.cfg.Host.Present {
		return false
	}
	p.closing = true
	if w.cur == p {
		w.cur = nil
	}
	w.leaving = p
	return true
}

// watchTasks starts or stops sending p the tasks' changes.
func (w *windows) watchTasks(ctx context.Context, p *proc, on bool) {
	eng := w.t.cfg.Engine
	w.mu.Lock()
	defer w.mu.Unlock()
	if p.stopTasks != nil {
		p.stopTasks()
		p.stopTasks = nil
	}
	if !on || eng == nil {
		return
	}
	tctx, stop := context.WithCancel(ctx)
	p.stopTasks = stop
	changes := eng.SubscribeTasks(tctx)
	go func() {
		for t := range changes {
			_ = link.TaskChanged.Send(p.link, link.TaskOf(t))
		}
	}()
}

// isClosed says whether ch is closed.
func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
