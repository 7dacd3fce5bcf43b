package actions

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcptray/mcptray/catalog"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// errorExcerpt is how much of a failed response's body an error shows.
const errorExcerpt = 1 << 10

// managedHeaders are set by the HTTP client itself, never by a definition.
var managedHeaders = []string{"Content-Length", "Transfer-Encoding", "Connection", "Keep-Alive", "Upgrade", "Te", "Trailer", "Proxy-Connection"}

// Response is what Fetch returns. Secret values are already redacted from
// the body, the headers and the URL.
type Response struct {
	// Status is the status code, Reason its text ("Not Found").
	Status int
	Reason string
	// ContentType is the Content-Type header as sent.
	ContentType string
	// Header holds all response headers.
	Header http.Header
	// URL is the address that answered, after redirects, without credentials.
	URL string
	// Body is the response body, at most the action's cap.
	Body []byte
	// Truncated says the body was longer than the cap and was cut.
	Truncated bool
}

// OK reports a 2xx status.
func (r *Response) OK() bool { return r.Status >= 200 && r.Status < 300 }

// Validate lists the problems of the http action.
func ValidateHTTP(h *catalog.HTTP, tc *TemplateChecks) []Problem {
	var ps []Problem
	if h.Method != "" && !slices.Contains(catalog.HTTPMethods, strings.ToUpper(h.Method)) {
		ps = append(ps, problemf("method", "unknown method %q; one of %s", h.Method, strings.Join(catalog.HTTPMethods, ", ")))
	}
	switch raw := strings.TrimSpace(string(h.URL)); {
	case raw == "":
		ps = append(ps, problemf("url", "a URL is required"))
	case tc.check(h.URL) != nil:
		ps = append(ps, problemf("url", "%v", tc.check(h.URL)))
	case !strings.Contains(raw, "{{"):
		if _, err := parseHTTPURL(raw); err != nil {
			ps = append(ps, problemf("url", "%v", err))
		}
	default:
		// A literal scheme must be http or https.
		static, _, _ := strings.Cut(raw, "{{")
		if scheme, _, ok := strings.Cut(static, "://"); ok && !isHTTPScheme(scheme) {
			ps = append(ps, problemf("url", "scheme %q: only http and https URLs can be called", scheme))
		}
	}
	for _, k := range sortedKeys(h.Query) {
		if k == "" {
			ps = append(ps, problemf("query", "a query parameter needs a name"))
		}
		if err := tc.check(h.Query[k]); err != nil {
			ps = append(ps, problemf("query."+k, "%v", err))
		}
	}
	for _, k := range sortedKeys(h.Headers) {
		switch {
		case !catalog.IsToken(k):
			ps = append(ps, problemf("headers", "%q is not a valid header name", k))
			continue
		case slices.Contains(managedHeaders, http.CanonicalHeaderKey(k)):
			ps = append(ps, problemf("headers."+k, "%s is set by the HTTP client and cannot be defined", http.CanonicalHeaderKey(k)))
		}
		if err := tc.check(h.Headers[k]); err != nil {
			ps = append(ps, problemf("headers."+k, "%v", err))
		}
	}
	if err := tc.check(h.Body); err != nil {
		ps = append(ps, problemf("body", "%v", err))
	}
	if h.TimeoutMs < 0 {
		ps = append(ps, problemf("timeoutMs", "must not be negative"))
	}
	if h.MaxBytes < 0 || h.MaxBytes > catalog.HTTPMaxBytesLimit {
		ps = append(ps, problemf("maxBytes", "must be between 0 (the default, %d) and %d", catalog.DefaultHTTPMaxBytes, catalog.HTTPMaxBytesLimit))
	}
	return ps
}

func isHTTPScheme(s string) bool {
	return strings.EqualFold(s, "http") || strings.EqualFold(s, "https")
}

func parseHTTPURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("not a valid URL: %w", err)
	}
	if !isHTTPScheme(u.Scheme) {
		return nil, fmt.Errorf("%q is not an http or https URL", u.Redacted())
	}
	if u.Host == "" {
		return nil, fmt.Errorf("%q has no host", u.Redacted())
	}
	return u, nil
}

// Fetch performs the request and reads the (capped) response body. Any
// status is a Response; an error means no response: the definition did not
// render, the URL is not http(s), the network failed, TLS verification
// failed, the redirect limit was hit or the exchange timed out. Errors are
// redacted; when ctx is cancelled its error is returned.
func Fetch(ctx context.Context, h *catalog.HTTP, data *Data) (*Response, error) {
	r, err := fetchHTTP(ctx, h, data)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, redactErr(data, err)
	}
	return r, nil
}

// Run calls the API and turns the response into a tool result.
func runHTTP(ctx context.Context, h *catalog.HTTP, data *Data, _ Reporter) (*mcp.CallToolResult, error) {
	r, err := Fetch(ctx, h, data)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return errorResult(err.Error()), nil
	}
	return r.result(), nil
}

