package upstream

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mcptray/mcptray/catalog"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// State is where a server is in its life.
type State string

// A server's states.
const (
	// Stopped: not started yet, stopped when idle, or disabled.
	Stopped State = "stopped"
	// Starting: its program is starting, or its first request is on its
	// way.
	Starting State = "starting"
	// Running: a session is open.
	Running State = "running"
	// Failed: the last start failed, or it ended by itself; the next use
	// tries again.
	Failed State = "failed"
	// BackingOff: as Failed, but until RetryAt calls fail at once (and a
	// server started with mcptray is started again then).
	BackingOff State = "backing off"
)

// Status is what a person is shown about a server.
type Status struct {
	State State
	// LastError says in words why the last start failed or why it ended;
	// "" after a good start.
	LastError string
	// Since is when State began.
	Since time.Time
	// RetryAt is when a server backing off may start again.
	RetryAt time.Time
	// Stderr is the last lines (at most 200) of its program's standard
	// error, and what it wrote on standard output that is not MCP.
	Stderr []string
	// Protocol is the MCP revision the session speaks, while running.
	Protocol string
}

// Status returns the server's status; an unknown server is Stopped, with
// LastError saying so.
func (m *Manager) Status(name string) Status {
	s, err := m.server(name)
	if err != nil {
		return Status{State: Stopped, LastError: err.Error()}
	}
	return s.status()
}

const (
	// firstRetry and maxRetry bound the delay before a server that failed
	// starts again: 1 s, doubled at each failure in a row, at most 60 s.
	firstRetry = time.Second
	maxRetry   = time.Minute
	// stableAfter: a session that lasted this long before it ended starts
	// the delays again from firstRetry.
	stableAfter = time.Minute
)

// server is one upstream: its definition, its session if any, and what
// its next start waits for.
type server struct {
	m      *Manager
	stderr *ring

	mu       sync.Mutex
	def      catalog.Upstream
	state    State
	since    time.Time
	lastErr  error
	failures int       // failed starts and crashes in a row
	retryAt  time.Time // no start before this
	conn     *conn     // while Running
	starting *attempt  // while Starting
	calls    int       // acquired and not released
	idleAt   time.Time // when an unused server stops
	idle     *time.Timer
	retry    *time.Timer
	// cancelStart gives up the start under way (a stop, or Close).
	cancelStart context.CancelFunc
	retired     bool // removed, replaced or closed: never starts again
	// inCall are the tool calls and prompt gets under way (CallTool,
	// GetPrompt): what the server asks or logs while exactly one runs
	// belongs to it (callContext).
	inCall map[*tracked]struct{}
	// oauth signs in to a remote server behind OAuth; made at its first
	// connection, kept while its address stays (another makes a new
	// server).
	oauth *oauthHandler
}

// tracked is one call of a server's tool, or get of its prompt: its
// context.
type tracked struct {
	ctx context.Context
}

// trackCall notes a call under way with ctx; forget drops it, once its
// result came back. What the server sent before its result has been
// handled by then: go-sdk's client delivers a result after the
// notifications read before it (docs/go-sdk-patch.md).
func (s *server) trackCall(ctx context.Context) (forget func()) {
	t := &tracked{ctx: ctx}
	s.mu.Lock()
	if s.inCall == nil {
		s.inCall = map[*tracked]struct{}{}
	}
	s.inCall[t] = struct{}{}
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		delete(s.inCall, t)
		s.mu.Unlock()
	}
}

// callContext is the context of the call a server's request or log
// message belongs to, as far as it can be told: MCP's server→client
// requests and notifications/message name no request, so it is the only
// call under way; with none or several, ok is false.
func (s *server) callContext() (ctx context.Context, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.inCall) != 1 {
		return nil, false
	}
	for t := range s.inCall {
		ctx = t.ctx
	}
	return ctx, true
}

// attempt is one start; done closes when it ended either way.
type attempt struct {
	done chan struct{}
	err  error
	// renewing says why the session it opens must end once idle: its
	// settings changed as it started (Manager.Renew); s.mu guards it.
	renewing string
}

func newServer(m *Manager, u catalog.Upstream) *server {
	return &server{m: m, def: u, state: Stopped, since: time.Now(), stderr: &ring{}}
}

func (s *server) definition() catalog.Upstream {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.def
}

