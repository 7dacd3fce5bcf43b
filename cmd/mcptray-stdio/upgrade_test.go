package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/mcptray/mcptray/internal/process"
)

var (
	versionsOnce sync.Once
	versionsErr  error
	// versionBins are mcptray (headless) built as 0.1.0 and as 0.1.1.
	versionBins = map[string]string{"0.1.0": "", "0.1.1": ""}
)

// buildVersions builds mcptray twice, stamped with two versions, as an
// upgrade finds them.
func buildVersions(t *testing.T) {
	build(t)
	versionsOnce.Do(func() {
		for v := range versionBins {
			bin := filepath.Join(binDir, "mcptray-"+v)
			cmd := exec.Command("go", "build", "-tags", "headless", "-ldflags", "-X main.version="+v, "-o", bin, ".")
			cmd.Dir = repoRoot
			cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
			if out, err := cmd.CombinedOutput(); err != nil {
				versionsErr = fmt.Errorf("building mcptray %s: %v\n%s", v, err, out)
				return
			}
			versionBins[v] = bin
		}
	})
	if versionsErr != nil {
		t.Fatal(versionsErr)
	}
}

// install puts the program of version v at path as a package manager does:
// a new file renamed over the old one, which a running mcptray keeps.
func install(t *testing.T, v, path string) {
	t.Helper()
	b, err := os.ReadFile(versionBins[v])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path+".new", b, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path+".new", path); err != nil {
		t.Fatal(err)
	}
}

// TestUpgradeHandsOver: a client keeps the shim running while mcptray is
// upgraded under it. The shim's next request finds the server older than
// the program installed now; the program is started, takes over, and
// answers — in the 2026-07-28 protocol and in a 2025-11-25 session begun
// before the upgrade.
func TestUpgradeHandsOver(t *testing.T) {
	buildVersions(t)
	h := newHome(t)
	prog := filepath.Join(h.dir, "bin", "mcptray")
	if err := os.MkdirAll(filepath.Dir(prog), 0o755); err != nil {
		t.Fatal(err)
	}
	install(t, "0.1.0", prog)
	// Before the shim, so that it runs after the shim's cleanup.
	t.Cleanup(func() { stopStartedServer(h) })
	s := startShim(t, h, "MCPTRAY_BIN="+prog, "MCPTRAY_START_ARGS=--addr 127.0.0.1:0 --db "+h.db+" --catalog "+testCatalog)

	// Every 2026-07-28 answer names the server that gave it.
	serverVersion := func(id int) string {
		t.Helper()
		s.send(modernReq(id, "tools/call", `"name":"test_simple_text","arguments":{}`))
		m := s.answer(float64(id), 30*time.Second)
		res, _ := m["result"].(map[string]any)
		meta, _ := res["_meta"].(map[string]any)
		info, _ := meta["io.modelcontextprotocol/serverInfo"].(map[string]any)
		v, _ := info["version"].(string)
		if v == "" || res["isError"] == true {
			t.Fatalf("tools/call: %v", m)
		}
		return v
	}
	if v := serverVersion(1); v != "0.1.0" {
		t.Fatalf("before the upgrade, serverInfo says %s", v)
	}
	old, err := readEndpoint(h.endpointFile())
	if err != nil || old.Version != "0.1.0" {
		t.Fatalf("endpoint file before the upgrade: %+v, %v", old, err)
	}

	install(t, "0.1.1", prog)
	if v := serverVersion(2); v != "0.1.1" {
		t.Fatalf("after the upgrade, the next call was answered by %s", v)
	}
	ep, err := readEndpoint(h.endpointFile())
	if err != nil || ep.Version != "0.1.1" || ep.PID == old.PID || !process.Alive(ep.PID) {
		t.Fatalf("endpoint file after the upgrade: %+v, %v", ep, err)
	}
	if process.Alive(old.PID) {
		t.Errorf("the old server (pid %d) still runs", old.PID)
	}
	// Another call costs a stat, and finds the same server.
	if v := serverVersion(3); v != "0.1.1" {
		t.Fatalf("then answered by %s", v)
	}

	if runtime.GOOS != "linux" {
		return // only Linux tells that a program file was replaced
	}
	// A downgrade: 0.1.0 installed over 0.1.1 takes over too, since the
	// running 0.1.1's program was replaced; a 2025-11-25 session begun
	// before it goes on.
	s.send(`{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n")
	if m := s.answer(4, 10*time.Second); m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	install(t, "0.1.0", prog)
	s.send(`{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{}}` + "\n")
	if m := s.answer(5, 30*time.Second); m["result"] == nil {
		t.Fatalf("tools/list in the session begun before the downgrade: %v", m)
	}
	if ep, err := readEndpoint(h.endpointFile()); err != nil || ep.Version != "0.1.0" {
		t.Fatalf("endpoint file after the downgrade: %+v, %v", ep, err)
	}
}
