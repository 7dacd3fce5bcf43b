package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/mcptray/mcptray/catalog"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ShimP50Target bounds what the shim adds to the median call against direct
// HTTP to the same server (issue "Light and fast" measured +0.2 ms and
// 0.71–0.84× throughput before). Throughput has no target: the shim opens a
// connection per request (internal/atmostonce), which costs about a quarter
// of a millisecond and about half its throughput for one client making
// calls back to back, so that a request never fails on a connection mcptray
// had already closed and is reported as possibly run; nobody's AI app calls
// tools back to back at a thousand a second.
const ShimP50Target = 500 * time.Microsecond

// ShimRun is one era's calls through the shim and straight over HTTP.
type ShimRun struct {
	Era             Era
	Direct, ViaShim Result
}

// P50Overhead is what the shim adds to the median call.
func (r ShimRun) P50Overhead() time.Duration {
	return r.ViaShim.Percentile(0.5) - r.Direct.Percentile(0.5)
}

// ThroughputRatio is the shim's throughput as a fraction of direct HTTP's.
func (r ShimRun) ThroughputRatio() float64 {
	if d := r.Direct.RPS(); d > 0 {
		return r.ViaShim.RPS() / d
	}
	return 0
}

// MeasureShim starts `bin serve` with the echo tool, then makes calls, one
// at a time, alternately straight over HTTP and through the stdio shim
// (shimBin, which finds that server through its endpoint file and gets its
// token with `bin shim-token`), for rounds × d each, in each era.
func MeasureShim(ctx context.Context, bin, shimBin, dir string, d time.Duration, rounds int) ([]ShimRun, error) {
	catFile, err := writeCatalog(&catalog.Catalog{Format: catalog.CatalogFormat, Version: catalog.CatalogVersion, Tools: []catalog.Tool{EchoTool()}},
		filepath.Join(dir, "shim-catalog.json"))
	if err != nil {
		return nil, err
	}
	srv, err := startServe(ctx, bin, dir, "shim", "-catalog", catFile)
	if err != nil {
		return nil, err
	}
	defer srv.stop()
	var runs []ShimRun
	for _, era := range Eras {
		direct, err := Connect(ctx, srv.url, NewHTTPClient(""), era)
		if err != nil {
			return nil, fmt.Errorf("direct HTTP: %w", err)
		}
		defer direct.Close()
		shim := exec.Command(shimBin)
		shim.Env = append(os.Environ(), "DBUS_SESSION_BUS_ADDRESS=disabled:",
			"MCPTRAY_ENDPOINT_FILE="+filepath.Join(dir, "shim-endpoint.json"),
			"MCPTRAY_SHIM_TOKEN_FILE="+filepath.Join(dir, "shim-token"),
			"MCPTRAY_BIN="+bin)
		client := mcp.NewClient(&mcp.Implementation{Name: "mcpbench", Version: "v0"}, nil)
		viaShim, err := client.Connect(ctx, &mcp.CommandTransport{Command: shim}, &mcp.ClientSessionOptions{ProtocolVersion: string(era)})
		if err != nil {
			return nil, fmt.Errorf("through the shim (%s): %w", era, err)
		}
		defer viaShim.Close()
		run := ShimRun{Era: era}
		callOn := func(cs *mcp.ClientSession) []func(context.Context) error {
			return []func(context.Context) error{func(ctx context.Context) error { return CallEcho(ctx, cs) }}
		}
		// A warm-up each, then the rounds, alternating.
		Load(ctx, callOn(direct), LoadOptions{Duration: d / 4})
		Load(ctx, callOn(viaShim), LoadOptions{Duration: d / 4})
		for range rounds {
			run.Direct.Merge(Load(ctx, callOn(direct), LoadOptions{Duration: d}))
			run.ViaShim.Merge(Load(ctx, callOn(viaShim), LoadOptions{Duration: d}))
		}
		if err := firstError(run.Direct, run.ViaShim); err != nil {
			return nil, fmt.Errorf("%s calls: %w", era, err)
		}
		runs = append(runs, run)
	}
	return runs, nil
}

// firstError is the first failed call of any result.
func firstError(rs ...Result) error {
	for _, r := range rs {
		if r.FirstErr != nil {
			return fmt.Errorf("%d calls failed, the first with: %w", r.Errors, r.FirstErr)
		}
	}
	return nil
}
