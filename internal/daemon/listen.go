package daemon

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	neturl "net/url"
	"os"
	"strconv"
	"time"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/paths"
	"github.com/mcptray/mcptray/internal/process"
	"github.com/mcptray/mcptray/mcpcore"
)

// drainTimeout is how long a stopping listener lets running requests
// finish before their connections (long-lived streams among them) close.
const drainTimeout = 5 * time.Second

// The HTTP server's timeouts. Reading a request, body included, takes
// milliseconds on loopback, so a request still unread after readTimeout
// is a stalled or malicious one; a kept-alive connection idle for
// idleTimeout is closed (a client opens another). Responses are bounded
// per write (mcpcore.WriteTimeout), not as a whole, since listen streams,
// session GET streams and calls waiting for a person last as long as
// they must.
const (
	readHeaderTimeout = 10 * time.Second
	readTimeout       = 20 * time.Second
	idleTimeout       = 2 * time.Minute
)

// publish makes ln the endpoint: its URL is the one URL reports and the
// endpoint file names, so the stdio shim finds it.
func (d *Daemon) publish(ln net.Listener) error {
	url := fmt.Sprintf("http://%s%s", ln.Addr(), catalog.EndpointPath)
	if err := paths.WriteEndpoint(d.epPath, d.endpoint(url)); err != nil {
		return fmt.Errorf("publishing the endpoint %s: %w", url, err)
	}
	d.mu.Lock()
	d.url = url
	d.mu.Unlock()
	return nil
}

// endpoint is what the endpoint file says of this server at url.
func (d *Daemon) endpoint(url string) paths.Endpoint {
	return paths.Endpoint{URL: url, PID: os.Getpid(), Version: d.cfg.Version, DB: d.db,
		App: d.cfg.Asker != nil, Control: d.control}
}

// unpublish removes the endpoint file, unless it names another server by
// now (one on another database may have started since).
func (d *Daemon) unpublish() {
	if ep, err := paths.ReadEndpoint(d.epPath); err == nil && ep.PID == os.Getpid() && ep.URL == d.URL() {
		os.Remove(d.epPath)
	}
}

// serveOn serves ln with a new http.Server, which becomes the current one.
// Only the current server's failure ends Wait: a former port's server
// ends because a port move retired it.
func (d *Daemon) serveOn(ln net.Listener) {
	d.mu.Lock()
	if d.conns == nil {
		d.conns = newConnLimit()
	}
	conns := d.conns
	d.mu.Unlock()
	srv := &http.Server{Handler: d.handler, ReadHeaderTimeout: readHeaderTimeout, ReadTimeout: readTimeout,
		WriteTimeout: mcpcore.WriteTimeout, IdleTimeout: idleTimeout, ConnState: conns.track, ConnContext: conns.connContext}
	d.mu.Lock()
	old := d.http
	d.http = srv
	d.mu.Unlock()
	go func() {
		err := srv.Serve(conns.listener(ln))
		d.mu.Lock()
		current := d.http == srv
		d.mu.Unlock()
		if current {
			select {
			case d.errc <- err:
			default:
			}
		}
	}()
	if old != nil {
		d.retire(old)
	}
}

// retire stops a former port: it refuses new connections at once and closes
// idle ones; running requests get drainTimeout to finish. Clients
// reconnect to the new port, the stdio shim through the endpoint file.
func (d *Daemon) retire(srv *http.Server) {
	d.retiring.Add(1)
	go func() {
		defer d.retiring.Done()
		shutdown(srv)
	}()
}

// shutdown stops srv gracefully, then forcibly after drainTimeout.
func shutdown(srv *http.Server) {
	ctx, cancel := context.WithTimeout(context.Background(), drainTimeout)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		_ = srv.Close()
	}
}

// URL is the MCP endpoint the server listens on now.
func (d *Daemon) URL() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.url
}

// port is the port the server listens on now.
func (d *Daemon) port() (int, error) {
	u, err := neturl.Parse(d.URL())
	if err != nil {
		return 0, fmt.Errorf("the current endpoint %q: %w", d.URL(), err)
	}
	return strconv.Atoi(u.Port())
}

// SetPort moves the endpoint to port (0: mcpcore.DefaultPort) on the same
// loopback host. The new port listens first, so a taken port is an error
// naming it and the old port keeps serving; then the endpoint file names
// the new URL and the old port stops taking connections.
func (d *Daemon) SetPort(port int) error {
	d.moving.Lock()
	defer d.moving.Unlock()
	if d.stopped {
		return errors.New("mcptray has stopped serving")
	}
	if port == 0 {
		port = catalog.DefaultPort
	}
	if port < 1 || port > 65535 {
		return fmt.Errorf("port %d: must be between 1 and 65535", port)
	}
	cur, err := neturl.Parse(d.URL())
	if err != nil {
		return fmt.Errorf("the current endpoint %q: %w", d.URL(), err)
	}
	if cur.Port() == strconv.Itoa(port) {
		return nil
	}
	addr := net.JoinHostPort(cur.Hostname(), strconv.Itoa(port))
	ln, err := net.Listen("tcp", addr)
	if addrInUse(err) {
		return fmt.Errorf("port %d is taken by another program; mcptray keeps serving on port %s", port, cur.Port())
	}
	if err != nil {
		return fmt.Errorf("listening on %s: %w", addr, err)
	}
	if err := d.publish(ln); err != nil {
		ln.Close()
		return err
	}
	d.serveOn(ln)
	return nil
}

// pausable answers 503 while the server is paused.
func (d *Daemon) pausable(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if d.paused.Load() {
			w.Header().Set("Retry-After", "30")
			http.Error(w, "mcptray is paused; resume serving from its tray menu", http.StatusServiceUnavailable)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// Paused says whether requests are refused.
func (d *Daemon) Paused() bool { return d.paused.Load() }

// SetPaused pauses or resumes serving.
func (d *Daemon) SetPaused(p bool) { d.paused.Store(p) }

// listenError explains a failed listen; fromSetting says the port came
// from the port setting rather than --addr. (Another mcptray on the same
// database never gets here: the instance lock turned it away.)
func (d *Daemon) listenError(addr string, fromSetting bool, err error) error {
	if !addrInUse(err) {
		return fmt.Errorf("listening on %s: %w", addr, err)
	}
	if ep, rerr := paths.ReadEndpoint(d.epPath); rerr == nil && ep.PID != os.Getpid() && process.Alive(ep.PID) && sameHostPort(ep.URL, addr) {
		return fmt.Errorf("%s is taken by another mcptray (pid %d, database %s); choose another port with --addr 127.0.0.1:PORT", addr, ep.PID, ep.DB)
	}
	if fromSetting {
		return fmt.Errorf("%s is taken by another program; choose another port with `mcptray settings set port=PORT` (or --addr 127.0.0.1:PORT for one run)", addr)
	}
	return fmt.Errorf("%s is taken by another program; choose another with --addr 127.0.0.1:PORT", addr)
}

// sameHostPort says whether the URL u is at addr.
func sameHostPort(u, addr string) bool {
	p, err := neturl.Parse(u)
	return err == nil && p.Host == addr
}
