package actions

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcptray/mcptray/catalog"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	// DefaultCommandTimeout applies when a command sets no timeout.
	DefaultCommandTimeout = 60 * time.Second
	// DefaultMaxOutputBytes caps stdout and stderr when a command sets no cap.
	DefaultMaxOutputBytes = 1 << 20
	// MaxOutputBytesLimit is the largest cap a command may set.
	MaxOutputBytesLimit = 64 << 20
	// maxStreamLine caps one streamed line; the rest of the line is dropped.
	maxStreamLine = 4 << 10
	// waitDelay bounds how long output pipes are drained after the program
	// exited (or was killed) while a leftover background process still
	// holds them open.
	waitDelay = 2 * time.Second
)

var (
	// ErrProgramNotFound is matched (errors.Is) by the error of a command
	// whose program could not be found.
	ErrProgramNotFound = errors.New("program not found")
	// ErrCommandTimeout is matched (errors.Is) by the error of a command
	// that ran past its timeout and was killed.
	ErrCommandTimeout = errors.New("timed out")
)

// StreamModes are the values Command.Stream may take.
var StreamModes = []string{"", "progress", "log"}

// DefaultInheritedEnv is what a command inherits of the server's
// environment unless it says otherwise: variables that locate things
// (programs, home, temp, locale, the desktop session, CA certificates) and
// carry no credentials. Tokens, keys, proxies (they may embed passwords)
// and agent sockets (SSH_AUTH_SOCK) stay out unless a command names them.
// A trailing "*" matches a prefix. On Windows names match case-insensitively.
var DefaultInheritedEnv = []string{
	// Unix
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "LC_*", "TZ", "TMPDIR",
	"XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME",
	"XDG_CONFIG_DIRS", "XDG_DATA_DIRS", "DISPLAY", "WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS",
	"SSL_CERT_FILE", "SSL_CERT_DIR",
	// Windows
	"SystemRoot", "SystemDrive", "windir", "ComSpec", "PATHEXT", "TEMP", "TMP", "USERPROFILE",
	"USERNAME", "USERDOMAIN", "HOMEDRIVE", "HOMEPATH", "APPDATA", "LOCALAPPDATA", "ProgramData",
	"ProgramFiles", "ProgramFiles(x86)", "ProgramW6432", "CommonProgramFiles", "OS",
	"NUMBER_OF_PROCESSORS", "PROCESSOR_ARCHITECTURE",
}

// patterns lists the name patterns to inherit; nil with all=true means all.
func inheritPatterns(e catalog.InheritEnv) (pats []string, all bool) {
	if e.Names != nil {
		for _, n := range e.Names {
			if n == "@default" {
				pats = append(pats, DefaultInheritedEnv...)
			} else {
				pats = append(pats, n)
			}
		}
		return pats, false
	}
	switch e.Mode {
	case "all":
		return nil, true
	case "none":
		return nil, false
	}
	return DefaultInheritedEnv, false
}

func validateInherit(e catalog.InheritEnv) []Problem {
	var ps []Problem
	if e.Names == nil {
		switch e.Mode {
		case "", "default", "none", "all":
		default:
			ps = append(ps, problemf("inheritEnv", `unknown mode %q; "default", "none", "all" or a list of names`, e.Mode))
		}
		return ps
	}
	for i, n := range e.Names {
		if n == "@default" {
			continue
		}
		if err := checkEnvName(strings.TrimSuffix(n, "*")); err != nil {
			ps = append(ps, problemf(fmt.Sprintf("inheritEnv[%d]", i), "%v", err))
		}
	}
	return ps
}

func checkEnvName(n string) error {
	switch {
	case n == "":
		return errors.New("an environment variable name must not be empty")
	case strings.ContainsAny(n, "=\x00*"):
		return fmt.Errorf("%q is not a valid environment variable name (no '=', '*' or NUL)", n)
	}
	return nil
}

// envNameMatch reports whether a variable name matches a pattern (a name,
// or a prefix ending in "*"); Windows names are case-insensitive.
func envNameMatch(pattern, name string) bool {
	if p, ok := strings.CutSuffix(pattern, "*"); ok {
		return len(name) >= len(p) && sameEnvName(name[:len(p)], p)
	}
	return sameEnvName(pattern, name)
}

// envName returns the name of a NAME=value entry, "" when there is none.
// On Windows, names of per-drive variables ("=C:") start with '='.
func envName(kv string) string {
	i := strings.IndexByte(kv, '=')
	if i == 0 {
		i = strings.IndexByte(kv[1:], '=') + 1
	}
	if i <= 0 {
		return ""
	}
	return kv[:i]
}

