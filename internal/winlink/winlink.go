// Package winlink carries JSON-RPC 2.0 calls both ways over one pair of
// streams: the pipe between the mcptray process that serves (and holds the
// tray) and its window process, which it starts on the window process's
// stdin and stdout. Each message is one line, in go-sdk's JSON-RPC wire
// format (jsonrpc.EncodeMessage).
//
// Methods are typed: a Method or a Notice is declared once, with the Go
// types of its params and result, and both sides use that one declaration,
// the caller through Call or Send and the answering side through Handle or
// HandleNotice on its Mux. What arrives is answered on a goroutine of its
// own, so a slow answer holds up nothing else; a call whose context ends
// first tells the other side, whose handler then sees its context end.
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

// Error is a call's failure as the other side sent it: a JSON-RPC error
// object. Handlers return one to choose the code and the data.
type Error = jsonrpc.Error

// Standard JSON-RPC error codes the Mux answers with.
const (
	CodeMethodNotFound = jsonrpc.CodeMethodNotFound
	CodeInvalidParams  = jsonrpc.CodeInvalidParams
)

// ErrClosed is what calls get once the link has ended (the other process
// exited or closed its end).
var ErrClosed = errors.New("the other mcptray process is gone")

// cancelNotice tells the other side that the caller of request ID no
// longer waits for its answer (its context ended).
var cancelNotice = Notice[cancelParams]{Name: "$/cancel"}

// cancelParams are cancelNotice's params.
type cancelParams struct {
	ID int64 `json:"id"`
}

// maxLine bounds one message: a settings object or a list of remembered
// approvals is a few KB; anything near this is a broken peer.
const maxLine = 16 << 20

// Method is a call of the link: its name and the types of its params and
// result. Declare each once, in a package both sides import.
type Method[P, R any] struct{ Name string }

// Call sends p to the other side's handler of m and waits for its result.
// It fails with ErrClosed when the link ends first, and with ctx's error
// when ctx ends first (the other side is told to stop answering). An error
// the handler chose arrives as an *Error.
func (m Method[P, R]) Call(ctx context.Context, c *Conn, p P) (R, error) {
	var r R
	raw, err := c.call(ctx, m.Name, p)
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return r, fmt.Errorf("%s: decoding the result: %w", m.Name, err)
	}
	return r, nil
}

// Notice is a notification of the link: its name and its params' type;
// nobody answers it.
type Notice[P any] struct{ Name string }

// Send sends p to the other side's handler of n.
func (n Notice[P]) Send(c *Conn, p P) error {
	raw, err := json.Marshal(p)
	if err != nil {
		return fmt.Errorf("%s: encoding the params: %w", n.Name, err)
	}
	if err := c.write(&jsonrpc.Request{Method: n.Name, Params: raw}); err != nil {
		return fmt.Errorf("%s: %w", n.Name, err)
	}
	return nil
}

// Mux holds a side's handlers, by method name. A call of a method it has no
// handler for is answered CodeMethodNotFound; a notice of one is dropped.
type Mux struct {
	handlers map[string]func(ctx context.Context, params json.RawMessage) (any, error)
}

// NewMux returns an empty Mux.
func NewMux() *Mux {
	return &Mux{handlers: map[string]func(context.Context, json.RawMessage) (any, error){}}
}

// Handle makes fn answer m's calls on mux. Params that do not decode into
// P are answered CodeInvalidParams without calling fn. Register every
// handler before the Conn runs; a name registered twice panics.
func Handle[P, R any](mux *Mux, m Method[P, R], fn func(ctx context.Context, p P) (R, error)) {
	mux.add(m.Name, func(ctx context.Context, raw json.RawMessage) (any, error) {
		var p P
		if err := decodeParams(m.Name, raw, &p); err != nil {
			return nil, err
		}
		return fn(ctx, p)
	})
}

// HandleNotice makes fn receive n's notices on mux, as Handle does for
// calls.
func HandleNotice[P any](mux *Mux, n Notice[P], fn func(ctx context.Context, p P)) {
	mux.add(n.Name, func(ctx context.Context, raw json.RawMessage) (any, error) {
		var p P
		if err := decodeParams(n.Name, raw, &p); err != nil {
			return nil, err
		}
		fn(ctx, p)
		return nil, nil
	})
}

func (mux *Mux) add(name string, h func(context.Context, json.RawMessage) (any, error)) {
	if _, dup := mux.handlers[name]; dup {
		panic("winlink: a second handler of " + name)
	}
	mux.handlers[name] = h
}

// decodeParams decodes raw into p; no params at all leave p zero.
func decodeParams(method string, raw json.RawMessage, p any) error {
	if len(raw) == 0 {
		return nil
	}
	if err := json.Unmarshal(raw, p); err != nil {
		return &Error{Code: CodeInvalidParams, Message: fmt.Sprintf("%s: %v", method, err)}
	}
	return nil
}

// Conn is one end of a link. Run reads; calls and notices write, from any
// goroutine.
type Conn struct {
	r       io.Reader
	w       io.Writer
	mux     *Mux
	writeMu sync.Mutex
	nextID  atomic.Int64

	mu      sync.Mutex
	waiting map[int64]chan *jsonrpc.Response
	// running are the cancels of the requests being answered, by id.
	running map[int64]context.CancelFunc
	ended   bool
	done    chan struct{}
}

