package main

import (
	"context"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zalando/go-keyring"

	"github.com/mcptray/mcptray/mcpcore"
)

// blockingAsker answers nothing until its ctx ends.
type blockingAsker struct{ asked chan struct{} }

func (b blockingAsker) Ask(ctx context.Context, _ mcpcore.Question) (mcpcore.Answer, error) {
	close(b.asked)
	<-ctx.Done()
	return mcpcore.Answer{}, ctx.Err()
}

func TestStoppingAskerWithdrawsOnStop(t *testing.T) {
	stop, cancel := context.WithCancel(context.Background())
	a := stoppingAsker{blockingAsker{make(chan struct{})}, stop}
	done := make(chan error, 1)
	go func() { _, err := a.Ask(context.Background(), mcpcore.Question{}); done <- err }()
	cancel()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("Ask answered instead of being withdrawn")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Ask still waits after the server stopped")
	}
}

func TestServerPauseAndStop(t *testing.T) {
	keyring.MockInit()
	dir := t.TempDir()
	ep := filepath.Join(dir, "endpoint.json")
	s, err := startServer(context.Background(), serverConfig{db: filepath.Join(dir, "x.db"), addr: "127.0.0.1:0",
		endpointFile: ep, noAuth: true, asker: blockingAsker{make(chan struct{})}}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	post := func() int {
		req, _ := http.NewRequest("POST", s.URL(), strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := post(); code == http.StatusServiceUnavailable {
		t.Fatalf("serving: status %d", code)
	}
	s.SetPaused(true)
	if code := post(); code != http.StatusServiceUnavailable {
		t.Fatalf("paused: status %d, want 503", code)
	}
	s.SetPaused(false)
	if code := post(); code == http.StatusServiceUnavailable {
		t.Fatalf("resumed: status %d", code)
	}
	s.stop()
	s.stop() // idempotent
	if _, err := mcpcore.ReadEndpoint(ep); err == nil {
		t.Fatal("the endpoint file outlived stop")
	}
}
