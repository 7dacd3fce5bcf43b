package upstream

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/mcpcore/actions"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	// stopGrace is how long a program has to end by itself once its input
	// closed, then once asked to (SIGTERM), before its whole group is
	// killed: MCP's stdio shutdown.
	stopGrace = 2 * time.Second
	// exitGrace is how long a start that failed waits for the program to
	// end by itself, to say how it ended.
	exitGrace = 2 * time.Second
	// drainGrace bounds the wait for the last standard error lines, which
	// a process that left the group may keep open.
	drainGrace = time.Second
)

// program is a started server program.
type program struct {
	name    string
	pid     int
	exited  chan struct{} // closed once it ended
	state   *os.ProcessState
	err     error       // what waiting for it returned
	killed  atomic.Bool // it was killed, rather than ending by itself
	kill    context.CancelFunc
	drained chan struct{} // closed once its standard error is read to the end
}

// end kills the program's group unless it ended within grace, and waits.
func (p *program) end(grace time.Duration) {
	if !p.within(grace) {
		p.killed.Store(true)
	}
	p.kill()
	<-p.exited
	select {
	case <-p.drained:
	case <-time.After(drainGrace):
	}
}

// stop ends the program as MCP's stdio shutdown says, its input closed
// already: it is given stopGrace to end, then asked to (SIGTERM) and given
// stopGrace again, then its group is killed.
func (p *program) stop() {
	if !p.within(stopGrace) {
		terminate(p.pid)
	}
	p.end(stopGrace)
}

// within says whether the program ended within d.
func (p *program) within(d time.Duration) bool {
	if d <= 0 {
		select {
		case <-p.exited:
			return true
		default:
			return false
		}
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.exited:
		return true
	case <-t.C:
		return false
	}
}

// howEnded says how the program ended: its exit status, or that mcptray
// killed it.
func (p *program) howEnded() string {
	switch {
	case p.killed.Load():
		return "it did not end by itself and was killed"
	case p.state != nil:
		return p.state.String()
	}
	return p.err.Error()
}

// connectCommand starts the server's program and opens a session on its
// standard input and output.
func (s *server) connectCommand(ctx context.Context, c *catalog.UpstreamCommand) (*conn, error) {
	if len(c.Argv) == 0 || strings.TrimSpace(c.Argv[0]) == "" {
		return nil, errors.New("the program to start is missing")
	}
	program := c.Argv[0]
	env, err := s.environ(ctx, c.Env)
	if err != nil {
		return nil, err
	}
	if c.Dir != "" {
		if fi, err := os.Stat(c.Dir); err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("the working folder %s does not exist", c.Dir)
		}
	}
	path, err := actions.FindProgram(program, c.Dir, env)
	if errors.Is(err, actions.ErrProgramNotFound) {
		return nil, notFound(program)
	} else if err != nil {
		return nil, fmt.Errorf("finding %q: %w", program, err)
	}
	p, stdin, stdout, err := s.startProgram(path, c, env)
	if err != nil {
		return nil, err
	}
	out := &mcpLines{r: stdout, drop: s.stderr}
	cs, err := s.client().Connect(ctx, &mcp.IOTransport{Reader: out, Writer: stdin}, nil)
	if err != nil {
		grace := exitGrace
		if ctx.Err() != nil {
			// It had the whole start to end by itself, or the start was
			// given up.
			grace = 0
		}
		p.end(grace)
		stdin.Close()
		stdout.Close()
		return nil, s.startWords(ctx, p, out, err)
	}
	cn := newConn(cs, func() {
		stdin.Close() // MCP's stdio shutdown: the input closes first
		p.stop()
		_ = cs.Close()
	})
	cn.why = func() error {
		return errors.New(withStderr(fmt.Sprintf("%q ended by itself (%s)", program, p.howEnded()), s.stderr.Last(tailLines)))
	}
	return cn, nil
}

// startProgram starts the program with pipes for its standard streams
// (its standard error copied into the ring), under mcptray's no-orphans
// rules. The pipes are the os package's, not exec's, so that waiting for
// the program does not wait for a leftover process that holds them.
func (s *server) startProgram(path string, c *catalog.UpstreamCommand, env []string) (p *program, stdin io.WriteCloser, stdout io.ReadCloser, err error) {
	var files []*os.File
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	pipe := func() (r, w *os.File) {
		if err != nil {
			return nil, nil
		}
		r, w, err = os.Pipe()
		files = append(files, r, w)
		return r, w
	}
	inR, inW := pipe()
	outR, outW := pipe()
	errR, errW := pipe()
	if err != nil {
		closeAll()
		return nil, nil, nil, fmt.Errorf("starting %q: %w", c.Argv[0], err)
	}
	pctx, kill := context.WithCancel(context.Background())
	cmd := exec.CommandContext(pctx, path, c.Argv[1:]...)
	cmd.Args[0] = c.Argv[0]
	cmd.Dir, cmd.Env = c.Dir, env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	wait, err := actions.StartGroup(cmd, s.m.cfg.Processes)
	// The program holds its own ends now.
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		kill()
		closeAll()
		return nil, nil, nil, fmt.Errorf("starting %q: %w", c.Argv[0], err)
	}
	p = &program{name: c.Argv[0], pid: cmd.Process.Pid, exited: make(chan struct{}), kill: kill, drained: make(chan struct{})}
	go func() {
		p.err = wait()
		p.state = cmd.ProcessState
		close(p.exited)
	}()
	go func() {
		_, _ = io.Copy(s.stderr, errR)
		errR.Close()
		close(p.drained)
	}()
	return p, inW, outR, nil
}

// environ is the program's environment: mcptray's, with the command's
// own variables (rendered) on top.
func (s *server) environ(ctx context.Context, vars map[string]catalog.Template) ([]string, error) {
	env := os.Environ()
	for _, name := range slices.Sorted(maps.Keys(vars)) {
		v, err := s.m.cfg.expand(ctx, vars[name])
		if err != nil {
			return nil, fmt.Errorf("environment variable %s: %w", name, err)
		}
		env = slices.DeleteFunc(env, func(kv string) bool {
			n, _, _ := strings.Cut(kv, "=")
			return n == name || runtime.GOOS == "windows" && strings.EqualFold(n, name)
		})
		env = append(env, name+"="+v)
	}
	return env, nil
}

// startWords says why a start failed: the program ended (how, and its
// last words), it speaks no MCP, or it did not answer in time.
func (s *server) startWords(ctx context.Context, p *program, out *mcpLines, err error) error {
	noticed, sawMCP := out.Noticed()
	tail := s.stderr.Last(tailLines)
	var msg string
	switch {
	case ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("%q: the start was given up: %w", p.name, ctx.Err())
	case noticed != "" && !sawMCP:
		return fmt.Errorf("%q does not speak MCP on its standard output: it wrote %q (is it an MCP server for standard input and output?)", p.name, noticed)
	case !p.killed.Load():
		msg = fmt.Sprintf("%q ended before answering (%s)", p.name, p.howEnded())
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		msg = fmt.Sprintf("%q started but did not answer MCP's first request within %s", p.name, s.m.cfg.startTimeout())
	default:
		msg = fmt.Sprintf("%q: %v", p.name, err)
	}
	return errors.New(withStderr(msg, tail))
}
