package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/mcptray/mcptray/internal/paths"
	"github.com/mcptray/mcptray/internal/process"
)

// config is where the shim finds mcptray and its token.
type config struct {
	endpointFile string
	tokenFile    string
	bin          string // the mcptray executable ("" when none was found)
	startArgs    []string
	startTimeout time.Duration
}

// configFromEnv fills config from the user's config dir and the environment.
func configFromEnv() (config, error) {
	cfg := config{startTimeout: 10 * time.Second}
	cfg.endpointFile = os.Getenv("MCPTRAY_ENDPOINT_FILE")
	if cfg.endpointFile == "" {
		cfg.endpointFile, _ = paths.EndpointFile()
	}
	cfg.tokenFile = os.Getenv("MCPTRAY_SHIM_TOKEN_FILE")
	if cfg.tokenFile == "" {
		cfg.tokenFile, _ = paths.ShimTokenFile()
	}
	cfg.bin = findMcptray()
	cfg.startArgs = strings.Fields(os.Getenv("MCPTRAY_START_ARGS"))
	if v := os.Getenv("MCPTRAY_START_TIMEOUT"); v != "" {
		if d, err := time.ParseDuration(v); err == nil && d > 0 {
			cfg.startTimeout = d
		}
	}
	if cfg.endpointFile == "" {
		return cfg, errors.New("cannot find your config dir (set HOME, or MCPTRAY_ENDPOINT_FILE)")
	}
	return cfg, nil
}

// findMcptray finds the mcptray executable: $MCPTRAY_BIN, next to the shim
// (the normal install), on PATH, else in the folders mcptray's installers
// use (installedPlaces) — the shim bundled in the Claude Desktop extension
// lives in Claude's own folder, and Claude starts it with a short PATH.
func findMcptray() string {
	if v := os.Getenv("MCPTRAY_BIN"); v != "" {
		return v
	}
	name := "mcptray"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	if exe, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		p := filepath.Join(filepath.Dir(exe), name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p
		}
	}
	if p, err := exec.LookPath("mcptray"); err == nil {
		return p
	}
	for _, p := range installedPlaces(runtime.GOOS, os.Getenv) {
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p
		}
	}
	return ""
}

// installedPlaces is where mcptray's installers put the program on goos:
// the per-user install (`make install`, the Windows installer) first, then
// the system-wide ones (the .deb, the archive's `make install`, the macOS
// app in Applications). getenv reads the environment.
func installedPlaces(goos string, getenv func(string) string) []string {
	home := getenv("HOME")
	var places []string
	switch goos {
	case "windows":
		if d := getenv("LOCALAPPDATA"); d != "" {
			places = append(places, filepath.Join(d, "Programs", "mcptray", "mcptray.exe"))
		}
		if d := getenv("ProgramFiles"); d != "" {
			places = append(places, filepath.Join(d, "mcptray", "mcptray.exe"))
		}
	case "darwin":
		if home != "" {
			places = append(places, filepath.Join(home, "Applications", "mcptray.app", "Contents", "MacOS", "mcptray"))
		}
		places = append(places, "/Applications/mcptray.app/Contents/MacOS/mcptray", "/opt/homebrew/bin/mcptray", "/usr/local/bin/mcptray")
	default:
		if home != "" {
			places = append(places, filepath.Join(home, ".local", "bin", "mcptray"))
		}
		places = append(places, "/usr/bin/mcptray", "/usr/local/bin/mcptray")
	}
	return places
}

// endpoint is the published address of the running mcptray, with the
// shim's token for it.
type endpoint struct {
	paths.Endpoint
	token string
}

// upstreamFinder finds the running mcptray, starting it when it is not
// running, and keeps the shim's token. Safe for concurrent use: concurrent
// requests share one look-up or start.
type upstreamFinder struct {
	cfg config
	log io.Writer

	mu        sync.Mutex
	ep        *endpoint
	lastFail  time.Time
	lastError error
	// prog is the program the shim starts, as last looked at; replacing
	// is the pid of the outdated server the shim last started it to
	// replace (upgrade.go), tried once per server and program.
	prog      installed
	replacing int
}

func (u *upstreamFinder) cached() (endpoint, bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.ep == nil {
		return endpoint{}, false
	}
	return *u.ep, true
}

