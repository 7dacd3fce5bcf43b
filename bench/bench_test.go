package bench

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/zalando/go-keyring"
)

// TestMain keeps the servers under test away from the user's keyring.
func TestMain(m *testing.M) {
	keyring.MockInit()
	os.Exit(m.Run())
}

// servers builds the three handlers under test in dir.
func servers(tb testing.TB) (names []string, handlers map[string]http.Handler, tokens map[string]string) {
	tb.Helper()
	// The product logs to stderr through slog.Default(); log to a file
	// instead, at the same cost, so benchmark output stays readable.
	logf, err := os.Create(filepath.Join(tb.TempDir(), "server.log"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = logf.Close() })
	logger := slog.New(slog.NewTextHandler(logf, nil))
	handlers = map[string]http.Handler{"bare": NewBare()}
	tokens = map[string]string{}
	for _, auth := range []bool{true, false} {
		name := "ours"
		if !auth {
			name = "ours-noauth"
		}
		o, err := NewOurs(context.Background(), tb.TempDir(), auth, logger)
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { _ = o.Close() })
		handlers[name], tokens[name] = o.Handler, o.Token
	}
	return []string{"bare", "ours", "ours-noauth"}, handlers, tokens
}

// TestSmoke checks, quickly, that both servers answer the echo call the
// same way in both eras, over HTTP and by replay.
func TestSmoke(t *testing.T) {
	names, handlers, tokens := servers(t)
	for _, name := range names {
		for _, era := range Eras {
			r, err := Capture(context.Background(), handlers[name], tokens[name], era)
			if err != nil {
				t.Fatalf("%s %s: %v", name, era, err)
			}
			if err := r.Call(); err != nil {
				t.Errorf("%s %s: %v", name, era, err)
			}
			r.Close()
		}
	}
}

// BenchmarkServer replays a captured tools/call straight into each handler,
// one call at a time: the server's own cost, without network or client.
// Profile with:
//
//	go test ./bench -run '^$' -bench 'Server/ours/2026' -cpuprofile cpu.out
func BenchmarkServer(b *testing.B) {
	names, handlers, tokens := servers(b)
	for _, name := range names {
		for _, era := range Eras {
			b.Run(fmt.Sprintf("%s/%s", name, era), func(b *testing.B) {
				r, err := Capture(context.Background(), handlers[name], tokens[name], era)
				if err != nil {
					b.Fatal(err)
				}
				defer r.Close()
				b.ReportAllocs()
				for b.Loop() {
					if err := r.Call(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkServerParallel is BenchmarkServer with 4 goroutines per P, each
// replaying its own session.
func BenchmarkServerParallel(b *testing.B) {
	names, handlers, tokens := servers(b)
	for _, name := range names {
		for _, era := range Eras {
			b.Run(fmt.Sprintf("%s/%s", name, era), func(b *testing.B) {
				const perP = 4
				replays := make([]*Replay, perP*runtime.GOMAXPROCS(0))
				for i := range replays {
					r, err := Capture(context.Background(), handlers[name], tokens[name], era)
					if err != nil {
						b.Fatal(err)
					}
					defer r.Close()
					replays[i] = r
				}
				var next atomic.Int32
				b.ReportAllocs()
				b.SetParallelism(perP)
				b.ResetTimer()
				b.RunParallel(func(pb *testing.PB) {
					r := replays[next.Add(1)-1]
					for pb.Next() {
						if err := r.Call(); err != nil {
							b.Error(err)
							return
						}
					}
				})
			})
		}
	}
}

// PrintText prints exactly what it is asked for, in lines, so that the
// measured command fills its output cap and no more.
func TestPrintText(t *testing.T) {
	for _, n := range []int{1, 79, 80, 81, 100_000} {
		var b bytes.Buffer
		if err := PrintText(&b, n); err != nil {
			t.Fatal(err)
		}
		if b.Len() != n || !strings.HasPrefix(b.String(), "line 0000000: ") && n >= 14 {
			t.Errorf("PrintText(%d) wrote %d bytes: %.40q", n, b.Len(), b.String())
		}
	}
}
