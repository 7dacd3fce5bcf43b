package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/mcptray/mcptray/internal/atmostonce"
)

// JSON-RPC error codes the shim itself answers with.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	// codeInternal answers a request mcptray stopped during: what became
	// of it is unknown, which is JSON-RPC's "internal error"; the data
	// field says why (see mayHaveRunData).
	codeInternal    = -32603
	codeUnavailable = -32000 // mcptray unreachable or refused the shim
)

// maxLine caps a message read from stdin. It is four times mcptray's
// default request limit (maxBodyBytes, 4 MiB), so no message mcptray would
// take is refused here, and a runaway client cannot make the shim hold
// hundreds of megabytes: a longer line is read to its end in small pieces
// and answered with an error.
const maxLine = 16 << 20

// modernVersion is what a 2026-era request without a version in _meta is sent as.
const modernVersion = "2026-07-28"

// drainTimeout is how long the shim goes on answering the requests it has
// read once its input ends: clients that write their requests and close
// their end at once (scripts, tests) still get every answer, and a request
// that hangs cannot keep the shim alive for ever.
const drainTimeout = 30 * time.Second

// errInputEnded cancels the requests still running when the shim stops
// waiting for them after its input ended; each is answered with an error
// that says so (see endedUnanswered).
var errInputEnded = errors.New("the input ended")

// message is the part of a JSON-RPC message the shim looks at.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// bridge relays newline-delimited JSON-RPC between stdio and mcptray.
type bridge struct {
	cfg    config
	cfgErr error
	out    *lineWriter
	log    io.Writer
	http   *http.Client
	up     *upstreamFinder
	// drain is how long the requests read are answered after the input
	// ends (drainTimeout).
	drain time.Duration

	// work runs what answers or delivers a message the client sent; streams
	// runs what only carries the server's messages (the session's GET
	// stream, subscriptions/listen), which end with the input.
	work, streams sync.WaitGroup

	mu       sync.Mutex
	inflight map[string]context.CancelFunc // by compact request id
	sess     *session                      // the 2025-era session, once initialize was seen
	params   map[string][]paramHeader      // tool → its x-mcp-header arguments
	// toolsListed is set once a tools/list result passed through (or the
	// shim listed them itself).
	toolsListed bool
}

// session is one 2025-11-25 session with mcptray.
type session struct {
	ready   chan struct{} // closed once initialize was answered (or failed)
	id      string
	version string
	err     error
	getOnce sync.Once
	// initLine is the client's initialize, replayed (under another id) to
	// re-establish the session when mcptray restarts.
	initLine []byte
	resumeMu sync.Mutex
	offline  string        // why initialize was answered by the shim (mcptray unreachable)
	kick     chan struct{} // wakes the GET stream after a resume
}

func newBridge(cfg config, cfgErr error, stdout, stderr io.Writer) *bridge {
	b := &bridge{
		cfg:      cfg,
		cfgErr:   cfgErr,
		out:      &lineWriter{w: bufio.NewWriter(stdout)},
		log:      stderr,
		http:     &http.Client{Transport: atmostonce.Wrap(&http.Transport{Proxy: nil, DisableCompression: true})},
		up:       &upstreamFinder{cfg: cfg, log: stderr},
		drain:    drainTimeout,
		inflight: map[string]context.CancelFunc{},
	}
	// The program as it is when the shim starts: an upgrade changes it.
	b.up.programChanged()
	return b
}

func (b *bridge) logf(format string, args ...any) {
	fmt.Fprintf(b.log, "mcptray-stdio: "+format+"\n", args...)
}

// run reads stdin until it closes, answers the requests it read (waiting
// for them up to b.drain), then returns.
func (b *bridge) run(ctx context.Context, stdin io.Reader) {
	ctx, giveUp := context.WithCancelCause(ctx)
	streamCtx, endStreams := context.WithCancel(ctx)
	defer func() {
		// The client has said all it will and can answer nothing more:
		// what only carries the server's messages ends now, and its
		// requests are answered before the shim exits.
		endStreams()
		b.awaitAnswers(ctx)
		giveUp(errInputEnded)
		b.work.Wait()
		b.closeSession()
		b.streams.Wait()
	}()
	r := bufio.NewReaderSize(stdin, 64<<10)
	for {
		line, long, err := readLine(r, maxLine)
		switch {
		case long:
			b.writeError(idIn(line), codeInvalidRequest, fmt.Sprintf("the message is larger than mcptray-stdio accepts (%d MiB); it was not sent to mcptray", maxLine>>20), nil)
		case len(bytes.TrimSpace(line)) > 0:
			b.handleLine(ctx, streamCtx, line)
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				b.logf("reading stdin: %v", err)
			}
			return
		}
		if ctx.Err() != nil {
			return
		}
	}
}

