package wine

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptray/mcptray/internal/testutil"
)

// goldenBudget is how many pixels per mille of a halved screenshot may
// differ from its golden image. Wine draws the same frame pixel for pixel
// (0 differed in every run of the same build), so it is a fifth of
// scripts/smoke.sh's GOLDEN_BUDGET: with that one's 5, a changed sentence
// of the welcome (722 pixels) and the approval's quotes (377) passed; the
// approval's countdown may still tick a second.
const goldenBudget = 1

// shots is where the screenshots go (make wine: SMOKE_OUT/wine, beside the
// smoke's), made at first use.
func shots(t *testing.T) string {
	dir := os.Getenv("MCPTRAY_WINE_SHOTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "mcptray-wine-shots")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// xdo runs xdotool and returns its first line of output.
func xdo(args ...string) string {
	out, _ := exec.Command("xdotool", args...).Output()
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return line
}

// window waits up to a minute for a shown X window whose title matches
// the pattern: a window process's first GL context under Wine, on a
// loaded machine, takes many seconds.
func window(t *testing.T, what, pattern string) string {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		if win := xdo("search", "--onlyvisible", "--name", pattern); win != "" {
			return win
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s a minute after it was asked for", what)
		}
		time.Sleep(100 * time.Millisecond) // polling the X server: nothing to wait on
	}
}

// shoot takes a screenshot of the screen as NAME.png and compares it,
// halved, with tests/smoke-golden/NAME.png as scripts/smoke.sh does;
// SMOKE_UPDATE_GOLDEN=1 makes it the golden image. A busy machine may
// shoot a frame half drawn: a mismatch is shot again, twice.
func shoot(t *testing.T, name string) {
	t.Helper()
	dir := shots(t)
	shot, small := filepath.Join(dir, name+".png"), filepath.Join(dir, name+".half.png")
	golden, err := filepath.Abs(filepath.Join("..", "smoke-golden", name+".png"))
	if err != nil {
		t.Fatal(err)
	}
	var n, budget int
	for try := 1; ; try++ {
		time.Sleep(time.Second) // the frame after the last change, drawn
		for _, c := range [][]string{{"import", "-window", "root", shot}, {"convert", shot, "-resize", "50%", "-strip", small}} {
			if out, err := exec.Command(c[0], c[1:]...).CombinedOutput(); err != nil {
				t.Fatalf("%s: %v: %s", c[0], err, out)
			}
		}
		t.Logf("screenshot %s", shot)
		if os.Getenv("SMOKE_UPDATE_GOLDEN") != "" {
			b, err := os.ReadFile(small)
			if err == nil {
				err = os.WriteFile(golden, b, 0o644)
			}
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("golden %s written: look at it before committing it", golden)
			return
		}
		if _, err := os.Stat(golden); err != nil {
			t.Fatalf("no golden image %s: SMOKE_UPDATE_GOLDEN=1 make wine writes it", golden)
		}
		size, _ := exec.Command("identify", "-format", "%w %h", golden).Output()
		var w, h int
		fmt.Sscan(string(size), &w, &h)
		budget = w * h * goldenBudget / 1000
		var stderr bytes.Buffer
		cmp := exec.Command("compare", "-metric", "AE", "-fuzz", "5%", golden, small, filepath.Join(dir, name+".diff.png"))
		cmp.Stderr = &stderr
		_ = cmp.Run() // exits 1 when the images differ
		f, err := strconv.ParseFloat(strings.Fields(stderr.String() + " x")[0], 64)
		if err != nil {
			t.Fatalf("comparing %s with its golden image: %s", name, stderr.String())
		}
		n = int(math.Round(f))
		if n <= budget {
			t.Logf("%s matches its golden image (%d pixels differ, at most %d may)", name, n, budget)
			return
		}
		if try == 3 {
			t.Fatalf("%s differs from its golden image in %d pixels (at most %d may): see %s.diff.png; "+
				"if the change is meant, SMOKE_UPDATE_GOLDEN=1 make wine and look at the new image", name, n, budget, name)
		}
	}
}

// checkDesktop starts the installed mcptray.exe --open under Xvfb: the
// manager window, in a process of its own (mcptray.exe window), an
// approval question, and the tray icon in Wine's system tray.
func (p *prefix) checkDesktop(t *testing.T) {
	if os.Getenv("DISPLAY") == "" {
		t.Fatal("no DISPLAY: make wine runs the checks under Xvfb (xvfb-run)")
	}
	// A new database: the first start, with its welcome.
	_ = os.Remove(p.unix(dataDir + `\endpoint.json`))
	for _, f := range []string{database, database + "-wal", database + "-shm"} {
		_ = os.Rename(p.unix(f), p.unix(f)+".checks")
	}
	log := &testutil.SyncBuffer{}
	app := p.command(context.Background(), installed("mcptray.exe"), "--open", "--addr", "127.0.0.1:"+strconv.Itoa(testutil.FreePort(t)))
	app.Stdout, app.Stderr = log, log
	if err := app.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- app.Wait() }()
	ended := make(chan error, 1)
	go func() { err := <-done; ended <- err; close(ended) }()
	defer func() {
		if t.Failed() {
			t.Logf("the app's log:\n%s", log.String())
		}
		select {
		case <-ended:
		default:
			_ = app.Process.Kill()
			<-ended
		}
	}()
	win := window(t, "the manager window", "^mcptray$")
	wpid := xdo("getwindowpid", win)
	cmdline, _ := os.ReadFile("/proc/" + wpid + "/cmdline")
	line := strings.ReplaceAll(string(cmdline), "\x00", " ")
	if wpid == strconv.Itoa(app.Process.Pid) || !strings.Contains(line, " window") {
		t.Errorf("the manager window is not in a process of its own (mcptray.exe window): process %s, %q; the app is %d", wpid, line, app.Process.Pid)
	}
	t.Logf("the manager window runs in process %s: %s", wpid, line)
	_ = exec.Command("xdotool", "mousemove", "1", "1").Run() // no hover
	shoot(t, "wine-01-welcome")
	if strings.Contains(log.String(), "tray not ready") {
		t.Errorf("the log says the tray was not ready: %s", log.String())
	}
	_ = exec.Command("xdotool", "windowfocus", "--sync", win).Run()
	_ = exec.Command("xdotool", "key", "Escape").Run() // the welcome
	p.checkApproval(t)
	p.checkTray(t, win, strconv.Itoa(app.Process.Pid), ended)
}

