package wine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptray/mcptray/internal/testutil"
)

// TestWindows runs the checks in the order a user meets them: the
// installer first (every later check runs the installed programs, from
// C:\users\Jane Doe\AppData\Local\Programs\mcptray), the uninstaller last.
func TestWindows(t *testing.T) {
	p := need(t)
	if !t.Run("the installer installs for the user alone", p.checkInstall) {
		return
	}
	s := p.serve(t)
	stopped := false
	defer func() {
		if !stopped {
			s.stop(t)
		}
	}()
	t.Run("serve writes its database and endpoint under the user's AppData", p.checkPaths)
	t.Run("serve over HTTP and the shim, in both eras", func(t *testing.T) { p.checkEras(t, s) })
	t.Run("every starter tool and offline gallery example answers", func(t *testing.T) { p.checkExamples(t, s) })
	for _, c := range []string{"claude-desktop", "cursor", "vscode"} {
		t.Run("config "+c+" --install, then the entry as the client runs it", func(t *testing.T) { p.checkConfig(t, c) })
	}
	t.Run("a cancelled call leaves no process behind", func(t *testing.T) { p.checkCancel(t, s) })
	t.Run("export redirected to a file from a console", p.checkExport)
	t.Run("a secret set by the CLI is read by the server", func(t *testing.T) { p.checkSecret(t, s) })
	t.Run("a second serve on the database is refused, naming the first", func(t *testing.T) { p.checkSecondServe(t, s) })
	t.Run("killing mcptray ends its tools' processes (the job object)", func(t *testing.T) { p.checkKilled(t, s) })
	stopped = true
	t.Run("the desktop app under Xvfb", p.checkDesktop)
	t.Run("the uninstaller removes the programs and keeps the database", p.checkUninstall)
}

