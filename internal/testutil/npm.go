package testutil

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// NPMServer is one of the reference MCP servers published on npm that
// scripts/everything-server.sh installs, pinned by tests/everything.
type NPMServer string

// The servers scripts/everything-server.sh knows.
const (
	// Everything is @modelcontextprotocol/server-everything: every
	// feature of the protocol, over stdio or (argument streamableHttp,
	// port in PORT) Streamable HTTP.
	Everything NPMServer = "everything"
	// Filesystem is @modelcontextprotocol/server-filesystem: the files
	// under the folders it is given as arguments, over stdio.
	Filesystem NPMServer = "filesystem"
)

var npmInstall struct {
	once sync.Once
	node string               // the Node 22 program
	main map[NPMServer]string // each server's entry script
	why  string               // why they are not there
}

// NPMServers installs the pinned reference servers once per test binary
// (scripts/everything-server.sh, into the module's .cache/everything) and
// returns the command starting each of servers: node and its entry
// script. It skips t when they cannot be installed (no npm, no network),
// saying why, and under -short.
func NPMServers(t testing.TB, servers ...NPMServer) map[NPMServer][]string {
	t.Helper()
	Long(t, "installs and runs reference MCP servers from npm")
	npmInstall.once.Do(installNPMServers)
	if npmInstall.main == nil {
		t.Skip(npmInstall.why)
	}
	out := make(map[NPMServer][]string, len(servers))
	for _, s := range servers {
		main, ok := npmInstall.main[s]
		if !ok {
			t.Fatalf("no npm server %q in scripts/everything-server.sh", s)
		}
		out[s] = []string{npmInstall.node, main}
	}
	return out
}

// installNPMServers runs scripts/everything-server.sh for every server it
// knows, so that one install serves every test of the binary.
func installNPMServers() {
	if _, err := exec.LookPath("npm"); err != nil {
		npmInstall.why = "npm is not installed (make deps installs it)"
		return
	}
	root, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		npmInstall.why = fmt.Sprintf("finding the module's folder: %v", err)
		return
	}
	all := []NPMServer{Everything, Filesystem}
	args := []string{filepath.Join(strings.TrimSpace(string(root)), "scripts", "everything-server.sh")}
	for _, s := range all {
		args = append(args, string(s))
	}
	// npm ci of the servers and Node takes about 15 s on a quiet machine;
	// a loaded one or a slow registry takes longer.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	lines := strings.Fields(string(out))
	if err != nil || len(lines) != 1+len(all) {
		npmInstall.why = fmt.Sprintf("scripts/everything-server.sh could not install the reference servers (%v; is the network there?):\n%s", err, stderr.String())
		return
	}
	npmInstall.node, npmInstall.main = lines[0], map[NPMServer]string{}
	for i, s := range all {
		npmInstall.main[s] = lines[1+i]
	}
}

// StartEverythingHTTP starts the everything server (argv from NPMServers)
// in its Streamable HTTP mode on a free loopback port, waits for it to say
// it listens, and returns its endpoint. It is killed when t ends.
func StartEverythingHTTP(t testing.TB, argv []string) string {
	t.Helper()
	port := FreePort(t)
	cmd := exec.Command(argv[0], append(argv[1:], "streamableHttp")...)
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting the everything server: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	listening := make(chan struct{})
	said := &SyncBuffer{}
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			fmt.Fprintln(said, sc.Text())
			if strings.Contains(sc.Text(), "listening on port") {
				close(listening)
				break
			}
		}
		// Keep reading, so that the server never blocks on a full pipe.
		_, _ = io.Copy(io.Discard, stderr)
	}()
	select {
	case <-listening:
	case <-time.After(Patience):
		t.Fatalf("the everything server never said it listens; it said:\n%s", said)
	}
	return fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
}