// checkApproval: an AI client calls a destructive tool; the approval
// question opens by itself, and Space answers it (Deny has the focus).
func (p *prefix) checkApproval(t *testing.T) {
	var url string
	testutil.Eventually(t, "the app's endpoint file", func() bool {
		url = p.endpointURL()
		return url != ""
	})
	s := &server{url: url, token: p.token(t, "wine-desktop")}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs := s.connectHTTP(t, ctx, eras[0])
	type answer struct {
		res *mcp.CallToolResult
		err error
	}
	done := make(chan answer, 1)
	go func() {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "clean_downloads", Arguments: map[string]any{"days": 30}})
		done <- answer{res, err}
	}()
	awin := window(t, "the approval question", "^mcptray .*approval")
	_ = exec.Command("xdotool", "mousemove", "1", "1").Run()
	shoot(t, "wine-02-approval")
	_ = exec.Command("xdotool", "windowfocus", "--sync", awin).Run()
	_ = exec.Command("xdotool", "key", "--window", awin, "space").Run()
	select {
	case a := <-done:
		if a.err != nil || !strings.Contains(text(a.res), "denied") {
			t.Errorf("Space on the approval did not deny: %v %v", a.err, a.res)
		}
	case <-time.After(testutil.Patience):
		t.Errorf("the call got no answer after Space on its approval")
	}
	_ = cs.Close()
}