// update takes new settings that keep the connection; it reports whether
// the server must stop (it was disabled).
func (s *server) update(u catalog.Upstream) (stop bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.def = u
	if s.calls == 0 {
		s.armIdle()
	}
	return u.Disabled
}

// retire makes sure the server never starts again.
func (s *server) retire() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.retired = true
	if s.retry != nil {
		s.retry.Stop()
	}
	if s.cancelStart != nil {
		s.cancelStart()
	}
}

func (s *server) status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Status{State: s.state, Since: s.since, Stderr: s.stderr.Last(0)}
	if s.lastErr != nil {
		st.LastError = s.lastErr.Error()
	}
	if s.state == BackingOff {
		st.RetryAt = s.retryAt
		if !time.Now().Before(s.retryAt) && s.retry == nil {
			// No timer runs for a server started on use: the delay is over
			// when the clock says so.
			st.State, st.Since = Failed, s.retryAt
		}
	}
	if s.conn != nil {
		if r := s.conn.session.InitializeResult(); r != nil {
			st.Protocol = r.ProtocolVersion
		}
	}
	return st
}

// setState changes the state; s.mu is held.
func (s *server) setState(st State) {
	if s.state != st {
		s.state, s.since = st, time.Now()
	}
}

// acquire returns the running session, starting the server if need be,
// and counts a use until release.
func (s *server) acquire(ctx context.Context) (*conn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		switch {
		case s.retired:
			return nil, fmt.Errorf("upstream %q was stopped", s.def.Name)
		case s.def.Disabled:
			return nil, fmt.Errorf("upstream %q is turned off", s.def.Name)
		case s.conn != nil:
			s.calls++
			if s.idle != nil {
				s.idle.Stop()
			}
			return s.conn, nil
		case s.starting != nil:
			a := s.starting
			s.mu.Unlock()
			select {
			case <-a.done:
			case <-ctx.Done():
			}
			s.mu.Lock()
			if ctx.Err() != nil {
				return nil, fmt.Errorf("upstream %q: waiting for it to start: %w", s.def.Name, ctx.Err())
			}
			if a.err != nil {
				return nil, fmt.Errorf("upstream %q: %w", s.def.Name, a.err)
			}
		case time.Now().Before(s.retryAt):
			return nil, fmt.Errorf("upstream %q is not running: %v; mcptray tries it again at %s (in %s)",
				s.def.Name, s.lastErr, s.retryAt.Format(time.TimeOnly), time.Until(s.retryAt).Round(100*time.Millisecond))
		default:
			s.begin()
		}
	}
}

// use runs f on the session, started if need be, counted as a use. When
// the server answers that it no longer knows the session (it restarted;
// nothing was done), f runs again once on a new one.
func (s *server) use(ctx context.Context, f func(*conn) error) error {
	for try := 0; ; try++ {
		c, err := s.acquire(ctx)
		if err != nil {
			return err
		}
		err = f(c)
		s.release()
		if err == nil {
			return nil
		}
		if try > 0 || ctx.Err() != nil || !errors.Is(err, mcp.ErrSessionMissing) && !c.forgotten() {
			return s.broken(c, err)
		}
		s.forget(c)
	}
}

// release ends a use; the last one starts the idle countdown, or ends a
// session that must be renewed.
func (s *server) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls--
	if s.calls > 0 {
		return
	}
	if s.conn != nil && s.conn.renewing != "" {
		s.renewLocked()
		return
	}
	s.armIdle()
}

// renew ends the session once no call uses it, or at once when none does;
// a session being opened may have read the old settings, so it ends too
// as soon as it is idle.
func (s *server) renew(why string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.retired:
	case s.conn != nil:
		s.conn.renewing = why
		if s.calls == 0 {
			s.renewLocked()
		}
	case s.starting != nil:
		s.starting.renewing = why
	}
	// Else the next start reads the settings anyway.
}

// renewLocked ends the idle session, which must be renewed, and starts a
// server started with mcptray again; s.mu is held.
func (s *server) renewLocked() {
	c := s.conn
	s.conn = nil
	s.setState(Stopped)
	if s.idle != nil {
		s.idle.Stop()
	}
	s.m.log.Info("upstream restarts", "server", s.def.Name, "why", c.renewing)
	// Its run waits for the program's end, counted for Close.
	go c.stop()
	if s.def.Start == catalog.UpstreamAtStart && !s.def.Disabled && !s.retired {
		s.begin()
	}
}

