package storage

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/testutil"
	"github.com/mcptray/mcptray/mcpcore"
)

// Environment of the helper process TestHelperProcess runs as.
const (
	helperDBEnv     = "MCPTRAY_STORAGE_HELPER_DB"
	helperActionEnv = "MCPTRAY_STORAGE_HELPER_ACTION"
	helperOutEnv    = "MCPTRAY_STORAGE_HELPER_OUT"
)

// TestHelperProcess is not a test: run by runHelper as a separate process,
// it opens the database named in its environment, makes one change and
// exits.
func TestHelperProcess(t *testing.T) {
	t.Parallel()
	path := os.Getenv(helperDBEnv)
	if path == "" {
		t.Skip("helper process for the cross-process tests")
	}
	s, err := Open(path, mcpcore.Validator{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	switch action := os.Getenv(helperActionEnv); action {
	case "put-tool":
		err = s.PutTool(ctx, greetTool("from-child", "Written by another process."))
	case "create-token":
		var secret string
		if secret, err = s.CreateToken(ctx, "child", []string{"greet"}); err == nil {
			err = os.WriteFile(os.Getenv(helperOutEnv), []byte(secret), 0o600)
		}
	default:
		t.Fatalf("unknown action %q", action)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// runHelper runs TestHelperProcess in a child process against path and
// returns what it wrote to its output file.
func runHelper(t *testing.T, path, action string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out")
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), helperDBEnv+"="+path, helperActionEnv+"="+action, helperOutEnv+"="+out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("helper process %s: %v\n%s", action, err, b)
	}
	b, _ := os.ReadFile(out)
	return string(b)
}

func TestChangesInProcess(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	ctx := context.Background()
	first, second := s.Changes(ctx), s.Changes(ctx)
	if err := s.PutTool(ctx, greetTool("greet", "Greets.")); err != nil {
		t.Fatal(err)
	}
	// Signalled right after the commit, not at the next poll.
	for i, ch := range []<-chan struct{}{first, second} {
		select {
		case <-ch:
		default:
			t.Errorf("subscriber %d: no signal right after PutTool", i)
		}
	}
	// Many changes coalesce into one pending signal.
	for _, name := range []string{"a", "b", "c"} {
		if err := s.PutTool(ctx, greetTool(name, "Greets.")); err != nil {
			t.Fatal(err)
		}
	}
	if !receive(first, wait) {
		t.Fatal("no signal after three writes")
	}
	if len(first) != 0 {
		t.Error("more than one signal pending")
	}
	for name, write := range map[string]func() error{
		"settings": func() error { return s.PutSettings(ctx, catalog.DefaultSettings()) },
		"token":    func() error { _, err := s.CreateToken(ctx, "t", nil); return err },
		"import":   func() error { return s.Import(ctx, &catalog.Catalog{}, true) },
	} {
		if err := write(); err != nil {
			t.Fatal(err)
		}
		if !receive(first, wait) {
			t.Errorf("no signal after a %s change", name)
		}
	}
}

func TestChangesFromOtherProcess(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs a child process")
	}
	path := filepath.Join(t.TempDir(), "shared.db")
	s := openAt(t, path)
	ctx := context.Background()
	if _, err := s.VerifyToken(ctx, "mcpt_unknown"); err == nil {
		t.Fatal("unknown token verified") // also fills the token cache
	}
	changes := s.Changes(ctx)

	runHelper(t, path, "put-tool")
	if !receive(changes, wait) {
		t.Fatalf("no signal within %v of another process's PutTool", wait)
	}
	if _, err := s.Tool(ctx, "from-child"); err != nil {
		t.Errorf("child's tool not visible: %v", err)
	}

	secret := runHelper(t, path, "create-token")
	if !strings.HasPrefix(secret, TokenPrefix) {
		t.Fatalf("helper wrote %q", secret)
	}
	if !receive(changes, wait) {
		t.Fatalf("no signal within %v of another process's CreateToken", wait)
	}
	p, err := s.VerifyToken(ctx, secret)
	if err != nil || p.Token != "child" {
		t.Errorf("token created by another process: %+v, %v", p, err)
	}
}

func TestChangesClosed(t *testing.T) {
	t.Parallel()
	s, err := Open(filepath.Join(t.TempDir(), "c.db"), mcpcore.Validator{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	byCtx := s.Changes(ctx)
	byClose := s.Changes(context.Background())
	cancel()
	if !closedWithin(byCtx, wait) {
		t.Error("channel not closed when its context ended")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if !closedWithin(byClose, wait) {
		t.Error("channel not closed when the Store closed")
	}
	if !closedWithin(s.Changes(context.Background()), time.Millisecond) {
		t.Error("Changes after Close returned an open channel")
	}
}

// closedWithin reports whether ch is closed within d, skipping signals.
func closedWithin(ch <-chan struct{}, d time.Duration) bool {
	timeout := time.After(d)
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				return true
			}
		case <-timeout:
			return false
		}
	}
}

func TestKeyCreationIsQuiet(t *testing.T) {
	t.Parallel()
	s, err := Open(filepath.Join(t.TempDir(), "k.db"), mcpcore.Validator{}, WithPollInterval(20*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	changes := s.Changes(context.Background())
	if _, err := storeKey(context.Background(), s, "request-state", 32); err != nil {
		t.Fatal(err)
	}
	if receive(changes, 200*time.Millisecond) {
		t.Error("Changes fired for a server key")
	}
}

func TestOwnWriteSignalsOnce(t *testing.T) {
	t.Parallel()
	s, err := Open(filepath.Join(t.TempDir(), "once.db"), mcpcore.Validator{}, WithPollInterval(20*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	changes := s.Changes(ctx)
	if err := s.PutTool(ctx, greetTool("greet", "Greets.")); err != nil {
		t.Fatal(err)
	}
	if !receive(changes, wait) {
		t.Fatal("no signal")
	}
	// The watcher must not report the same commit again.
	if receive(changes, 200*time.Millisecond) {
		t.Error("a single write signalled twice")
	}
}

// TestChangesFromOtherStoreWithoutPolling: another connection's commit is
// noticed through the file watch, well before the safety poll (which is
// longer than testutil.Patience) could see it.
func TestChangesFromOtherStoreWithoutPolling(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "two.db")
	s, other := openAt(t, path), openAt(t, path)
	ctx := context.Background()
	changes := s.Changes(ctx)
	time.Sleep(2 * lastRecheck) // past the start-up looks: only the watch can notice now
	if err := other.PutTool(ctx, greetTool("from-other", "Greets.")); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "the other Store's tool to be signalled", func() bool {
		select {
		case <-changes:
			return true
		default:
			return false
		}
	})
	if _, err := s.Tool(ctx, "from-other"); err != nil {
		t.Errorf("the other Store's tool is not visible: %v", err)
	}
}

// TestCloseReleasesTheWatch: each Store's file-system watch (a file
// descriptor or more) ends with the Store, so opening and closing many
// leaks none.
func TestCloseReleasesTheWatch(t *testing.T) {
	// Not parallel: it counts the files this whole process holds open.
	openFDs := func() int {
		fds, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Skip("no /proc/self/fd to count open files")
		}
		return len(fds)
	}
	dir := t.TempDir()
	before := openFDs()
	for i := range 20 {
		s, err := Open(filepath.Join(dir, fmt.Sprintf("s%d.db", i)), mcpcore.Validator{})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if after := openFDs(); after > before+3 {
		t.Errorf("%d files open after opening and closing 20 stores, %d before", after, before)
	}
}
