package mcpcore

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// CodeLimitExceeded is the JSON-RPC error code of a request refused because
// its client token reached one of its limits (the settings
// maxCallsPerToken, maxTasksPerToken, maxWaitingTasksPerToken,
// maxResultBytes). It is in the range JSON-RPC leaves to servers, outside
// the -3202x codes MCP defines; data names the setting and its value.
const CodeLimitExceeded = -32050

// limitData is the data of a CodeLimitExceeded error.
type limitData struct {
	// Limit is the setting's key, Max its value.
	Limit string `json:"limit"`
	Max   int64  `json:"max"`
	// Size is what the result measured, for maxResultBytes.
	Size int64 `json:"size,omitempty"`
}

// limitError is a CodeLimitExceeded error whose message says what was
// refused and how to get under the limit.
func limitError(setting string, max, size int64, format string, args ...any) error {
	data, _ := json.Marshal(limitData{Limit: setting, Max: max, Size: size})
	return &jsonrpc.Error{Code: CodeLimitExceeded, Message: fmt.Sprintf(format, args...), Data: data}
}

// isLimitedCall reports whether a method runs catalog work (templates,
// commands, HTTP requests) and so counts against maxCallsPerToken and
// maxResultBytes. Lists, pings and task polls are cheap and never limited.
func isLimitedCall(method string) bool {
	return method == "tools/call" || method == "resources/read" || method == "prompts/get"
}

// tokenCounts counts what each client token holds at once (calls in
// flight). The zero value is ready to use.
type tokenCounts struct {
	mu sync.Mutex
	n  map[string]int
}

// acquire takes one of token's max slots; ok is false when all are taken.
// release gives the slot back.
func (c *tokenCounts) acquire(token string, max int) (release func(), ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n[token] >= max {
		return nil, false
	}
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[token]++
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			if c.n[token]--; c.n[token] <= 0 {
				delete(c.n, token)
			}
		})
	}, true
}

// tokenLabel names a client token in an error message.
func tokenLabel(token string) string {
	if token == "" {
		return "this client"
	}
	return fmt.Sprintf("client token %q", token)
}

// checkResultSize refuses a result that is larger than max once encoded —
// the size that matters, since JSON escapes can make it several times
// larger than the output it holds.
func checkResultSize(res mcp.Result, max int64) error {
	if n, ok := textResultBound(res); ok && n <= max {
		return nil // fits whatever its escapes: no need to count them
	}
	n, err := encodedSize(res)
	if err != nil || n <= max {
		return nil // an unencodable result fails on its way out, saying why
	}
	return errResultTooLarge(n, max)
}

// textResultBound is an upper bound of the encoded size of a tool result
// made of text content alone (the common answer, which checkResultSize
// then need not count), and false for any other result. A byte encodes
// as six at most (\u00XX); each block's and the result's own JSON take
// less than the room allowed for them.
func textResultBound(res mcp.Result) (int64, bool) {
	r, ok := res.(*mcp.CallToolResult)
	if !ok || r == nil || r.Meta != nil || r.StructuredContent != nil || r.InputRequests != nil || r.RequestState != "" {
		return 0, false
	}
	// {"content":[…],"isError":true,"resultType":"input_required"}, and a
	// block's {"type":"text","text":""} with its comma.
	const room = 128
	n := int64(room)
	for _, c := range r.Content {
		t, ok := c.(*mcp.TextContent)
		if !ok || t == nil || t.Meta != nil || t.Annotations != nil {
			return 0, false
		}
		n += room + 6*int64(len(t.Text))
	}
	return n, true
}

// encodedSize is the length of res as json.Marshal writes it, counted
// rather than built: a tool result's text blocks (a command's whole
// output, often) are measured where they are, and only the rest of the
// result is encoded, into a counter. Encoding it whole would hold the
// output twice more, once per call in flight.
func encodedSize(res mcp.Result) (int64, error) {
	var texts int64
	if r, ok := res.(*mcp.CallToolResult); ok && r != nil {
		rest := *r
		rest.Content = slices.Clone(r.Content)
		for i, c := range rest.Content {
			if t, ok := c.(*mcp.TextContent); ok && t != nil {
				empty := *t
				empty.Text = ""
				rest.Content[i] = &empty
				texts += jsonStringLen(t.Text) - 2 // "" is in the rest
			}
		}
		res = &rest
	}
	var n byteCount
	if err := json.NewEncoder(&n).Encode(res); err != nil {
		return 0, err
	}
	return int64(n) - 1 + texts, nil // less Encode's newline
}

// jsonStringLen is the length of s as encoding/json writes it, quotes
// included: escaping <, > and &, control characters, U+2028 and U+2029,
// and writing each byte that is not UTF-8 as \ufffd.
func jsonStringLen(s string) int64 {
	n := int64(2) // the quotes
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			switch {
			case b == '"', b == '\\', b == '\b', b == '\f', b == '\n', b == '\r', b == '\t':
				n += 2
			case b < 0x20, b == '<', b == '>', b == '&':
				n += 6 // \u00XX
			default:
				n++
			}
			i++
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 || c == '\u2028' || c == '\u2029' {
			n += 6 // \ufffd, \u2028, \u2029
		} else {
			n += int64(size)
		}
		i += size
	}
	return n
}

// byteCount is an io.Writer that counts what is written to it.
type byteCount int64

func (c *byteCount) Write(p []byte) (int, error) {
	*c += byteCount(len(p))
	return len(p), nil
}

// errResultTooLarge is the error of a result over maxResultBytes.
func errResultTooLarge(size, max int64) error {
	return limitError("maxResultBytes", max, size,
		"the result is %d bytes once encoded, more than this server sends (maxResultBytes: %d); ask for less, or raise the limit in mcptray's settings", size, max)
}