func (u *upstreamFinder) invalidate() {
	u.mu.Lock()
	u.ep = nil
	u.mu.Unlock()
}

func (u *upstreamFinder) canProvision() bool { return u.cfg.bin != "" }

// get returns the endpoint, reading the endpoint file and starting mcptray
// when needed. probe (after a refused connection) dials before trusting a
// live-looking endpoint file.
func (u *upstreamFinder) get(ctx context.Context, probe bool) (endpoint, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.ep != nil && !u.programChanged() {
		return *u.ep, nil
	}
	u.ep = nil
	ep, err := readEndpoint(u.cfg.endpointFile)
	if err == nil && (!process.Alive(ep.PID) || (probe && !dialable(ep.URL))) {
		err = fmt.Errorf("mcptray (pid %d) is not running", ep.PID)
	}
	if err == nil && u.outdated(ctx, ep) {
		// An upgrade left the old version serving: the program installed
		// now takes over, and answers this request.
		u.replacing = ep.PID
		fmt.Fprintf(u.log, "mcptray-stdio: mcptray %s (pid %d) still serves, older than the installed %s; starting the installed one, which takes over\n",
			ep.Version, ep.PID, u.prog.version)
		old := ep
		ep, err = u.start(ctx, &old)
	} else if err != nil {
		// Do not start mcptray again and again while it keeps failing.
		if u.lastError != nil && time.Since(u.lastFail) < 3*time.Second {
			return endpoint{}, u.lastError
		}
		ep, err = u.start(ctx, nil)
	}
	if err != nil {
		u.lastFail, u.lastError = time.Now(), err
		return endpoint{}, err
	}
	u.lastError = nil
	ep.token = u.readToken()
	if ep.token == "" && u.canProvision() {
		if err := u.provision(ctx, ep); err != nil {
			return endpoint{}, err
		}
		ep.token = u.readToken()
	}
	u.ep = &ep
	return ep, nil
}

func (u *upstreamFinder) readToken() string {
	if u.cfg.tokenFile == "" {
		return ""
	}
	b, err := os.ReadFile(u.cfg.tokenFile)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// renewToken gets a working token after ep.token was refused: another shim
// may have replaced it already (the file then holds the new one); otherwise
// `mcptray shim-token` checks it and creates a new one.
func (u *upstreamFinder) renewToken(ctx context.Context, ep endpoint) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	if t := u.readToken(); t != "" && t != ep.token {
		if u.ep != nil {
			u.ep.token = t
		}
		return nil
	}
	if err := u.provision(ctx, ep); err != nil {
		return err
	}
	if u.ep != nil {
		u.ep.token = u.readToken()
	}
	return nil
}

// provision runs `mcptray shim-token`, which creates the shim's token in
// mcptray's database and writes it to the token file (0600).
func (u *upstreamFinder) provision(ctx context.Context, ep endpoint, extra ...string) error {
	args := []string{"shim-token", "--quiet"}
	if ep.DB != "" {
		args = append(args, "--db", ep.DB)
	}
	if u.cfg.tokenFile != "" {
		args = append(args, "--file", u.cfg.tokenFile)
	}
	args = append(args, extra...)
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, u.cfg.bin, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return &unavailableError{fmt.Sprintf("mcptray-stdio could not get its token (`%s %s`: %v: %s). Run `mcptray shim-token` yourself, then try again.",
			u.cfg.bin, strings.Join(args, " "), err, strings.TrimSpace(out.String()))}
	}
	return nil
}

