package daemon

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	neturl "net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mcptray/mcptray/internal/paths"
	"github.com/mcptray/mcptray/internal/process"
	"github.com/mcptray/mcptray/internal/upgrade"
	"github.com/mcptray/mcptray/mcpcore"
)

// The control endpoint: a launch of the desktop app talks to the mcptray
// already serving its database. POST ControlShow asks the app to show its
// window; POST ControlLeave asks a headless mcptray serve to stop so the
// app can take over, or an older version's app or server to make way for
// the version installed now (HandOver, TakeOver). Both need the secret of the endpoint file, which only
// the user can read.
const (
	ControlShow  = "/mcptray/show"
	ControlLeave = "/mcptray/leave"
)

// handOverTimeout bounds how long a launch waits for a headless server to
// answer its last calls and stop; appHandOverTimeout, for an older desktop
// app, which first waits for its questions (askTimeoutSeconds: 5 minutes
// unless changed) and may ask about unsaved changes.
const (
	handOverTimeout    = 15 * time.Second
	appHandOverTimeout = 6 * time.Minute
)

// newControlSecret makes the secret of the control endpoint.
func newControlSecret() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("making the control secret: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// controlled answers the control endpoint and passes everything else to
// next. Only a request bearing the secret, from no browser (no Origin),
// addressed to this computer by name (the MCP endpoint's Host check,
// against DNS rebinding), gets through.
func (d *Daemon) controlled(next http.Handler) http.Handler {
	app := d.cfg.Asker != nil
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != ControlShow && r.URL.Path != ControlLeave {
			next.ServeHTTP(w, r)
			return
		}
		host, _, err := net.SplitHostPort(r.Host)
		if err != nil {
			host = r.Host
		}
		switch {
		case !mcpcore.IsLoopbackHost(host):
			http.Error(w, fmt.Sprintf("Host %q is not allowed: this server only answers on a loopback address", r.Host), http.StatusForbidden)
		case r.Method != http.MethodPost:
			w.Header().Set("Allow", http.MethodPost)
			http.Error(w, "POST it", http.StatusMethodNotAllowed)
		case r.Header.Get("Origin") != "":
			http.Error(w, "not from a browser", http.StatusForbidden)
		case subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), []byte("Bearer "+d.control)) != 1:
			http.Error(w, "the control secret is in the endpoint file", http.StatusUnauthorized)
		case r.URL.Path == ControlShow && !app:
			http.Error(w, "this mcptray runs headless: it has no window to show", http.StatusNotFound)
		case r.URL.Path == ControlShow:
			show := d.onShow.Load()
			if show == nil {
				http.Error(w, "the window is not ready yet", http.StatusServiceUnavailable)
				return
			}
			(*show)()
			w.WriteHeader(http.StatusNoContent)
		case app:
			leave := d.onLeave.Load()
			if leave == nil {
				http.Error(w, "the desktop app is quit from its tray menu", http.StatusConflict)
				return
			}
			(*leave)()
			w.WriteHeader(http.StatusAccepted)
		default:
			d.leaving.Do(func() { close(d.leave) })
			w.WriteHeader(http.StatusAccepted)
		}
	})
}

// SetOnShow sets what a second launch's show request runs; nil answers
// that the window is not ready.
func (d *Daemon) SetOnShow(f func()) { setHook(&d.onShow, f) }

// SetOnLeave sets what the desktop app runs when a newer version of it
// starts and asks it to make way (HandOver); nil answers that the app is
// quit from its tray menu, as an app that cannot make way does.
func (d *Daemon) SetOnLeave(f func()) { setHook(&d.onLeave, f) }

// setHook stores f in p, for the control endpoint to run; nil clears it.
func setHook(p *atomic.Pointer[func()], f func()) {
	if f == nil {
		p.Store(nil)
		return
	}
	p.Store(&f)
}

// HandOver deals with an mcptray already serving the database the app is
// about to serve (cfg.DB, published in cfg.EndpointFile): the desktop app
// of the same version or a newer one is asked to show its window, and this
// launch is done (handled); a headless mcptray serve (started by the stdio
// shim, say), or a desktop app older than this one (upgrade.Outdated: it
// runs the program an upgrade replaced), is asked to make way, and
// HandOver returns once it has let go of the database, so that this launch
// takes over. Anything else — nothing running, a stale endpoint file,
// another database, an mcptray too old to ask — is left to Start, which
// says what holds the database if anything does.
func HandOver(ctx context.Context, cfg Config, stderr io.Writer) (handled bool, err error) {
	db, ep, ok := runningServer(cfg)
	if !ok {
		return false, nil
	}
	if ep.App && !upgrade.Outdated(ep, cfg.Version) {
		err := control(ctx, ep, ControlShow, http.StatusNoContent)
		if connRefused(err) {
			return false, nil // a stale file: its process id was reused
		}
		if err != nil {
			return true, fmt.Errorf("mcptray is already running (pid %d), and asking it to show its window failed: %w", ep.PID, err)
		}
		fmt.Fprintf(stderr, "mcptray: already running (pid %d); its window is shown\n", ep.PID)
		return true, nil
	}
	return makeWay(ctx, db, ep, cfg.Version, stderr)
}

