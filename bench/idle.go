package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/mcptray/mcptray/examples"
	"github.com/mcptray/mcptray/internal/paths"
)

// Idle targets of an idle `mcptray serve` (issue "Light and fast").
const (
	// IdleSwitchesTarget is the most context switches per second.
	IdleSwitchesTarget = 5.0
	// IdleCPUTarget is the most CPU time per second.
	IdleCPUTarget = time.Millisecond
)

// Idle is what an idle process cost over a window.
type Idle struct {
	Window   time.Duration
	Switches uint64        // voluntary and involuntary, all threads
	CPU      time.Duration // user + system
}

// SwitchesPerSecond is the context switches per second of the window.
func (i Idle) SwitchesPerSecond() float64 {
	return float64(i.Switches) / i.Window.Seconds()
}

// CPUPerSecond is the CPU time per second of the window.
func (i Idle) CPUPerSecond() time.Duration {
	return time.Duration(float64(i.CPU) / i.Window.Seconds())
}

// StarterFile writes the starter catalog into dir, for `serve -catalog`
// or `mcptray import`, and returns the file: a first start serves it, but
// a database other than the default is not seeded.
func StarterFile(dir string) (string, error) {
	file := filepath.Join(dir, "starter.json")
	if err := os.WriteFile(file, examples.Starter, 0o600); err != nil {
		return "", fmt.Errorf("write the starter catalog: %w", err)
	}
	return file, nil
}

// Memory is a process's resident memory, in bytes.
type Memory struct {
	// RSS is all of it (VmRSS): also the pages of the program's and its
	// libraries' files, which the system shares and can drop and read
	// again at any time.
	RSS int64
	// Private is its anonymous memory (RssAnon: heaps, stacks), which only
	// the process holds: what desktop task managers show as an app's
	// memory.
	Private int64
}

// MeasureServe starts `bin serve` on a new database in dir with the
// starter catalog (the one a first start serves; a database other than the
// default is not seeded, so it is given), waits until it serves, lets it
// settle, and measures it over window while nothing talks to it
// (MeasurePID: context switches, CPU, each thread's share, RSS).
func MeasureServe(ctx context.Context, bin, dir string, settle, window time.Duration) (TrayIdle, error) {
	starter, err := StarterFile(dir)
	if err != nil {
		return TrayIdle{}, err
	}
	srv, err := startServe(ctx, bin, dir, "idle", "-catalog", starter)
	if err != nil {
		return TrayIdle{}, err
	}
	defer srv.stop()
	return MeasurePID(ctx, srv.cmd.Process.Pid, settle, window)
}

// served is a running `mcptray serve` child process.
type served struct {
	cmd     *exec.Cmd
	started time.Time // when the process was started
	ready   time.Time // when its endpoint file appeared: it listens
	url     string
}

// startServe starts `bin serve` on the database dir/NAME.db, auth off, with
// more arguments, and waits until it serves (its endpoint file appears).
func startServe(ctx context.Context, bin, dir, name string, args ...string) (*served, error) {
	endpoint := filepath.Join(dir, name+"-endpoint.json")
	args = append([]string{"serve", "-db", filepath.Join(dir, name+".db"), "-addr", "127.0.0.1:0",
		"-endpoint-file", endpoint, "-no-auth"}, args...)
	s := &served{cmd: exec.CommandContext(ctx, bin, args...)}
	s.cmd.Env = append(os.Environ(), "DBUS_SESSION_BUS_ADDRESS=disabled:") // no keyring probing
	s.started = time.Now()
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s serve: %w", bin, err)
	}
	deadline := s.started.Add(time.Minute)
	for {
		if ep, err := paths.ReadEndpoint(endpoint); err == nil {
			s.ready, s.url = time.Now(), ep.URL
			return s, nil
		}
		if time.Now().After(deadline) {
			s.stop()
			return nil, fmt.Errorf("%s serve: no endpoint file after a minute", bin)
		}
		if err := Sleep(ctx, 5*time.Millisecond); err != nil {
			s.stop()
			return nil, err
		}
	}
}

// stop interrupts the server and waits for it to exit.
func (s *served) stop() {
	_ = s.cmd.Process.Signal(os.Interrupt)
	_ = s.cmd.Wait()
}

// Sleep waits for d or until ctx ends.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