func sameEnvName(a, b string) bool {
	if runtime.GOOS == "windows" {
		return strings.EqualFold(a, b)
	}
	return a == b
}

// goos is the operating system whose command line runs: d.OS, else this one.
func (d *Data) goos() string {
	if d != nil && d.OS != "" {
		return d.OS
	}
	return runtime.GOOS
}

// ValidateCommand lists the problems of the command action.
func ValidateCommand(c *catalog.Command, tc *TemplateChecks) []Problem {
	ps := validateCommandLine("", c.Argv, c.Dir, tc)
	for _, goos := range sortedKeys(c.OS) {
		field := "os." + goos
		if _, ok := catalog.OSNames[goos]; !ok {
			var known []string
			for _, n := range sortedKeys(catalog.OSNames) {
				known = append(known, fmt.Sprintf("%s (%s)", n, catalog.OSNames[n]))
			}
			ps = append(ps, problemf(field, "%q is not an operating system mcptray knows; use Go's name for it: %s", goos, strings.Join(known, ", ")))
			continue
		}
		ps = append(ps, validateCommandLine(field, c.OS[goos].Argv, c.OS[goos].Dir, tc)...)
	}
	ps = append(ps, validateInherit(c.InheritEnv)...)
	for _, name := range sortedKeys(c.Env) {
		if err := checkEnvName(name); err != nil {
			ps = append(ps, problemf("env", "%v", err))
			continue
		}
		if err := tc.check(c.Env[name]); err != nil {
			ps = append(ps, problemf("env."+name, "%v", err))
		}
	}
	if err := tc.check(c.Stdin); err != nil {
		ps = append(ps, problemf("stdin", "%v", err))
	}
	if c.TimeoutMs < 0 {
		ps = append(ps, problemf("timeoutMs", "must not be negative"))
	}
	if c.MaxOutputBytes < 0 || c.MaxOutputBytes > MaxOutputBytesLimit {
		ps = append(ps, problemf("maxOutputBytes", "must be between 0 (the default, %d) and %d", DefaultMaxOutputBytes, MaxOutputBytesLimit))
	}
	if !slices.Contains(StreamModes, c.Stream) {
		ps = append(ps, problemf("stream", `unknown mode %q; "progress", "log" or empty`, c.Stream))
	}
	return ps
}

// validateCommandLine lists the problems of a program, its arguments and
// its folder, with fields under prefix ("" or "os.windows").
func validateCommandLine(prefix string, argv []catalog.Template, dir catalog.Template, tc *TemplateChecks) []Problem {
	field := func(f string) string {
		if prefix == "" {
			return f
		}
		return prefix + "." + f
	}
	var ps []Problem
	if len(argv) == 0 || strings.TrimSpace(string(argv[0])) == "" {
		ps = append(ps, problemf(field("argv"), "the program (argv[0]) is required"))
	}
	for i, a := range argv {
		if err := tc.check(a); err != nil {
			ps = append(ps, problemf(field(fmt.Sprintf("argv[%d]", i)), "%v", err))
		}
	}
	if err := tc.check(dir); err != nil {
		ps = append(ps, problemf(field("dir"), "%v", err))
	}
	return append(ps, cmdValueProblems(field, argv)...)
}

// Output is what a command produced. Stdout and Stderr hold at most the
// command's output cap each; secret values are already redacted.
type Output struct {
	// Program is argv[0] as rendered.
	Program string
	// Stdout and Stderr are the kept output.
	Stdout, Stderr []byte
	// StdoutTruncated and StderrTruncated say output was cut at the cap.
	StdoutTruncated, StderrTruncated bool
	// StdoutBytes and StderrBytes count everything the program wrote.
	StdoutBytes, StderrBytes int64
	// ExitCode is the exit status; -1 when a signal ended the program.
	ExitCode int
	// Status describes the end: "exit status 3", "signal: killed".
	Status string
	// Duration is how long the program ran.
	Duration time.Duration
}

// Output runs the program to its end and returns what it wrote. A non-zero
// exit is not an error (see ExitCode). Errors are returned, redacted, when
// the definition does not render, the program cannot be found or started,
// or the run timed out (ErrCommandTimeout; the partial output is returned
// too). When ctx is cancelled the process group is killed and ctx's error
// is returned.
func CommandOutput(ctx context.Context, c *catalog.Command, data *Data) (*Output, error) {
	return execCommand(ctx, c, data, nil)
}