// start launches mcptray in the background and waits for its endpoint.
// With old (an outdated server, still serving), it waits for another
// server to take its place; when none does in time, the old one goes on
// answering, as it would have without the shim's try.
func (u *upstreamFinder) start(ctx context.Context, old *endpoint) (ep endpoint, err error) {
	if old != nil {
		defer func() {
			if err != nil && ctx.Err() == nil && process.Alive(old.PID) {
				fmt.Fprintf(u.log, "mcptray-stdio: the installed mcptray did not take over (%v); mcptray %s (pid %d) goes on serving\n", err, old.Version, old.PID)
				ep, err = *old, nil
			}
		}()
	}
	if u.cfg.bin == "" {
		return endpoint{}, &unavailableError{"mcptray is not running and mcptray-stdio cannot find the mcptray program (it looks next to itself, on PATH and where mcptray's installers put it). Install mcptray (from https://github.com/mcptray/mcptray/releases, or see https://github.com/mcptray/mcptray#set-up) and start it, then try again."}
	}
	args := append([]string(nil), u.cfg.startArgs...)
	if headless() || os.Getenv("MCPTRAY_ENDPOINT_FILE") != "" {
		// The headless server; it is told where to publish when the
		// endpoint file is not the default one.
		pre := []string{"serve"}
		if os.Getenv("MCPTRAY_ENDPOINT_FILE") != "" {
			pre = append(pre, "--endpoint-file", u.cfg.endpointFile)
		}
		args = append(pre, args...)
	}
	cmd := exec.Command(u.cfg.bin, args...)
	cmd.Stdin, cmd.Stdout = nil, nil // never our stdout: it carries the protocol
	if dir := filepath.Dir(u.cfg.endpointFile); os.MkdirAll(dir, 0o700) == nil {
		if f, err := os.OpenFile(filepath.Join(dir, "serve.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600); err == nil {
			cmd.Stderr = f
			defer f.Close()
		}
	}
	detach(cmd)
	if old == nil {
		fmt.Fprintf(u.log, "mcptray-stdio: mcptray is not running; starting %s %s\n", u.cfg.bin, strings.Join(args, " "))
	}
	if err := cmd.Start(); err != nil {
		return endpoint{}, &unavailableError{fmt.Sprintf("mcptray is not running and could not be started (%v). Start the mcptray app, then try again.", err)}
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }() // reap it if it exits; it outlives us otherwise
	deadline := time.NewTimer(u.cfg.startTimeout)
	defer deadline.Stop()
	tick := time.NewTicker(25 * time.Millisecond)
	defer tick.Stop()
	var grace <-chan time.Time
	var exitErr error
	for {
		if ep, err := readEndpoint(u.cfg.endpointFile); err == nil && process.Alive(ep.PID) && (old == nil || ep.PID != old.PID) && dialable(ep.URL) {
			return ep, nil
		}
		select {
		case <-ctx.Done():
			return endpoint{}, ctx.Err()
		case err := <-exited:
			// Another mcptray (started by another shim: clients often start
			// their servers twice) may have won the race for the port; give
			// it a moment to publish its endpoint.
			exited = nil
			exitErr = err
			grace = time.After(3 * time.Second)
		case <-grace:
			return endpoint{}, &unavailableError{fmt.Sprintf("mcptray is not running; mcptray-stdio started it but it exited (%v; its log: %s). Start the mcptray app, then try again.",
				exitErr, filepath.Join(filepath.Dir(u.cfg.endpointFile), "serve.log"))}
		case <-deadline.C:
			return endpoint{}, &unavailableError{fmt.Sprintf("mcptray is not running; mcptray-stdio started it but it did not publish its endpoint within %v. Start the mcptray app, then try again.", u.cfg.startTimeout)}
		case <-tick.C:
		}
	}
}

// readEndpoint reads the endpoint file at path.
func readEndpoint(path string) (endpoint, error) {
	ep, err := paths.ReadEndpoint(path)
	return endpoint{Endpoint: ep}, err
}

func dialable(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	c, err := net.DialTimeout("tcp", u.Host, 500*time.Millisecond)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// headless reports whether there is no display to show the app on.
func headless() bool {
	switch runtime.GOOS {
	case "windows", "darwin":
		return false
	}
	return os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == ""
}

// reload re-reads the endpoint file, keeping the token, without starting
// mcptray: a stopped mcptray is started only for a client's request.
func (u *upstreamFinder) reload() {
	ep, err := readEndpoint(u.cfg.endpointFile)
	if err != nil || !process.Alive(ep.PID) {
		return
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.ep != nil && u.ep.URL != ep.URL {
		ep.token = u.ep.token
		u.ep = &ep
	}
}

// peek returns the endpoint without starting mcptray.
func (u *upstreamFinder) peek() (endpoint, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.ep != nil {
		return *u.ep, nil
	}
	ep, err := readEndpoint(u.cfg.endpointFile)
	if err != nil {
		return endpoint{}, err
	}
	if !process.Alive(ep.PID) {
		return endpoint{}, fmt.Errorf("mcptray (pid %d) is not running", ep.PID)
	}
	ep.token = u.readToken()
	u.ep = &ep
	return ep, nil
}
