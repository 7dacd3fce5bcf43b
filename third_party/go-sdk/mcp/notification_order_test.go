// Copyright 2026 The Go MCP SDK Authors. All rights reserved.
// Use of this source code is governed by an MIT-style
// license that can be found in the LICENSE file.

package mcp

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
)

// A log message a server sends during a call, before its result, has been
// handled by the client when the call returns: a client that passes the
// message on (a gateway to its own client) must not see the result first.
func TestLogHandledBeforeCallReturns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		server := NewServer(testImpl, nil)
		AddTool(server, &Tool{Name: "log"}, func(ctx context.Context, req *CallToolRequest, _ any) (*CallToolResult, any, error) {
			if err := req.Session.Log(ctx, &LoggingMessageParams{Level: "info", Data: "working"}); err != nil {
				return nil, nil, err
			}
			return &CallToolResult{Content: []Content{&TextContent{Text: "done"}}}, nil, nil
		})
		release := make(chan struct{})
		releaseOnce := sync.OnceFunc(func() { close(release) })
		var logged atomic.Bool
		client := NewClient(testImpl, &ClientOptions{
			LoggingMessageHandler: func(context.Context, *LoggingMessageRequest) {
				<-release
				logged.Store(true)
			},
		})
		ct, st := NewInMemoryTransports()
		ss, err := server.Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer ss.Close()
		// 2025-11-25: the session's log level, set once, applies to
		// every call.
		cs, err := client.Connect(ctx, ct, &ClientSessionOptions{ProtocolVersion: protocolVersion20251125})
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		defer releaseOnce() // a failed test must not leave the handler blocked
		if err := cs.SetLoggingLevel(ctx, &SetLoggingLevelParams{Level: "debug"}); err != nil {
			t.Fatal(err)
		}

		type result struct {
			res *CallToolResult
			err error
		}
		returned := make(chan result, 1)
		go func() {
			res, err := cs.CallTool(ctx, &CallToolParams{Name: "log"})
			returned <- result{res, err}
		}()
		// Every goroutine waits: the log message's handler on release,
		// and the call either for it or not at all.
		synctest.Wait()
		select {
		case <-returned:
			t.Fatal("CallTool returned while the log message sent before its result was still being handled")
		default:
		}
		releaseOnce()
		r := <-returned
		if r.err != nil || r.res.IsError {
			t.Fatalf("CallTool: %v %v", r.res, r.err)
		}
		if !logged.Load() {
			t.Error("the log message's handler had not returned when CallTool returned")
		}
	})
}
