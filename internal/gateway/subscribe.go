package gateway

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// subscribeTimeout bounds starting a server and subscribing to one of its
// resources.
const subscribeTimeout = time.Minute

// SubscribeUpstream follows server's resource uri for one more AI client:
// the first subscribes to it on the server, whose updates the manager
// passes on (upstream.Config.OnResourceUpdated). It does not wait: a
// server that cannot be started, or offers no subscriptions, sends no
// updates, which is what the client would see of a resource that does
// not change.
func (g *Gateway) SubscribeUpstream(server, uri string) {
	g.mu.Lock()
	if g.subscribers[server] == nil {
		g.subscribers[server] = map[string]int{}
	}
	g.subscribers[server][uri]++
	first := g.subscribers[server][uri] == 1
	g.mu.Unlock()
	if first {
		go g.subscribeOn(server, uri, true)
	}
}

// UnsubscribeUpstream follows server's resource uri for one fewer AI
// client: after the last, the server is unsubscribed.
func (g *Gateway) UnsubscribeUpstream(server, uri string) {
	g.mu.Lock()
	n := g.subscribers[server][uri] - 1
	if n > 0 {
		g.subscribers[server][uri] = n
	} else {
		delete(g.subscribers[server], uri)
	}
	g.mu.Unlock()
	if n == 0 {
		go g.subscribeOn(server, uri, false)
	}
}

// resubscribe subscribes again to each of server's resources some client
// follows: a server's new session (after a restart) has none.
func (g *Gateway) resubscribe(server string) {
	g.mu.Lock()
	var uris []string
	for uri := range g.subscribers[server] {
		uris = append(uris, uri)
	}
	g.mu.Unlock()
	for _, uri := range uris {
		go g.subscribeOn(server, uri, true)
	}
}

// subscribeOn subscribes to uri on server's session, or unsubscribes.
// A subscription does not keep the server in use: one stopped for
// idleness sends no updates until it is started again.
func (g *Gateway) subscribeOn(server, uri string, on bool) {
	ctx, cancel := context.WithTimeout(context.Background(), subscribeTimeout)
	defer cancel()
	cs, err := withSession(ctx, g, server, func(cs *mcp.ClientSession) (*mcp.ClientSession, error) { return cs, nil })
	if err != nil {
		slog.Warn("following a server's resource", "server", server, "uri", uri, "err", err)
		return
	}
	// Unsubscribed while the server was starting (or subscribed again):
	// the goroutine started by that change does what is wanted now.
	g.mu.Lock()
	wanted := g.subscribers[server][uri] > 0
	g.mu.Unlock()
	if wanted != on {
		return
	}
	if init := cs.InitializeResult(); init == nil || init.Capabilities == nil || init.Capabilities.Resources == nil || !init.Capabilities.Resources.Subscribe {
		return
	}
	if !on {
		err = cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri})
	} else {
		// On 2026-07-28 this holds a listen stream open until
		// Unsubscribe, or the session's end, closes it.
		err = cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri})
	}
	if err != nil && ctx.Err() == nil && !errors.Is(err, context.Canceled) {
		slog.Warn("following a server's resource", "server", server, "uri", uri, "subscribe", on, "err", err)
	}
}
