package wine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptray/mcptray/internal/testutil"
)

// The Windows side of the prefix: the user's folders, as the programs see
// them, and where the installer puts mcptray.
const (
	userName   = "Jane Doe"
	home       = `C:\users\Jane Doe`
	appData    = home + `\AppData\Roaming`
	installDir = home + `\AppData\Local\Programs\mcptray`
	dataDir    = appData + `\mcptray`
	database   = dataDir + `\mcptray.db`
	toolsDir   = `C:\mcptray wine tools`
)

// wine64 and wineserver are Debian's, called directly: /usr/bin/wine, a
// wrapper, warns on every run that the 32-bit Wine is missing.
const (
	wine64     = "/usr/lib/wine/wine64"
	wineserver = "/usr/lib/wine/wineserver"
)

// pfx is the run's Wine prefix, made by TestMain when MCPTRAY_WINE_DIST is
// set; nil otherwise, and the tests skip.
var pfx *prefix

func TestMain(m *testing.M) {
	dist := os.Getenv("MCPTRAY_WINE_DIST")
	if dist == "" {
		os.Exit(m.Run())
	}
	start := time.Now()
	p, err := newPrefix(dist, os.Getenv("MCPTRAY_WINE_SETUP"))
	if err != nil {
		fmt.Fprintf(os.Stderr, "wine: making the Wine prefix: %v\n", err)
		p.close()
		os.Exit(1)
	}
	fmt.Printf("wine: prefix %s (user %q) ready in %s\n", p.dir, userName, time.Since(start).Round(time.Second))
	pfx = p
	code := m.Run()
	p.close()
	os.Exit(code)
}

// prefix is a throwaway Wine prefix and what runs in it.
type prefix struct {
	dir   string   // WINEPREFIX
	dist  string   // the Windows programs make windows built (a Linux path)
	setup string   // the NSIS installer (a Linux path)
	env   []string // the environment of every Wine process
}

// newPrefix makes the prefix: wineboot with the user "Jane Doe" (Wine names
// the profile folder after $USER), then the ProcessPrng DLL and the
// helper program, both built here.
func newPrefix(dist, setup string) (*prefix, error) {
	dir, err := os.MkdirTemp("", "mcptray-wine-")
	if err != nil {
		return nil, err
	}
	p := &prefix{dir: dir, setup: setup}
	if p.dist, err = filepath.Abs(dist); err != nil {
		return p, err
	}
	p.env = append(os.Environ(), "WINEPREFIX="+dir, "USER="+userName, "LOGNAME="+userName, "WINEDEBUG=-all",
		// Native first: ours; builtin where it is missing (during wineboot).
		// No Mono or Gecko: nothing here needs them, and wineboot would
		// offer to download them.
		"WINEDLLOVERRIDES=bcryptprimitives=n,b;mscoree,mshtml=")
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	if out, err := p.output(ctx, "", "wineboot", "-i"); err != nil {
		return p, fmt.Errorf("wineboot: %v: %s", err, out)
	}
	if _, err := os.Stat(p.unix(home)); err != nil {
		return p, fmt.Errorf("wineboot made no %s: %w", home, err)
	}
	dll := filepath.Join(p.unix(`C:\windows\system32`), "bcryptprimitives.dll")
	cc := exec.CommandContext(ctx, "x86_64-w64-mingw32-gcc", "-shared", "-O2", "-o", dll, "testdata/processprng.c", "-ladvapi32")
	if out, err := cc.CombinedOutput(); err != nil {
		return p, fmt.Errorf("building bcryptprimitives.dll: %v: %s", err, out)
	}
	goCmd := os.Getenv("GO")
	if goCmd == "" {
		goCmd = "go"
	}
	build := exec.CommandContext(ctx, goCmd, "build", "-o", filepath.Join(p.unix(toolsDir), "helper.exe"), "./testdata/helper")
	build.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		return p, fmt.Errorf("building helper.exe: %v: %s", err, out)
	}
	return p, nil
}

// close ends every process of the prefix and removes it.
func (p *prefix) close() {
	if p == nil || p.dir == "" {
		return
	}
	kill := exec.Command(wineserver, "-k")
	kill.Env = p.env
	_ = kill.Run()
	wait := exec.Command(wineserver, "-w")
	wait.Env = p.env
	_ = wait.Run()
	if err := os.RemoveAll(p.dir); err != nil {
		fmt.Fprintf(os.Stderr, "wine: removing the prefix: %v\n", err)
	}
}

// need skips t when the run has no prefix (MCPTRAY_WINE_DIST unset).
func need(t *testing.T) *prefix {
	t.Helper()
	if pfx == nil {
		t.Skip("MCPTRAY_WINE_DIST is not set: the Windows programs run under Wine with make wine")
	}
	return pfx
}

