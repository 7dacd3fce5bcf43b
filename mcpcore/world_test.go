package mcpcore_test

// Resources that read the world: a file watched for changes (published to
// 2026 listen streams and legacy subscribers), a folder template completed
// from the folder's entries, an HTTP source and a command's output.

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/testutil"
	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/storage"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// fastPoll is the file poll interval of these tests.
const fastPoll = 20 * time.Millisecond

// fileResourceEnv serves a file resource uri backed by a temp file holding
// content, and returns the env and the file's path.
func fileResourceEnv(t *testing.T, uri, content string) (*env, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "watched.txt")
	writeFile(t, path, content)
	e := newEnv(t, envOptions{filePoll: fastPoll, extra: &catalog.Catalog{Resources: []catalog.Resource{
		{URI: uri, Name: "watched", File: path},
	}}})
	return e, path
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	// Whole, as an editor saves: written in place, the file is first
	// truncated, and a poll between the two writes sees a change of its
	// own, whose notification a loaded machine delivers late (after an
	// unsubscribe, say).
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// readText reads a resource in a 2026 request and returns its only text.
func (e *env) readText(t *testing.T, uri string) string {
	t.Helper()
	var res struct {
		Contents []struct {
			Text string `json:"text"`
		} `json:"contents"`
	}
	e.read(t, uri).result(t, &res)
	if len(res.Contents) != 1 {
		t.Fatalf("reading %s: %d contents, want 1", uri, len(res.Contents))
	}
	return res.Contents[0].Text
}

// TestFileResourceUpdatedOnListen is the acceptance check: a file resource
// edited on disk produces notifications/resources/updated on a 2026 listen
// stream that subscribed its URI.
func TestFileResourceUpdatedOnListen(t *testing.T) {
	const uri, other = "file:///watched.txt", "test://static-text"
	e, path := fileResourceEnv(t, uri, "first version")

	r := e.modern("subscriptions/listen", map[string]any{"notifications": map[string]any{"resourceSubscriptions": []string{uri, other}}})
	s := e.open(t, r.Request)
	ack := s.nextMessage(t)
	if ack.Method != "notifications/subscriptions/acknowledged" {
		t.Fatalf("first message on the listen stream: %+v, want the acknowledgement", ack)
	}
	if got := field(decode(t, ack.Params), "notifications", "resourceSubscriptions"); fmt.Sprint(got) != fmt.Sprint([]any{uri, other}) {
		t.Fatalf("acknowledged resourceSubscriptions = %v, want [%s %s]", got, uri, other)
	}

	writeFile(t, path, "second version, longer")
	m := s.nextMessage(t)
	if m.Method != "notifications/resources/updated" {
		t.Fatalf("after the edit: %+v, want notifications/resources/updated", m)
	}
	p := decode(t, m.Params)
	if got := field(p, "uri"); got != uri {
		t.Errorf("updated uri = %v, want %s", got, uri)
	}
	if got := field(p, "_meta", metaSubscription); got != float64(r.id) {
		t.Errorf("_meta[%s] = %v, want the listen request id %d", metaSubscription, got, r.id)
	}
	if got := e.readText(t, uri); got != "second version, longer" {
		t.Errorf("reading after the edit: %q", got)
	}

	// Same size, new content, a later modification time: still a change.
	time.Sleep(10 * time.Millisecond)
	writeFile(t, path, "third version, longer!")
	if m := s.nextMessage(t); m.Method != "notifications/resources/updated" || field(decode(t, m.Params), "uri") != uri {
		t.Fatalf("after the second edit: %+v", m)
	}
	// Removing the file is a change too (reads now say not found).
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if m := s.nextMessage(t); m.Method != "notifications/resources/updated" {
		t.Fatalf("after removing the file: %+v", m)
	}
	notFound(t, e.read(t, uri), uri)
}