// awaitAnswers waits until every message read is answered or delivered,
// for at most b.drain, or until ctx ends (a signal).
func (b *bridge) awaitAnswers(ctx context.Context) {
	done := make(chan struct{})
	go func() {
		b.work.Wait()
		close(done)
	}()
	timer := time.NewTimer(b.drain)
	defer timer.Stop()
	select {
	case <-done:
	case <-ctx.Done():
	case <-timer.C:
		b.logf("the input ended %v ago; the requests still running are answered with an error", b.drain)
	}
}

var bom = []byte("\xef\xbb\xbf")

// handleLine handles one message of the client. ctx ends when the shim
// stops waiting for answers, streamCtx as soon as the input ends.
func (b *bridge) handleLine(ctx, streamCtx context.Context, line []byte) {
	line = bytes.TrimSpace(bytes.TrimPrefix(bytes.TrimSpace(line), bom))
	if len(line) == 0 {
		return
	}
	if !json.Valid(line) {
		b.writeError(json.RawMessage("null"), codeParseError, "parse error: the line is not valid JSON", nil)
		return
	}
	var m message
	if line[0] != '{' || json.Unmarshal(line, &m) != nil {
		b.writeError(json.RawMessage("null"), codeInvalidRequest, "invalid request: expected one JSON-RPC message object per line (batches are not supported)", nil)
		return
	}
	isRequest := m.Method != "" && m.ID != nil
	switch {
	case m.Method == "" && m.ID != nil:
		// A response to a server→client request: only the 2025 era has those.
		b.work.Go(func() { b.forwardLegacyOneWay(ctx, line) })
	case !isRequest:
		b.handleNotification(ctx, streamCtx, m, line)
	default:
		// A listen's answer only marks its end: it is a stream, not
		// awaited once the input ended.
		group, parent := &b.work, ctx
		if m.Method == "subscriptions/listen" {
			group, parent = &b.streams, streamCtx
		}
		reqCtx, cancel := context.WithCancel(parent)
		key := idKey(m.ID)
		b.mu.Lock()
		b.inflight[key] = cancel
		legacy := m.Method == "initialize" || (b.sess != nil && !isModern(m))
		var newSess *session
		if m.Method == "initialize" && b.sess == nil {
			// Set before the next line is read, so what follows waits for it.
			newSess = &session{ready: make(chan struct{}), initLine: bytes.Clone(line), kick: make(chan struct{}, 1)}
			b.sess = newSess
		}
		b.mu.Unlock()
		group.Go(func() {
			defer func() {
				b.mu.Lock()
				delete(b.inflight, key)
				b.mu.Unlock()
				cancel()
			}()
			switch {
			case newSess != nil:
				b.initialize(reqCtx, newSess, m, line)
			case legacy:
				b.legacyRequest(reqCtx, m, line)
			default:
				b.modernRequest(reqCtx, m, line)
			}
		})
	}
}

func (b *bridge) handleNotification(ctx, streamCtx context.Context, m message, line []byte) {
	if m.Method == "notifications/cancelled" {
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		_ = json.Unmarshal(m.Params, &p)
		b.mu.Lock()
		cancel := b.inflight[idKey(p.RequestID)]
		sess := b.sess
		b.mu.Unlock()
		// Stop relaying first: an answer racing the cancel must not reach
		// the client, which no longer expects one.
		if cancel != nil {
			cancel()
		}
		if sess != nil {
			// The 2025 session learns of it too; aborting the POST alone
			// would only drop the answer, not stop the work.
			b.forwardLegacyOneWay(ctx, line)
		}
		return
	}
	b.mu.Lock()
	sess := b.sess
	b.mu.Unlock()
	if sess != nil && !isModern(m) {
		// In order: notifications/initialized must precede what follows.
		b.forwardLegacyOneWay(ctx, line)
		if m.Method == "notifications/initialized" {
			sess.getOnce.Do(func() {
				b.streams.Go(func() { b.getStream(streamCtx, sess) })
			})
		}
		return
	}
	// 2026-era notifications other than cancelled are rare; deliver best effort.
	b.work.Go(func() {
		_, _ = b.post(ctx, line, b.modernHeaders(m), nil, "", false)
	})
}