// TakeOver is HandOver for `mcptray serve`: a headless mcptray older than
// this one serving the same database (upgrade.Outdated) is asked to make
// way, and TakeOver returns once it let go of the database. A desktop app
// is left serving, whatever its version: a headless server taking its
// place would take the person's tray icon and windows away; Start then
// says that it runs.
func TakeOver(ctx context.Context, cfg Config, stderr io.Writer) error {
	db, ep, ok := runningServer(cfg)
	if !ok || ep.App || !upgrade.Outdated(ep, cfg.Version) {
		return nil
	}
	_, err := makeWay(ctx, db, ep, cfg.Version, stderr)
	return err
}

// runningServer is the database cfg serves and the endpoint file's record
// of the mcptray serving it, when one runs that can be asked to make way.
func runningServer(cfg Config) (db string, ep paths.Endpoint, ok bool) {
	db, err := resolveDB(cfg.DB)
	if err != nil {
		return "", ep, false
	}
	path := cfg.EndpointFile
	if path == "" {
		if path, err = paths.EndpointFile(); err != nil {
			return "", ep, false
		}
	}
	ep, err = paths.ReadEndpoint(path)
	if err != nil || ep.DB != db || ep.Control == "" || !process.Alive(ep.PID) {
		return "", ep, false
	}
	return db, ep, true
}

// makeWay asks the mcptray behind ep to stop so that this one (of version
// mine) serves db, and waits until it has let go of the database. A
// headless server answers its last calls and stops within seconds; a
// desktop app first waits until no question it asks waits for an answer
// (the person answers it in that version's window; at most the question
// timeout, 5 minutes unless changed), and asks about unsaved changes.
func makeWay(ctx context.Context, db string, ep paths.Endpoint, mine string, stderr io.Writer) (handled bool, err error) {
	if stderr == nil {
		stderr = io.Discard
	}
	who := fmt.Sprintf("a headless mcptray %s (pid %d)", ep.Version, ep.PID)
	timeout := handOverTimeout
	if ep.App {
		who = fmt.Sprintf("the mcptray app %s (pid %d)", ep.Version, ep.PID)
		timeout = appHandOverTimeout
	}
	if err := control(ctx, ep, ControlLeave, http.StatusAccepted); connRefused(err) {
		return false, nil
	} else if err != nil {
		if ep.App {
			return true, fmt.Errorf("%s runs, older than this mcptray %s, and cannot be asked to make way (%w): quit it from its tray menu, then start mcptray again", who, mine, err)
		}
		return true, fmt.Errorf("%s serves %s, and asking it to stop failed: %w", who, ep.DB, err)
	}
	switch {
	case ep.App:
		fmt.Fprintf(stderr, "mcptray: %s is older than this mcptray %s; it quits once no question of its waits for an answer, and this one takes over\n", who, mine)
	case upgrade.Outdated(ep, mine):
		fmt.Fprintf(stderr, "mcptray: %s served %s, older than this mcptray %s; it stops so this one takes over\n", who, ep.DB, mine)
	default:
		fmt.Fprintf(stderr, "mcptray: %s served %s; it stops so the app takes over\n", who, ep.DB)
	}
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := waitUnlocked(wctx, db); err != nil {
		if ctx.Err() != nil {
			return true, ctx.Err()
		}
		return true, fmt.Errorf("%s did not stop within %v (a question may still wait for an answer there): quit it, then start mcptray again: %w", who, timeout, err)
	}
	return false, nil
}

// control posts to the control endpoint path of the mcptray behind ep and
// expects want. The app answers 503 while its window is not ready: that is
// asked again for a few seconds.
func control(ctx context.Context, ep paths.Endpoint, path string, want int) error {
	u, err := neturl.Parse(ep.URL)
	if err != nil {
		return fmt.Errorf("its endpoint %q: %w", ep.URL, err)
	}
	u.Path = path
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), nil)
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+ep.Control)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		resp.Body.Close()
		switch resp.StatusCode {
		case want:
			return nil
		case http.StatusServiceUnavailable:
			select {
			case <-ctx.Done():
				return fmt.Errorf("%s: %s", resp.Status, strings.TrimSpace(string(body)))
			case <-time.After(200 * time.Millisecond):
			}
		default:
			return errors.New(resp.Status + ": " + strings.TrimSpace(string(body)))
		}
	}
}