// endpointURL is the URL in the endpoint file, if there is one.
func (p *prefix) endpointURL() string {
	b, err := os.ReadFile(p.unix(dataDir + `\endpoint.json`))
	if err != nil {
		return ""
	}
	_, rest, ok := strings.Cut(string(b), `"url":"`)
	if !ok {
		_, rest, ok = strings.Cut(string(b), `"url": "`)
	}
	url, _, _ := strings.Cut(rest, `"`)
	if !ok {
		return ""
	}
	return url
}

// checkTray drives the icon in Wine's system tray (Wine draws its own small
// tray window where the X server has no tray): closing the manager window
// keeps mcptray in the tray; the icon's menu opens the window again, and
// quits. The menu is the window mcptray's own process (pid) shows. Open
// mcptray is chosen by keys from the menu's end (Up from nothing selects
// the last item; it is the fifth from the end: Quit, Open the task window,
// Connect a client…, Pause serving, Open mcptray; separators and hidden
// lines are skipped). Quit is clicked: the keys go to the window with the
// X focus, which the manager window, in a process of its own, keeps once
// it shows again (no window manager hands it on), so Up and Return never
// reached the menu then (the check failed so in each of three runs).
func (p *prefix) checkTray(t *testing.T, win, pid string, done <-chan error) {
	tray := window(t, "Wine's system tray", "^Wine System Tray$")
	// A click on the menu bar's empty right end gives it the focus back
	// (the approval had it; there is no window manager to hand it on);
	// a click the window missed while it still redrew is made again.
	for try := 0; xdo("search", "--onlyvisible", "--name", "^mcptray$") != ""; try++ {
		if try == 12 {
			t.Fatal("the manager window still shows after a minute of Ctrl+W")
		}
		_ = exec.Command("xdotool", "mousemove", "--window", win, "700", "13", "click", "1").Run()
		_ = exec.Command("xdotool", "key", "ctrl+w").Run()
		time.Sleep(5 * time.Second) // then look again: nothing says a key was taken
	}
	menu := func(what string) {
		t.Helper()
		// The icon is the tray window's first, at its left.
		if out, err := exec.Command("xdotool", "mousemove", "--window", tray, "10", "10", "click", "1").CombinedOutput(); err != nil {
			t.Fatalf("clicking the tray icon: %v: %s", err, out)
		}
		var popup string
		testutil.Eventually(t, "the tray icon's menu", func() bool {
			popup = xdo("search", "--onlyvisible", "--pid", pid)
			return popup != ""
		})
		time.Sleep(time.Second) // the menu, drawn: nothing tells when it is
		if what == "quit" {
			// Quit is the last item, at the menu's bottom edge.
			var w, h int
			out, _ := exec.Command("xdotool", "getwindowgeometry", "--shell", popup).Output()
			for _, l := range strings.Fields(string(out)) {
				fmt.Sscanf(l, "WIDTH=%d", &w)
				fmt.Sscanf(l, "HEIGHT=%d", &h)
			}
			if out, err := exec.Command("xdotool", "mousemove", "--window", popup, strconv.Itoa(w/2), strconv.Itoa(h-10), "click", "1").CombinedOutput(); err != nil || h < 20 {
				t.Fatalf("clicking Quit at the bottom of the tray icon's menu (%dx%d): %v: %s", w, h, err, out)
			}
			return
		}
		shot := filepath.Join(shots(t), "wine-03-tray-menu.png")
		_ = exec.Command("import", "-window", "root", shot).Run()
		t.Logf("screenshot %s", shot)
		for range 5 {
			_ = exec.Command("xdotool", "key", "Up").Run()
		}
		_ = exec.Command("xdotool", "key", "Return").Run()
	}
	menu("open")
	window(t, "the manager window after the tray's Open mcptray", "^mcptray$")
	menu("quit")
	select {
	case err := <-done:
		t.Logf("the tray's Quit ended mcptray (%v)", err)
	case <-time.After(time.Minute):
		shot := filepath.Join(shots(t), "wine-failure.png")
		_ = exec.Command("import", "-window", "root", shot).Run()
		t.Fatalf("mcptray still runs a minute after the tray's Quit (the screen: %s)", shot)
	}
}