// isModern reports whether a message is of the 2026-07-28 era.
func isModern(m message) bool {
	if m.Method == "server/discover" || m.Method == "subscriptions/listen" {
		return true
	}
	return metaVersion(m.Params) != ""
}

func metaVersion(params json.RawMessage) string {
	var p struct {
		Meta struct {
			Version string `json:"io.modelcontextprotocol/protocolVersion"`
		} `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil {
		return ""
	}
	return p.Meta.Version
}

// modernHeaders derives the 2026 routing headers from the body.
func (b *bridge) modernHeaders(m message) http.Header {
	h := http.Header{}
	v := metaVersion(m.Params)
	if v == "" {
		v = modernVersion
	}
	h.Set("MCP-Protocol-Version", v)
	h.Set("Mcp-Method", m.Method)
	var p struct {
		Name      *string         `json:"name"`
		URI       *string         `json:"uri"`
		TaskID    *string         `json:"taskId"`
		Arguments json.RawMessage `json:"arguments"`
	}
	_ = json.Unmarshal(m.Params, &p)
	var name *string
	switch m.Method {
	case "tools/call", "prompts/get":
		name = p.Name
	case "resources/read":
		name = p.URI
	case "tasks/get", "tasks/update", "tasks/cancel":
		name = p.TaskID
	}
	if name != nil {
		h.Set("Mcp-Name", headerValue(*name))
		if m.Method == "tools/call" {
			b.setParamHeaders(h, *name, p.Arguments)
		}
	}
	return h
}

// headerValue is s as a header value: plain when it is safe printable ASCII,
// otherwise the =?base64?…?= sentinel form.
func headerValue(s string) string {
	safe := s != "" && strings.TrimSpace(s) == s
	for i := 0; safe && i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			safe = false
		}
	}
	if safe && !(strings.HasPrefix(s, "=?") && strings.HasSuffix(s, "?=")) {
		return s
	}
	return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(s)) + "?="
}

func (b *bridge) modernRequest(ctx context.Context, m message, line []byte) {
	if m.Method == "tools/call" {
		b.mu.Lock()
		listed := b.toolsListed
		b.mu.Unlock()
		if !listed {
			b.learnTools(ctx, m)
		}
	}
	b.relayRequest(ctx, m, line, b.modernHeaders(m), nil, "")
}

// relayRequest posts one request and streams its answer back; when no answer
// arrives (and the client did not cancel) the client gets an error with the
// request's id, never silence.
func (b *bridge) relayRequest(ctx context.Context, m message, line []byte, h http.Header, onMsg func([]byte), sessionID string) (*http.Response, bool) {
	answered := false
	var resp *http.Response
	var err error
	for attempt := 0; ; attempt++ {
		if sessionID != "" {
			h.Set("MCP-Protocol-Version", b.sessVersion())
		}
		resp, err = b.post(ctx, line, h, func(msg []byte) {
			var r struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			if json.Unmarshal(msg, &r) == nil && r.Method == "" && idKey(r.ID) == idKey(m.ID) {
				answered = true
			}
			if onMsg != nil {
				onMsg(msg)
			}
		}, sessionID, false)
		if attempt == 0 && errors.Is(err, errSessionGone) && ctx.Err() == nil {
			if id, ok := b.resume(ctx, sessionID); ok {
				sessionID = id
				continue
			}
		}
		break
	}
	if errors.Is(err, errSessionGone) {
		err = &unavailableError{"the session with mcptray ended (mcptray stopped or restarted) and could not be re-established; make sure mcptray is running, then reconnect this server in your AI client"}
	}
	if ctx.Err() != nil {
		if !answered {
			b.endedUnanswered(ctx, m)
		}
		return resp, answered
	}
	var ue *unavailableError
	var re *refusedError
	switch {
	case errors.Is(err, errMayHaveRun), err == nil && !answered:
		// The request reached mcptray (or may have), which stopped before
		// answering: it is not sent again, since that could run a tool twice.
		b.writeMayHaveRun(m)
	case errors.As(err, &re):
		b.writeError(m.ID, re.code, re.msg, nil)
	case errors.As(err, &ue):
		b.writeError(m.ID, codeUnavailable, ue.Error(), nil)
	case err != nil:
		b.writeError(m.ID, codeUnavailable, "mcptray-stdio could not reach mcptray: "+err.Error(), nil)
	}
	return resp, err == nil && answered
}

// errMayHaveRun means a request went out to mcptray (at least its first
// byte was written) and no answer came back: mcptray stopped while it
// handled the request, or before it read it — the shim cannot tell which.
var errMayHaveRun = errors.New("mcptray stopped during the request")

// writeMayHaveRun answers a request that reached mcptray (or may have)
// when mcptray stopped before answering. The request is not sent again:
// the shim re-sends only what provably never reached mcptray (see
// internal/atmostonce), so a tool never runs twice for one call.
func (b *bridge) writeMayHaveRun(m message) {
	what, effect := unknownOutcome(m)
	msg := fmt.Sprintf("mcptray stopped during %s, so its outcome is unknown: %s. mcptray-stdio does not send it again, since that could run it twice; check its effect before trying again.", what, effect)
	b.writeError(m.ID, codeInternal, msg, mayHaveRunData("mcptray-stopped-during-request"))
}

// endedUnanswered is called where a request ends without an answer
// because its context ended. A request the client cancelled is owed no
// answer; one still running when the shim stopped waiting after its input
// ended gets an error that says so.
func (b *bridge) endedUnanswered(ctx context.Context, m message) {
	if !errors.Is(context.Cause(ctx), errInputEnded) {
		return
	}
	what, effect := unknownOutcome(m)
	msg := fmt.Sprintf("The input ended while %s was still running, and mcptray stopped waiting for it after %v, so its outcome is unknown: %s. Check its effect before trying again.", what, b.drain, effect)
	b.writeError(m.ID, codeInternal, msg, mayHaveRunData("input-ended"))
}

// unknownOutcome words a request whose outcome the shim cannot know: what
// it was and what may have come of it.
func unknownOutcome(m message) (what, effect string) {
	if m.Method == "tools/call" {
		var p struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(m.Params, &p)
		return fmt.Sprintf("the call of %q", p.Name), "the tool may have run"
	}
	return "this request (" + m.Method + ")", "it may have taken effect"
}

// mayHaveRunData is the data of an error about a request whose outcome is
// unknown, for clients that act on it rather than show it: why, and that
// the shim did not send it again.
func mayHaveRunData(reason string) map[string]any {
	return map[string]any{"reason": reason, "mayHaveRun": true, "resent": false}
}

// refusedError is mcptray's answer to a request it turned away before
// reading it (413: larger than maxBodyBytes; 503: its database was
// deleted while it ran): nothing ran. It is relayed under the request's
// id, since mcptray did not read that id.
type refusedError struct {
	code int
	msg  string
}

func (e *refusedError) Error() string { return e.msg }

func (b *bridge) legacyRequest(ctx context.Context, m message, line []byte) {
	sess, err := b.waitSession(ctx)
	if err != nil {
		if ctx.Err() != nil {
			b.endedUnanswered(ctx, m)
		} else {
			b.writeError(m.ID, codeUnavailable, err.Error(), nil)
		}
		return
	}
	id, _ := b.sessInfo(sess)
	if id == "" {
		// Answered offline so far: reach mcptray now, or answer locally.
		var ok bool
		if id, ok = b.resume(ctx, ""); !ok {
			if ctx.Err() != nil {
				b.endedUnanswered(ctx, m)
			} else {
				b.answerOffline(sess, m)
			}
			return
		}
	}
	b.relayRequest(ctx, m, line, http.Header{}, nil, id)
}

func (b *bridge) initialize(ctx context.Context, sess *session, m message, line []byte) {
	defer close(sess.ready)
	var version string
	answered := false
	resp, err := b.post(ctx, line, http.Header{}, func(msg []byte) {
		var r struct {
			ID     json.RawMessage `json:"id"`
			Result struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"result"`
		}
		if json.Unmarshal(msg, &r) == nil && idKey(r.ID) == idKey(m.ID) {
			answered = true
			version = r.Result.ProtocolVersion
		}
	}, "", false)
	var ue *unavailableError
	switch {
	case ctx.Err() != nil && !answered:
		b.endedUnanswered(ctx, m)
	case err != nil && !answered && errors.As(err, &ue):
		// Clients do not respawn a server whose initialize failed, so the
		// shim stays attached: a minimal answer now, the real session as
		// soon as mcptray can be reached (then list_changed).
		version = requestedVersion(m.Params)
		b.writeResult(m.ID, offlineInitResult(version, ue.Error()))
		b.mu.Lock()
		sess.version, sess.offline = version, ue.Error()
		b.mu.Unlock()
		b.logf("%s", ue.Error())
		return
	case err != nil && !answered:
		b.writeError(m.ID, codeUnavailable, "mcptray-stdio could not reach mcptray: "+err.Error(), nil)
	case !answered:
		b.writeError(m.ID, codeUnavailable, "mcptray closed the connection without answering initialize; try again", nil)
	}
	if answered && version != "" && resp != nil {
		b.mu.Lock()
		sess.id, sess.version = resp.Header.Get("Mcp-Session-Id"), version
		b.mu.Unlock()
		return
	}
	sess.err = errors.New("the session with mcptray is not initialized (initialize failed); send initialize again")
	b.mu.Lock()
	if b.sess == sess {
		b.sess = nil
	}
	b.mu.Unlock()
}

