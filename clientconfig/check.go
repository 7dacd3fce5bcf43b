package clientconfig

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	neturl "net/url"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// CheckTimeout bounds a Check: the stdio shim may have to start mcptray
// (10 s at most) before it answers.
const CheckTimeout = 30 * time.Second

// CheckError is an entry that does not work: what went wrong, as exactly
// as the client would see it, and what to do about it.
type CheckError struct {
	Problem string
	Fix     string
}

func (e *CheckError) Error() string { return e.Problem + ". " + e.Fix }

// Checked is an entry that works.
type Checked struct {
	// Target is what was run or called: the command line, or the URL.
	Target string
	// Tools is how many tools mcptray listed to it.
	Tools int
	// Version is the version of the mcptray that answered ("" when it did
	// not say).
	Version string
}

// String says what answered: "http://127.0.0.1:8731/mcp answered with
// 3 tools".
func (c Checked) String() string {
	return fmt.Sprintf("%s answered with %s", c.Target, count(c.Tools, "tool", "tools"))
}

// launch is an entry as its client runs it.
type launch struct {
	command string
	args    []string
	env     map[string]string
	url     string
	headers map[string]string
}

// Check runs the entry named name of the config file at path exactly as
// client c would: the command with its arguments and environment (added
// to environ, the environment the client passes on), or the URL with its
// headers, environment references expanded as the client expands them. It
// connects with the official MCP Go SDK and lists the tools. A failure is
// a *CheckError. It starts processes and touches the network.
func Check(ctx context.Context, c Client, path, name string, environ []string) (Checked, error) {
	if name == "" {
		name = DefaultName
	}
	c = ForFile(c, path)
	install := fmt.Sprintf("mcptray config %s --install", c.ID)
	content, err := readConfig(path)
	if err != nil {
		return Checked{}, &CheckError{err.Error(), "Check the file's permissions."}
	}
	if content == nil {
		return Checked{}, &CheckError{path + " does not exist", "Install the entry first: " + install + "."}
	}
	entries, err := entryNames(c, content)
	if err != nil {
		return Checked{}, &CheckError{fmt.Sprintf("%s does not parse (%v), so %s cannot read it either", path, err, c.Name), "Fix the file, or move it away and run " + install + "."}
	}
	e, ok := entries[name]
	if !ok {
		return Checked{}, &CheckError{fmt.Sprintf("%s has no server named %q", path, name), "Install it: " + install + "."}
	}
	l, err := launchOf(c, e, envMap(environ))
	if err != nil {
		return Checked{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, CheckTimeout)
	defer cancel()
	if l.url != "" {
		return checkHTTP(ctx, c, l)
	}
	return checkStdio(ctx, c, l, environ)
}

// envMap is environ as a map.
func envMap(environ []string) map[string]string {
	m := map[string]string{}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return m
}

// str reads a string field of a decoded entry.
func str(e map[string]any, keys ...string) string {
	for _, k := range keys {
		if s, ok := e[k].(string); ok && s != "" {
			return s
		}
	}
	return ""
}

// strMap reads a string-to-string field of a decoded entry.
func strMap(e map[string]any, key string) map[string]string {
	out := map[string]string{}
	m, _ := e[key].(map[string]any)
	for k, v := range m {
		if s, ok := v.(string); ok {
			out[k] = s
		}
	}
	return out
}

// launchOf reads what client c would run from its entry e, expanding the
// environment references it would expand from vars.
func launchOf(c Client, e map[string]any, vars map[string]string) (launch, error) {
	if off, _ := e["disabled"].(bool); off {
		return launch{}, &CheckError{"the entry is turned off (\"disabled\": true), so " + c.Name + " does not start it", "Turn it on in " + c.Name + ", or remove the line."}
	}
	if on, ok := e["enabled"].(bool); ok && !on {
		return launch{}, &CheckError{"the entry is turned off (enabled: false), so " + c.Name + " does not start it", "Turn it on in " + c.Name + "."}
	}
	var l launch
	var err error
	x := func(s string) string {
		if err != nil {
			return ""
		}
		var out string
		out, err = expand(c, s, vars)
		return out
	}
	if l.url = x(str(e, "url", "serverUrl", "httpUrl", "uri")); l.url != "" {
		l.headers = map[string]string{}
		for _, key := range []string{"headers", "http_headers"} {
			for k, v := range strMap(e, key) {
				l.headers[k] = x(v)
			}
		}
		if v := str(e, "bearer_token_env_var"); v != "" {
			l.headers["Authorization"] = "Bearer " + x("${"+v+"}")
		}
		return l, err
	}
	if l.command = x(str(e, "command", "cmd")); l.command == "" {
		return launch{}, &CheckError{"the entry has neither a command nor a URL", fmt.Sprintf("Install it again: mcptray config %s --install.", c.ID)}
	}
	args, _ := e["args"].([]any)
	for _, a := range args {
		if s, ok := a.(string); ok {
			l.args = append(l.args, x(s))
		}
	}
	l.env = map[string]string{}
	for _, key := range []string{"env", "envs"} {
		for k, v := range strMap(e, key) {
			l.env[k] = x(v)
		}
	}
	return l, err
}

// envRef matches the environment references clients expand: ${VAR},
// ${VAR:-default}, ${env:VAR}, ${input:ID} (VS Code) and $VAR.
var envRef = regexp.MustCompile(`\$\{(env:|input:)?([A-Za-z_][A-Za-z0-9_.-]*)(:-[^}]*)?\}|\$([A-Za-z_][A-Za-z0-9_]*)`)

// expand replaces the environment references of s with their values in
// vars; a missing variable is a CheckError that says how to set it.
func expand(c Client, s string, vars map[string]string) (string, error) {
	var err error
	out := envRef.ReplaceAllStringFunc(s, func(ref string) string {
		m := envRef.FindStringSubmatch(ref)
		if m[1] == "input:" {
			err = &CheckError{"the token is one VS Code asks for and keeps in its secret storage, where mcptray cannot read it",
				"Check the connection from VS Code: run \"MCP: List Servers\" and start the server there."}
			return ref
		}
		if m[4] != "" && c.ID != "gemini" {
			return ref // only Gemini CLI expands a bare $VAR
		}
		name := m[2] + m[4]
		if v, ok := vars[name]; ok {
			return v
		}
		if m[3] != "" {
			return strings.TrimPrefix(m[3], ":-")
		}
		if err == nil {
			fix := fmt.Sprintf("Set it where you start %s: %s", c.Name, setEnvCommand(name, "<value>"))
			if strings.HasPrefix(name, TokenEnvVar) {
				fix = fmt.Sprintf("Set it where you start %s, to the token `mcptray config %s --http --install` showed (installing again makes a new one): %s",
					c.Name, c.ID, setEnvCommand(name, "<token>"))
			}
			err = &CheckError{fmt.Sprintf("the entry reads %s from the environment, and it is not set where this runs", name), fix}
		}
		return ref
	})
	return out, err
}

// clientInfo is who the check says it is.
var clientInfo = &mcp.Implementation{Name: "mcptray-check", Version: "1"}

func listTools(ctx context.Context, t mcp.Transport) (Checked, error) {
	session, err := mcp.NewClient(clientInfo, nil).Connect(ctx, t, nil)
	if err != nil {
		return Checked{}, err
	}
	defer session.Close()
	var c Checked
	if res := session.InitializeResult(); res != nil && res.ServerInfo != nil {
		c.Version = res.ServerInfo.Version
	}
	for _, err := range session.Tools(ctx, nil) {
		if err != nil {
			return Checked{}, err
		}
		c.Tools++
	}
	return c, nil
}

func checkStdio(ctx context.Context, c Client, l launch, environ []string) (Checked, error) {
	target := strings.Join(append([]string{l.command}, l.args...), " ")
	reinstall := fmt.Sprintf("Install the entry again from the installed mcptray: mcptray config %s --install.", c.ID)
	if !strings.ContainsAny(l.command, `/\`) {
		// A name alone, as a shared file writes the shim: the client looks
		// it up on its PATH, which is this process's when started from here.
		if _, err := exec.LookPath(l.command); err != nil {
			return Checked{}, &CheckError{fmt.Sprintf("%s is not on the PATH here, so %s cannot start it", l.command, c.Name),
				fmt.Sprintf("Install mcptray, with the folder holding %s on your PATH, then start %s from there (the entry names the program without its folder, as a file shared with a project must).", l.command, c.Name)}
		}
	} else if st, err := os.Stat(l.command); err != nil || st.IsDir() {
		return Checked{}, &CheckError{fmt.Sprintf("the command %s does not exist (mcptray moved, was uninstalled, or its build folder was cleaned)", l.command), reinstall}
	}
	cmd := exec.CommandContext(ctx, l.command, l.args...)
	cmd.Env = append([]string(nil), environ...)
	keys := make([]string, 0, len(l.env))
	for k := range l.env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		cmd.Env = append(cmd.Env, k+"="+l.env[k])
	}
	stderr := &tail{}
	cmd.Stderr = stderr
	got, err := listTools(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second})
	if err != nil {
		msg := fmt.Sprintf("%s did not answer as an MCP server (%v)", target, err)
		if s := stderr.String(); s != "" {
			msg += "; it said: " + s
		}
		fix := "Run the command yourself to see what it says; if mcptray is not installed there any more, " + reinstall
		if errors.Is(err, syscall.EACCES) {
			fix = "Make it executable (chmod +x), or " + reinstall
		}
		return Checked{}, &CheckError{msg, fix}
	}
	got.Target = target
	return got, nil
}

// tail keeps the last lines a process wrote on stderr.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2048 {
		t.buf = t.buf[len(t.buf)-2048:]
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.Join(strings.Fields(string(bytes.TrimSpace(t.buf))), " ")
}

// headerTransport sends the entry's headers and remembers the last
// refusal the server answered with.
type headerTransport struct {
	headers map[string]string
	next    http.RoundTripper

	mu     sync.Mutex
	status int
	auth   string
	// why is the message of a 503's JSON-RPC error: go-sdk's client
	// reports only "Service Unavailable".
	why string
}

func (h *headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h.headers {
		r.Header.Set(k, v)
	}
	resp, err := h.next.RoundTrip(r)
	if err == nil && resp.StatusCode >= 400 && r.Method == http.MethodPost {
		why := ""
		if resp.StatusCode == http.StatusServiceUnavailable {
			why, resp.Body = peekErrorMessage(resp.Body)
		}
		h.mu.Lock()
		h.status, h.auth, h.why = resp.StatusCode, resp.Header.Get("WWW-Authenticate"), why
		h.mu.Unlock()
	}
	return resp, err
}

// peekErrorMessage reads the message of the JSON-RPC error in body, if its
// first 4 KiB are one, and gives back a body that still reads whole.
func peekErrorMessage(body io.ReadCloser) (string, io.ReadCloser) {
	head, _ := io.ReadAll(io.LimitReader(body, 4<<10))
	rest := struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(head), body), body}
	var m struct {
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(head, &m) != nil || m.Error == nil {
		return "", rest
	}
	return m.Error.Message, rest
}

func checkHTTP(ctx context.Context, c Client, l launch) (Checked, error) {
	ht := &headerTransport{headers: l.headers, next: http.DefaultTransport}
	got, err := listTools(ctx, &mcp.StreamableClientTransport{Endpoint: l.url, HTTPClient: &http.Client{Transport: ht},
		MaxRetries: -1, DisableStandaloneSSE: true})
	if err == nil {
		got.Target = l.url
		return got, nil
	}
	reinstall := fmt.Sprintf("mcptray config %s --http --install", c.ID)
	ht.mu.Lock()
	status, auth, why := ht.status, ht.auth, ht.why
	ht.mu.Unlock()
	switch {
	case status == http.StatusUnauthorized && l.headers["Authorization"] == "":
		return Checked{}, &CheckError{"mcptray asked for a token (401) and the entry sends none", "Install the entry again: " + reinstall + "."}
	case status == http.StatusUnauthorized:
		why := "it is unknown or was revoked"
		if strings.Contains(auth, `error="invalid_token"`) {
			why = "invalid_token: unknown or revoked, or made for another mcptray database"
		}
		return Checked{}, &CheckError{fmt.Sprintf("mcptray at %s refused the entry's token (401, %s)", l.url, why),
			"Install the entry again to give it a new token: " + reinstall + "."}
	case status == http.StatusNotFound:
		return Checked{}, &CheckError{fmt.Sprintf("%s answered 404: nothing serves MCP at that path", l.url), "Install the entry again: " + reinstall + "."}
	case status == http.StatusForbidden:
		return Checked{}, &CheckError{fmt.Sprintf("mcptray at %s refused the request (403: its Host or Origin is not allowed)", l.url), "Use the URL mcptray prints at start (127.0.0.1 or localhost): " + reinstall + "."}
	case status == http.StatusServiceUnavailable && why != "":
		// Its words say what happened and what to do (its database was
		// deleted, say).
		return Checked{}, &CheckError{"mcptray does not serve (503)", why}
	case status == http.StatusServiceUnavailable:
		return Checked{}, &CheckError{"mcptray is paused (503)", "Resume serving from the tray icon or the Server menu."}
	case status != 0:
		return Checked{}, &CheckError{fmt.Sprintf("%s answered HTTP %d (%v)", l.url, status, err), "See mcptray's Activity tab for the request."}
	case errors.Is(err, syscall.ECONNREFUSED) || strings.Contains(err.Error(), "connection refused"):
		return Checked{}, &CheckError{fmt.Sprintf("nothing answers at %s: mcptray is not running there", l.url),
			"Start mcptray (or `mcptray serve`); if it now runs on another port, install the entry again: " + reinstall + "."}
	}
	return Checked{}, &CheckError{fmt.Sprintf("%s did not answer as an MCP server (%v)", l.url, err), "Is mcptray running? Start it, then check again."}
}

// StableURL checks that url, where a server answers now, is where it will
// answer after a restart: on port, its port setting. A server started
// with --addr (port 0 picks a free one) answers elsewhere for that run
// only, and an entry naming it would break at the next start.
func StableURL(url string, port int) error {
	u, err := neturl.Parse(url)
	if err != nil {
		return fmt.Errorf("the server's URL %q: %w", url, err)
	}
	if u.Port() != strconv.Itoa(port) {
		return fmt.Errorf("mcptray answers at %s on a port of this run only (it was started with --addr; its port setting is %d): an entry naming it would break when it restarts — "+
			"start mcptray without --addr, or make that port the setting (mcptray settings set port=%s), then install again", url, port, u.Port())
	}
	return nil
}
