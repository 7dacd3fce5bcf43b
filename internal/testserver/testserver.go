// Package testserver runs mcptray's real server for the tests of other
// packages: the server `mcptray serve` runs, assembled by internal/daemon,
// on a config folder of its own (a temporary one, never the user's),
// listening on a free port of 127.0.0.1. Its secret store is go-keyring's in-memory mock. Everything
// stops when the test ends.
package testserver

import (
	"context"
	"sync"
	"testing"

	"github.com/zalando/go-keyring"

	"github.com/mcptray/mcptray/internal/daemon"
	"github.com/mcptray/mcptray/internal/paths"
	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/storage"
)

// mockKeyring puts go-keyring's mock in place once per test binary: a
// second MockInit would drop what the first servers of a test stored.
var mockKeyring sync.Once

// Options adjust the server.
type Options struct {
	// Auth turns bearer-token auth on: the store verifies the tokens.
	Auth bool
	// Catalog, when set, replaces the catalog before the engine starts.
	Catalog *mcpcore.Catalog
	// Asker answers the questions meant for the desktop; nil declines them
	// as a headless mcptray serve does.
	Asker mcpcore.Asker
}

// Server is a running server.
type Server struct {
	// Daemon is the server itself.
	Daemon *daemon.Daemon
	// Store, Engine and Activity are the daemon's.
	Store    *storage.Store
	Engine   *mcpcore.Engine
	Activity *storage.ActivityWriter
	// URL is the MCP endpoint the server started on.
	URL string
	// EndpointFile is where it publishes its endpoint.
	EndpointFile string
}

// Start starts a server for t; it stops when t ends.
func Start(t testing.TB, opts Options) *Server {
	t.Helper()
	mockKeyring.Do(keyring.MockInit)
	l := paths.Layout{Dir: t.TempDir()}
	ep := l.EndpointFile()
	d, err := daemon.Start(context.Background(), daemon.Config{
		DB: l.DB(), Addr: "127.0.0.1:0", EndpointFile: ep,
		Catalog: opts.Catalog, NoAuth: !opts.Auth, Asker: opts.Asker, Version: "test",
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Stop)
	return &Server{Daemon: d, Store: d.Store(), Engine: d.Engine(), Activity: d.Activity(), URL: d.URL(), EndpointFile: ep}
}