// checkInstall runs the installer silently (/S), as a user without
// administrator rights would, and sees the programs where it promises.
func (p *prefix) checkInstall(t *testing.T) {
	if p.setup == "" {
		t.Fatal("MCPTRAY_WINE_SETUP names no installer (make wine builds it)")
	}
	setup := toolsDir + `\mcptray setup.exe`
	b, err := os.ReadFile(p.setup)
	if err != nil {
		t.Fatal(err)
	}
	p.write(t, setup, string(b))
	p.run(t, "", setup, "/S")
	for _, name := range []string{"mcptray.exe", "mcptray-stdio.exe", "uninstall.exe"} {
		// The installer may return while its last file is being written.
		testutil.Eventually(t, installed(name)+" to be installed", func() bool {
			_, err := os.Stat(p.unix(installed(name)))
			return err == nil
		})
	}
	want, err := os.ReadFile(filepath.Join(p.dist, "mcptray.exe"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(p.unix(installed("mcptray.exe")))
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("the installed mcptray.exe is not the one make windows built (%v)", err)
	}
	if out := p.run(t, "", installed("mcptray.exe"), "version"); !strings.Contains(out, "mcptray") {
		t.Fatalf("the installed mcptray.exe version said %q", out)
	}
}

// checkPaths: the database and the endpoint file are in the user's roaming
// AppData, the folder with the space in its name.
func (p *prefix) checkPaths(t *testing.T) {
	for _, f := range []string{database, dataDir + `\endpoint.json`} {
		if _, err := os.Stat(p.unix(f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	b, err := os.ReadFile(p.unix(dataDir + `\endpoint.json`))
	if err != nil {
		t.Fatal(err)
	}
	var ep struct{ DB string }
	if err := json.Unmarshal(b, &ep); err != nil {
		t.Fatal(err)
	}
	if !strings.EqualFold(ep.DB, database) {
		t.Errorf("the endpoint file names the database %q, want %q", ep.DB, database)
	}
}

// checkEras: tools/list and tools/call current_time over HTTP and through
// the installed shim, each in both protocol eras.
func (p *prefix) checkEras(t *testing.T, s *server) {
	for _, era := range eras {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		for _, via := range []string{"HTTP", "shim"} {
			var cs *mcp.ClientSession
			if via == "HTTP" {
				cs = s.connectHTTP(t, ctx, era)
			} else {
				cs = connectCommand(t, ctx, era, p.command(ctx, installed("mcptray-stdio.exe")))
			}
			tools, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatalf("%s, %s: tools/list: %v", via, era, err)
			}
			if !slices.ContainsFunc(tools.Tools, func(tl *mcp.Tool) bool { return tl.Name == "current_time" }) {
				t.Fatalf("%s, %s: tools/list has no current_time", via, era)
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "current_time"})
			if err != nil {
				t.Fatalf("%s, %s: tools/call current_time: %v", via, era, err)
			}
			if res.IsError {
				t.Errorf("%s, %s: current_time answered an error: %s", via, era, text(res))
			} else {
				t.Logf("%s, %s: current_time: %s", via, era, strings.TrimSpace(text(res)))
			}
			_ = cs.Close()
		}
	}
}

// checkExport: `mcptray.exe export > file`, typed in a console (cmd.exe
// runs it from a batch file, as typed, in a Wine console), writes the
// catalog to the file: the GUI-subsystem program keeps its redirected
// output. Without the redirection, what it prints reaches the console.
// Wine attaches a GUI program started from a console to that console
// itself (AttachConsole then answers "access denied": already attached),
// so this checks what mcptray does with a console it has, not that it
// attaches (docs/windows.md).
func (p *prefix) checkExport(t *testing.T) {
	out := home + `\exported catalog.json`
	p.write(t, `C:\export.cmd`, "@echo off\r\n\""+installed("mcptray.exe")+"\" export > \""+out+"\"\r\n"+
		"\""+installed("mcptray.exe")+"\" version\r\n")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	console, err := p.inConsole(ctx, "cmd", "/c", `C:\export.cmd`)
	if err != nil {
		t.Fatalf("cmd /c export.cmd in a console: %v\n%s", err, console)
	}
	b, err := os.ReadFile(p.unix(out))
	if err != nil {
		t.Fatalf("export > file wrote no file: %v", err)
	}
	var cat struct {
		Format string
		Tools  []struct{ Name string }
	}
	if err := json.Unmarshal(b, &cat); err != nil || cat.Format != "mcptray-catalog" || len(cat.Tools) == 0 {
		t.Fatalf("export > file wrote no catalog (%v): %.300s", err, b)
	}
	if !strings.Contains(console, "mcptray") {
		t.Errorf("mcptray.exe version printed nothing on the console: %q", console)
	}
	if strings.Contains(console, "mcptray-catalog") {
		t.Errorf("the redirected export reached the console too")
	}
}

// checkSecret: `mcptray secret set` stores a secret (in Windows' Credential
// Manager: the CLI warns when it falls back to a file), and the running
// server reads it into a tool's environment.
func (p *prefix) checkSecret(t *testing.T, s *server) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := p.output(ctx, "s3cret-from-the-cli\n", installed("mcptray.exe"), "secret", "set", "wine_secret")
	if err != nil {
		t.Fatalf("secret set: %v: %s", err, out)
	}
	if strings.Contains(string(out), "WARNING") {
		t.Errorf("secret set fell back to a file, not the Credential Manager: %s", out)
	}
	if _, err := os.Stat(p.unix(dataDir + `\mcptray.secrets.json`)); err == nil {
		t.Errorf("a fallback secrets file exists: the Credential Manager was not used")
	}
	reg, _ := os.ReadFile(filepath.Join(p.dir, "user.reg"))
	t.Logf("secret set: %s; the store: Windows Credential Manager (Wine keeps it in user.reg: %v)",
		strings.TrimSpace(string(out)), bytes.Contains(reg, []byte("Credential")))
	p.importTools(t, []map[string]any{{
		"name": "show_secret", "description": "Prints the secret it was given.",
		"action": map[string]any{"command": map[string]any{
			"argv": []string{toolsDir + `\helper.exe`, "env", "WINE_SECRET"},
			"env":  map[string]string{"WINE_SECRET": `{{secret "wine_secret"}}`},
		}},
	}})
	cs := s.connectHTTP(t, ctx, eras[1])
	var got string
	testutil.EventuallyShows(t, "show_secret to be served", func() (bool, string) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "show_secret"})
		if err != nil || res.IsError {
			return false, fmt.Sprint(err, res)
		}
		got = text(res)
		return true, ""
	})
	// Output holding a secret is redacted: the server read the value.
	if !strings.Contains(got, "[secret:wine_secret]") {
		t.Fatalf("the tool was given %q, not the secret set by the CLI", got)
	}
}

