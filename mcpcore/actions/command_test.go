package actions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcptray/mcptray/catalog"
)

// These tests run real programs (sh, printf, sleep, cat, head, env, pwd).

func requireUnix(t *testing.T) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("needs a Unix userland")
	}
}

// streamRecorder is a Reporter safe for the goroutine that streams output.
type streamRecorder struct {
	mu     sync.Mutex
	events []streamEvent
}

type streamEvent struct {
	kind     string
	progress float64
	level    string
	logger   string
	msg      string
	at       time.Time
}

func (r *streamRecorder) Progress(_ context.Context, p, _ float64, msg string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, streamEvent{kind: "progress", progress: p, msg: msg, at: time.Now()})
	return nil
}

func (r *streamRecorder) Log(_ context.Context, level, logger string, data any) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, streamEvent{kind: "log", level: level, logger: logger, msg: data.(string), at: time.Now()})
	return nil
}

func (r *streamRecorder) all() []streamEvent {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}

func secrets(m map[string]string) func(string) (string, error) {
	return func(name string) (string, error) {
		if v, ok := m[name]; ok {
			return v, nil
		}
		return "", errors.New("no such secret")
	}
}

func TestCommandArgumentsStayLiteral(t *testing.T) {
	requireUnix(t)
	values := []string{"; rm -rf ~", "$(id)", "`id` && echo pwned", "a b\tc", `"q" 'r'`, "*", "--help", "", "line1\nline2"}
	args := map[string]any{}
	argv := []catalog.Template{"printf", `[%s]\n`}
	for i, v := range values {
		key := fmt.Sprintf("v%d", i)
		args[key] = v
		argv = append(argv, catalog.Template("{{.args."+key+"}}"))
	}
	res, err := runCommand(context.Background(), (&catalog.Command{Argv: argv}), &Data{Args: args}, nil)
	if err != nil || res.IsError {
		t.Fatalf("run: %+v, %v", res, err)
	}
	var want strings.Builder
	for _, v := range values {
		want.WriteString("[" + v + "]\n")
	}
	if got := text(t, res); got != want.String() {
		t.Errorf("argv was split or interpreted:\ngot  %q\nwant %q", got, want.String())
	}

	// Counted by a shell that receives them as positional parameters: each
	// value is exactly one argument.
	argv = append([]catalog.Template{"sh", "-c", `echo "$#"`, "sh"}, argv[2:]...)
	res, err = runCommand(context.Background(), (&catalog.Command{Argv: argv}), &Data{Args: args}, nil)
	if err != nil || strings.TrimSpace(text(t, res)) != fmt.Sprint(len(values)) {
		t.Errorf("argument count: %q, %v", text(t, res), err)
	}
}

func TestCommandNonZeroExit(t *testing.T) {
	requireUnix(t)
	c := &catalog.Command{Argv: []catalog.Template{"sh", "-c", "echo partial; echo oops >&2; exit 3"}}
	res, err := runCommand(context.Background(), c, nil, nil)
	if err != nil || !res.IsError {
		t.Fatalf("non-zero exit: %+v, %v", res, err)
	}
	if got := text(t, res); !strings.Contains(got, "exit status 3") || !strings.Contains(got, "oops") || !strings.HasPrefix(got, "sh ") {
		t.Errorf("message = %q", got)
	}
	out, err := CommandOutput(context.Background(), c, nil)
	if err != nil || out.ExitCode != 3 || string(out.Stdout) != "partial\n" || string(out.Stderr) != "oops\n" || out.Status != "exit status 3" {
		t.Errorf("output = %+v, %v", out, err)
	}
	res, err = runCommand(context.Background(), (&catalog.Command{Argv: []catalog.Template{"sh", "-c", "echo 'error: on stdout'; exit 1"}}), nil, nil)
	if err != nil || !res.IsError || text(t, res) != "sh failed (exit status 1); no stderr, stdout:\nerror: on stdout" {
		t.Errorf("stdout fallback: %q, %v", text(t, res), err)
	}
	out, err = CommandOutput(context.Background(), (&catalog.Command{Argv: []catalog.Template{"sh", "-c", "kill -TERM $$"}}), nil)
	if err != nil || out.ExitCode != -1 || !strings.Contains(out.Status, "terminated") {
		t.Errorf("killed by a signal: %+v, %v", out, err)
	}
}