// Run executes the program. Exit 0 gives its stdout as text; any other exit
// gives an isError result carrying the status and stderr (stdout when
// stderr is empty), so the model sees what failed. A program that cannot be
// found or started, or that timed out, is an isError result too; only
// cancellation of ctx is returned as an error. Stdout lines stream through
// rep when Stream is set.
func runCommand(ctx context.Context, c *catalog.Command, data *Data, rep Reporter) (*mcp.CallToolResult, error) {
	out, err := execCommand(ctx, c, data, rep)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		msg := err.Error()
		if out != nil && errors.Is(err, ErrCommandTimeout) && len(bytes.TrimSpace(out.Stderr)) > 0 {
			msg += "; stderr so far:\n" + strings.TrimSpace(outputText(out.Stderr, out.StderrTruncated, out.StderrBytes))
		}
		return errorResult(msg), nil
	}
	if out.ExitCode != 0 {
		msg := fmt.Sprintf("%s failed (%s)", out.Program, out.Status)
		if s := strings.TrimSpace(outputText(out.Stderr, out.StderrTruncated, out.StderrBytes)); s != "" {
			msg += ":\n" + s
		} else if s := strings.TrimSpace(outputText(out.Stdout, out.StdoutTruncated, out.StdoutBytes)); s != "" {
			// Some programs report failures on stdout.
			msg += "; no stderr, stdout:\n" + s
		}
		return errorResult(msg), nil
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: outputText(out.Stdout, out.StdoutTruncated, out.StdoutBytes)}}}, nil
}

// outputText renders kept output as text, noting a cut. It copies the
// output once, into a string of its exact size: the output may be
// megabytes.
func outputText(b []byte, truncated bool, total int64) string {
	if !truncated {
		return string(b)
	}
	note := fmt.Sprintf("\n[output truncated: kept %d of %d bytes]", len(b), total)
	b = trimPartialRune(b)
	var s strings.Builder
	s.Grow(len(b) + len(note))
	s.Write(b)
	s.WriteString(note)
	return s.String()
}

// trimPartialRune drops a UTF-8 sequence cut in half at the end of b.
func trimPartialRune(b []byte) []byte {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return b[:i]
			}
			break
		}
	}
	return b
}

func errorResult(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}
}

// renderArgv renders the command line, one argument at a time.
func renderArgv(c *catalog.Command, data *Data) ([]string, error) {
	argv := make([]string, len(c.Argv))
	for i, a := range c.Argv {
		s, err := Render(a, data)
		if err != nil {
			return nil, fmt.Errorf("argv[%d]: %w", i, err)
		}
		argv[i] = s
	}
	return argv, nil
}

// run renders the definition, runs the program and collects its output,
// streaming stdout lines to rep when the command asks for it.
func execCommand(ctx context.Context, c *catalog.Command, data *Data, rep Reporter) (*Output, error) {
	here := c.On(data.goos())
	c = &here
	if len(c.Argv) == 0 {
		return nil, errors.New("command: no program (argv is empty)")
	}
	argv, err := renderArgv(c, data)
	if err != nil {
		return nil, redactErr(data, err)
	}
	if argv[0] == "" {
		return nil, errors.New("command: the program (argv[0]) rendered empty")
	}
	dir, err := Render(c.Dir, data)
	if err != nil {
		return nil, redactErr(data, fmt.Errorf("dir: %w", err))
	}
	env, err := commandEnviron(c, data)
	if err != nil {
		return nil, redactErr(data, err)
	}
	var stdin string
	if c.Stdin != "" {
		if stdin, err = Render(c.Stdin, data); err != nil {
			return nil, redactErr(data, fmt.Errorf("stdin: %w", err))
		}
	}
	if dir != "" {
		if fi, err := os.Stat(dir); err != nil {
			return nil, redactErr(data, fmt.Errorf("working directory: %w", err))
		} else if !fi.IsDir() {
			return nil, redactErr(data, fmt.Errorf("working directory %s is not a directory", dir))
		}
	}
	path, err := findProgram(argv[0], dir, env)
	if err != nil {
		return nil, redactErr(data, err)
	}
	windows := data.goos() == "windows"
	if windows {
		if err := checkCmdValues(path, c.Argv); err != nil {
			return nil, err
		}
	}

	timeout := DefaultCommandTimeout
	if c.TimeoutMs > 0 {
		timeout = time.Duration(c.TimeoutMs) * time.Millisecond
	}
	limit := DefaultMaxOutputBytes
	if c.MaxOutputBytes > 0 {
		limit = c.MaxOutputBytes
	}
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	cmd := exec.CommandContext(tctx, path, argv[1:]...)
	cmd.Args[0] = argv[0]
	if windows && isCmd(path) {
		passCmdLine(cmd, cmdCommandLine(argv))
	}
	cmd.Dir = dir
	cmd.Env = env
	cmd.WaitDelay = waitDelay
	grp := groupProcess(cmd)
	noConsoleWindow(cmd)
	if c.Stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	extra := data.lookahead()
	stdout := &capWriter{max: limit, extra: extra}
	stderr := &capWriter{max: limit, extra: extra}
	if rep != nil && c.Stream != "" {
		stdout.data = data
		stdout.onLine = commandStreamer(tctx, c, rep, filepath.Base(argv[0]))
	}
	cmd.Stdout, cmd.Stderr = stdout, stderr

	start := time.Now()
	err = runGrouped(ctx, cmd, grp, data, argv[0])
	stdout.flush()
	out := &Output{
		Program:         data.Redact(argv[0]),
		Stdout:          stdout.kept(data),
		Stderr:          stderr.kept(data),
		StdoutTruncated: stdout.total > int64(limit),
		StderrTruncated: stderr.total > int64(limit),
		StdoutBytes:     stdout.total,
		StderrBytes:     stderr.total,
		ExitCode:        -1,
		Duration:        time.Since(start),
	}
	if cmd.ProcessState != nil {
		out.ExitCode = cmd.ProcessState.ExitCode()
		out.Status = cmd.ProcessState.String()
	}
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return out, ctx.Err()
	case err != nil && tctx.Err() != nil:
		return out, redactErr(data, fmt.Errorf("%s %w after %s (its process group was killed)", argv[0], ErrCommandTimeout, timeout))
	case err == nil, errors.Is(err, exec.ErrWaitDelay), errors.As(err, &exitErr):
		// Finished: a non-zero exit is reported through ExitCode. After
		// ErrWaitDelay the program exited but a background process it left
		// kept the output open; what it wrote until then is kept.
		return out, nil
	}
	return out, redactErr(data, fmt.Errorf("cannot run %s: %w", argv[0], err))
}

