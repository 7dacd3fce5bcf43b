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
	"os"
	"syscall"
	"time"

	"github.com/mcptray/mcptray/mcpcore"
)

// controlPath is where the desktop app takes requests from a second launch
// of itself: POST asks it to show its manager window.
const controlPath = "/mcptray/show"

// newControlSecret makes the secret of the control endpoint.
func newControlSecret() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("making the control secret: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// controlled answers the control endpoint and passes everything else to
// next. Only the app has one, and only a request bearing its secret, which
// the endpoint file holds, from no browser (no Origin), gets through.
func (s *server) controlled(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != controlPath {
			next.ServeHTTP(w, r)
			return
		}
		switch {
		case s.control == "":
			http.Error(w, "this mcptray runs headless: it has no window to show", http.StatusNotFound)
		case r.Method != http.MethodPost:
			w.Header().Set("Allow", http.MethodPost)
			http.Error(w, "POST to show the window", http.StatusMethodNotAllowed)
		case r.Header.Get("Origin") != "":
			http.Error(w, "not from a browser", http.StatusForbidden)
		case subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), []byte("Bearer "+s.control)) != 1:
			http.Error(w, "the control secret is in the endpoint file", http.StatusUnauthorized)
		default:
			if show := s.onShow.Load(); show != nil {
				(*show)()
			}
			w.WriteHeader(http.StatusNoContent)
		}
	})
}

// setOnShow sets what a second launch's show request runs.
func (s *server) setOnShow(f func()) { s.onShow.Store(&f) }

// handOver deals with an mcptray already serving the database the app is
// about to serve: the desktop app is asked to show its window, and this
// launch is done (handled); a headless mcptray serve (started by the stdio
// shim, say) is stopped so the app can take over. Anything else — nothing
// running, another database — is left to the normal start.
func handOver(ctx context.Context, cfg serverConfig, stderr io.Writer) (handled bool, err error) {
	path := cfg.endpointFile
	if path == "" {
		if path, err = mcpcore.DefaultEndpointFile(); err != nil {
			return false, nil
		}
	}
	ep, err := mcpcore.ReadEndpoint(path)
	if err != nil || ep.DB != cfg.db || !processAlive(ep.PID) {
		return false, nil
	}
	if ep.App {
		if err := askToShow(ctx, ep); errors.Is(err, syscall.ECONNREFUSED) {
			return false, nil // a stale file: its process id was reused
		} else if err != nil {
			return true, fmt.Errorf("mcptray is already running (pid %d), and asking it to show its window failed: %w", ep.PID, err)
		}
		fmt.Fprintf(stderr, "mcptray: already running (pid %d); its window is shown\n", ep.PID)
		return true, nil
	}
	fmt.Fprintf(stderr, "mcptray: a headless mcptray (pid %d) serves %s; stopping it so the app takes over\n", ep.PID, ep.DB)
	p, err := os.FindProcess(ep.PID)
	if err == nil {
		err = p.Signal(syscall.SIGTERM)
	}
	if err != nil {
		return true, fmt.Errorf("stopping the headless mcptray (pid %d): %w", ep.PID, err)
	}
	// It answers its last calls, then removes the endpoint file (≤ ~10 s).
	// Its process may linger as a zombie of whatever started it, so the
	// file going is the sign it stopped serving.
	deadline := time.Now().Add(15 * time.Second)
	for published(path, ep) && processAlive(ep.PID) {
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

// askToShow asks the app behind ep to show its window.
func askToShow(ctx context.Context, ep mcpcore.Endpoint) error {
	u, err := neturl.Parse(ep.URL)
	if err != nil {
		return fmt.Errorf("its endpoint %q: %w", ep.URL, err)
	}
	u.Path = controlPath
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+ep.Control)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return errors.New(resp.Status + ": " + string(body))
	}
	return nil
}