// TestFileResourceUpdatedLegacy: a 2025-11-25 session that called
// resources/subscribe is told of the edit; one that did not is not.
func TestFileResourceUpdatedLegacy(t *testing.T) {
	const uri = "file:///watched.txt"
	e, path := fileResourceEnv(t, uri, "v1")
	updated := make(chan string, 8)
	cs := e.connect(t, legacy, newClient(&mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) { updated <- r.Params.URI },
	}), "")
	unsubscribed := make(chan string, 8)
	e.connect(t, legacy, newClient(&mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) { unsubscribed <- r.Params.URI },
	}), "")
	ctx := testCtx(t)
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
		t.Fatalf("resources/subscribe: %v", err)
	}
	writeFile(t, path, "v2, edited")
	select {
	case got := <-updated:
		if got != uri {
			t.Errorf("updated %q, want %q", got, uri)
		}
	case <-ctx.Done():
		t.Fatalf("no notifications/resources/updated within %v", testutil.Patience)
	}
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil || len(res.Contents) != 1 || res.Contents[0].Text != "v2, edited" {
		t.Fatalf("reading after the edit: %+v, %v", res, err)
	}
	if err := cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri}); err != nil {
		t.Fatalf("resources/unsubscribe: %v", err)
	}
	writeFile(t, path, "v3, edited again")
	time.Sleep(10 * fastPoll)
	select {
	case got := <-updated:
		t.Errorf("an update for %s after unsubscribing", got)
	case got := <-unsubscribed:
		t.Errorf("a session that never subscribed was told of %s", got)
	default:
	}
}

// TestFileWatcherLifecycle: the engine polls only while the catalog has
// file resources, and Shutdown leaves no goroutine of its own behind.
func TestFileWatcherLifecycle(t *testing.T) {
	ctx := testCtx(t)
	st, err := storage.Open(filepath.Join(t.TempDir(), "mcptray.db"), mcpcore.Validator{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	path := filepath.Join(t.TempDir(), "f.txt")
	writeFile(t, path, "x")
	res := catalog.Resource{URI: "file:///f.txt", Name: "f", File: path}
	if err := st.PutResource(ctx, res); err != nil {
		t.Fatal(err)
	}
	// The watcher is found by its stack, not by counting goroutines, which
	// other tests' leftovers (HTTP keep-alives, closing stores) disturb.
	watching := func() bool {
		buf := make([]byte, 1<<20)
		return strings.Contains(string(buf[:runtime.Stack(buf, true)]), "(*fileWatcher).run")
	}
	eng, err := mcpcore.New(ctx, st, openSecrets(t, st), mcpcore.Options{Version: "test", Logger: testLogger(t), FilePollInterval: fastPoll})
	if err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "the watcher to run", watching)

	if err := st.DeleteResource(ctx, res.URI); err != nil {
		t.Fatal(err)
	}
	if err := eng.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "the watcher to end with no file left to watch", func() bool { return !watching() })

	if err := st.PutResource(ctx, res); err != nil {
		t.Fatal(err)
	}
	if err := eng.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "the watcher to run again", watching)

	eng.Shutdown()
	if watching() {
		t.Fatal("the watcher still runs after Shutdown (which waits for it)")
	}
	if err := eng.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * fastPoll)
	if watching() {
		t.Fatal("a Sync after Shutdown started the watcher")
	}
}

