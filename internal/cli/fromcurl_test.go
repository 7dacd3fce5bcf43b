package cli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/zalando/go-keyring"

	"github.com/mcptray/mcptray/internal/daemon"
	"github.com/mcptray/mcptray/internal/paths"
	"github.com/mcptray/mcptray/internal/testutil"
	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/storage"
)

// serveDB runs mcptray's server (internal/daemon) on db until the test
// ends.
func serveDB(t *testing.T, db string) *daemon.Daemon {
	t.Helper()
	d, err := daemon.Start(context.Background(), daemon.Config{DB: db, Addr: "127.0.0.1:0", NoAuth: true, Version: "test",
		EndpointFile: paths.Layout{Dir: t.TempDir()}.EndpointFile()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Stop)
	return d
}

// callTool calls a tool with the official go-sdk client; it fails the
// test on a tool error.
func callTool(t *testing.T, url, name string, args map[string]any) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "cli-test", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	if res.IsError {
		t.Fatalf("%s: tool error %s", name, b.String())
	}
	return b.String()
}

// withoutKeyring makes every keyring call fail until the test ends, as on
// a Linux without a Secret Service: secrets go to the fallback file.
func withoutKeyring(t *testing.T) {
	t.Helper()
	keyring.MockInitWithError(errors.New(`exec: "dbus-launch": executable file not found in $PATH`))
	t.Cleanup(keyring.MockInit)
}

// TestFromCurlAcceptance is the acceptance check: the definition
// and the export hold no token, the secret store (here the fallback file,
// with no keyring) does, and a call sends it to the API.
func TestFromCurlAcceptance(t *testing.T) {
	withoutKeyring(t)
	api := testutil.NewAPI(t)
	db := filepath.Join(t.TempDir(), "mcptray.db")
	cmd := `curl -H "Authorization: Bearer abc123" "` + api.URL + `/v1/weather?city=Paris"` + "\n"
	var out, errOut bytes.Buffer
	err := Run(context.Background(), []string{"tool", "from-curl", "weather", "--secret-name", "weather_token", "--yes", "-", "--db", db},
		Env{Stdin: strings.NewReader(cmd), Stdout: &out, Stderr: &errOut})
	if err != nil {
		t.Fatalf("from-curl: %v\n%s", err, errOut.String())
	}
	if !strings.Contains(out.String(), "tool weather created: GET "+api.URL+"/v1/weather") || !strings.Contains(out.String(), "secret weather_token stored") {
		t.Errorf("output:\n%s", out.String())
	}
	if !strings.Contains(errOut.String(), "no keyring service reachable") {
		t.Errorf("no warning about the keyring: %q", errOut.String())
	}
	export, err := run(t, db, "export")
	if err != nil || !strings.Contains(export, `Bearer {{secret \"weather_token\"}}`) || strings.Contains(export, "abc123") {
		t.Fatalf("export (%v):\n%s", err, export)
	}
	for _, f := range []string{db, db + "-wal"} {
		if b, err := os.ReadFile(f); err == nil && bytes.Contains(b, []byte("abc123")) {
			t.Errorf("%s holds the token", f)
		}
	}
	if b, err := os.ReadFile(paths.SecretsFile(db)); err != nil || !bytes.Contains(b, []byte("abc123")) {
		t.Errorf("the fallback secrets file lacks the token (%v)", err)
	}

	d := serveDB(t, db)
	if got := callTool(t, d.URL(), "weather", nil); got != testutil.APIReply {
		t.Errorf("the call returned %q", got)
	}
	r := api.Last(t)
	if r.Method != "GET" || r.Path != "/v1/weather" || r.Query().Get("city") != "Paris" || r.Header.Get("Authorization") != "Bearer abc123" {
		t.Errorf("the API got %s %s Authorization=%q", r.Method, r.Path, r.Header.Get("Authorization"))
	}
}