func (b *bridge) waitSession(ctx context.Context) (*session, error) {
	b.mu.Lock()
	sess := b.sess
	b.mu.Unlock()
	if sess == nil {
		return nil, errors.New("no session: send initialize first (or use the 2026-07-28 protocol with _meta)")
	}
	select {
	case <-sess.ready:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if sess.err != nil {
		return nil, sess.err
	}
	return sess, nil
}

// forwardLegacyOneWay posts a notification or a response within the session.
func (b *bridge) forwardLegacyOneWay(ctx context.Context, line []byte) {
	sess, err := b.waitSession(ctx)
	if err != nil {
		if ctx.Err() == nil {
			b.logf("dropped a message: %v", err)
		}
		return
	}
	for attempt := 0; ; attempt++ {
		id, version := b.sessInfo(sess)
		if id == "" {
			// No session yet (offline): resume sends notifications/initialized
			// itself; anything else has no one to go to.
			var m message
			if json.Unmarshal(line, &m) == nil && m.Method == "notifications/initialized" {
				return
			}
			var ok bool
			if id, ok = b.resume(ctx, ""); !ok {
				return
			}
			version = b.sessVersion()
		}
		h := http.Header{}
		h.Set("MCP-Protocol-Version", version)
		_, err := b.post(ctx, line, h, nil, id, false)
		if attempt == 0 && errors.Is(err, errSessionGone) && ctx.Err() == nil {
			if _, ok := b.resume(ctx, id); ok {
				continue
			}
		}
		if err != nil && ctx.Err() == nil {
			b.logf("forwarding a message: %v", err)
		}
		return
	}
}

// getStream holds the session's GET stream open, relaying server→client
// requests and notifications, and reconnects while the session lives.
func (b *bridge) getStream(ctx context.Context, sess *session) {
	backoff := 200 * time.Millisecond
	for ctx.Err() == nil {
		ep, err := b.up.peek()
		id, _ := b.sessInfo(sess)
		if err == nil && id == "" {
			// mcptray appeared after an offline initialize: set up the session.
			if _, ok := b.resume(ctx, ""); ok {
				continue
			}
			err = errSessionGone
		}
		if err == nil {
			id, version := b.sessInfo(sess)
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ep.URL, nil)
			req.Header.Set("Accept", "text/event-stream")
			req.Header.Set("Mcp-Session-Id", id)
			req.Header.Set("MCP-Protocol-Version", version)
			if ep.token != "" {
				req.Header.Set("Authorization", "Bearer "+ep.token)
			}
			resp, err := b.http.Do(req)
			if err != nil && ctx.Err() == nil {
				// mcptray stopped: follow it to wherever it comes back,
				// without starting it (only a client's request does that).
				b.up.reload()
			}
			if err == nil {
				if resp.StatusCode == http.StatusOK {
					backoff = 200 * time.Millisecond
					b.readSSE(resp.Body, nil, false)
				}
				resp.Body.Close()
				switch resp.StatusCode {
				case http.StatusNotFound:
					if _, ok := b.resume(ctx, id); ok {
						continue
					}
					return
				case http.StatusMethodNotAllowed, http.StatusBadRequest:
					if ctx.Err() == nil {
						b.logf("GET stream closed for good: HTTP %d", resp.StatusCode)
					}
					return
				}
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-sess.kick:
			backoff = 200 * time.Millisecond
			continue
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, 5*time.Second)
	}
}

// closeSession ends the 2025 session politely, without waiting long.
func (b *bridge) closeSession() {
	b.mu.Lock()
	sess := b.sess
	b.mu.Unlock()
	if sess == nil {
		return
	}
	select {
	case <-sess.ready:
	default:
		return
	}
	id, version := b.sessInfo(sess)
	if id == "" || sess.err != nil {
		return
	}
	ep, ok := b.up.cached()
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodDelete, ep.URL, nil)
	req.Header.Set("Mcp-Session-Id", id)
	req.Header.Set("MCP-Protocol-Version", version)
	if ep.token != "" {
		req.Header.Set("Authorization", "Bearer "+ep.token)
	}
	if resp, err := b.http.Do(req); err == nil {
		resp.Body.Close()
	}
}