// armIdle schedules the stop of an unused command server; s.mu is held.
// The timer is reset rather than made anew, and runs only while the
// server does: nothing wakes for a stopped server.
func (s *server) armIdle() {
	d := s.def.IdleStop()
	if s.conn == nil || s.def.Command == nil || d == 0 {
		return
	}
	s.idleAt = time.Now().Add(d)
	if s.idle == nil {
		s.idle = time.AfterFunc(d, s.idleStop)
	} else {
		s.idle.Reset(d)
	}
}

// idleStop stops the server if it is still unused.
func (s *server) idleStop() {
	s.mu.Lock()
	c := s.conn
	if c == nil || s.calls > 0 || time.Now().Before(s.idleAt) {
		// In use again, or the timer fired as it was reset.
		s.mu.Unlock()
		return
	}
	s.conn = nil
	s.setState(Stopped)
	s.mu.Unlock()
	s.m.log.Info("upstream stopped: unused", "server", s.def.Name, "idle", s.def.IdleStop())
	c.stop()
}

// stop ends the session, if any, and waits for the program to end.
func (s *server) stop(why string) {
	s.mu.Lock()
	c := s.conn
	s.conn = nil
	s.setState(Stopped)
	if s.idle != nil {
		s.idle.Stop()
	}
	if s.cancelStart != nil {
		s.cancelStart()
	}
	s.mu.Unlock()
	if c != nil {
		s.m.log.Info("upstream stopped", "server", s.def.Name, "why", why)
		c.stop()
	}
}

// startSoon starts the server unless it runs or is starting.
func (s *server) startSoon() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn == nil && s.starting == nil && !s.retired && !s.def.Disabled {
		s.begin()
	}
}

// begin starts a start; s.mu is held.
func (s *server) begin() {
	a := &attempt{done: make(chan struct{})}
	s.starting = a
	s.retryAt = time.Time{}
	if s.retry != nil {
		s.retry.Stop()
		s.retry = nil
	}
	s.setState(Starting)
	ctx, cancel := context.WithTimeout(context.Background(), s.m.cfg.startTimeout())
	s.cancelStart = cancel
	s.m.running.Add(1)
	go s.run(ctx, a, s.def)
}

// run starts the server, then watches the session until it ends.
func (s *server) run(ctx context.Context, a *attempt, def catalog.Upstream) {
	defer s.m.running.Done()
	c, err := s.connect(ctx, def)

	s.mu.Lock()
	s.cancelStart()
	s.starting, s.cancelStart = nil, nil
	if s.retired || s.def.Disabled {
		a.err = fmt.Errorf("upstream %q was stopped while it started", def.Name)
		close(a.done)
		s.mu.Unlock()
		if c != nil {
			c.stop()
		}
		return
	}
	if err != nil {
		a.err = err
		s.failed(err, time.Time{})
		close(a.done)
		s.mu.Unlock()
		s.m.log.Warn("upstream did not start", "server", def.Name, "error", err)
		return
	}
	s.conn = c
	s.lastErr = nil
	s.setState(Running)
	close(a.done)
	c.renewing = a.renewing
	switch {
	case s.calls > 0:
	case c.renewing != "":
		s.renewLocked()
	default:
		s.armIdle()
	}
	s.mu.Unlock()
	s.m.log.Info("upstream started", "server", def.Name, "protocol", c.session.InitializeResult().ProtocolVersion)
	s.listChanged()

	<-c.ended
	if errors.Is(c.endErr, mcp.ErrSessionMissing) {
		s.forget(c)
		<-c.stopped
		return
	}
	s.mu.Lock()
	crashed := s.conn == c
	if crashed {
		s.conn = nil
	}
	s.mu.Unlock()
	if !crashed {
		// Stopped on purpose: counted (for Close) until the program ended.
		<-c.stopped
		return
	}
	c.stop()
	why := c.why()
	s.mu.Lock()
	s.failed(why, c.started)
	s.mu.Unlock()
	s.m.log.Warn("upstream ended by itself", "server", def.Name, "error", why)
	s.listChanged()
}

