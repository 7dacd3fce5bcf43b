package bench

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// EchoText is the argument every benchmarked call sends, and so the text
// every result must carry.
const EchoText = "hello from mcpbench"

// DummyToken is the bearer token sent to servers that do not check one, so
// that every server receives byte-for-byte the same client load.
const DummyToken = "mcpt_benchmark-dummy-token-0000000000000000000"

// NewHTTPClient returns the HTTP client the benchmark's go-sdk clients use:
// loopback only (no proxy), enough idle connections for every worker, and an
// Authorization: Bearer header on every request (DummyToken when token is
// empty).
func NewHTTPClient(token string) *http.Client { return newHTTPClient(token, nil) }

// newHTTPClient is NewHTTPClient with an optional wrapper around the base
// transport, below the Authorization header.
func newHTTPClient(token string, wrap func(http.RoundTripper) http.RoundTripper) *http.Client {
	if token == "" {
		token = DummyToken
	}
	tr := &http.Transport{
		Proxy:               nil,
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        256,
		MaxIdleConnsPerHost: 256,
		IdleConnTimeout:     90 * time.Second,
	}
	var base http.RoundTripper = tr
	if wrap != nil {
		base = wrap(tr)
	}
	return &http.Client{Transport: &bearer{next: base, value: "Bearer " + token}}
}

// bearer adds an Authorization header to each request.
type bearer struct {
	next  http.RoundTripper
	value string
}

func (b *bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", b.value)
	return b.next.RoundTrip(r)
}

// Connect opens one go-sdk client session on endpoint speaking era, and
// checks that era was negotiated. For Modern the client sends
// server/discover; for Legacy it sends initialize with protocolVersion
// 2025-11-25 (ClientSessionOptions.ProtocolVersion, client.go). The
// standalone GET stream is disabled: the benchmark only makes calls.
func Connect(ctx context.Context, endpoint string, hc *http.Client, era Era) (*mcp.ClientSession, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpbench", Version: "v0"}, nil)
	t := &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc, MaxRetries: -1, DisableStandaloneSSE: true}
	cs, err := client.Connect(ctx, t, &mcp.ClientSessionOptions{ProtocolVersion: string(era)})
	if err != nil {
		return nil, fmt.Errorf("connecting (%s): %w", era, err)
	}
	if got := cs.InitializeResult().ProtocolVersion; got != string(era) {
		_ = cs.Close()
		return nil, fmt.Errorf("connecting: asked for %s, negotiated %s", era, got)
	}
	return cs, nil
}

// CallEcho makes one tools/call of the echo tool and checks its result.
func CallEcho(ctx context.Context, cs *mcp.ClientSession) error {
	return callEchoNamed(ctx, cs, ToolName)
}

// callEchoNamed is CallEcho of the echo tool served as name (a fronted
// server's, under its prefix).
func callEchoNamed(ctx context.Context, cs *mcp.ClientSession, name string) error {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{"text": EchoText}})
	if err != nil {
		return err
	}
	if res.IsError || len(res.Content) != 1 {
		return fmt.Errorf("unexpected result: isError=%v, %d content blocks", res.IsError, len(res.Content))
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); !ok || tc.Text != EchoText {
		return fmt.Errorf("unexpected result content %#v", res.Content[0])
	}
	return nil
}

// LoadOptions bound one load run.
type LoadOptions struct {
	// Duration is how long workers keep starting calls.
	Duration time.Duration
	// OnStart runs just before the workers start, OnEnd once they have all
	// finished (e.g. to snapshot the server's counters around exactly the
	// calls made).
	OnStart, OnEnd func()
}

// Result is what one or more load runs measured.
type Result struct {
	// Calls counts successful calls.
	Calls int
	// Errors counts failed calls; FirstErr is the first.
	Errors   int
	FirstErr error
	// Latencies of the successful calls, sorted ascending.
	Latencies []time.Duration
	// workers holds each worker's calls and busy time, by worker index.
	workers []workerTime
}

type workerTime struct {
	calls int
	busy  time.Duration
}

// RPS is the throughput: the sum over workers of calls per second of that
// worker's busy time (from the start to the end of its last call), which
// is exact for closed-loop workers, without edge effects at either end.
func (r Result) RPS() float64 {
	var rps float64
	for _, w := range r.workers {
		if w.busy > 0 {
			rps += float64(w.calls) / w.busy.Seconds()
		}
	}
	return rps
}

// Percentile returns the q-quantile (0 < q ≤ 1) latency, by nearest rank.
func (r Result) Percentile(q float64) time.Duration {
	n := len(r.Latencies)
	if n == 0 {
		return 0
	}
	i := int(q*float64(n)+0.999999) - 1
	return r.Latencies[min(max(i, 0), n-1)]
}

// Merge adds another run with the same workers (for interleaved slices).
func (r *Result) Merge(o Result) {
	r.Calls += o.Calls
	r.Errors += o.Errors
	if r.FirstErr == nil {
		r.FirstErr = o.FirstErr
	}
	r.Latencies = append(r.Latencies, o.Latencies...)
	slices.Sort(r.Latencies)
	for i, w := range o.workers {
		if i == len(r.workers) {
			r.workers = append(r.workers, workerTime{})
		}
		r.workers[i].calls += w.calls
		r.workers[i].busy += w.busy
	}
}

// Load runs one closed-loop worker per call function — each makes one call
// at a time, back to back — for o.Duration, and stops by itself: a worker
// starts no call after the duration (the one in flight finishes), and stops
// early on ctx's end or after 100 errors.
func Load(ctx context.Context, calls []func(context.Context) error, o LoadOptions) Result {
	res := Result{workers: make([]workerTime, len(calls))}
	lats := make([][]time.Duration, len(calls))
	errs := make([]int, len(calls))
	firstErrs := make([]error, len(calls))
	if o.OnStart != nil {
		o.OnStart()
	}
	start := time.Now()
	end := start.Add(o.Duration)
	var wg sync.WaitGroup
	for i, call := range calls {
		wg.Go(func() {
			lat := make([]time.Duration, 0, 1024)
			n := 0
			t0 := start
			for errs[i] < 100 && ctx.Err() == nil && t0.Before(end) {
				err := call(ctx)
				t1 := time.Now()
				if err != nil {
					errs[i]++
					if firstErrs[i] == nil {
						firstErrs[i] = err
					}
				} else {
					n++
					lat = append(lat, t1.Sub(t0))
				}
				t0 = t1
			}
			lats[i] = lat
			res.workers[i] = workerTime{calls: n, busy: t0.Sub(start)}
		})
	}
	wg.Wait()
	if o.OnEnd != nil {
		o.OnEnd()
	}
	for i := range calls {
		res.Calls += len(lats[i])
		res.Latencies = append(res.Latencies, lats[i]...)
		res.Errors += errs[i]
		if res.FirstErr == nil {
			res.FirstErr = firstErrs[i]
		}
	}
	slices.Sort(res.Latencies)
	if res.Calls == 0 && res.FirstErr == nil {
		res.FirstErr = errors.New("no call completed")
	}
	return res
}