// command runs exe (a Windows path, or a program Wine finds) under Wine.
// Its process is the Windows program itself (the loader execs it).
func (p *prefix) command(ctx context.Context, exe string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, wine64, append([]string{exe}, args...)...)
	cmd.Env = p.env
	cmd.Dir = p.dir
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// installed is the Windows path of an installed program.
func installed(name string) string { return installDir + `\` + name }

// unix is the Linux path of a path on the prefix's C: drive.
func (p *prefix) unix(win string) string {
	if len(win) < 3 || !strings.EqualFold(win[:3], `C:\`) {
		panic("not a C: path: " + win)
	}
	return filepath.Join(p.dir, "drive_c", filepath.FromSlash(strings.ReplaceAll(win[3:], `\`, "/")))
}

// output runs exe under Wine to its end, and returns its standard output
// and error. They go through files, not pipes: Wine's own processes
// (services.exe, explorer.exe), started by the first program, inherit the
// handles and would keep a pipe open long after the program ended.
func (p *prefix) output(ctx context.Context, stdin string, exe string, args ...string) (string, error) {
	return collect(p.command(ctx, exe, args...), stdin)
}

// inConsole runs exe under Wine in a Wine console, as a program typed in a
// terminal window runs, and returns what the console showed (with the
// terminal's control sequences). Wine makes a console only for a program
// whose output is a terminal, so it runs under script(1)'s
// pseudo-terminal; otherwise the programs get the standard handles of
// whoever started them, and no console at all.
func (p *prefix) inConsole(ctx context.Context, exe string, args ...string) (string, error) {
	var line []string // for script's shell
	for _, a := range append([]string{wine64, exe}, args...) {
		line = append(line, "'"+strings.ReplaceAll(a, "'", `'\''`)+"'")
	}
	cmd := exec.CommandContext(ctx, "script", "--quiet", "--return", "--command", strings.Join(line, " "), "/dev/null")
	cmd.Env = p.env
	cmd.Dir = p.dir
	cmd.WaitDelay = 5 * time.Second
	return collect(cmd, "")
}

// collect runs cmd to its end, its standard output and error gathered in a
// file (see output), and returns them.
func collect(cmd *exec.Cmd, stdin string) (string, error) {
	f, err := os.CreateTemp("", "mcptray-wine-out-")
	if err != nil {
		return "", err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(stdin), f, f
	err = cmd.Run()
	b, _ := os.ReadFile(f.Name())
	return string(b), err
}

// run runs a program under Wine to its end and returns what it printed;
// a failure fails t.
func (p *prefix) run(t *testing.T, stdin string, exe string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := p.output(ctx, stdin, exe, args...)
	if killedByWine(ctx, err) {
		// Wine 8 now and then ends a process that is exiting with SIGKILL
		// rather than its exit status (seen twice on token create, after
		// it had printed the token): that is not the program's failure,
		// but its status is unknown, so it runs again. Every program run
		// here may run twice; token create may not (p.token).
		t.Logf("%s %s: Wine killed it as it ended (%v), so its exit status is unknown: running it again", exe, strings.Join(args, " "), err)
		out, err = p.output(ctx, stdin, exe, args...)
	}
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", exe, strings.Join(args, " "), err, out)
	}
	return out
}

// killedByWine says whether a program run under Wine ended by SIGKILL
// that the check did not send (its context is not done).
func killedByWine(ctx context.Context, err error) bool {
	var ee *exec.ExitError
	if ctx.Err() != nil || !errors.As(err, &ee) {
		return false
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL
}

// write puts a file on the C: drive, folders made as needed.
func (p *prefix) write(t *testing.T, win, content string) {
	t.Helper()
	path := p.unix(win)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// server is a running `mcptray.exe serve`.
type server struct {
	cmd    *exec.Cmd
	url    string
	token  string
	stderr *testutil.SyncBuffer
	done   chan error
}

// serve starts the installed mcptray.exe serve on a free port and waits
// until its endpoint file names it; the token is one made for the checks.
func (p *prefix) serve(t *testing.T) *server {
	t.Helper()
	ep := p.unix(dataDir + `\endpoint.json`)
	_ = os.Remove(ep) // a killed server's
	port := testutil.FreePort(t)
	s := &server{stderr: &testutil.SyncBuffer{}, done: make(chan error, 1)}
	s.cmd = p.command(context.Background(), installed("mcptray.exe"), "serve", "--addr", "127.0.0.1:"+strconv.Itoa(port))
	s.cmd.Stderr = s.stderr
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.done <- s.cmd.Wait() }()
	s.url = fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
	testutil.EventuallyShows(t, "mcptray.exe serve to write its endpoint file", func() (bool, string) {
		select {
		case err := <-s.done:
			s.done <- err
			t.Fatalf("mcptray.exe serve ended: %v\n%s", err, s.stderr.String())
		default:
		}
		b, err := os.ReadFile(ep)
		var e struct{ URL string }
		return err == nil && json.Unmarshal(b, &e) == nil && e.URL == s.url, string(b) + s.stderr.String()
	})
	s.token = p.token(t, "wine-check-"+strconv.Itoa(port))
	return s
}

// token creates a client token and returns it: the last line mcptray
// token create prints (stdout and stderr are one file here). Not p.run:
// a token create Wine killed as it ended (see run) may have made its
// token, and a second one of the same name is refused, so it runs again
// under another name.
func (p *prefix) token(t *testing.T, name string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for try := 1; ; try++ {
		named := fmt.Sprintf("%s-%d", name, try)
		out, err := p.output(ctx, "", installed("mcptray.exe"), "token", "create", named)
		if killedByWine(ctx, err) && try < 3 {
			t.Logf("token create %s: Wine killed it as it ended (%v): making another token", named, err)
			continue
		}
		if err != nil {
			t.Fatalf("token create %s: %v\n%s", named, err, out)
		}
		lines := strings.Fields(out)
		if len(lines) == 0 {
			t.Fatal("mcptray token create printed no token")
		}
		return lines[len(lines)-1]
	}
}

// stop ends the server as Ctrl-C would not reach it under Wine: killed.
// What matters here is that nothing of it is left.
func (s *server) stop(t *testing.T) {
	t.Helper()
	_ = s.cmd.Process.Signal(syscall.SIGKILL)
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		t.Errorf("mcptray.exe serve did not end 30 s after it was killed")
	}
}

// bearer adds a client token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// The two protocol eras a client may speak.
var eras = []string{"2025-11-25", "2026-07-28"}

// client is the official go-sdk client, answering forms (elicitation)
// with the first choice or a fixed text.
func client() *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: "wine-check", Version: "1"}, &mcp.ClientOptions{ElicitationHandler: answerForm})
}

// connectHTTP connects to the server over HTTP.
func (s *server) connectHTTP(t *testing.T, ctx context.Context, era string) *mcp.ClientSession {
	t.Helper()
	cs, err := client().Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.url, MaxRetries: -1,
		HTTPClient: &http.Client{Transport: bearer{s.token}}}, &mcp.ClientSessionOptions{ProtocolVersion: era})
	if err != nil {
		t.Fatalf("connecting over HTTP (%s): %v", era, err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// connectCommand starts cmd, a stdio server (the shim), and connects to it.
func connectCommand(t *testing.T, ctx context.Context, era string, cmd *exec.Cmd) *mcp.ClientSession {
	t.Helper()
	stderr := &testutil.SyncBuffer{}
	cmd.Stderr = stderr
	cs, err := client().Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 10 * time.Second}, &mcp.ClientSessionOptions{ProtocolVersion: era})
	if err != nil {
		t.Fatalf("connecting to %s (%s): %v\nits stderr: %s", cmd.Args, era, err, stderr.String())
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// answerForm accepts a form with a value for each field: the first choice
// where there are choices, else a text, number or yes by its type.
func answerForm(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	b, err := json.Marshal(req.Params.RequestedSchema)
	if err != nil {
		return nil, err
	}
	var schema struct {
		Properties map[string]struct {
			Type  string           `json:"type"`
			OneOf []map[string]any `json:"oneOf"`
			Enum  []any            `json:"enum"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(b, &schema); err != nil {
		return nil, err
	}
	content := map[string]any{}
	for name, prop := range schema.Properties {
		switch {
		case len(prop.OneOf) > 0:
			content[name] = prop.OneOf[0]["const"]
		case len(prop.Enum) > 0:
			content[name] = prop.Enum[0]
		case prop.Type == "number" || prop.Type == "integer":
			content[name] = 1
		case prop.Type == "boolean":
			content[name] = true
		default:
			content[name] = "From the Wine check"
		}
	}
	return &mcp.ElicitResult{Action: "accept", Content: content}, nil
}

// text is the text of a tool's result, and whether it is an error.
func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// call calls a tool and fails t on an error or an error result.
func call(t *testing.T, ctx context.Context, cs *mcp.ClientSession, name string, args map[string]any) string {
	t.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("tools/call %s: %v", name, err)
	}
	if res.IsError {
		t.Fatalf("tools/call %s answered an error: %s", name, text(res))
	}
	return text(res)
}

// running lists the Linux processes of this prefix whose command line
// holds marker: a Wine process's is its Windows command line. Another
// run's prefix has the same user and folders, so its processes are told
// apart by their WINEPREFIX.
func (p *prefix) running(marker string) []string {
	var found []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		line := strings.ReplaceAll(string(b), "\x00", " ")
		if !strings.Contains(line, marker) {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err == nil && slices.Contains(strings.Split(string(env), "\x00"), "WINEPREFIX="+p.dir) {
			found = append(found, e.Name()+" "+line)
		}
	}
	return found
}