// broken looks at a use's error: one saying that the server cannot be
// reached any more ends the session as a crash does (a remote server keeps
// its session on its side, so go-sdk's would otherwise stay open, every
// call failing), and is said in words.
func (s *server) broken(c *conn, err error) error {
	if c.unreachable == nil {
		return err
	}
	words := c.unreachable(err)
	if words == nil {
		return err
	}
	s.mu.Lock()
	lost := s.conn == c
	if lost {
		s.conn = nil
		s.failed(words, c.started)
	}
	s.mu.Unlock()
	if lost {
		s.m.log.Warn("upstream unreachable", "server", s.def.Name, "error", words)
		go c.stop() // its run waits for it, for Close
		s.listChanged()
	}
	return words
}

// forget drops a session the server no longer knows (it restarted),
// which is no failure: the next use opens a new one at once.
func (s *server) forget(c *conn) {
	s.mu.Lock()
	mine := s.conn == c
	if mine {
		s.conn = nil
		s.setState(Stopped)
	}
	s.mu.Unlock()
	if mine {
		s.m.log.Info("upstream forgot its session; a new one opens at its next use", "server", s.def.Name)
		go c.stop() // its run waits for it, for Close
	}
}

// failed records a failed start (up zero) or the end of a session that
// began at up, and when the server may start again; s.mu is held.
func (s *server) failed(err error, up time.Time) {
	if !up.IsZero() && time.Since(up) >= stableAfter {
		s.failures = 0
	}
	s.failures++
	delay := min(firstRetry<<min(s.failures-1, 10), maxRetry)
	s.lastErr = err
	s.retryAt = time.Now().Add(delay)
	s.setState(BackingOff)
	if s.def.Start == catalog.UpstreamAtStart && !s.retired && !s.def.Disabled {
		// A server started with mcptray is started again by itself; one
		// started on use waits for its next use.
		s.retry = time.AfterFunc(delay, func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.retry = nil
			if s.conn == nil && s.starting == nil && !s.retired && !s.def.Disabled {
				s.begin()
			}
		})
	}
}

func (s *server) listChanged() {
	if f := s.m.cfg.OnListChanged; f != nil {
		f(s.def.Name)
	}
}

// connect opens a session with the server as def says.
func (s *server) connect(ctx context.Context, def catalog.Upstream) (c *conn, err error) {
	switch {
	case def.Command != nil:
		c, err = s.connectCommand(ctx, def.Command)
	case def.Remote != nil:
		c, err = s.connectRemote(ctx, def.Name, def.Remote)
	default:
		return nil, errors.New("neither a command line nor a web address is given")
	}
	if err != nil {
		return nil, err
	}
	s.askToLog(ctx, def.Name, c.session)
	return c, nil
}

// conn is one open session with a server.
type conn struct {
	session *mcp.ClientSession
	// ctx ends when the session is being stopped: calls still running
	// are cancelled with it.
	ctx    context.Context
	cancel context.CancelFunc
	// ended closes when the session ended, from either side; endErr is
	// then why.
	ended   chan struct{}
	endErr  error
	started time.Time
	end     func() // closes the session and ends its program, waiting
	once    sync.Once
	stopped chan struct{} // closed once end returned
	// why says why a session that ended by itself ended.
	why func() error
	// unreachable, for a remote server, says in words why a use's error
	// means that the server cannot be reached; nil when it does not.
	unreachable func(error) error
	// renewing says why the session must end once no call uses it, so
	// that the next start reads the settings again (Manager.Renew); ""
	// while it need not. The server's mu guards it.
	renewing string
}

// newConn watches cs; end closes it for good.
func newConn(cs *mcp.ClientSession, end func()) *conn {
	ctx, cancel := context.WithCancel(context.Background())
	c := &conn{session: cs, ctx: ctx, cancel: cancel, ended: make(chan struct{}), started: time.Now(), end: end,
		stopped: make(chan struct{}), why: func() error { return errors.New("the connection was lost") }}
	go func() {
		c.endErr = cs.Wait()
		close(c.ended)
	}()
	return c
}

// forgotten says whether the session ended because the server no longer
// knew it; a call on it may then have failed with the session's end.
func (c *conn) forgotten() bool {
	select {
	case <-c.ended:
		return errors.Is(c.endErr, mcp.ErrSessionMissing)
	default:
		return false
	}
}

// stop cancels the calls running, then ends the session and its program.
func (c *conn) stop() {
	c.cancel()
	c.once.Do(func() {
		c.end()
		close(c.stopped)
	})
}