// runGrouped starts cmd, records its process group (ProcessGroups) while it
// runs, and waits for it. It keeps its OS thread meanwhile (pinThread: the
// Pdeathsig of the program is tied to the thread that started it).
func runGrouped(ctx context.Context, cmd *exec.Cmd, grp *procGroup, data *Data, program string) error {
	defer pinThread()()
	if err := cmd.Start(); err != nil {
		return err
	}
	grp.started()
	defer grp.release()
	defer recordGroup(ctx, data, cmd, program)()
	return cmd.Wait()
}

// streamer returns the function that sends one stdout line (redacted
// already) to rep.
func commandStreamer(ctx context.Context, c *catalog.Command, rep Reporter, logger string) func(string) {
	n := 0
	return func(line string) {
		if strings.TrimSpace(line) == "" {
			return
		}
		n++
		// A failed notification (the client went away) does not stop the
		// program; cancellation does that.
		if c.Stream == "progress" {
			_ = rep.Progress(ctx, float64(n), 0, line)
		} else {
			_ = rep.Log(ctx, "info", logger, line)
		}
	}
}

// environ builds the program's environment: the inherited variables, then
// the command's own entries, which replace inherited ones of the same name.
func commandEnviron(c *catalog.Command, data *Data) ([]string, error) {
	pats, all := inheritPatterns(c.InheritEnv)
	env := []string{}
	for _, kv := range os.Environ() {
		name := envName(kv)
		if name != "" && (all || slices.ContainsFunc(pats, func(p string) bool { return envNameMatch(p, name) })) {
			env = append(env, kv)
		}
	}
	for _, name := range sortedKeys(c.Env) {
		v, err := Render(c.Env[name], data)
		if err != nil {
			return nil, fmt.Errorf("env.%s: %w", name, err)
		}
		env = slices.DeleteFunc(env, func(kv string) bool { return sameEnvName(envName(kv), name) })
		env = append(env, name+"="+v)
	}
	return env, nil
}