func TestFolderTemplateCompletion(t *testing.T) {
	base := t.TempDir()
	notes := filepath.Join(base, "notes")
	outside := filepath.Join(base, "outside")
	for _, d := range []string{notes, outside, filepath.Join(notes, "sub", "deeper"), filepath.Join(notes, "many")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"alpha.txt", "Alpine.md", "beta.txt", ".hidden", "sub/inner.txt", "sub/deeper/x.txt"} {
		writeFile(t, filepath.Join(notes, filepath.FromSlash(f)), f)
	}
	writeFile(t, filepath.Join(outside, "secret.txt"), "outside")
	for i := range 120 {
		writeFile(t, filepath.Join(notes, "many", fmt.Sprintf("f%03d.txt", i)), "")
	}
	links := map[string]string{
		"out-dir":     outside,
		"out-file":    filepath.Join(outside, "secret.txt"),
		"dangling":    filepath.Join(notes, "nothing-here"),
		"alias.txt":   "alpha.txt", // relative links inside the folder are followed
		"sub-alias":   "sub",
		"sub/up-link": base,
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(notes, filepath.FromSlash(name))); err != nil {
			t.Skipf("cannot make a symlink here: %v", err)
		}
	}
	const tmpl = "file:///notes/{path}"
	e := newEnv(t, envOptions{extra: &catalog.Catalog{ResourceTemplates: []catalog.ResourceTemplate{
		{URITemplate: tmpl, Name: "notes", Folder: notes},
	}}})

	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			cs := e.connect(t, era, nil, "")
			complete := func(value string) mcp.CompletionResultDetails {
				t.Helper()
				res, err := cs.Complete(testCtx(t), &mcp.CompleteParams{
					Ref:      &mcp.CompleteReference{Type: "ref/resource", URI: tmpl},
					Argument: mcp.CompleteParamsArgument{Name: "path", Value: value},
				})
				if err != nil {
					t.Fatalf("completing %q: %v", value, err)
				}
				return res.Completion
			}
			for _, c := range []struct {
				value string
				want  []string
			}{
				{"", []string{"Alpine.md", "alias.txt", "alpha.txt", "beta.txt", "many/", "sub-alias/", "sub/"}},
				{"al", []string{"Alpine.md", "alias.txt", "alpha.txt"}},
				{"AL", []string{"Alpine.md", "alias.txt", "alpha.txt"}},
				{"sub", []string{"sub-alias/", "sub/"}},
				{"sub/", []string{"sub/deeper/", "sub/inner.txt"}},
				{"sub/in", []string{"sub/inner.txt"}},
				{"sub/deeper/", []string{"sub/deeper/x.txt"}},
				{"sub-alias/", []string{"sub-alias/deeper/", "sub-alias/inner.txt"}},
				{".h", []string{".hidden"}},
				{"/be", []string{"/beta.txt"}},
				{"zzz", nil},
				// Traversal attempts and links out of the folder list nothing.
				{"../", nil},
				{"../out", nil},
				{"sub/../../", nil},
				{"sub/../", nil},
				{"./", nil},
				{"out-dir/", nil},
				{"sub/up-link/", nil},
				{"sub/up-link/outside/", nil},
				{"//etc/", nil},
				{"/etc/", nil},
				{"out", nil},
				{"dang", nil},
			} {
				got := complete(c.value)
				if !slices.Equal(got.Values, c.want) && !(len(got.Values) == 0 && len(c.want) == 0) {
					t.Errorf("completing %q: %v, want %v", c.value, got.Values, c.want)
				}
				for _, v := range got.Values {
					if strings.Contains(v, "secret") || strings.Contains(v, "outside") {
						t.Errorf("completing %q offered %q, outside the folder", c.value, v)
					}
				}
			}
			got := complete("many/f")
			if len(got.Values) != 100 || got.Total != 120 || !got.HasMore || got.Values[0] != "many/f000.txt" {
				t.Errorf("completing a folder of 120 files: %d values (first %q), total %d, hasMore %v; want 100, total 120, hasMore",
					len(got.Values), got.Values[0], got.Total, got.HasMore)
			}
		})
	}

	// A completed nested path reads.
	if got := e.readText(t, "file:///notes/sub%2Finner.txt"); got != "sub/inner.txt" {
		t.Errorf("reading a nested completion: %q", got)
	}
}

