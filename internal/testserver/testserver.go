// Package testserver runs mcptray's real server parts for the tests of
// other packages: a SQLite store in a temporary folder and an engine
// following it, behind a real HTTP server on 127.0.0.1. Everything stops
// when the test ends.
package testserver

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/storage"
)

// Options adjust the server.
type Options struct {
	// Auth turns bearer-token auth on: the store verifies the tokens.
	Auth bool
	// Catalog, when set, replaces the catalog before the engine starts.
	Catalog *mcpcore.Catalog
	// LogActivity logs every request to the store's activity log through a
	// real ActivityWriter (Server.Activity).
	LogActivity bool
}

// Server is a running store, engine and HTTP endpoint.
type Server struct {
	Store  *storage.Store
	Engine *mcpcore.Engine
	// Activity is the activity writer with Options.LogActivity, else nil.
	Activity *storage.ActivityWriter
	// URL is the MCP endpoint.
	URL string
}

// Start starts a server for t.
func Start(t testing.TB, opts Options) *Server {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	st, err := storage.Open(filepath.Join(t.TempDir(), "mcptray.db"))
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() }) // after the server's, registered below
	s := &Server{Store: st}
	if opts.Catalog != nil {
		if err := st.Import(ctx, opts.Catalog, true); err != nil {
			cancel()
			t.Fatal(err)
		}
	}
	eopts := mcpcore.Options{Version: "test", Tasks: st}
	if opts.Auth {
		eopts.Tokens = st
	}
	if opts.LogActivity {
		s.Activity = st.NewActivityWriter(storage.ActivityWriterOptions{})
		eopts.Activity = s.Activity
	}
	s.Engine, err = mcpcore.New(ctx, st, st, eopts)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	watched := make(chan struct{})
	go func() { defer close(watched); s.Engine.Watch(ctx) }()
	srv := httptest.NewServer(s.Engine.Handler())
	s.URL = srv.URL + mcpcore.EndpointPath
	t.Cleanup(func() {
		s.Engine.Shutdown()
		srv.CloseClientConnections()
		srv.Close()
		cancel()
		<-watched
		if s.Activity != nil {
			_ = s.Activity.Close()
		}
	})
	return s
}