func TestCommandMissingProgram(t *testing.T) {
	requireUnix(t)
	t.Setenv("PATH", "/usr/bin:/bin")
	res, err := runCommand(context.Background(), (&catalog.Command{Argv: []catalog.Template{"no-such-program-{{.args.n}}"}}), &Data{Args: map[string]any{"n": 7}}, nil)
	if err != nil || !res.IsError {
		t.Fatalf("missing program: %+v, %v", res, err)
	}
	if got := text(t, res); !strings.Contains(got, `"no-such-program-7"`) || !strings.Contains(got, `"/usr/bin:/bin"`) {
		t.Errorf("the message names neither the program nor the PATH searched: %q", got)
	}
	_, err = CommandOutput(context.Background(), (&catalog.Command{Argv: []catalog.Template{"/no/such/program"}}), nil)
	if !errors.Is(err, ErrProgramNotFound) || !strings.Contains(err.Error(), "/no/such/program") {
		t.Errorf("absolute path: %v", err)
	}
	// The PATH of the command's own environment is the one searched.
	_, err = CommandOutput(context.Background(), (&catalog.Command{Argv: []catalog.Template{"ls"}, Env: map[string]catalog.Template{"PATH": "/nowhere:/nothing"}}), nil)
	if !errors.Is(err, ErrProgramNotFound) || !strings.Contains(err.Error(), `"/nowhere:/nothing"`) {
		t.Errorf("command PATH: %v", err)
	}
}