// importTools merges tools into the database, as `mcptray import --merge`
// from a file in the user's folder.
func (p *prefix) importTools(t *testing.T, tools []map[string]any) {
	t.Helper()
	b, err := json.MarshalIndent(map[string]any{"format": "mcptray-catalog", "version": 1, "tools": tools}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	f := home + `\wine check tools.json`
	p.write(t, f, string(b))
	p.run(t, "", installed("mcptray.exe"), "import", f, "--merge")
}

// checkSecondServe: a second serve on the database exits at once, naming
// the running one.
func (p *prefix) checkSecondServe(t *testing.T, s *server) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := p.output(ctx, "", installed("mcptray.exe"), "serve", "--addr", "127.0.0.1:0")
	if err == nil {
		t.Fatalf("a second serve on the database ran: %s", out)
	}
	pid := strconv.Itoa(windowsPID(t, p))
	if !strings.Contains(string(out), pid) {
		t.Fatalf("the second serve's refusal does not name the running one (process %s): %s", pid, out)
	}
	t.Logf("the second serve said: %s", strings.TrimSpace(string(out)))
}

// windowsPID is the running server's Windows process id, from its
// endpoint file.
func windowsPID(t *testing.T, p *prefix) int {
	t.Helper()
	b, err := os.ReadFile(p.unix(dataDir + `\endpoint.json`))
	if err != nil {
		t.Fatal(err)
	}
	var ep struct{ PID int }
	if err := json.Unmarshal(b, &ep); err != nil {
		t.Fatal(err)
	}
	return ep.PID
}

// slowTool is a command tool that starts a process tree marked by tag
// (helper.exe and its child and grandchild) and waits.
func slowTool(tag string) map[string]any {
	return map[string]any{
		"name": "tree_" + tag, "description": "Starts three processes and waits.",
		"action": map[string]any{"command": map[string]any{
			"argv": []string{toolsDir + `\helper.exe`, "tree", tag, "2"}, "timeoutMs": 600000,
		}},
	}
}

// startTree calls the tool of slowTool(tag) and waits for its three
// processes; cancel cancels the call.
func (p *prefix) startTree(t *testing.T, s *server, tag string) (cancel func(), done chan error) {
	t.Helper()
	p.importTools(t, []map[string]any{slowTool(tag)})
	ctx, cancelCall := context.WithCancel(context.Background())
	cs := s.connectHTTP(t, context.Background(), eras[0])
	testutil.Eventually(t, "tree_"+tag+" to be served", func() bool {
		tools, err := cs.ListTools(context.Background(), nil)
		return err == nil && slices.ContainsFunc(tools.Tools, func(tl *mcp.Tool) bool { return tl.Name == "tree_"+tag })
	})
	done = make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "tree_" + tag})
		done <- err
	}()
	testutil.EventuallyShows(t, "the tool's three processes", func() (bool, string) {
		ps := p.running("tree " + tag)
		return len(ps) == 3, strings.Join(ps, "; ")
	})
	return cancelCall, done
}

// gone waits for every process marked by tag to end.
func (p *prefix) gone(t *testing.T, tag, after string) {
	t.Helper()
	testutil.EventuallyShows(t, "no process of the tool left "+after, func() (bool, string) {
		ps := p.running("tree " + tag)
		return len(ps) == 0, strings.Join(ps, "; ")
	})
}

// checkCancel: the client cancels the call; the tool's whole tree ends.
func (p *prefix) checkCancel(t *testing.T, s *server) {
	cancel, done := p.startTree(t, s, "cancelled")
	cancel()
	select {
	case <-done:
	case <-time.After(testutil.Patience):
		t.Fatal("the cancelled call did not return")
	}
	p.gone(t, "cancelled", "after the call was cancelled")
}

