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
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptray/mcptray/internal/atmostonce"
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
	// transport counts what each connection wrote, so a failed call is
	// known to have gone out or not.
	transport *http.Transport

	// closing ends when Close is called: a call still running (a long
	// command, an approval nobody answers) is cancelled then, so Close
	// never waits for it.
	closing    context.Context
	closeCalls context.CancelFunc

	// answer answers the forms the tool being called asks (elicitation);
	// nil while no call can answer them.
	answer atomic.Pointer[FormAnswerer]

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
	return newTrier(secret, url)
}

func newTrier(secret string, url func() string) (*Trier, error) {
	t := &Trier{url: url, secret: secret, rec: &recorder{}, transport: atmostonce.Wrap(http.DefaultTransport.(*http.Transport))}
	t.closing, t.closeCalls = context.WithCancel(context.Background())
	// Try it is the client: it answers the tool's forms itself, in the
	// panel (TryToolAnswering), as an AI app that can would; and it runs
	// a tool that runs in the background as a task, following it (task.go).
	t.client = mcp.NewClient(&mcp.Implementation{Name: ClientName, Version: "1"},
		&mcp.ClientOptions{ElicitationHandler: t.elicit, Capabilities: clientCapabilities()})
	if err := addTaskMethods(t.client); err != nil {
		return nil, err
	}
	return t, nil
}

// FormRequest is a form a tool asks while Try it calls it.
type FormRequest struct {
	Message string
	// Schema is the form's flat requestedSchema.
	Schema json.RawMessage
}

// FormAnswer is the answer to a FormRequest: Action "accept" (with the
// Content typed), "decline" or "cancel".
type FormAnswer struct {
	Action  string
	Content map[string]any
}

// FormAnswerer answers the forms a call asks; ctx ends when the call does.
type FormAnswerer func(ctx context.Context, req FormRequest) (FormAnswer, error)

// elicit answers an elicitation request of the tool being called.
func (t *Trier) elicit(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	answer := t.answer.Load()
	if answer == nil {
		return &mcp.ElicitResult{Action: "cancel"}, nil
	}
	schema, err := json.Marshal(req.Params.RequestedSchema)
	if err != nil {
		return nil, fmt.Errorf("try it: the form's schema: %w", err)
	}
	a, err := (*answer)(ctx, FormRequest{Message: req.Params.Message, Schema: schema})
	if err != nil {
		return nil, err
	}
	return &mcp.ElicitResult{Action: a.Action, Content: a.Content}, nil
}

// TryToolAnswering is TryTool, the forms the tool asks answered by
// answer (desktop questions still go to the desktop).
func (t *Trier) TryToolAnswering(ctx context.Context, name string, args map[string]any, answer FormAnswerer) (Result, error) {
	return t.TryToolWith(ctx, name, args, CallOptions{Answer: answer})
}

// TryTool calls the tool name with args. A call the server answers with a
// JSON-RPC error returns that error along with the Result holding the raw
// exchange; a tool that fails returns a Result with IsError set.
func (t *Trier) TryTool(ctx context.Context, name string, args map[string]any) (Result, error) {
	return t.TryToolWith(ctx, name, args, CallOptions{})
}

// CallOptions are what a call does besides calling.
type CallOptions struct {
	// Answer, when set, answers the forms the tool asks (desktop
	// questions still go to the desktop).
	Answer FormAnswerer
	// Watch, when set, hears how the call's task goes, when it runs as
	// one.
	Watch TaskWatcher
}

// TryToolWith is TryTool with options. A tool that runs in the background
// runs as a task: the call returns once the task ended, with its result;
// ctx ending cancels the task.
func (t *Trier) TryToolWith(ctx context.Context, name string, args map[string]any, opts CallOptions) (Result, error) {
	return t.try(ctx, name, args, opts)
}

// try calls the tool with opts.
func (t *Trier) try(ctx context.Context, name string, args map[string]any, opts CallOptions) (Result, error) {
	answer := opts.Answer
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(t.closing, cancel)()
	t.mu.Lock()
	defer t.mu.Unlock()
	if answer != nil {
		// Calls are serialized: this call's forms come while it holds mu.
		t.answer.Store(&answer)
		defer t.answer.Store(nil)
	}
	if args == nil {
		args = map[string]any{}
	}
	fresh, err := t.connect(ctx)
	if err != nil {
		return Result{}, err
	}
	t.rec.reset()
	res, err := t.session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil && !fresh && ctx.Err() == nil && (t.rec.unsent() || errors.Is(err, mcp.ErrSessionMissing)) {
		// Not a byte of the call was written (the kept session's server
		// is gone), or the server answered that it no longer knows the
		// session (it restarted): the tool did not run. Open a new session
		// and send the call once. Any other failure may have come after the
		// tool ran, and is reported, never retried (see internal/atmostonce).
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
		// go-sdk words a broken connection as a JSON-RPC error too: what
		// came back tells them apart.
		if ctx.Err() == nil && t.rec.interrupted() {
			t.drop()
			return out, fmt.Errorf("mcptray stopped during the call of %q, so its outcome is unknown: the tool may have run. It was not sent again, since that could run it twice; check its effect before trying again: %w", name, err)
		}
		if isRPCError(err) {
			return out, fmt.Errorf("calling %q: %w", name, err)
		}
		// Whatever state the session is in, the next call starts over.
		t.drop()
		return out, explain(t.sessionURL, fmt.Errorf("calling %q: %w", name, err))
	}
	if task, ok := t.rec.createdTask(); ok {
		return t.follow(ctx, name, task, answer, opts.Watch, out)
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
		HTTPClient:           &http.Client{Transport: &authTransport{secret: t.secret, rec: t.rec, next: t.transport}},
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
