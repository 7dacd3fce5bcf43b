package main

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	neturl "net/url"
	"strings"
	"syscall"
	"time"

	"github.com/mcptray/mcptray/internal/process"
	"github.com/mcptray/mcptray/mcpcore"
)

// The control endpoint: a launch of the desktop app talks to the mcptray
// already serving its database. POST controlShow asks the app to show its
// window; POST controlLeave asks a headless mcptray serve to stop so the
// app can take over. Both need the secret of the endpoint file, which only
// the user can read.
const (
	controlShow  = "/mcptray/show"
	controlLeave = "/mcptray/leave"
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
// gets through.
func (s *server) controlled(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != controlShow && r.URL.Path != controlLeave {
			next.ServeHTTP(w, r)
			return
		}
		switch {
		case r.Method != http.MethodPost:
			w.Header().Set("Allow", http.MethodPost)
			http.Error(w, "POST it", http.StatusMethodNotAllowed)
		case r.Header.Get("Origin") != "":
			http.Error(w, "not from a browser", http.StatusForbidden)
		case subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), []byte("Bearer "+s.control)) != 1:
			http.Error(w, "the control secret is in the endpoint file", http.StatusUnauthorized)
		case r.URL.Path == controlShow && !s.app:
			http.Error(w, "this mcptray runs headless: it has no window to show", http.StatusNotFound)
		case r.URL.Path == controlShow:
			show := s.onShow.Load()
			if show == nil {
				http.Error(w, "the window is not ready yet", http.StatusServiceUnavailable)
				return
			}
			(*show)()
			w.WriteHeader(http.StatusNoContent)
		case s.app:
			http.Error(w, "the desktop app is quit from its tray menu", http.StatusConflict)
		default:
			s.leaving.Do(func() { close(s.leave) })
			w.WriteHeader(http.StatusAccepted)
		}
	})
}

// setOnShow sets what a second launch's show request runs; nil answers
// that the window is not ready.
func (s *server) setOnShow(f func()) {
	if f == nil {
		s.onShow.Store(nil)
		return
	}
	s.onShow.Store(&f)
}

// handOver deals with an mcptray already serving the database the app is
// about to serve: the desktop app is asked to show its window, and this
// launch is done (handled); a headless mcptray serve (started by the stdio
// shim, say) is asked to stop so that the app takes over. Anything else —
// nothing running, a stale endpoint file, another database, an mcptray
// too old to ask — is left to the normal start.
func handOver(ctx context.Context, cfg serverConfig, stderr io.Writer) (handled bool, err error) {
	path := cfg.endpointFile
	if path == "" {
		if path, err = mcpcore.DefaultEndpointFile(); err != nil {
			return false, nil
		}
	}
	ep, err := mcpcore.ReadEndpoint(path)
	if err != nil || ep.DB != cfg.db || ep.Control == "" || !process.Alive(ep.PID) {
		return false, nil
	}
	if ep.App {
		err := control(ctx, ep, controlShow, http.StatusNoContent)
		if errors.Is(err, syscall.ECONNREFUSED) {
			return false, nil // a stale file: its process id was reused
		}
		if err != nil {
			return true, fmt.Errorf("mcptray is already running (pid %d), and asking it to show its window failed: %w", ep.PID, err)
		}
		fmt.Fprintf(stderr, "mcptray: already running (pid %d); its window is shown\n", ep.PID)
		return true, nil
	}
	if err := control(ctx, ep, controlLeave, http.StatusAccepted); errors.Is(err, syscall.ECONNREFUSED) {
		return false, nil
	} else if err != nil {
		return true, fmt.Errorf("a headless mcptray (pid %d) serves %s, and asking it to stop failed: %w", ep.PID, ep.DB, err)
	}
	fmt.Fprintf(stderr, "mcptray: a headless mcptray (pid %d) served %s; it stops so the app takes over\n", ep.PID, ep.DB)
	// It answers its last calls, then removes the endpoint file (≤ ~10 s).
	deadline := time.Now().Add(15 * time.Second)
	for published(path, ep) {
		if time.Now().After(deadline) {
			return true, fmt.Errorf("the headless mcptray (pid %d) did not stop within 15 s", ep.PID)
		}
		select {
		case <-ctx.Done():
			return true, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	return false, nil
}

// published says whether the endpoint file at path still names ep.
func published(path string, ep mcpcore.Endpoint) bool {
	cur, err := mcpcore.ReadEndpoint(path)
	return err == nil && cur.PID == ep.PID && cur.URL == ep.URL
}

// control posts to the control endpoint path of the mcptray behind ep and
// expects want. The app answers 503 while its window is not ready: that is
// asked again for a few seconds.
func control(ctx context.Context, ep mcpcore.Endpoint, path string, want int) error {
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
