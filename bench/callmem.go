package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/paths"
	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/storage"
)

// The per-call memory of a command's output (issue 25): a call whose
// command prints its whole output cap, measured in the server process.
const (
	// CallMemCap is the output cap of the measured command, which prints
	// exactly that much: large enough that the server's own heap and
	// go-sdk's per-call bookkeeping are noise beside it.
	CallMemCap = 16 << 20
	// CallMemTarget is the most the server's live heap may grow during the
	// call, as a multiple of CallMemCap.
	CallMemTarget = 3.0
	// CallMemToolName is the measured tool's name.
	CallMemToolName = "print_cap"
	// callMemGCPercent is the collector's GOGC in the measured server: a
	// cycle whenever the heap grew by 1%, so at every large allocation,
	// which is when a copy of the output begins.
	callMemGCPercent = 1
)

// CallMemTool is a command tool running argv, which must print exactly
// CallMemCap bytes (PrintText), with CallMemCap as its output cap.
func CallMemTool(argv []string) catalog.Tool {
	tmpl := make([]catalog.Template, len(argv))
	for i, a := range argv {
		tmpl[i] = catalog.Template(a)
	}
	return catalog.Tool{
		Name:        CallMemToolName,
		Description: "Prints its whole output cap.",
		Action:      catalog.Action{Command: &catalog.Command{Argv: tmpl, MaxOutputBytes: CallMemCap}},
	}
}

// PrintText writes exactly n bytes of numbered text lines to w: what a
// command printing a log or a listing looks like (newlines take two bytes
// once encoded as JSON, the rest one).
func PrintText(w io.Writer, n int) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	for i := 0; n > 0; i++ {
		line := fmt.Sprintf("line %07d: the quick brown fox jumps over the lazy dog, and over its output cap\n", i)
		if len(line) > n {
			line = line[:n]
		}
		if _, err := bw.WriteString(line); err != nil {
			return fmt.Errorf("print text: %w", err)
		}
		n -= len(line)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("print text: %w", err)
	}
	return nil
}

// NewCallMemServer starts a server like NewOurs (auth on), serving the one
// tool CallMemTool(argv), with maxResultBytes raised so that its result,
// CallMemCap once encoded and more, is sent rather than refused. It lowers
// this process's GOGC (see HeapPeak): run it in a process of its own.
func NewCallMemServer(ctx context.Context, dir string, argv []string, logger *slog.Logger) (*Ours, error) {
	st, err := storage.Open(paths.Layout{Dir: dir}.DB(), mcpcore.Validator{})
	if err != nil {
		return nil, err
	}
	set := catalog.DefaultSettings()
	set.MaxResultBytes = 4 * CallMemCap
	err = st.PutSettings(ctx, set)
	if cerr := st.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("store the settings: %w", err)
	}
	cat := &catalog.Catalog{Format: catalog.CatalogFormat, Version: catalog.CatalogVersion, Tools: []catalog.Tool{CallMemTool(argv)}}
	return startOurs(ctx, dir, cat, true, logger)
}

// HeapReport is what a HeapPeak saw since its last Reset, in bytes.
type HeapReport struct {
	// Base is the live heap at the Reset, after two collections (the
	// second empties sync.Pools).
	Base uint64 `json:"base"`
	// Peak is the largest live heap a collection found since.
	Peak uint64 `json:"peak"`
	// Allocated is what was allocated since (TotalAlloc).
	Allocated uint64 `json:"allocated"`
	// Cycles counts the collections since; Seen, those whose live heap
	// was read (a cycle ending before the last one's report ran is missed).
	Cycles uint64 `json:"cycles"`
	Seen   uint64 `json:"seen"`
}

// HeapPeak follows this process's live heap: what each garbage collection
// found reachable (runtime/metrics "/gc/heap/live:bytes"), read at the end
// of every cycle by a cleanup re-armed each time. The live heap, not the
// heap in use: garbage waiting for the next cycle says how often the
// collector runs (GOGC), the same for every part of the program, where the
// live heap says how many copies of an output are held at once. Cycles
// are made frequent (callMemGCPercent) for the largest reading to be near
// the peak: it agrees with the runtime's own trace of every cycle
// (GODEBUG=gctrace=1) within its 1 MB rounding.
type HeapPeak struct {
	mu     sync.Mutex
	report HeapReport
	cycles uint64 // the cycle count at the Reset
	alloc  uint64 // TotalAlloc at the Reset
}

// StartHeapPeak lowers GOGC to callMemGCPercent and starts following the
// live heap.
func StartHeapPeak() *HeapPeak {
	debug.SetGCPercent(callMemGCPercent)
	h := &HeapPeak{}
	h.Reset()
	h.arm()
	return h
}

// arm asks for a report at the end of the next cycle: a cleanup of an
// object nothing references (32 bytes: tiny objects share blocks, and
// their cleanups may never run).
func (h *HeapPeak) arm() {
	runtime.AddCleanup(new([32]byte), func(h *HeapPeak) {
		h.observe()
		h.arm()
	}, h)
}

