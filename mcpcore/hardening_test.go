package mcpcore_test

// Edges a hostile or careless client or file reaches: versions older than
// any served, a Host in capitals, catalogs with a byte order mark,
// duplicate keys or bytes that are not UTF-8, schemas nested absurdly
// deep, and an HTTP server whose write deadline would cut long streams.

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/testcatalog"
	"github.com/mcptray/mcptray/internal/testutil"
	"github.com/mcptray/mcptray/mcpcore"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestUnsupportedOldVersionGets32022(t *testing.T) {
	e := newEnv(t, envOptions{})
	for _, tc := range []struct {
		name, header, meta string
		code               int64
	}{
		{"header and _meta", "1999-01-01", "1999-01-01", mcp.CodeUnsupportedProtocolVersion},
		{"header only", "1999-01-01", "", mcp.CodeUnsupportedProtocolVersion},
		// The header and the body disagree: that is said first.
		{"header and another _meta", "1999-01-01", modern, mcp.CodeHeaderMismatch},
	} {
		t.Run(tc.name, func(t *testing.T) {
			params := map[string]any{}
			if tc.meta != "" {
				params["_meta"] = map[string]any{metaVersion: tc.meta, metaCapabilities: map[string]any{}}
			}
			r := e.rpc("tools/list", params)
			r.Header.Set("MCP-Protocol-Version", tc.header)
			re := e.send(t, r.Request).wantError(t, 400, tc.code)
			if tc.code != mcp.CodeUnsupportedProtocolVersion {
				return
			}
			var data mcp.UnsupportedProtocolVersionData
			if err := json.Unmarshal(re.Data, &data); err != nil {
				t.Fatalf("data %s: %v", re.Data, err)
			}
			if data.Requested != tc.header || !slices.Contains(data.Supported, modern) || !slices.Contains(data.Supported, legacy) {
				t.Errorf("data %+v, want requested %q and the supported versions", data, tc.header)
			}
		})
	}
}

func TestGuardHostAnyCase(t *testing.T) {
	e := newEnv(t, envOptions{})
	_, port, _ := strings.Cut(strings.TrimPrefix(e.srv.URL, "http://"), ":")
	for _, host := range []string{"LOCALHOST:" + port, "LocalHost:" + port, "localhost:" + port} {
		for _, era := range eras {
			var r *request
			if era == modern {
				r = e.modern("server/discover", nil)
			} else {
				r = e.initializeRequest()
			}
			r.Host = host
			e.send(t, r.Request).result(t, nil)
		}
	}
}

func TestParseCatalogEncoding(t *testing.T) {
	doc := `{"format":"mcptray-catalog","version":1,"tools":[{"name":"a","description":"A.","action":{"respond":{"content":[{"type":"text","text":"hi"}]}}}]}`
	t.Run("BOM", func(t *testing.T) {
		c, err := mcpcore.ParseCatalog(append([]byte{0xEF, 0xBB, 0xBF}, doc...))
		if err != nil || len(c.Tools) != 1 {
			t.Fatalf("a catalog with a byte order mark: %v", err)
		}
	})
	t.Run("duplicate key", func(t *testing.T) {
		dup := strings.Replace(doc, `"description":"A.",`, "\n  \"description\":\"A.\", \"description\":\"B.\",", 1)
		_, err := mcpcore.ParseCatalog([]byte(dup))
		if err == nil {
			t.Fatal("a duplicate key was accepted")
		}
		for _, want := range []string{`duplicate key "description"`, "$.tools[0].description", "line 2"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%v: does not say %q", err, want)
			}
		}
	})
	t.Run("same key in other objects", func(t *testing.T) {
		two := strings.TrimSuffix(doc, `]}`) + `,{"name":"b","description":"B.","action":{"respond":{"content":[{"type":"text","text":"hi"}]}}}]}`
		if _, err := mcpcore.ParseCatalog([]byte(two)); err != nil {
			t.Fatalf("keys repeated across objects are fine: %v", err)
		}
	})
	t.Run("invalid UTF-8", func(t *testing.T) {
		bad := []byte(doc)
		at := bytes.Index(bad, []byte("hi"))
		bad[at] = 0xFF
		_, err := mcpcore.ParseCatalog(bad)
		if err == nil || !strings.Contains(err.Error(), "not valid UTF-8") || !strings.Contains(err.Error(), "offset "+strconv.Itoa(at)) {
			t.Fatalf("invalid UTF-8 at offset %d: %v", at, err)
		}
	})
}

func TestDeepSchemaRefusedQuickly(t *testing.T) {
	const levels = 800
	schema := `{"type":"object","properties":{"a":` + strings.Repeat(`{"type":"object","properties":{"a":`, levels) +
		`{"type":"string"}` + strings.Repeat(`}}`, levels) + `}}`
	tool := testcatalog.RespondTool("deep", "hi")
	tool.InputSchema = json.RawMessage(schema)
	start := time.Now()
	ps := mcpcore.ValidateTool(tool)
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("validating an %d-level schema took %v", levels, took)
	}
	if len(ps) != 1 || ps[0].Field != "inputSchema" || !strings.Contains(ps[0].Message, "nests more than 64 levels") {
		t.Fatalf("an %d-level schema: %+v", levels, ps)
	}
	// A schema within the bound is fine.
	tool.InputSchema = json.RawMessage(`{"type":"object","properties":{"a":` + strings.Repeat(`{"type":"object","properties":{"a":`, 20) +
		`{"type":"string"}` + strings.Repeat(`}}`, 20) + `}}`)
	if ps := mcpcore.ValidateTool(tool); len(ps) > 0 {
		t.Fatalf("a 20-level schema: %+v", ps)
	}
}

// TestLongResponsesOutliveTheWriteTimeout: behind an HTTP server whose
// read and write timeouts are short, a listen stream keeps delivering and
// a call slower than the timeouts is answered: the handler bounds each
// write instead of the whole response.
func TestLongResponsesOutliveTheWriteTimeout(t *testing.T) {
	testutil.Long(t, "waits past the write timeout")
	e := newEnv(t, envOptions{extra: limitTools})
	srv := httptest.NewUnstartedServer(e.eng.Handler())
	srv.Config.ReadTimeout, srv.Config.WriteTimeout = time.Second, time.Second
	srv.Start()
	t.Cleanup(srv.Close)
	e.url = srv.URL + catalog.EndpointPath
	s, id := e.listen(t)
	completed(t, toolCall{name: "l_slow"}.send(t, e)) // two seconds
	if err := e.st.PutTool(testCtx(t), testcatalog.RespondTool("w_late", "hi")); err != nil {
		t.Fatal(err)
	}
	wantListChanged(t, s, id)
}