// New makes a Conn reading r and writing w, answering with mux's handlers.
func New(r io.Reader, w io.Writer, mux *Mux) *Conn {
	return &Conn{r: r, w: w, mux: mux, waiting: map[int64]chan *jsonrpc.Response{},
		running: map[int64]context.CancelFunc{}, done: make(chan struct{})}
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
				if m.Method == cancelNotice.Name {
					c.cancelRunning(m.Params)
					continue
				}
				rctx := c.track(hctx, m)
				handlers.Add(1)
				go func() {
					defer handlers.Done()
					c.serve(rctx, m)
				}()
			}
		}
	}
}

// track gives request req a context of its own, which a cancel notice for
// its id ends; notifications get ctx itself.
func (c *Conn) track(ctx context.Context, req *jsonrpc.Request) context.Context {
	id, ok := numericID(req.ID)
	if !ok {
		return ctx
	}
	rctx, cancel := context.WithCancel(ctx)
	c.mu.Lock()
	c.running[id] = cancel
	c.mu.Unlock()
	return rctx
}

// cancelRunning ends the context of the request a cancel notice names.
func (c *Conn) cancelRunning(params json.RawMessage) {
	var p cancelParams
	if json.Unmarshal(params, &p) != nil {
		return
	}
	c.mu.Lock()
	cancel := c.running[p.ID]
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// numericID is id as the int64 this package numbers its calls with.
func numericID(id jsonrpc.ID) (int64, bool) {
	if !id.IsValid() {
		return 0, false
	}
	n, ok := id.Raw().(int64)
	return n, ok
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
	id, ok := numericID(r.ID)
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

// afterKey keys a handler's context to what runs once its answer is sent.
type afterKey struct{}

// afterReply holds what AfterReply registered for one request.
type afterReply struct {
	mu  sync.Mutex
	fns []func()
}

// AfterReply makes fn run once the answer to the call being handled under
// ctx has been written to the link (for a notice, once it was handled),
// and reports whether ctx is a handler's; when it is not, fn is not kept.
// A process that ends when it holds nothing uses it to hold on until its
// answers are out: what it writes after them reaches the other side after
// them.
func AfterReply(ctx context.Context, fn func()) bool {
	a, ok := ctx.Value(afterKey{}).(*afterReply)
	if !ok {
		return false
	}
	a.mu.Lock()
	a.fns = append(a.fns, fn)
	a.mu.Unlock()
	return true
}

func (a *afterReply) run() {
	a.mu.Lock()
	fns := a.fns
	a.mu.Unlock()
	for _, fn := range fns {
		fn()
	}
}

// serve runs the handler on a request and, for a call, sends its answer.
func (c *Conn) serve(ctx context.Context, req *jsonrpc.Request) {
	after := &afterReply{}
	defer after.run() // deferred: after the answer is written
	ctx = context.WithValue(ctx, afterKey{}, after)
	res, err := c.safeHandle(ctx, req)
	id, isCall := numericID(req.ID)
	if !req.ID.IsValid() {
		return // a notification: nobody waits
	}
	if isCall {
		c.mu.Lock()
		cancel := c.running[id]
		delete(c.running, id)
		c.mu.Unlock()
		if cancel != nil {
			defer cancel()
		}
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
// one answer must not take either process down.
func (c *Conn) safeHandle(ctx context.Context, req *jsonrpc.Request) (res any, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s failed: %v", req.Method, r)
		}
	}()
	h := c.mux.handlers[req.Method]
	if h == nil {
		return nil, &Error{Code: CodeMethodNotFound, Message: "no method " + req.Method}
	}
	return h(ctx, req.Params)
}

// call sends method with params and waits for the raw result.
func (c *Conn) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	id := c.nextID.Add(1)
	jid, err := jsonrpc.MakeID(float64(id))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("%s: encoding the params: %w", method, err)
	}
	ch := make(chan *jsonrpc.Response, 1)
	c.mu.Lock()
	if c.ended {
		c.mu.Unlock()
		return nil, fmt.Errorf("%s: %w", method, ErrClosed)
	}
	c.waiting[id] = ch
	c.mu.Unlock()
	if err := c.write(&jsonrpc.Request{ID: jid, Method: method, Params: raw}); err != nil {
		c.forget(id)
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	select {
	case <-ctx.Done():
		if c.forget(id) {
			_ = cancelNotice.Send(c, cancelParams{ID: id}) // the link gone: nothing runs there
		}
		return nil, fmt.Errorf("%s: %w", method, ctx.Err())
	case r, ok := <-ch:
		if !ok {
			return nil, fmt.Errorf("%s: %w", method, ErrClosed)
		}
		if r.Error != nil {
			return nil, r.Error
		}
		return r.Result, nil
	}
}

// forget stops waiting for the answer to call id; it reports whether the
// call was still waiting.
func (c *Conn) forget(id int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.waiting[id]
	delete(c.waiting, id)
	return ok
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
