// Package winlink carries JSON-RPC 2.0 calls both ways over one pair of
// streams: the pipe between the mcptray process that serves (and holds the
// tray) and the process of its manager window, which it starts on the
// window's stdin and stdout. Each message is one line, in go-sdk's JSON-RPC
// wire format (jsonrpc.EncodeMessage). Either side may call (and wait for
// the result) or notify; what arrives is handed to a Handler, each request
// on a goroutine of its own, so a slow answer holds up nothing else.
//
// The pipe is the window process's life line: when either side ends, the
// other reads EOF, Run returns and every call waiting fails at once.
package winlink

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Handler answers one request or notification: method and its raw params.
// For a notification the result is dropped. An *Error it returns reaches
// the caller as it is; any other error as jsonrpc.CodeInternalError with
// its text.
type Handler func(ctx context.Context, method string, params json.RawMessage) (any, error)

// Error is a call's failure as the other side sent it: a JSON-RPC error
// object. Handlers return one to choose the code and the data.
type Error = jsonrpc.Error

// Standard JSON-RPC error codes a Handler answers with.
const (
	CodeMethodNotFound = jsonrpc.CodeMethodNotFound
	CodeInvalidParams  = jsonrpc.CodeInvalidParams
)

// ErrClosed is what calls get once the link has ended (the other process
// exited or closed its end).
var ErrClosed = errors.New("the other mcptray process is gone")

// maxLine bounds one message: a settings object or a list of remembered
// approvals is a few KB; anything near this is a broken peer.
const maxLine = 16 << 20

// Conn is one end of a link. Run reads; Call and Notify write, from any
// goroutine.
type Conn struct {
	r       io.Reader
	w       io.Writer
	handle  Handler
	writeMu sync.Mutex
	nextID  atomic.Int64

	mu      sync.Mutex
	waiting map[int64]chan *jsonrpc.Response
	ended   bool
	done    chan struct{}
}

// New makes a Conn reading r and writing w, handing what arrives to h.
func New(r io.Reader, w io.Writer, h Handler) *Conn {
	return &Conn{r: r, w: w, handle: h, waiting: map[int64]chan *jsonrpc.Response{}, done: make(chan struct{})}
}

// Done is closed once Run has returned: the link is over.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Run reads messages until the other side closes its end (nil), the
// stream fails or carries something that is no JSON-RPC (an error), or
// ctx ends. Requests are handled under ctx. When it returns, every call
// waiting fails with ErrClosed.
func (c *Conn) Run(ctx context.Context) error {
	// Requests still being answered when the link ends see their context
	// end, and their own calls fail, rather than wait for answers that
	// can no longer come.
	hctx, cancel := context.WithCancel(ctx)
	var handlers sync.WaitGroup
	defer func() {
		cancel()
		c.end()
		handlers.Wait()
	}()
	lines := make(chan []byte)
	errc := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(c.r)
		sc.Buffer(make([]byte, 0, 64<<10), maxLine)
		for sc.Scan() {
			line := append([]byte(nil), sc.Bytes()...)
			select {
			case lines <- line:
			case <-ctx.Done():
				return
			}
		}
		errc <- sc.Err()
	}()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-errc:
			// This side closing its own end is an end like any other.
			if err != nil && !errors.Is(err, io.ErrClosedPipe) && !errors.Is(err, os.ErrClosed) {
				return fmt.Errorf("reading the link: %w", err)
			}
			return nil
		case line := <-lines:
			if len(line) == 0 {
				continue
			}
			msg, err := jsonrpc.DecodeMessage(line)
			if err != nil {
				return fmt.Errorf("reading the link: %w", err)
			}
			switch m := msg.(type) {
			case *jsonrpc.Response:
				c.deliver(m)
			case *jsonrpc.Request:
				handlers.Add(1)
				go func() {
					defer handlers.Done()
					c.serve(hctx, m)
				}()
			}
		}
	}
}

// end fails every waiting call and marks the link over.
func (c *Conn) end() {
	c.mu.Lock()
	c.ended = true
	for id, ch := range c.waiting {
		close(ch)
		delete(c.waiting, id)
	}
	c.mu.Unlock()
	close(c.done)
}

// deliver hands a response to the call waiting for it; one nobody waits
// for (the caller gave up) is dropped.
func (c *Conn) deliver(r *jsonrpc.Response) {
	id, ok := r.ID.Raw().(int64)
	if !ok {
		return
	}
	c.mu.Lock()
	ch := c.waiting[id]
	delete(c.waiting, id)
	c.mu.Unlock()
	if ch != nil {
		ch <- r
	}
}

// serve runs the handler on a request and, for a call, sends its answer.
func (c *Conn) serve(ctx context.Context, req *jsonrpc.Request) {
	res, err := c.safeHandle(ctx, req)
	if !req.ID.IsValid() {
		return // a notification: nobody waits
	}
	resp := &jsonrpc.Response{ID: req.ID}
	if err == nil {
		resp.Result, err = json.Marshal(res)
	}
	if err != nil {
		var we *Error
		if !errors.As(err, &we) {
			we = &Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
		}
		resp.Result, resp.Error = nil, we
	}
	_ = c.write(resp) // the link is gone: nobody to tell
}

// safeHandle runs the handler, turning a panic into an error: a bug in
// one answer must not take the serving process down.
func (c *Conn) safeHandle(ctx context.Context, req *jsonrpc.Request) (res any, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s failed: %v", req.Method, r)
		}
	}()
	return c.handle(ctx, req.Method, req.Params)
}

// Call sends method with params and waits for the answer, decoded into
// result (which may be nil). It fails with ErrClosed when the link ends
// first, and with ctx's error when ctx ends first.
func (c *Conn) Call(ctx context.Context, method string, params, result any) error {
	id := c.nextID.Add(1)
	jid, err := jsonrpc.MakeID(float64(id))
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	raw, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("%s: encoding the params: %w", method, err)
	}
	ch := make(chan *jsonrpc.Response, 1)
	c.mu.Lock()
	if c.ended {
		c.mu.Unlock()
		return fmt.Errorf("%s: %w", method, ErrClosed)
	}
	c.waiting[id] = ch
	c.mu.Unlock()
	if err := c.write(&jsonrpc.Request{ID: jid, Method: method, Params: raw}); err != nil {
		c.forget(id)
		return fmt.Errorf("%s: %w", method, err)
	}
	select {
	case <-ctx.Done():
		c.forget(id)
		return fmt.Errorf("%s: %w", method, ctx.Err())
	case r, ok := <-ch:
		if !ok {
			return fmt.Errorf("%s: %w", method, ErrClosed)
		}
		if r.Error != nil {
			return r.Error
		}
		if result == nil {
			return nil
		}
		if err := json.Unmarshal(r.Result, result); err != nil {
			return fmt.Errorf("%s: decoding the result: %w", method, err)
		}
		return nil
	}
}

// forget stops waiting for the answer to call id.
func (c *Conn) forget(id int64) {
	c.mu.Lock()
	delete(c.waiting, id)
	c.mu.Unlock()
}

// Notify sends method with params, expecting no answer.
func (c *Conn) Notify(method string, params any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("%s: encoding the params: %w", method, err)
	}
	if err := c.write(&jsonrpc.Request{Method: method, Params: raw}); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	return nil
}

// write sends one message as one line.
func (c *Conn) write(msg jsonrpc.Message) error {
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encoding: %w", err)
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if _, err := c.w.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("%w: %v", ErrClosed, err)
	}
	return nil
}