// checkKilled: mcptray is killed mid-call (as Task Manager's End task
// does); the job object takes the tool's processes with it. It ends the
// server: the last check on it.
func (p *prefix) checkKilled(t *testing.T, s *server) {
	cancel, _ := p.startTree(t, s, "orphaned")
	defer cancel()
	if out, err := p.output(context.Background(), "", "taskkill", "/F", "/PID", strconv.Itoa(windowsPID(t, p))); err != nil {
		t.Logf("taskkill: %v: %s; killing the process from Linux", err, out)
		_ = s.cmd.Process.Signal(syscall.SIGKILL)
	}
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		t.Fatal("mcptray.exe serve still runs 30 s after it was killed")
	}
	p.gone(t, "orphaned", "after mcptray was killed")
}

// wrote finds the files `mcptray config … --install` says it wrote.
var wrote = regexp.MustCompile(`(?m)^wrote (.+?)(?: \(the previous version is in .*\))?\r?$`)

// checkConfig installs the client's stdio entry, then starts the entry's
// command with its arguments and environment, as the client does, and
// calls current_time through it.
func (p *prefix) checkConfig(t *testing.T, id string) {
	out := p.run(t, "", installed("mcptray.exe"), "config", id, "--install", "--yes")
	m := wrote.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("config %s --install wrote no file:\n%s", id, out)
	}
	file := m[1]
	b, err := os.ReadFile(p.unix(file))
	if err != nil {
		t.Fatalf("config %s wrote %s, unreadable: %v", id, file, err)
	}
	var doc map[string]map[string]struct {
		Command string            `json:"command"`
		Args    []string          `json:"args"`
		Env     map[string]string `json:"env"`
	}
	// VS Code's file is JSONC; the one mcptray writes afresh holds no comments.
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%s: %v\n%s", file, err, b)
	}
	var entry = doc["mcpServers"]["mcptray"]
	if id == "vscode" {
		entry = doc["servers"]["mcptray"]
	}
	if entry.Command == "" {
		t.Fatalf("%s holds no mcptray entry with a command:\n%s", file, b)
	}
	if !strings.EqualFold(entry.Command, installed("mcptray-stdio.exe")) {
		t.Errorf("the entry starts %q, want the installed shim %q", entry.Command, installed("mcptray-stdio.exe"))
	}
	t.Logf("%s: %s %q env %v", file, entry.Command, entry.Args, keys(entry.Env))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := p.command(ctx, entry.Command, entry.Args...)
	for k, v := range entry.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cs := connectCommand(t, ctx, eras[0], cmd)
	got := call(t, ctx, cs, "current_time", nil)
	if !strings.Contains(got, strconv.Itoa(time.Now().Year())) {
		t.Errorf("current_time through %s's entry said %q", id, got)
	}
}

func keys(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// checkUninstall runs the uninstaller silently: the programs go, the
// database stays.
func (p *prefix) checkUninstall(t *testing.T) {
	p.run(t, "", installed("uninstall.exe"), "/S")
	// The uninstaller runs on from a copy of itself and returns at once;
	// it first takes mcptray out of each client's config, a start of
	// mcptray.exe each (a second or two under Wine).
	deadline := time.Now().Add(3 * time.Minute)
	for _, name := range []string{"mcptray.exe", "mcptray-stdio.exe", "uninstall.exe"} {
		for {
			_, err := os.Stat(p.unix(installed(name)))
			if os.IsNotExist(err) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s is still there 3 minutes after the uninstaller started", installed(name))
			}
			time.Sleep(100 * time.Millisecond) // polling a file the uninstaller deletes: nothing to wait on
		}
	}
	// Its copy goes on with the sections after the programs' (the
	// database's among them): the database is looked at once it ended.
	testutil.EventuallyShows(t, "the uninstaller to end", func() (bool, string) {
		ps := p.running(`\Un.exe /S _?=`)
		return len(ps) == 0, strings.Join(ps, "; ")
	})
	if _, err := os.Stat(p.unix(database)); err != nil {
		t.Errorf("the uninstaller took the database: %v", err)
	}
}