func TestHTTPAndCommandResources(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n-not-really-an-image")
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/doc":
			w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
			fmt.Fprint(w, "# Hello from the API")
		case "/img":
			w.Header().Set("Content-Type", "image/png")
			_, _ = w.Write(png)
		default:
			http.Error(w, "no such document here", http.StatusNotFound)
		}
	}))
	t.Cleanup(api.Close)
	if !strings.HasPrefix(api.URL, "http://127.0.0.1:") {
		t.Fatalf("the test API is not on 127.0.0.1: %s", api.URL)
	}
	e := newEnv(t, envOptions{extra: &catalog.Catalog{Resources: []catalog.Resource{
		{URI: "test://http/doc", Name: "doc", HTTP: &catalog.HTTP{URL: catalog.Template(api.URL + "/doc")}},
		{URI: "test://http/img", Name: "img", HTTP: &catalog.HTTP{URL: catalog.Template(api.URL + "/img")}},
		{URI: "test://http/missing", Name: "missing", HTTP: &catalog.HTTP{URL: catalog.Template(api.URL + "/missing")}},
		{URI: "test://cmd/out", Name: "out", MimeType: "text/csv", Command: &catalog.Command{Argv: []catalog.Template{"printf", "a,b\n1,2\n"}}},
		{URI: "test://cmd/fails", Name: "fails", Command: &catalog.Command{Argv: []catalog.Template{"sh", "-c", "echo the disk is on fire >&2; exit 4"}}},
	}}})

	type contents struct {
		Contents []struct {
			URI      string `json:"uri"`
			MIMEType string `json:"mimeType"`
			Text     string `json:"text"`
			Blob     string `json:"blob"`
		} `json:"contents"`
	}
	read := func(uri string) contents {
		t.Helper()
		var c contents
		e.read(t, uri).result(t, &c)
		if len(c.Contents) != 1 || c.Contents[0].URI != uri {
			t.Fatalf("reading %s: %+v", uri, c)
		}
		return c
	}

	t.Run("http text", func(t *testing.T) {
		c := read("test://http/doc").Contents[0]
		if c.Text != "# Hello from the API" || c.MIMEType != "text/markdown" || c.Blob != "" {
			t.Errorf("got %+v", c)
		}
	})
	t.Run("http blob", func(t *testing.T) {
		c := read("test://http/img").Contents[0]
		if c.MIMEType != "image/png" || c.Text != "" || c.Blob != base64.StdEncoding.EncodeToString(png) {
			t.Errorf("got %+v", c)
		}
	})
	t.Run("http 404", func(t *testing.T) {
		re := e.read(t, "test://http/missing").wantError(t, http.StatusOK, -32603)
		for _, want := range []string{"test://http/missing", "404", "no such document here"} {
			if !strings.Contains(re.Message, want) {
				t.Errorf("error %q does not mention %q", re.Message, want)
			}
		}
		if got := field(decode(t, re.Data), "httpStatus"); got != 404.0 {
			t.Errorf("error data.httpStatus = %v, want 404", got)
		}
	})
	t.Run("command", func(t *testing.T) {
		c := read("test://cmd/out").Contents[0]
		if c.Text != "a,b\n1,2\n" || c.MIMEType != "text/csv" {
			t.Errorf("got %+v", c)
		}
	})
	t.Run("command fails", func(t *testing.T) {
		re := e.read(t, "test://cmd/fails").wantError(t, http.StatusOK, -32603)
		for _, want := range []string{"test://cmd/fails", "exit status 4", "the disk is on fire"} {
			if !strings.Contains(re.Message, want) {
				t.Errorf("error %q does not mention %q", re.Message, want)
			}
		}
	})
	t.Run(legacy, func(t *testing.T) {
		cs := e.connect(t, legacy, nil, "")
		res, err := cs.ReadResource(testCtx(t), &mcp.ReadResourceParams{URI: "test://cmd/out"})
		if err != nil || len(res.Contents) != 1 || res.Contents[0].Text != "a,b\n1,2\n" {
			t.Errorf("reading the command resource in a legacy session: %+v, %v", res, err)
		}
	})
}

// TestFloodingCommandLeavesServerResponsive: a tool printing 100 MB gets a
// capped result, and other calls are served while it runs.
func TestFloodingCommandLeavesServerResponsive(t *testing.T) {
	testutil.Long(t, "floods the server with output")
	e := newEnv(t, envOptions{extra: &catalog.Catalog{Tools: []catalog.Tool{{
		Name: "flood", Description: "prints 100 MB, then lingers",
		Action: catalog.Action{Command: &catalog.Command{Argv: []catalog.Template{"sh", "-c", "head -c 100000000 /dev/zero; sleep 1"}}},
	}}}})
	done := make(chan *http.Response, 1)
	req := e.modern("tools/call", map[string]any{"name": "flood", "arguments": map[string]any{}})
	go func() {
		resp, err := http.DefaultClient.Do(req.Request)
		if err != nil {
			resp = nil
		}
		done <- resp
	}()
	for range 5 {
		if got := completed(t, toolCall{name: "test_simple_text"}.send(t, e)); got == "" {
			t.Fatal("a call made during the flood came back empty")
		}
	}
	var resp *http.Response
	select {
	case resp = <-done:
	case <-testCtx(t).Done():
		t.Fatal("the flooding call never answered")
	}
	if resp == nil {
		t.Fatal("the flooding call failed")
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(body), "[output truncated: kept 1048576 of 100000000 bytes]") || len(body) > 8<<20 {
		t.Errorf("flood result (%d bytes) is not the capped output: %.200s", len(body), body)
	}
}