func TestCommandFindsProgramInItsPathAndDir(t *testing.T) {
	requireUnix(t)
	bin := t.TempDir()
	script := "#!/bin/sh\necho \"hello from $0 in $(pwd)\"\n"
	if err := os.WriteFile(filepath.Join(bin, "greet"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	work, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	res, err := runCommand(context.Background(), (&catalog.Command{Argv: []catalog.Template{"greet"}, Dir: catalog.Template(work), Env: map[string]catalog.Template{"PATH": catalog.Template(bin + ":/usr/bin:/bin")}}), nil, nil)
	if err != nil || res.IsError || text(t, res) != "hello from "+filepath.Join(bin, "greet")+" in "+work+"\n" {
		t.Errorf("PATH from env, dir: %+v, %v", res, err)
	}
	// A path with a separator is relative to dir; a relative PATH entry is
	// never searched.
	res, err = runCommand(context.Background(), (&catalog.Command{Argv: []catalog.Template{"./greet"}, Dir: catalog.Template(bin)}), nil, nil)
	if err != nil || res.IsError || !strings.HasPrefix(text(t, res), "hello from ./greet") {
		t.Errorf("relative program: %+v, %v", res, err)
	}
	_, err = CommandOutput(context.Background(), (&catalog.Command{Argv: []catalog.Template{"greet"}, Dir: catalog.Template(bin), Env: map[string]catalog.Template{"PATH": ".:/usr/bin"}}), nil)
	if !errors.Is(err, ErrProgramNotFound) {
		t.Errorf("a relative PATH entry was searched: %v", err)
	}
	res, err = runCommand(context.Background(), (&catalog.Command{Argv: []catalog.Template{"ls"}, Dir: catalog.Template(filepath.Join(bin, "nope"))}), nil, nil)
	if err != nil || !res.IsError || !strings.Contains(text(t, res), "working directory") || !strings.Contains(text(t, res), "nope") {
		t.Errorf("missing dir: %+v, %v", res, err)
	}
}

func TestCommandTimeoutKillsProcessGroup(t *testing.T) {
	requireUnix(t)
	pidFile := filepath.Join(t.TempDir(), "pid")
	start := time.Now()
	c := &catalog.Command{Argv: []catalog.Template{"sh", "-c", `sleep 30 & echo $! > "$1"; echo started >&2; wait`, "sh", catalog.Template(pidFile)}, TimeoutMs: 300}
	res, err := runCommand(context.Background(), c, nil, nil)
	if err != nil || !res.IsError || !strings.Contains(text(t, res), "timed out after 300ms") || !strings.Contains(text(t, res), "started") {
		t.Fatalf("timeout: %+v, %v", res, err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the command outlived its timeout by %s", d)
	}
	waitGone(t, pidFile)

	_, err = CommandOutput(context.Background(), c, nil)
	if !errors.Is(err, ErrCommandTimeout) {
		t.Errorf("Output error = %v, want ErrCommandTimeout", err)
	}
	waitGone(t, pidFile)
}

func TestCommandCancelKillsProcessGroup(t *testing.T) {
	requireUnix(t)
	pidFile := filepath.Join(t.TempDir(), "pid")
	ctx, cancel := context.WithCancel(context.Background())
	aliveBeforeCancel := make(chan bool, 1)
	go func() {
		for {
			if b, err := os.ReadFile(pidFile); err == nil && strings.HasSuffix(string(b), "\n") {
				aliveBeforeCancel <- runtime.GOOS != "linux" || processExists(strings.TrimSpace(string(b)))
				cancel()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	start := time.Now()
	c := &catalog.Command{Argv: []catalog.Template{"sh", "-c", `sleep 30 & echo $! > "$1"; wait`, "sh", catalog.Template(pidFile)}}
	if _, err := runCommand(ctx, c, nil, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled run: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("cancellation took %s", d)
	}
	if !<-aliveBeforeCancel {
		t.Fatal("the grandchild was not seen alive before cancelling: the check proves nothing")
	}
	waitGone(t, pidFile)
}

// waitGone fails unless the process whose pid is in the file is gone soon.
func waitGone(t *testing.T, pidFile string) {
	t.Helper()
	if runtime.GOOS != "linux" {
		return // the check reads /proc
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid := strings.TrimSpace(string(b))
	deadline := time.Now().Add(5 * time.Second)
	for processExists(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("grandchild %s survived", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// processExists reports whether a live (non-zombie) process has this pid.
func processExists(pid string) bool {
	stat, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return false
	}
	// The state follows the parenthesized command name.
	_, after, ok := strings.Cut(string(stat), ") ")
	return ok && !strings.HasPrefix(after, "Z") && !strings.HasPrefix(after, "X")
}

func TestCommandHugeOutputIsCappedInBoundedMemory(t *testing.T) {
	requireUnix(t)
	c := &catalog.Command{Argv: []catalog.Template{"sh", "-c", "head -c 100000000 /dev/zero; head -c 3000000 /dev/zero >&2"}}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	out, err := CommandOutput(context.Background(), c, nil)
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Stdout) != DefaultMaxOutputBytes || !out.StdoutTruncated || out.StdoutBytes != 100_000_000 || out.ExitCode != 0 {
		t.Errorf("stdout: kept %d, truncated %v, total %d, exit %d", len(out.Stdout), out.StdoutTruncated, out.StdoutBytes, out.ExitCode)
	}
	if len(out.Stderr) != DefaultMaxOutputBytes || !out.StderrTruncated || out.StderrBytes != 3_000_000 {
		t.Errorf("stderr: kept %d, truncated %v, total %d", len(out.Stderr), out.StderrTruncated, out.StderrBytes)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 32<<20 {
		t.Errorf("allocated %d MB for 100 MB of output: it was buffered", alloc>>20)
	}
	if elapsed > 20*time.Second {
		t.Errorf("took %s", elapsed)
	}
	t.Logf("100 MB stdout: %s, %d KB allocated", elapsed, (after.TotalAlloc-before.TotalAlloc)>>10)

	res, err := runCommand(context.Background(), (&catalog.Command{Argv: []catalog.Template{"sh", "-c", "printf 'héllo wörld'"}, MaxOutputBytes: 2}), nil, nil)
	if err != nil || res.IsError || text(t, res) != "h\n[output truncated: kept 2 of 13 bytes]" {
		t.Errorf("small cap: %q, %v", text(t, res), err)
	}
}

func TestCommandSecretsAreRedacted(t *testing.T) {
	requireUnix(t)
	const value = "tok-9f8e7d6c5b"
	data := func() *Data {
		return &Data{Secret: secrets(map[string]string{"api": value})}
	}
	c := &catalog.Command{
		Argv: []catalog.Template{"sh", "-c", `echo "token is $TOKEN"; echo "arg $1"; cat`, "sh", `{{secret "api"}}`},
		Env:  map[string]catalog.Template{"TOKEN": `{{secret "api"}}`},
		// stdin may carry it too.
		Stdin:  `stdin {{secret "api"}}`,
		Stream: "log",
	}
	rec := &streamRecorder{}
	res, err := runCommand(context.Background(), c, data(), rec)
	if err != nil || res.IsError {
		t.Fatalf("run: %+v, %v", res, err)
	}
	got := text(t, res)
	if strings.Contains(got, value) || got != "token is [secret:api]\narg [secret:api]\nstdin [secret:api]" {
		t.Errorf("result = %q", got)
	}
	for _, e := range rec.all() {
		if strings.Contains(e.msg, value) {
			t.Errorf("streamed a secret: %q", e.msg)
		}
	}
	if len(rec.all()) != 3 {
		t.Errorf("streamed %d lines, want 3", len(rec.all()))
	}

	// On failure, stderr is redacted too, and so are errors.
	res, err = runCommand(context.Background(), (&catalog.Command{Argv: []catalog.Template{"sh", "-c", `echo "bad token $TOKEN" >&2; exit 1`}, Env: map[string]catalog.Template{"TOKEN": `{{secret "api"}}`}}), data(), nil)
	if err != nil || !res.IsError || strings.Contains(text(t, res), value) || !strings.Contains(text(t, res), "bad token [secret:api]") {
		t.Errorf("stderr: %q, %v", text(t, res), err)
	}
	res, err = runCommand(context.Background(), (&catalog.Command{Argv: []catalog.Template{`/opt/{{secret "api"}}/tool`}}), data(), nil)
	if err != nil || !res.IsError || strings.Contains(text(t, res), value) || !strings.Contains(text(t, res), "[secret:api]") {
		t.Errorf("error: %q, %v", text(t, res), err)
	}
	res, err = runCommand(context.Background(), (&catalog.Command{Argv: []catalog.Template{"sh", "-c", "sleep 5; echo $T", "sh"}, Env: map[string]catalog.Template{"T": `{{secret "api"}}`}, TimeoutMs: 100}), data(), nil)
	if err != nil || !res.IsError || strings.Contains(text(t, res), value) {
		t.Errorf("timeout: %q, %v", text(t, res), err)
	}
	out, err := CommandOutput(context.Background(), c, data())
	if err != nil || strings.Contains(string(out.Stdout), value) {
		t.Errorf("Output: %q, %v", out.Stdout, err)
	}
}

// envOf runs env under a command's environment settings.
func envOf(t *testing.T, c *catalog.Command) map[string]string {
	t.Helper()
	c.Argv = []catalog.Template{"env"}
	out, err := CommandOutput(context.Background(), c, nil)
	if err != nil || out.ExitCode != 0 {
		t.Fatalf("env: %+v, %v", out, err)
	}
	m := map[string]string{}
	for line := range strings.Lines(string(out.Stdout)) {
		if k, v, ok := strings.Cut(strings.TrimSuffix(line, "\n"), "="); ok {
			m[k] = v
		}
	}
	return m
}

func TestCommandEnvironmentInheritance(t *testing.T) {
	requireUnix(t)
	t.Setenv("MCPTRAY_TEST_TOKEN", "hunter2")
	t.Setenv("LC_MCPTRAY_TEST", "fr_FR")
	t.Setenv("HOME", "/home/test")

	env := envOf(t, &catalog.Command{})
	if env["PATH"] != os.Getenv("PATH") || env["HOME"] != "/home/test" || env["LC_MCPTRAY_TEST"] != "fr_FR" {
		t.Errorf("default mode lost an allowlisted variable: %v", env)
	}
	if _, ok := env["MCPTRAY_TEST_TOKEN"]; ok {
		t.Error("default mode leaked a variable outside the allowlist")
	}

	if env := envOf(t, &catalog.Command{InheritEnv: catalog.InheritEnv{Mode: "none"}}); len(env) != 0 {
		t.Errorf("none: %v", env)
	}
	if env := envOf(t, &catalog.Command{InheritEnv: catalog.InheritEnv{Mode: "all"}}); env["MCPTRAY_TEST_TOKEN"] != "hunter2" {
		t.Errorf("all: %v", env)
	}
	env = envOf(t, &catalog.Command{InheritEnv: catalog.InheritEnv{Names: []string{"MCPTRAY_TEST_*"}}})
	if len(env) != 1 || env["MCPTRAY_TEST_TOKEN"] != "hunter2" {
		t.Errorf("list: %v", env)
	}
	env = envOf(t, &catalog.Command{InheritEnv: catalog.InheritEnv{Names: []string{"@default", "MCPTRAY_TEST_TOKEN"}}})
	if env["MCPTRAY_TEST_TOKEN"] != "hunter2" || env["HOME"] != "/home/test" {
		t.Errorf("@default plus a name: %v", env)
	}

	// Templated entries replace inherited ones and may use secrets.
	env = envOf(t, &catalog.Command{
		InheritEnv: catalog.InheritEnv{Mode: "none"},
		Env:        map[string]catalog.Template{"HOME": "/elsewhere", "GREETING": "hi {{.args.who}}"},
	})
	if len(env) != 2 || env["HOME"] != "/elsewhere" || env["GREETING"] != "hi " {
		t.Errorf("templated entries: %v", env)
	}
	c := &catalog.Command{InheritEnv: catalog.InheritEnv{Mode: "default"}, Env: map[string]catalog.Template{"HOME": "/elsewhere"}}
	if env := envOf(t, c); env["HOME"] != "/elsewhere" || env["PATH"] == "" {
		t.Errorf("override: %v", env)
	}
}

func TestInheritEnvJSON(t *testing.T) {
	for _, tc := range []struct{ in, out string }{
		{`{"argv":["env"]}`, `{"argv":["env"]}`},
		{`{"argv":["env"],"inheritEnv":"default"}`, `{"argv":["env"]}`},
		{`{"argv":["env"],"inheritEnv":"none"}`, `{"argv":["env"],"inheritEnv":"none"}`},
		{`{"argv":["env"],"inheritEnv":"all"}`, `{"argv":["env"],"inheritEnv":"all"}`},
		{`{"argv":["env"],"inheritEnv":[]}`, `{"argv":["env"],"inheritEnv":"none"}`},
		{`{"argv":["env"],"inheritEnv":["@default","LC_*"]}`, `{"argv":["env"],"inheritEnv":["@default","LC_*"]}`},
	} {
		var c catalog.Command
		if err := json.Unmarshal([]byte(tc.in), &c); err != nil {
			t.Errorf("%s: %v", tc.in, err)
			continue
		}
		if got, _ := json.Marshal(&c); string(got) != tc.out {
			t.Errorf("%s → %s, want %s", tc.in, got, tc.out)
		}
	}
	var c catalog.Command
	if err := json.Unmarshal([]byte(`{"argv":["env"],"inheritEnv":3}`), &c); err == nil {
		t.Error("a number was accepted as inheritEnv")
	}
}

func TestCommandStdin(t *testing.T) {
	requireUnix(t)
	c := &catalog.Command{Argv: []catalog.Template{"cat"}, Stdin: "name={{.args.name}}\nsecond line\n"}
	res, err := runCommand(context.Background(), c, &Data{Args: map[string]any{"name": "Ada; $(id)"}}, nil)
	if err != nil || res.IsError || text(t, res) != "name=Ada; $(id)\nsecond line\n" {
		t.Errorf("stdin: %+v, %v", res, err)
	}
	// Without stdin the program reads end-of-file at once instead of hanging.
	res, err = runCommand(context.Background(), (&catalog.Command{Argv: []catalog.Template{"cat"}, TimeoutMs: 5000}), nil, nil)
	if err != nil || res.IsError || text(t, res) != "" {
		t.Errorf("no stdin: %+v, %v", res, err)
	}
	// A program that ignores a large stdin does not fail for it.
	res, err = runCommand(context.Background(), (&catalog.Command{Argv: []catalog.Template{"true"}, Stdin: catalog.Template(strings.Repeat("x", 1<<20))}), nil, nil)
	if err != nil || res.IsError {
		t.Errorf("unread stdin: %+v, %v", res, err)
	}
}

func TestCommandStreamsLinesInOrderWhileRunning(t *testing.T) {
	requireUnix(t)
	c := &catalog.Command{
		Argv:   []catalog.Template{"sh", "-c", `for i in 1 2 3 4; do echo "step $i of $1"; [ $i = 2 ] && echo; sleep 0.1; done; printf 'tail\r\n'; printf 'no newline'`, "sh", "{{.args.n}}"},
		Stream: "progress",
	}
	rec := &streamRecorder{}
	res, err := runCommand(context.Background(), c, &Data{Args: map[string]any{"n": 4}}, rec)
	end := time.Now()
	if err != nil || res.IsError {
		t.Fatalf("run: %+v, %v", res, err)
	}
	evs := rec.all()
	var got []string
	for i, e := range evs {
		if e.kind != "progress" || e.progress != float64(i+1) {
			t.Errorf("event %d: %+v", i, e)
		}
		got = append(got, e.msg)
	}
	want := []string{"step 1 of 4", "step 2 of 4", "step 3 of 4", "step 4 of 4", "tail", "no newline"}
	if !slices.Equal(got, want) {
		t.Errorf("streamed %q, want %q", got, want)
	}
	if len(evs) > 0 && end.Sub(evs[0].at) < 250*time.Millisecond {
		t.Errorf("the first line arrived %s before the end: not streamed while running", end.Sub(evs[0].at))
	}
	if !strings.HasPrefix(text(t, res), "step 1 of 4\nstep 2 of 4\n\nstep 3") {
		t.Errorf("result = %q", text(t, res))
	}

	c = &catalog.Command{Argv: []catalog.Template{"/bin/sh", "-c", "echo one; echo two"}, Stream: "log"}
	rec = &streamRecorder{}
	if _, err := runCommand(context.Background(), c, nil, rec); err != nil {
		t.Fatal(err)
	}
	evs = rec.all()
	if len(evs) != 2 || evs[0].kind != "log" || evs[0].level != "info" || evs[0].logger != "sh" || evs[0].msg != "one" || evs[1].msg != "two" {
		t.Errorf("log stream: %+v", evs)
	}

	// A long line is cut; streaming stops at the output cap.
	c = &catalog.Command{Argv: []catalog.Template{"sh", "-c", "head -c 10000 /dev/zero | tr '\\0' a; echo; echo b; echo c"}, Stream: "progress", MaxOutputBytes: 10003}
	rec = &streamRecorder{}
	if _, err := runCommand(context.Background(), c, nil, rec); err != nil {
		t.Fatal(err)
	}
	evs = rec.all()
	if len(evs) != 2 || len(evs[0].msg) != maxStreamLine+len("…") || evs[1].msg != "b" {
		t.Errorf("long line / cap: %d events, first %d bytes", len(evs), len(evs[0].msg))
	}
}

func TestCommandValidate(t *testing.T) {
	c := &catalog.Command{
		Argv:           []catalog.Template{"ls", "{{.args.x"},
		Dir:            "{{end}}",
		InheritEnv:     catalog.InheritEnv{Names: []string{"OK", "BAD=NAME", "@default", "LC_*"}},
		Env:            map[string]catalog.Template{"A=B": "x", "GOOD": "{{"},
		Stdin:          "{{if}}",
		TimeoutMs:      -1,
		MaxOutputBytes: MaxOutputBytesLimit + 1,
		Stream:         "everything",
	}
	fields := map[string]bool{}
	for _, p := range ValidateCommand(c, nil) {
		fields[p.Field] = true
	}
	for _, f := range []string{"argv[1]", "dir", "inheritEnv[1]", "env", "env.GOOD", "stdin", "timeoutMs", "maxOutputBytes", "stream"} {
		if !fields[f] {
			t.Errorf("no problem reported on %s; got %v", f, fields)
		}
	}
	if len(fields) != 9 {
		t.Errorf("unexpected problems: %v", fields)
	}
	if ps := ValidateCommand(&catalog.Command{InheritEnv: catalog.InheritEnv{Mode: "some"}, Argv: []catalog.Template{""}}, nil); len(ps) != 2 {
		t.Errorf("mode and program: %v", ps)
	}
	ok := &catalog.Command{Argv: []catalog.Template{"ls"}, InheritEnv: catalog.InheritEnv{Mode: "all"}, Env: map[string]catalog.Template{"X": "{{.args.x}}"}, Stream: "log", MaxOutputBytes: 10}
	if ps := ValidateCommand(ok, nil); len(ps) != 0 {
		t.Errorf("valid command rejected: %v", ps)
	}
}
