//go:build unix

package fault

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"

	"github.com/mcptray/mcptray/internal/paths"
	"github.com/mcptray/mcptray/internal/process"
	"github.com/mcptray/mcptray/internal/testutil"
)

var (
	buildOnce         sync.Once
	buildErr          error
	mcptrayBin, shim  string
	binDir            string
	metaWithTasks     = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`
	metaPlain         = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	faultCatalogTools = []map[string]any{
		{
			// Appends its tag to a file, then leaves a process group
			// behind it: itself, and two sleeps marked with the tag.
			"name": "append_slow", "description": "Appends a line, then works a long time.", "taskMode": "optional",
			"params": []map[string]any{{"name": "tag", "type": "string", "required": true}, {"name": "file", "type": "string", "required": true}},
			"action": map[string]any{"command": map[string]any{
				"argv":      []string{"sh", "-c", `echo "$1" >> "$2"; sleep "$3" & sleep "$3"; wait`, "sh", "{{.args.tag}}", "{{.args.file}}", "{{.args.tag}}"},
				"timeoutMs": 600000,
			}},
		},
		{
			"name": "pause", "description": "Works two seconds.", "taskMode": "optional",
			"action": map[string]any{"command": map[string]any{"argv": []string{"sleep", "2"}}},
		},
		{
			"name": "append", "description": "Appends a line.",
			"params": []map[string]any{{"name": "tag", "type": "string", "required": true}, {"name": "file", "type": "string", "required": true}},
			"action": map[string]any{"command": map[string]any{"argv": []string{"sh", "-c", `echo "$1" >> "$2"`, "sh", "{{.args.tag}}", "{{.args.file}}"}}},
		},
	}
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// build compiles the headless mcptray and the shim, once.
func build(t *testing.T) {
	testutil.Long(t, "builds the real programs and kills them")
	t.Helper()
	buildOnce.Do(func() {
		wd, _ := os.Getwd()
		root := filepath.Clean(filepath.Join(wd, "..", ".."))
		if binDir, buildErr = os.MkdirTemp("", "mcptray-fault-"); buildErr != nil {
			return
		}
		mcptrayBin, shim = filepath.Join(binDir, "mcptray"), filepath.Join(binDir, "mcptray-stdio")
		for _, b := range []struct {
			env  string
			args []string
		}{
			{"CGO_ENABLED=1", []string{"build", "-tags", "headless", "-o", mcptrayBin, "."}},
			{"CGO_ENABLED=0", []string{"build", "-o", shim, "./cmd/mcptray-stdio"}},
		} {
			cmd := exec.Command("go", b.args...)
			cmd.Dir, cmd.Env = root, append(os.Environ(), b.env)
			if out, err := cmd.CombinedOutput(); err != nil {
				buildErr = fmt.Errorf("go %s: %v\n%s", strings.Join(b.args, " "), err, out)
				return
			}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
}

// home is one test's private world: config dir, database, catalog, a file
// the tools append to, and an environment without a session bus.
type home struct {
	t                            *testing.T
	dir, cfg, db, catalog, lines string
}

func newHome(t *testing.T) *home {
	build(t)
	d := t.TempDir()
	h := &home{t: t, dir: d, cfg: filepath.Join(d, "config"), db: filepath.Join(d, "mcptray.db"),
		catalog: filepath.Join(d, "catalog.json"), lines: filepath.Join(d, "lines.txt")}
	os.MkdirAll(h.cfg, 0o700)
	b, _ := json.Marshal(map[string]any{"format": "mcptray-catalog", "version": 1, "tools": faultCatalogTools})
	if err := os.WriteFile(h.catalog, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return h
}

func (h *home) env() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_RUNTIME_DIR", "DBUS_SESSION_BUS_ADDRESS", "DISPLAY", "WAYLAND_DISPLAY":
			continue
		}
		if strings.HasPrefix(k, "MCPTRAY_") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "XDG_CONFIG_HOME="+h.cfg, "XDG_DATA_HOME="+filepath.Join(h.dir, "data"))
}

func (h *home) endpointFile() string { return filepath.Join(h.cfg, "mcptray", "endpoint.json") }

// server is a running `mcptray serve`.
type server struct {
	cmd    *exec.Cmd
	url    string
	exited chan struct{}
	stderr *testutil.SyncBuffer
}

// serve starts `mcptray serve` without auth on h's database; catalog
// imports h's catalog first.
func (h *home) serve(catalog bool) *server {
	h.t.Helper()
	args := []string{"serve", "--no-auth", "--db", h.db, "--addr", "127.0.0.1:0"}
	if catalog {
		args = append(args, "--catalog", h.catalog)
	}
	s := &server{cmd: exec.Command(mcptrayBin, args...), exited: make(chan struct{}), stderr: &testutil.SyncBuffer{}}
	s.cmd.Env, s.cmd.Stderr = h.env(), s.stderr
	os.Remove(h.endpointFile())
	if err := s.cmd.Start(); err != nil {
		h.t.Fatal(err)
	}
	go func() { s.cmd.Wait(); close(s.exited) }()
	h.t.Cleanup(func() {
		s.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.exited:
		case <-time.After(10 * time.Second):
			s.cmd.Process.Kill()
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		if ep, err := paths.ReadEndpoint(h.endpointFile()); err == nil && ep.PID == s.cmd.Process.Pid {
			s.url = ep.URL
			return s
		}
		select {
		case <-s.exited:
			h.t.Fatalf("mcptray serve exited: %s", s.stderr)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("no endpoint within 30 s: %s", s.stderr)
		}
	}
}

// kill9 kills the server with SIGKILL and waits until it is gone.
func (s *server) kill9(t *testing.T) {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.exited:
	case <-time.After(5 * time.Second):
		t.Fatal("mcptray did not die of SIGKILL")
	}
}

// post sends one 2026-07-28 request and returns the decoded answer (the
// last message of an SSE stream), or an error when the connection broke.
func (s *server) post(method, params string) (map[string]any, error) {
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":{%s}}`, method, params)
	req, _ := http.NewRequest(http.MethodPost, s.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	var p struct {
		Name   string `json:"name"`
		TaskID string `json:"taskId"`
	}
	_ = json.Unmarshal([]byte("{"+params+"}"), &p)
	if name := p.Name + p.TaskID; name != "" {
		req.Header.Set("Mcp-Name", name)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if i := bytes.LastIndex(b, []byte("data: ")); strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") && i >= 0 {
		b = bytes.TrimSpace(b[i+len("data: "):])
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("answer %q: %w", b, err)
	}
	return m, nil
}

