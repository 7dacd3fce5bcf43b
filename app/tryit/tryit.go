// Package tryit runs catalog tools through mcptray's own MCP endpoint, the
// way an AI client would, for the tool editor's "Try it": over HTTP, with a
// client token of its own, through the official go-sdk client. It records
// the raw JSON-RPC exchange of each call so a person can see exactly what a
// client sends and receives.
//
// It knows nothing of the GUI: the app adapts a Trier to its ToolTrier.
package tryit

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptray/mcptray/storage"
)

// TokenName is the client token a Trier provisions for itself. It sees all
// tools; its secret lives only in the Trier's memory.
const TokenName = "mcptray-app"

// ClientName is the clientInfo name of the Trier's session, which the
// activity log shows for Try it calls.
const ClientName = "mcptray (Try it)"

// Result is one call as Try it shows it.
type Result struct {
	// Text is the result's text content, IsError whether the tool reported
	// an error.
	Text    string
	IsError bool
	// Request and Response are the JSON-RPC messages of the tools/call
	// exchange, indented; Response is empty when none came back.
	Request, Response string
}

// Trier calls tools on the running server. It keeps one client session
// open across calls and opens another when the server moved or the
// session broke. Calls are serialized.
type Trier struct {
	url    func() string
	secret string
	rec    *recorder
	client *mcp.Client

	// closing ends when Close is called: a call still running (a long
	// command, an approval nobody answers) is cancelled then, so Close
	// never waits for it.
	closing    context.Context
	closeCalls context.CancelFunc

	mu      sync.Mutex
	session *mcp.ClientSession
	// sessionURL is the endpoint session is connected to.
	sessionURL string
}

// New provisions the Trier's own client token in store (revoking an older
// one of the same name, whose secret is gone with the process that made
// it) and returns a Trier calling the endpoint url returns; url is asked
// again before every call, so a server that changed port is followed.
func New(store *storage.Store, url func() string) (*Trier, error) {
	secret, err := store.ReplaceToken(context.Background(), TokenName)
	if err != nil {
		return nil, fmt.Errorf("try it: its token: %w", err)
	}
	return newTrier(secret, url), nil
}

func newTrier(secret string, url func() string) *Trier {
	t := &Trier{url: url, secret: secret, rec: &recorder{}}
	t.closing, t.closeCalls = context.WithCancel(context.Background())
	t.client = mcp.NewClient(&mcp.Implementation{Name: ClientName, Version: "1"}, nil)
	return t
}

// TryTool calls the tool name with args. A call the server answers with a
// JSON-RPC error returns that error along with the Result holding the raw
// exchange; a tool that fails returns a Result with IsError set.
func (t *Trier) TryTool(ctx context.Context, name string, args map[string]any) (Result, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(t.closing, cancel)()
	t.mu.Lock()
	defer t.mu.Unlock()
	if args == nil {
		args = map[string]any{}
	}
	fresh, err := t.connect(ctx)
	if err != nil {
		return Result{}, err
	}
	t.rec.reset()
	res, err := t.session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil && !fresh && !isRPCError(err) && ctx.Err() == nil && (!t.rec.sent() || errors.Is(err, mcp.ErrSessionMissing)) {
		// The kept session broke before the call went out, or the server
		// no longer knows it (it restarted): the tool did not run. Open a
		// new session and send the call once.
		t.drop()
		if _, err := t.connect(ctx); err != nil {
			return Result{}, err
		}
		t.rec.reset()
		res, err = t.session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	}
	out := Result{}
	out.Request, out.Response = t.rec.exchange()
	if err != nil {
		if isRPCError(err) {
			return out, fmt.Errorf("calling %q: %w", name, err)
		}
		// Whatever state the session is in, the next call starts over.
		t.drop()
		return out, explain(t.sessionURL, fmt.Errorf("calling %q: %w", name, err))
	}
	out.Text, out.IsError = resultText(res), res.IsError
	return out, nil
}

// Close cancels a call still running and ends the Trier's session.
func (t *Trier) Close() error {
	t.closeCalls()
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.session == nil {
		return nil
	}
	err := t.session.Close()
	t.session = nil
	return err
}

// connect opens a session unless one is open on the current endpoint; it
// reports whether it opened one.
func (t *Trier) connect(ctx context.Context) (bool, error) {
	url := t.url()
	if t.session != nil && t.sessionURL == url {
		return false, nil
	}
	t.drop()
	transport := &mcp.StreamableClientTransport{
		Endpoint:             url,
		HTTPClient:           &http.Client{Transport: &authTransport{secret: t.secret, rec: t.rec, next: http.DefaultTransport}},
		MaxRetries:           -1,
		DisableStandaloneSSE: true,
	}
	s, err := t.client.Connect(ctx, transport, nil)
	if err != nil {
		return false, explain(url, fmt.Errorf("connecting to %s: %w", url, err))
	}
	t.session, t.sessionURL = s, url
	return true, nil
}

// drop closes the session, if any; closing a broken session may fail,
// which changes nothing.
func (t *Trier) drop() {
	if t.session != nil {
		_ = t.session.Close()
		t.session = nil
	}
}

// explain says in words when the server refused the Trier's token: the
// go-sdk client reports only the HTTP status.
func explain(url string, err error) error {
	if strings.Contains(err.Error(), http.StatusText(http.StatusUnauthorized)) {
		return fmt.Errorf("the server at %s refused mcptray's own client token (was %q revoked in Settings? reopen mcptray to get a new one): %w", url, TokenName, err)
	}
	return err
}

func isRPCError(err error) bool {
	var we *jsonrpc.Error
	return errors.As(err, &we)
}

// resultText joins the result's content as text; blocks that are not text
// are named, so a person sees they came back.
func resultText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			parts = append(parts, c.Text)
		case *mcp.ImageContent:
			parts = append(parts, fmt.Sprintf("[image, %s, %d bytes]", c.MIMEType, len(c.Data)))
		case *mcp.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio, %s, %d bytes]", c.MIMEType, len(c.Data)))
		case *mcp.ResourceLink:
			parts = append(parts, fmt.Sprintf("[resource link %s]", c.URI))
		case *mcp.EmbeddedResource:
			if c.Resource != nil && c.Resource.Text != "" {
				parts = append(parts, c.Resource.Text)
			} else if c.Resource != nil {
				parts = append(parts, fmt.Sprintf("[embedded resource %s]", c.Resource.URI))
			}
		}
	}
	return strings.Join(parts, "\n")
}