// readHeap returns the live heap at the last cycle's end and the cycle
// count.
func readHeap() (live, cycles uint64) {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	return s[0].Value.Uint64(), s[1].Value.Uint64()
}

func (h *HeapPeak) observe() {
	live, cycles := readHeap()
	h.mu.Lock()
	defer h.mu.Unlock()
	if cycles <= h.cycles {
		return // a cycle of the Reset's, read late
	}
	h.report.Peak = max(h.report.Peak, live)
	h.report.Seen++
	h.report.Cycles = cycles - h.cycles
}

// Reset collects twice, takes the live heap as the new base and peak, and
// returns it.
func (h *HeapPeak) Reset() HeapReport {
	runtime.GC()
	runtime.GC()
	live, cycles := readHeap()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.report = HeapReport{Base: live, Peak: live}
	h.cycles, h.alloc = cycles, m.TotalAlloc
	return h.report
}

// Report returns what was seen since the last Reset.
func (h *HeapPeak) Report() HeapReport {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	_, cycles := readHeap()
	h.mu.Lock()
	defer h.mu.Unlock()
	r := h.report
	r.Allocated = m.TotalAlloc - h.alloc
	r.Cycles = cycles - h.cycles
	return r
}

// ServeHTTP answers GET with Report, and with Reset when the query has
// reset=1.
func (h *HeapPeak) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var rep HeapReport
	if r.URL.Query().Get("reset") == "1" {
		rep = h.Reset()
	} else {
		rep = h.Report()
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(rep)
}

// CallMemory is one measured call of CallMemTool.
type CallMemory struct {
	Era  Era
	Heap HeapReport
	// Duration is the call's, as the client saw it.
	Duration time.Duration
}

// Multiple is the live heap's growth during the call, as a multiple of
// CallMemCap.
func (m CallMemory) Multiple() float64 {
	return float64(int64(m.Heap.Peak)-int64(m.Heap.Base)) / CallMemCap
}

// AllocatedMultiple is what the call allocated, as a multiple of
// CallMemCap.
func (m CallMemory) AllocatedMultiple() float64 {
	return float64(m.Heap.Allocated) / CallMemCap
}

// MeasureCallMemory calls CallMemTool on the server at endpoint (served by
// NewCallMemServer in another process, whose HeapPeak answers at heapURL)
// with the official go-sdk client in era: once to warm up, then once
// measured, between a Reset and a Report. It checks the result: the whole
// output, uncut.
func MeasureCallMemory(ctx context.Context, endpoint, token, heapURL string, era Era) (CallMemory, error) {
	m := CallMemory{Era: era}
	hc := NewHTTPClient(token)
	defer hc.CloseIdleConnections()
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpbench", Version: "v0"}, nil)
	t := &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc, MaxRetries: -1, DisableStandaloneSSE: true,
		MaxEventSize: 8 * CallMemCap}
	cs, err := client.Connect(ctx, t, &mcp.ClientSessionOptions{ProtocolVersion: string(era)})
	if err != nil {
		return m, fmt.Errorf("connecting (%s): %w", era, err)
	}
	defer cs.Close()
	call := func() error {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: CallMemToolName, Arguments: map[string]any{}})
		if err != nil {
			return fmt.Errorf("call %s: %w", CallMemToolName, err)
		}
		if res.IsError || len(res.Content) != 1 {
			return fmt.Errorf("call %s: isError=%v, %d content blocks", CallMemToolName, res.IsError, len(res.Content))
		}
		tc, ok := res.Content[0].(*mcp.TextContent)
		if !ok || len(tc.Text) != CallMemCap || !strings.HasPrefix(tc.Text, "line 0000000: ") {
			return fmt.Errorf("call %s: not the whole output (%T)", CallMemToolName, res.Content[0])
		}
		return nil
	}
	if err := call(); err != nil {
		return m, err
	}
	if _, err := getHeap(ctx, heapURL+"?reset=1"); err != nil {
		return m, err
	}
	start := time.Now()
	if err := call(); err != nil {
		return m, err
	}
	m.Duration = time.Since(start)
	m.Heap, err = getHeap(ctx, heapURL)
	return m, err
}

func getHeap(ctx context.Context, url string) (HeapReport, error) {
	var rep HeapReport
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return rep, err
	}
	resp, err := (&http.Client{Timeout: time.Minute}).Do(req)
	if err != nil {
		return rep, fmt.Errorf("read the server's heap: %w", err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(&rep); err != nil {
		return rep, fmt.Errorf("read the server's heap: %w", err)
	}
	return rep, nil
}

// CallMemArgs are the arguments of the printing command, after the
// program: mcpbench's own -print-bytes.
func CallMemArgs() []string { return []string{"-print-bytes", strconv.Itoa(CallMemCap)} }