// findProgram resolves the program the way a shell would, without one: a
// name with a path separator is used as is (relative to dir), a bare name
// is searched in the PATH of the program's environment — or in the
// server's when that environment has none. Relative PATH entries are
// skipped, so a program in the working directory never shadows one in PATH.
func findProgram(name, dir string, env []string) (string, error) {
	if strings.ContainsRune(name, '/') || (runtime.GOOS == "windows" && strings.ContainsAny(name, `\:`)) {
		p := name
		if !filepath.IsAbs(p) && dir != "" {
			p = filepath.Join(dir, p)
		}
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("%w: %s does not exist", ErrProgramNotFound, p)
		}
		return name, nil
	}
	pathEnv, ok := "", false
	for _, kv := range env {
		if n := envName(kv); sameEnvName(n, "PATH") {
			pathEnv, ok = kv[len(n)+1:], true
		}
	}
	if !ok || runtime.GOOS == "windows" {
		// Windows resolution (PATHEXT, the current directory rules) is
		// exec.LookPath's; it searches the server's PATH.
		pathEnv = os.Getenv("PATH")
		p, err := exec.LookPath(name)
		if err != nil {
			return "", fmt.Errorf("%w: %q is not in PATH (searched %q)", ErrProgramNotFound, name, pathEnv)
		}
		if !filepath.IsAbs(p) {
			return "", fmt.Errorf("%w: %q resolves to %s in the current directory, which is not searched", ErrProgramNotFound, name, p)
		}
		return p, nil
	}
	for _, d := range filepath.SplitList(pathEnv) {
		if !filepath.IsAbs(d) {
			continue
		}
		p := filepath.Join(d, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%w: %q is not in PATH (searched %q)", ErrProgramNotFound, name, pathEnv)
}

// capWriter keeps the first max bytes written to it, counts the rest and
// discards it, so a runaway program neither blocks on a full pipe nor fills
// memory. It keeps extra bytes past max — the longest secret's length —
// so that kept can redact before it cuts (see redactCut). When onLine is
// set, each line that starts within the first max bytes is passed to it,
// redacted and cut at maxStreamLine, as it arrives.
type capWriter struct {
	max, extra int
	buf        []byte
	total      int64
	data       *Data
	onLine     func(string)
	// line is the current line's raw bytes (at most its cut, plus extra,
	// plus one);
	// lineMax is where it is cut: maxStreamLine, or less when the output
	// cap comes first; lineOff says the line started past the cap.
	line    []byte
	lineMax int
	lineOff bool
	started bool
}

func (w *capWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 && w.onLine != nil {
		if !w.started {
			w.started = true
			w.lineMax = min(maxStreamLine, w.max-int(min(w.total, int64(w.max))))
			w.lineOff = w.total >= int64(w.max)
		}
		i := bytes.IndexByte(p, '\n')
		seg := p
		if i >= 0 {
			seg = p[:i]
		}
		// One byte more than a cut needs, to know that the line was cut.
		if room := w.lineMax + w.extra + 1 - len(w.line); room > 0 {
			w.line = append(w.line, seg[:min(room, len(seg))]...)
		}
		w.keep(seg)
		if i < 0 {
			break
		}
		w.keep(p[i : i+1])
		w.emit()
		p = p[i+1:]
	}
	if w.onLine == nil {
		w.keep(p)
	}
	return n, nil
}

// keep adds p to what is kept (up to max+extra) and counts it.
func (w *capWriter) keep(p []byte) {
	limit := w.max + w.extra
	if room := limit - len(w.buf); room > 0 {
		kept := p[:min(room, len(p))]
		if need := len(w.buf) + len(kept); need > cap(w.buf) {
			// Doubling, as append would, but past half of what may be
			// kept, to all of it: an output at its cap would otherwise sit
			// in up to twice the memory, or be copied once more for the
			// few bytes kept past the cap (lookahead).
			n := max(need, 2*cap(w.buf), 512)
			if n > limit/2 {
				n = limit
			}
			b := make([]byte, len(w.buf), n)
			copy(b, w.buf)
			w.buf = b
		}
		w.buf = append(w.buf, kept...)
	}
	w.total += int64(len(p))
}

// emit passes the current line on, unless it started past the output cap.
func (w *capWriter) emit() {
	raw := bytes.TrimSuffix(w.line, []byte("\r"))
	line, cut := w.data.redactCut(raw, w.lineMax)
	w.line, w.started = w.line[:0], false
	if w.lineOff {
		return
	}
	if cut {
		line = append(trimPartialRune(line), "…"...)
	}
	w.onLine(string(line))
}

// flush streams a last line that had no newline.
func (w *capWriter) flush() {
	if w.onLine != nil && w.started && len(w.line) > 0 {
		w.emit()
	}
}

// kept is the output kept, redacted, then cut at max.
func (w *capWriter) kept(data *Data) []byte {
	b, _ := data.redactCut(w.buf, w.max)
	return b
}

// redactedError carries a message with secrets redacted; errors.Is still
// sees the sentinel errors (ErrCommandTimeout, context.Canceled…) of the
// original without exposing its unredacted text.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string        { return e.msg }
func (e *redactedError) Is(target error) bool { return errors.Is(e.err, target) }

func redactErr(data *Data, err error) error {
	if err == nil {
		return nil
	}
	return &redactedError{msg: data.Redact(err.Error()), err: err}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
