package bench

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/storage"
)

// Big-catalog targets at BigCatalogTools tools (issue "Light and fast").
const (
	BigCatalogTools = 10_000
	// FirstPageTarget bounds listening → first tools/list page.
	FirstPageTarget = 100 * time.Millisecond
	// BigRSSTarget bounds the server's resident memory after that page.
	BigRSSTarget = 120 << 20
	// BigListedRSSTarget bounds the server's resident memory after a
	// client listed every tool, every page (issue 29).
	BigListedRSSTarget = 150 << 20
	// ImportTarget bounds importing the catalog into a database.
	ImportTarget = 500 * time.Millisecond
)

// BigCatalog is what a catalog of many tools costs.
type BigCatalog struct {
	Tools int
	// Import is storage.Import of the catalog into a new database.
	Import time.Duration
	// Start is `mcptray serve -catalog` from process start to listening
	// (the import included).
	Start time.Duration
	// FirstPage is from listening to the first tools/list page answered,
	// connecting (initialize) included.
	FirstPage time.Duration
	// RSS is the server's resident memory after that page, in bytes.
	RSS int64
	// Pages is how many pages listing every tool took, ListedRSS the
	// server's resident memory after it.
	Pages     int
	ListedRSS int64
}

// BigToolCatalog returns n distinct tools, each with three parameters and
// a respond action, like an OpenAPI import's.
func BigToolCatalog(n int) *catalog.Catalog {
	cat := &catalog.Catalog{Format: catalog.CatalogFormat, Version: catalog.CatalogVersion}
	for i := range n {
		cat.Tools = append(cat.Tools, catalog.Tool{
			Name:        fmt.Sprintf("op_%05d", i),
			Description: fmt.Sprintf("Operation %d of a big imported API.", i),
			Params: []catalog.Param{
				{Name: "id", Type: "string", Description: "the resource id", Required: true},
				{Name: "limit", Type: "number", Description: "how many at most"},
				{Name: "verbose", Type: "boolean", Description: "include details"},
			},
			Action: catalog.Action{Respond: &catalog.Respond{
				Content: []catalog.Content{{Type: "text", Text: "{{.args.id}}"}},
			}},
		})
	}
	return cat
}

// MeasureBigCatalog measures a catalog of n tools: its import into a new
// database in dir, then `bin serve -catalog` starting on it, its first
// tools/list page (over HTTP, go-sdk client, 2025-11-25) and its memory.
func MeasureBigCatalog(ctx context.Context, bin, dir string, n int) (BigCatalog, error) {
	m := BigCatalog{Tools: n}
	cat := BigToolCatalog(n)
	st, err := storage.Open(filepath.Join(dir, "import.db"), mcpcore.Validator{})
	if err != nil {
		return m, err
	}
	t0 := time.Now()
	err = st.Import(ctx, cat, true)
	m.Import = time.Since(t0)
	if cerr := st.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return m, fmt.Errorf("import %d tools: %w", n, err)
	}

	file, err := writeCatalog(cat, filepath.Join(dir, "big-catalog.json"))
	if err != nil {
		return m, err
	}
	srv, err := startServe(ctx, bin, dir, "big", "-catalog", file)
	if err != nil {
		return m, err
	}
	defer srv.stop()
	m.Start = srv.ready.Sub(srv.started)
	cs, err := Connect(ctx, srv.url, http.DefaultClient, Legacy)
	if err != nil {
		return m, err
	}
	defer cs.Close()
	res, err := cs.ListTools(ctx, nil)
	m.FirstPage = time.Since(srv.ready)
	if err != nil {
		return m, fmt.Errorf("first tools/list: %w", err)
	}
	if len(res.Tools) == 0 {
		return m, fmt.Errorf("first tools/list: no tools of %d", n)
	}
	if m.RSS, err = ProcessRSS(srv.cmd.Process.Pid); err != nil {
		return m, err
	}
	if m.Pages, err = listRest(ctx, cs, res, n); err != nil {
		return m, err
	}
	if m.ListedRSS, err = ProcessRSS(srv.cmd.Process.Pid); err != nil {
		return m, err
	}
	return m, nil
}

// writeCatalog writes cat to file, for `serve -catalog`, and returns file.
func writeCatalog(cat *catalog.Catalog, file string) (string, error) {
	data, err := catalog.Marshal(cat)
	if err != nil {
		return "", fmt.Errorf("encode the catalog: %w", err)
	}
	if err := os.WriteFile(file, data, 0o600); err != nil {
		return "", fmt.Errorf("write the catalog: %w", err)
	}
	return file, nil
}