// request is an http action rendered: what it sends.
type request struct {
	method string
	url    *url.URL
	// headers are the rendered headers, by the definition's name, those
	// that rendered empty left out; body is the rendered body.
	headers [][2]string
	body    string
}

// renderRequest renders h with data.
func renderRequest(h *catalog.HTTP, data *Data) (*request, error) {
	r := &request{method: "GET"}
	if h.Method != "" {
		r.method = strings.ToUpper(h.Method)
	}
	if !slices.Contains(catalog.HTTPMethods, r.method) {
		return nil, fmt.Errorf("unknown method %q", h.Method)
	}
	raw, err := Render(h.URL, data)
	if err != nil {
		return nil, fmt.Errorf("url: %w", err)
	}
	if r.url, err = parseHTTPURL(strings.TrimSpace(raw)); err != nil {
		return nil, fmt.Errorf("url: %w", err)
	}
	if len(h.Query) > 0 {
		q := url.Values{}
		for _, k := range sortedKeys(h.Query) {
			v, err := Render(h.Query[k], data)
			if err != nil {
				return nil, fmt.Errorf("query.%s: %w", k, err)
			}
			if v != "" {
				q.Add(k, v)
			}
		}
		if enc := q.Encode(); enc != "" {
			if r.url.RawQuery != "" {
				r.url.RawQuery += "&"
			}
			r.url.RawQuery += enc
		}
	}
	if h.Body != "" {
		if r.body, err = Render(h.Body, data); err != nil {
			return nil, fmt.Errorf("body: %w", err)
		}
	}
	for _, k := range sortedKeys(h.Headers) {
		v, err := Render(h.Headers[k], data)
		if err != nil {
			return nil, fmt.Errorf("headers.%s: %w", k, err)
		}
		if v != "" {
			r.headers = append(r.headers, [2]string{k, v})
		}
	}
	return r, nil
}

func fetchHTTP(ctx context.Context, h *catalog.HTTP, data *Data) (*Response, error) {
	rr, err := renderRequest(h, data)
	if err != nil {
		return nil, err
	}
	method, u, bodyText := rr.method, rr.url, rr.body
	var body io.Reader
	if h.Body != "" {
		body = strings.NewReader(bodyText)
	}

	timeout := catalog.DefaultHTTPTimeout
	if h.TimeoutMs > 0 {
		timeout = time.Duration(h.TimeoutMs) * time.Millisecond
	}
	limit := int64(catalog.DefaultHTTPMaxBytes)
	if h.MaxBytes > 0 {
		limit = h.MaxBytes
	}
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(tctx, method, u.String(), body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, displayURL(u), err)
	}
	req.Header.Set("User-Agent", "mcptray")
	for _, kv := range rr.headers {
		if http.CanonicalHeaderKey(kv[0]) == "Host" {
			req.Host = kv[1]
		} else {
			req.Header.Set(kv[0], kv[1])
		}
	}
	if body != nil && req.Header.Get("Content-Type") == "" {
		if json.Valid([]byte(bodyText)) {
			req.Header.Set("Content-Type", "application/json")
		} else {
			req.Header.Set("Content-Type", "text/plain; charset=utf-8")
		}
	}

	client := newHTTPClient(data, bodyText != "" && data.Redact(bodyText) != bodyText)
	defer client.CloseIdleConnections()
	resp, err := client.Do(req)
	if err != nil {
		return nil, exchangeError(ctx, tctx, h, method, u, timeout, err)
	}
	defer resp.Body.Close()
	// Past the cap, the longest secret's length more is read, so that the
	// body is redacted before it is cut (redactCut), never a secret halved.
	b, err := io.ReadAll(io.LimitReader(resp.Body, limit+int64(data.lookahead())+1))
	if err != nil {
		return nil, exchangeError(ctx, tctx, h, method, u, timeout, fmt.Errorf("reading the response: %w", err))
	}
	r := &Response{
		Status:      resp.StatusCode,
		Reason:      strings.TrimSpace(strings.TrimPrefix(resp.Status, strconv.Itoa(resp.StatusCode))),
		ContentType: data.Redact(resp.Header.Get("Content-Type")),
		Header:      resp.Header.Clone(),
		URL:         redactURL(data, resp.Request.URL),
		Body:        b,
	}
	if r.Reason == "" {
		r.Reason = http.StatusText(r.Status)
	}
	r.Body, r.Truncated = data.redactCut(b, int(limit))
	for _, vs := range r.Header {
		for i := range vs {
			vs[i] = data.Redact(vs[i])
		}
	}
	return r, nil
}