// post sends one message to mcptray and relays whatever comes back (a JSON
// body or an SSE stream) to stdout, calling onMsg for each message. It finds
// (or starts) mcptray first, starts it again when the connection is refused,
// and renews the shim's token once when it is refused.
func (b *bridge) post(ctx context.Context, body []byte, h http.Header, onMsg func([]byte), sessionID string, quiet bool) (*http.Response, error) {
	if b.cfgErr != nil {
		return nil, &unavailableError{b.cfgErr.Error()}
	}
	refreshed, renewed := false, false
	for {
		ep, err := b.up.get(ctx, refreshed)
		if err != nil {
			return nil, err
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, ep.URL, bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		for k, v := range h {
			req.Header[k] = v
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if sessionID != "" {
			req.Header.Set("Mcp-Session-Id", sessionID)
		}
		if ep.token != "" {
			req.Header.Set("Authorization", "Bearer "+ep.token)
		}
		req, delivery := atmostonce.Track(req)
		resp, err := b.http.Do(req)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if !delivery.Unsent() {
				// Part of the request went out: mcptray may have read it
				// and acted on it, so it must not be sent again.
				b.up.invalidate()
				return nil, errMayHaveRun
			}
			// Not a byte was written (typically: connection refused, as
			// mcptray is not running): sending it again is safe.
			if sessionID != "" {
				// mcptray stopped: the session is gone with it.
				b.up.invalidate()
				return nil, errSessionGone
			}
			if !refreshed {
				// mcptray may have stopped or moved: look (and start) again.
				b.up.invalidate()
				refreshed = true
				continue
			}
			return nil, &unavailableError{fmt.Sprintf("mcptray at %s does not answer (%v). Make sure the mcptray app is running (or run `mcptray serve`), then try again.", ep.URL, err)}
		}
		if resp.StatusCode == http.StatusUnauthorized && !renewed && b.up.canProvision() {
			resp.Body.Close()
			renewed = true
			if err := b.up.renewToken(ctx, ep); err != nil {
				return nil, err
			}
			continue
		}
		defer resp.Body.Close()
		if resp.StatusCode == http.StatusUnauthorized {
			io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
			return resp, &unavailableError{"mcptray refused the shim's token. Run `mcptray shim-token` to renew it (or check the tokens in the mcptray app), then try again."}
		}
		if sessionID != "" && resp.StatusCode == http.StatusNotFound {
			return resp, errSessionGone
		}
		ct := resp.Header.Get("Content-Type")
		switch {
		case strings.HasPrefix(ct, "text/event-stream"):
			b.readSSE(resp.Body, onMsg, quiet)
		case resp.StatusCode == http.StatusAccepted || resp.StatusCode == http.StatusNoContent:
		default:
			data, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
			if err != nil && ctx.Err() == nil {
				return resp, err
			}
			if re := refusal(resp.StatusCode, data); re != nil {
				return resp, re
			}
			if len(bytes.TrimSpace(data)) > 0 && json.Valid(data) {
				b.deliver(data, onMsg, quiet)
			} else if resp.StatusCode >= 400 {
				return resp, fmt.Errorf("HTTP %s: %s", resp.Status, strings.TrimSpace(string(data)))
			}
		}
		return resp, nil
	}
}

// refusal is the refusedError of a JSON-RPC error mcptray answered without
// an id — it turned the request away before reading it — or nil.
func refusal(status int, body []byte) *refusedError {
	if status < 400 {
		return nil
	}
	var r struct {
		ID    json.RawMessage `json:"id"`
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &r) != nil || r.Error == nil || (len(r.ID) > 0 && string(r.ID) != "null") {
		return nil
	}
	msg := "mcptray refused this request: " + r.Error.Message
	if status == http.StatusRequestEntityTooLarge {
		msg = "mcptray refused this request without running it: " + r.Error.Message + " (its maxBodyBytes setting)"
	}
	return &refusedError{code: r.Error.Code, msg: msg}
}

// readSSE relays each event's data as one message.
func (b *bridge) readSSE(r io.Reader, onMsg func([]byte), quiet bool) {
	br := bufio.NewReaderSize(r, 64<<10)
	var data []byte
	for {
		line, err := br.ReadBytes('\n')
		line = bytes.TrimRight(line, "\r\n")
		switch {
		case len(line) == 0 && err == nil:
			if len(data) > 0 {
				b.deliver(data, onMsg, quiet)
				data = data[:0]
			}
		case bytes.HasPrefix(line, []byte("data:")):
			v := bytes.TrimPrefix(line[5:], []byte(" "))
			if len(data) > 0 {
				data = append(data, '\n')
			}
			data = append(data, v...)
		}
		if err != nil {
			if len(data) > 0 {
				b.deliver(data, onMsg, quiet)
			}
			return
		}
	}
}

// deliver relays msg to the client, or only to onMsg when quiet (the
// shim's own requests).
func (b *bridge) deliver(msg []byte, onMsg func([]byte), quiet bool) {
	if quiet {
		if onMsg != nil && len(bytes.TrimSpace(msg)) > 0 {
			onMsg(msg)
		}
		return
	}
	b.relay(msg, onMsg)
}

func (b *bridge) relay(msg []byte, onMsg func([]byte)) {
	if len(bytes.TrimSpace(msg)) == 0 {
		return
	}
	b.learnParamHeaders(msg) // before the client can see the list and call
	if err := b.out.write(msg); err != nil {
		b.logf("dropped a message from mcptray: %v", err)
		return
	}
	if onMsg != nil {
		onMsg(msg)
	}
}

func (b *bridge) writeError(id json.RawMessage, code int, msg string, data any) {
	if id == nil {
		id = json.RawMessage("null")
	}
	e := map[string]any{"code": code, "message": msg}
	if data != nil {
		e["data"] = data
	}
	out, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": e})
	if err := b.out.write(out); err != nil {
		b.logf("writing an error: %v", err)
	}
}

// idKey is a request id in a form usable as a map key (compact JSON).
func idKey(id json.RawMessage) string {
	var buf bytes.Buffer
	if json.Compact(&buf, id) != nil {
		return string(id)
	}
	return buf.String()
}

// lineWriter writes one compact JSON message per line, serialized.
type lineWriter struct {
	mu  sync.Mutex
	w   *bufio.Writer
	buf bytes.Buffer
}

func (lw *lineWriter) write(msg []byte) error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	lw.buf.Reset()
	if err := json.Compact(&lw.buf, msg); err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	lw.buf.WriteByte('\n')
	if _, err := lw.w.Write(lw.buf.Bytes()); err != nil {
		return err
	}
	return lw.w.Flush()
}

// unavailableError says what to do when mcptray cannot be reached.
type unavailableError struct{ msg string }

func (u *unavailableError) Error() string { return u.msg }