func TestFromCurlAsksForSecretNamesAndRefusesClashes(t *testing.T) {
	api := testutil.NewAPI(t)
	db := filepath.Join(t.TempDir(), "mcptray.db")
	cmd := `curl -H 'X-Api-Key: KEY-1' '` + api.URL + `/v2/items/42?q=tea&access_token=TOK'`
	fromCurlRun := func(tty openTTY, args ...string) (string, error) {
		var out bytes.Buffer
		err := fromCurl(context.Background(), append(args, "--db", db), Env{Stdin: strings.NewReader(cmd), Stdout: &out, Stderr: &out}, tty)
		return out.String(), err
	}
	noTTY := func() (io.ReadWriteCloser, error) { return nil, errors.New("no terminal") }

	// Neither --yes nor names nor a terminal: the proposal, nothing written.
	_, err := fromCurlRun(noTTY, "items", "-")
	if err == nil || !strings.Contains(err.Error(), "2 credentials") || !strings.Contains(err.Error(), `the query parameter "access_token" → secret items_access_token`) ||
		!strings.Contains(err.Error(), "nothing was written") {
		t.Fatalf("without confirmation: %v", err)
	}
	if out, _ := run(t, db, "export"); strings.Contains(out, "items") {
		t.Fatal("a tool was written without confirmation")
	}
	if _, err := fromCurlRun(noTTY, "items", "--secret-name", "only_one", "-"); err == nil || !strings.Contains(err.Error(), "2 credentials, and --secret-name was given 1 time: ") {
		t.Errorf("one name for two credentials: %v", err)
	}
	if _, err := fromCurlRun(noTTY, "items", "--param", "query.nope", "--yes", "-"); err == nil || !strings.Contains(err.Error(), `no value "query.nope"`) {
		t.Errorf("an unknown --param: %v", err)
	}
	var ue usageError
	if _, err := fromCurlRun(noTTY, "items", "curl", "https://x"); !errors.As(err, &ue) || !strings.Contains(err.Error(), "stdin") {
		t.Errorf("the command on the command line: %v", err)
	}

	// On a terminal, each name is asked; Enter keeps the proposal.
	var asked bytes.Buffer
	tty := func() (io.ReadWriteCloser, error) {
		return fakeTTY{strings.NewReader("my_key\n\n"), &asked}, nil
	}
	out, err := fromCurlRun(tty, "items", "--param", "path.3=item", "--param", "query.q", "-")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(asked.String(), `Secret name for the query parameter "access_token" [items_access_token]: `) ||
		!strings.Contains(asked.String(), `Secret name for the header "X-Api-Key" [items_x_api_key]: `) ||
		!strings.Contains(out, "secret my_key stored") || !strings.Contains(out, "secret items_x_api_key stored") {
		t.Errorf("asked:\n%s\nout:\n%s", asked.String(), out)
	}
	d := serveDB(t, db)
	callTool(t, d.URL(), "items", map[string]any{"item": 7, "q": "coffee"})
	r := api.Last(t)
	if r.Path != "/v2/items/7" || r.Query().Get("q") != "coffee" || r.Query().Get("access_token") != "TOK" || r.Header.Get("X-Api-Key") != "KEY-1" {
		t.Errorf("the API got %s?%s with X-Api-Key %q", r.Path, r.RawQuery, r.Header.Get("X-Api-Key"))
	}

	// The same name again is refused, and so is a secret name that holds
	// another value; neither writes anything.
	if _, err := fromCurlRun(noTTY, "items", "--yes", "-"); err == nil || !strings.Contains(err.Error(), "already has a tool of this name") {
		t.Errorf("a second tool named items: %v", err)
	}
	cmd = strings.Replace(cmd, "KEY-1", "KEY-2", 1)
	if _, err := fromCurlRun(noTTY, "items2", "--secret-name", "other", "--secret-name", "items_x_api_key", "-"); err == nil ||
		!strings.Contains(err.Error(), "items_x_api_key already exists with another value") {
		t.Errorf("overwriting a secret: %v", err)
	}
	st, err := storage.Open(db, mcpcore.Validator{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sec, err := st.OpenSecrets(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := sec.Secret(context.Background(), "items_x_api_key"); v != "KEY-1" {
		t.Errorf("items_x_api_key = %q", v)
	}
	if _, err := sec.Secret(context.Background(), "other"); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("the refused command stored a secret: %v", err)
	}
}

// fakeTTY is a terminal whose person types what r holds.
type fakeTTY struct {
	io.Reader
	w io.Writer
}

func (f fakeTTY) Write(p []byte) (int, error) { return f.w.Write(p) }
func (f fakeTTY) Close() error                { return nil }