// exchangeError words a failed exchange: a timeout, or the network's own
// error without net/url's quoting of the whole URL.
func exchangeError(ctx, tctx context.Context, h *catalog.HTTP, method string, u *url.URL, timeout time.Duration, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if errors.Is(tctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("%s %s: timed out after %s", method, displayURL(u), timeout)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return fmt.Errorf("%s %s: %w", method, displayURL(u), err)
}

// displayURL is a URL as messages show it: without a password and with
// its escapes decoded, so that redaction finds a secret even when it was
// escaped into the URL. (Messages are redacted once, as a whole.)
func displayURL(u *url.URL) string {
	v := *u
	v.RawQuery, v.Fragment, v.RawFragment = "", "", ""
	s := v.Redacted()
	if un, err := url.PathUnescape(s); err == nil {
		s = un
	}
	if u.RawQuery != "" {
		q, err := url.QueryUnescape(u.RawQuery)
		if err != nil {
			q = u.RawQuery
		}
		s += "?" + q
	}
	return s
}

// redactURL is a URL with secrets redacted: escaped as sent, unless a
// secret appears in it only once decoded.
func redactURL(data *Data, u *url.URL) string {
	s := u.Redacted()
	if un := displayURL(u); data.Redact(un) != un {
		return data.Redact(un)
	}
	return data.Redact(s)
}

// newHTTPClient builds the client of one call: its own transport (no state
// shared between calls or definitions), certificate verification on, the
// redirect policy of the http action.
func newHTTPClient(data *Data, bodyHasSecret bool) *http.Client {
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	tr := &http.Transport{
		Proxy:                  http.ProxyFromEnvironment,
		DialContext:            dialer.DialContext,
		TLSClientConfig:        &tls.Config{MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout:    10 * time.Second,
		ForceAttemptHTTP2:      true,
		MaxResponseHeaderBytes: 1 << 20,
	}
	return &http.Client{
		Transport: tr,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > catalog.MaxRedirects {
				return fmt.Errorf("stopped after %d redirects", catalog.MaxRedirects)
			}
			for _, v := range via {
				if v.URL.Scheme == "https" && req.URL.Scheme != "https" {
					return fmt.Errorf("refused a redirect from https to %s (%s)", req.URL.Scheme, displayURL(req.URL))
				}
			}
			// Another host (or port) is another party; http → https on
			// the same host is not.
			if !strings.EqualFold(via[0].URL.Host, req.URL.Host) {
				for k, vs := range req.Header {
					if slices.ContainsFunc(vs, func(v string) bool { return data.Redact(v) != v }) {
						req.Header.Del(k)
					}
				}
				if bodyHasSecret && req.GetBody != nil {
					return fmt.Errorf("refused to resend a body carrying a secret to another host (%s)", displayURL(req.URL))
				}
			}
			return nil
		},
	}
}

// result turns a response into a tool result.
func (r *Response) result() *mcp.CallToolResult {
	status := fmt.Sprintf("HTTP %d %s", r.Status, r.Reason)
	if !r.OK() {
		msg := status
		if len(r.Body) > 0 {
			if utf8.Valid(r.Body) || r.Truncated && utf8.Valid(trimPartialRune(r.Body)) {
				ex := r.Body
				if len(ex) > errorExcerpt {
					ex = ex[:errorExcerpt]
				}
				msg += ":\n" + string(trimPartialRune(ex))
				if len(ex) < len(r.Body) || r.Truncated {
					msg += "…"
				}
			} else {
				msg += fmt.Sprintf(" (%d bytes of %s)", len(r.Body), r.ContentType)
			}
		}
		return errorResult(msg)
	}
	if len(r.Body) == 0 {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: status}}}
	}
	mt, _, _ := mime.ParseMediaType(r.ContentType)
	mt = strings.ToLower(mt)
	major, _, _ := strings.Cut(mt, "/")
	switch {
	case major == "image" || major == "audio":
		if r.Truncated {
			return errorResult(fmt.Sprintf("%s: the %s is larger than the %d-byte cap (maxBytes)", status, mt, len(r.Body)))
		}
		if major == "image" {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{Data: r.Body, MIMEType: mt}}}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.AudioContent{Data: r.Body, MIMEType: mt}}}
	case isTextType(mt) || utf8.Valid(r.Body) || r.Truncated && utf8.Valid(trimPartialRune(r.Body)):
		text := string(r.Body)
		if r.Truncated {
			text = fmt.Sprintf("%s\n[response truncated at %d bytes]", trimPartialRune(r.Body), len(r.Body))
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
	}
	if r.Truncated {
		return errorResult(fmt.Sprintf("%s: the %s body is larger than the %d-byte cap (maxBytes)", status, mt, len(r.Body)))
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: r.URL, MIMEType: mt, Blob: r.Body}}}}
}

// isTextType reports media types whose body is text.
func isTextType(mt string) bool {
	switch {
	case strings.HasPrefix(mt, "text/"), strings.HasSuffix(mt, "+json"), strings.HasSuffix(mt, "+xml"):
		return true
	}
	switch mt {
	case "application/json", "application/xml", "application/javascript", "application/x-www-form-urlencoded",
		"application/yaml", "application/x-yaml", "application/toml", "application/x-ndjson", "application/graphql-response+json":
		return true
	}
	return false
}