func callParams(tool, tag, file, meta string) string {
	return fmt.Sprintf(`"name":%q,"arguments":{"tag":%q,"file":%q},%s`, tool, tag, file, meta)
}

// marked lists the live processes whose command line holds tag.
func marked(tag string) []int {
	dirs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	var pids []int
	for _, d := range dirs {
		b, err := os.ReadFile(d)
		if err != nil || !bytes.Contains(b, []byte(tag)) {
			continue
		}
		var pid int
		fmt.Sscanf(filepath.Base(filepath.Dir(d)), "%d", &pid)
		if pid != os.Getpid() && !zombie(pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

func zombie(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	_, after, _ := strings.Cut(string(b), ") ")
	return strings.HasPrefix(after, "Z") || strings.HasPrefix(after, "X")
}

// waitMarked waits until n processes carry tag (or, n = 0, none), up to d.
func waitMarked(t *testing.T, tag string, n int, d time.Duration) {
	t.Helper()
	if !eventuallyMarked(tag, n, d) {
		got := marked(tag)
		t.Fatalf("%d processes marked %s after %v (pids %v), want %d", len(got), tag, d, got, n)
	}
}

// eventuallyMarked reports whether n processes (at least n, when n > 0)
// are marked with tag within d.
func eventuallyMarked(tag string, n int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		got := marked(tag)
		if len(got) == n || n > 0 && len(got) > n {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// tag is a marker unique to this test run, usable as sleep's duration.
func tag(n int) string { return fmt.Sprintf("%d.%03d%d", 500+os.Getpid()%400, n, os.Getpid()%997) }

// integrity runs PRAGMA integrity_check on db.
func integrity(t *testing.T, db string) {
	t.Helper()
	// Read-write, as the next mcptray opens it: a killed writer may leave a
	// WAL that only a connection that may write can recover, and a
	// read-only one then fails ("attempt to write a readonly database",
	// seen when the kill came 30 ms into an import on a loaded machine).
	d, err := sql.Open("sqlite3", "file:"+db)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var res string
	if err := d.QueryRow(`PRAGMA integrity_check`).Scan(&res); err != nil || res != "ok" {
		t.Fatalf("integrity_check: %q, %v", res, err)
	}
}

func lineCount(t *testing.T, path, line string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	n := 0
	for l := range strings.Lines(string(b)) {
		if strings.TrimSpace(l) == line {
			n++
		}
	}
	return n
}

func run(t *testing.T, h *home, args ...string) string {
	t.Helper()
	cmd := exec.Command(mcptrayBin, args...)
	cmd.Env = h.env()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("mcptray %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestKillDuringCallsAndTasks: mcptray killed with SIGKILL while a call and
// a task run commands. Within 2 s no process of theirs is left; after the
// restart the database is whole, the edits committed before the kill are
// there, the task reads failed — once, for good — and nothing is left 3 s
// later either.
func TestKillDuringCallsAndTasks(t *testing.T) {
	h := newHome(t)
	s := h.serve(true)
	// Committed edits, through the CLI while the server runs.
	run(t, h, "tool", "disable", "--db", h.db, "append")
	callTag, taskTag := tag(1), tag(2)

	// A plain call, left running.
	callDone := make(chan error, 1)
	go func() {
		_, err := s.post("tools/call", callParams("append_slow", callTag, h.lines, metaPlain))
		callDone <- err
	}()
	// A task.
	created, err := s.post("tools/call", callParams("append_slow", taskTag, h.lines, metaWithTasks))
	if err != nil {
		t.Fatal(err)
	}
	res, _ := created["result"].(map[string]any)
	taskID, _ := res["taskId"].(string)
	if taskID == "" {
		t.Fatalf("no task created: %v", created)
	}
	// Each leaves its shell and two sleeps.
	waitMarked(t, callTag, 3, 10*time.Second)
	waitMarked(t, taskTag, 3, 10*time.Second)

	s.kill9(t)
	killed := time.Now()
	waitMarked(t, callTag, 0, 2*time.Second)
	waitMarked(t, taskTag, 0, 2*time.Second-time.Since(killed))
	t.Logf("every command process gone %v after the kill", time.Since(killed).Round(time.Millisecond))
	select {
	case err := <-callDone:
		if err == nil {
			t.Error("the call in flight got an answer from a killed server")
		}
	case <-time.After(5 * time.Second):
		t.Error("the call in flight did not end with the server")
	}

	integrity(t, h.db)
	s = h.serve(false)
	if out := run(t, h, "export", "--db", h.db); !strings.Contains(out, `"disabled": true`) {
		t.Errorf("the committed edit (append disabled) is lost:\n%s", out)
	}
	for i := 0; i < 3; i++ {
		got, err := s.post("tasks/get", fmt.Sprintf(`"taskId":%q,%s`, taskID, metaWithTasks))
		if err != nil {
			t.Fatal(err)
		}
		r, _ := got["result"].(map[string]any)
		if r["status"] != "failed" {
			t.Fatalf("after the restart the task reads %v, want failed (for good)", got)
		}
		time.Sleep(300 * time.Millisecond)
	}
	time.Sleep(time.Until(killed.Add(3 * time.Second)))
	for _, tg := range []string{callTag, taskTag} {
		if pids := marked(tg); len(pids) > 0 {
			t.Errorf("processes %v of a killed run still live after the restart", pids)
		}
	}
	if n := lineCount(t, h.lines, callTag) + lineCount(t, h.lines, taskTag); n != 2 {
		t.Errorf("the two commands appended %d lines, want 2 (each ran once)", n)
	}
	integrity(t, h.db)
}

// TestLeftoversKilledAtNextStart: when nothing killed a crashed run's
// commands (here: the watcher is killed with mcptray, and the leader ignores
// nothing — the group's other processes survive Pdeathsig), the next start
// kills them, and only them.
func TestLeftoversKilledAtNextStart(t *testing.T) {
	h := newHome(t)
	s := h.serve(true)
	mark := tag(3)
	go s.post("tools/call", callParams("append_slow", mark, h.lines, metaPlain))
	waitMarked(t, mark, 3, 10*time.Second)
	// mcptray's whole process group, the watcher with it? The watcher has
	// a group of its own; kill it first, as a worst case.
	for _, pid := range watchers(s.cmd.Process.Pid) {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	// An unrelated process that must survive.
	bystander := exec.Command("sleep", "61.7")
	if err := bystander.Start(); err != nil {
		t.Fatal(err)
	}
	defer bystander.Process.Kill()
	s.kill9(t)
	// The shell got Pdeathsig; its sleeps live on until the next start.
	h.serve(false)
	waitMarked(t, mark, 0, 3*time.Second)
	if !process.Alive(bystander.Process.Pid) {
		t.Error("the next start killed a process that was not a command's")
	}
}

// watchers are the children of pid running /bin/sh (the Reaper's watcher).
func watchers(pid int) []int {
	var out []int
	dirs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, d := range dirs {
		b, err := os.ReadFile(d)
		if err != nil {
			continue
		}
		var me, ppid int
		var comm, state string
		fmt.Sscanf(string(b), "%d %s %s %d", &me, &comm, &state, &ppid)
		if ppid == pid && comm == "(sh)" {
			out = append(out, me)
		}
	}
	return out
}

// TestKillDuringImport: an import killed with SIGKILL part way leaves the
// catalog as it was or as imported, whole, and the database intact.
func TestKillDuringImport(t *testing.T) {
	h := newHome(t)
	h.serve(true)
	var tools []map[string]any
	for i := range 4000 {
		tools = append(tools, map[string]any{"name": fmt.Sprintf("bulk_%04d", i), "description": strings.Repeat("words ", 40),
			"action": map[string]any{"respond": map[string]any{"content": []map[string]any{{"type": "text", "text": "hi"}}}}})
	}
	big := filepath.Join(h.dir, "big.json")
	b, _ := json.Marshal(map[string]any{"format": "mcptray-catalog", "version": 1, "tools": tools})
	os.WriteFile(big, b, 0o600)
	// The CLI's import while the server runs, and a server importing at
	// start (serve --catalog).
	for i, after := range []time.Duration{30 * time.Millisecond, 150 * time.Millisecond, 400 * time.Millisecond, 1200 * time.Millisecond} {
		args := []string{"import", "--db", h.db, big}
		if i%2 == 1 {
			run(t, h, "import", "--db", h.db, h.catalog) // back to the small catalog
			args = []string{"serve", "--no-auth", "--db", filepath.Join(h.dir, "second.db"), "--addr", "127.0.0.1:0", "--catalog", big}
		}
		cmd := exec.Command(mcptrayBin, args...)
		cmd.Env = h.env()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(after)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		db := h.db
		if args[0] == "serve" {
			db = args[3]
		}
		if _, err := os.Stat(db); err != nil {
			continue // killed before the database existed
		}
		integrity(t, db)
		out := run(t, h, "export", "--db", db)
		n := strings.Count(out, `"bulk_`)
		if n != 0 && n != len(tools) {
			t.Fatalf("mcptray %s killed %v into the import: %d of %d tools imported — not all or nothing", args[0], after, n, len(tools))
		}
		t.Logf("mcptray %s killed %v into the import: %d tools", args[0], after, n)
	}
}

// TestShimNeverRunsACallTwice: the stdio shim, whose mcptray is killed
// with SIGKILL during a call, does not send the call again to the mcptray
// it starts anew: the tool ran once, and the client is told it may have
// run. The next call goes to the new mcptray. Both eras: a 2026-07-28
// client, and a 2025-11-25 session the shim sets up again.
func TestShimNeverRunsACallTwice(t *testing.T) {
	t.Run("2026-07-28", func(t *testing.T) { shimCallOnce(t, tag(4), metaPlain, false) })
	t.Run("2025-11-25 session", func(t *testing.T) { shimCallOnce(t, tag(5), `"_meta":{}`, true) })
}

func shimCallOnce(t *testing.T, mark, meta string, session bool) {
	h := newHome(t)
	cmd := exec.Command(shim)
	cmd.Env = append(h.env(), "MCPTRAY_BIN="+mcptrayBin, "MCPTRAY_START_ARGS=--no-auth --addr 127.0.0.1:0 --db "+h.db+" --catalog "+h.catalog)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	stderr := &testutil.SyncBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	answers := make(chan map[string]any, 10)
	go func() {
		dec := json.NewDecoder(stdout)
		for {
			var m map[string]any
			if dec.Decode(&m) != nil {
				close(answers)
				return
			}
			if m["id"] != nil {
				answers <- m
			}
		}
	}()
	t.Cleanup(func() {
		// The next call may still run: cancelled, it keeps the shim from
		// waiting for its answer once the input ends.
		fmt.Fprint(stdin, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`+"\n")
		stdin.Close()
		cmd.Wait()
		if ep, err := paths.ReadEndpoint(h.endpointFile()); err == nil {
			syscall.Kill(ep.PID, syscall.SIGTERM)
			for i := 0; i < 100 && process.Alive(ep.PID); i++ {
				time.Sleep(50 * time.Millisecond)
			}
		}
		if t.Failed() {
			t.Logf("shim stderr:\n%s", stderr)
		}
	})
	send := func(id int, tool, mark string) {
		fmt.Fprintf(stdin, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{%s}}`+"\n", id, callParams(tool, mark, h.lines, meta))
	}
	if session {
		fmt.Fprint(stdin, `{"jsonrpc":"2.0","id":100,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n")
		select {
		case m := <-answers:
			if m["result"] == nil {
				t.Fatalf("initialize: %v", m)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("no answer to initialize")
		}
		fmt.Fprint(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	}
	send(1, "append_slow", mark)
	waitMarked(t, mark, 3, 20*time.Second)
	ep, err := paths.ReadEndpoint(h.endpointFile())
	if err != nil {
		t.Fatal(err)
	}
	syscall.Kill(ep.PID, syscall.SIGKILL)
	var got map[string]any
	select {
	case got = <-answers:
	case <-time.After(20 * time.Second):
		t.Fatalf("no answer to the call mcptray died during; it ran %d times", lineCount(t, h.lines, mark))
	}
	e, _ := got["error"].(map[string]any)
	data, _ := e["data"].(map[string]any)
	if e["code"] != -32603.0 || data["mayHaveRun"] != true || !strings.Contains(fmt.Sprint(e["message"]), "may have run") {
		t.Errorf("the call mcptray died during was answered %v; want -32603 saying the tool may have run", got)
	}
	// Whatever the shim does next, the call is not sent again: give a
	// restarted mcptray time to run it, were it resent.
	send(2, "append_slow", mark+"9")
	if !eventuallyMarked(mark+"9", 3, 20*time.Second) {
		select {
		case m := <-answers:
			t.Errorf("the next call was answered %v", m)
		default:
		}
		log, _ := os.ReadFile(filepath.Join(filepath.Dir(h.endpointFile()), "serve.log"))
		t.Fatalf("the next call's processes did not appear within 20 s; the restarted mcptray's log:\n%s", log)
	}
	if n := lineCount(t, h.lines, mark); n != 1 {
		t.Fatalf("the call ran %d times, want once", n)
	}
}

// TestNoDBusDaemonStarted: without a session bus (SSH, WSL, CI, servers),
// no mcptray command starts one — godbus would run dbus-launch and leave a
// dbus-daemon each time. A stub dbus-launch first on PATH records any call;
// the secrets go to the fallback file, with its warning.
func TestNoDBusDaemonStarted(t *testing.T) {
	h := newHome(t)
	stubDir, calls := filepath.Join(h.dir, "stub"), filepath.Join(h.dir, "dbus-launch-called")
	os.MkdirAll(stubDir, 0o700)
	stub := "#!/bin/sh\necho \"$@\" >> " + calls + "\nexit 1\n"
	if err := os.WriteFile(filepath.Join(stubDir, "dbus-launch"), []byte(stub), 0o700); err != nil {
		t.Fatal(err)
	}
	runtimeDir := filepath.Join(h.dir, "runtime")
	os.MkdirAll(runtimeDir, 0o700)
	env := append(h.env(), "PATH="+stubDir+":"+os.Getenv("PATH"), "XDG_RUNTIME_DIR="+runtimeDir)
	for _, args := range [][]string{{"secret", "list"}, {"token", "list"}, {"export"}} {
		cmd := exec.Command(mcptrayBin, append(args, "--db", h.db)...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("mcptray %v: %v\n%s", args, err, out)
		}
		if args[0] == "secret" && !strings.Contains(string(out), "no D-Bus session bus") {
			t.Errorf("mcptray secret list does not say why secrets are in a file:\n%s", out)
		}
	}
	serve := exec.Command(mcptrayBin, "serve", "--no-auth", "--db", h.db, "--addr", "127.0.0.1:0")
	serve.Env = env
	stderr := &testutil.SyncBuffer{}
	serve.Stderr = stderr
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "mcptray serve to start", func() bool { return strings.Contains(stderr.String(), "serving MCP") })
	serve.Process.Signal(syscall.SIGTERM)
	serve.Wait()
	if !strings.Contains(stderr.String(), "WARNING: no keyring") {
		t.Errorf("serve does not warn that secrets are in a file:\n%s", stderr)
	}
	if b, err := os.ReadFile(calls); err == nil {
		t.Fatalf("dbus-launch was run (%q): a D-Bus daemon was started", b)
	}
}

// TestSecondServeLeavesTasksAlone: a second `mcptray serve` on a database a
// server holds exits at once, naming it, and touches nothing: the first
// server's running task goes on working, completes, and stays completed;
// the endpoint file still names the first server.
func TestSecondServeLeavesTasksAlone(t *testing.T) {
	h := newHome(t)
	s := h.serve(true)
	created, err := s.post("tools/call", `"name":"pause","arguments":{},`+metaWithTasks)
	if err != nil {
		t.Fatal(err)
	}
	res, _ := created["result"].(map[string]any)
	taskID, _ := res["taskId"].(string)
	if taskID == "" {
		t.Fatalf("no task created: %v", created)
	}
	status := func() any {
		got, err := s.post("tasks/get", fmt.Sprintf(`"taskId":%q,%s`, taskID, metaWithTasks))
		if err != nil {
			t.Fatal(err)
		}
		r, _ := got["result"].(map[string]any)
		return r["status"]
	}
	second := exec.Command(mcptrayBin, "serve", "--no-auth", "--db", h.db, "--addr", "127.0.0.1:0")
	second.Env = h.env()
	out, err := second.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "already") {
		t.Fatalf("the second serve: %v\n%s", err, out)
	}
	if st := status(); st != "working" {
		t.Fatalf("after a second serve was turned away the task reads %v, want working", st)
	}
	if ep, err := paths.ReadEndpoint(h.endpointFile()); err != nil || ep.PID != s.cmd.Process.Pid {
		t.Errorf("the endpoint file no longer names the running server: %+v, %v", ep, err)
	}
	testutil.Eventually(t, "the task to complete", func() bool { return status() != "working" })
	for range 3 {
		if st := status(); st != "completed" {
			t.Fatalf("the task reads %v, want completed (for good)", st)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
