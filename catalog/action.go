package catalog

import (
	"encoding/json"
	"errors"
	"strings"
	"time"
)

// Action is a tool's action: exactly one of its fields is set.
type Action struct {
	Respond *Respond `json:"respond,omitempty"`
	Command *Command `json:"command,omitempty"`
	HTTP    *HTTP    `json:"http,omitempty"`
	// Upstream calls a tool of another MCP server (catalog.Upstream).
	Upstream *UpstreamTool `json:"upstream,omitempty"`
}

// Kind names the action that is set, or "" when none is.
func (s Action) Kind() string {
	switch {
	case s.Respond != nil:
		return "respond"
	case s.Command != nil:
		return "command"
	case s.HTTP != nil:
		return "http"
	case s.Upstream != nil:
		return "upstream"
	}
	return ""
}

// Respond answers a call with templated content, optionally after streaming
// progress and log steps.
type Respond struct {
	// Content blocks of the result, rendered in order.
	Content []Content `json:"content,omitempty"`
	// Structured is the result's structuredContent: any JSON value whose
	// string leaves are templates. When the tool has an output schema the
	// rendered value is checked against it.
	Structured json.RawMessage `json:"structured,omitempty"`
	// IsError marks the result as a tool error the model should see.
	IsError bool `json:"isError,omitempty"`
	// Steps stream before the result, each after its delay.
	Steps []Step `json:"steps,omitempty"`
	// Error, when set, ends the call with this JSON-RPC (protocol) error
	// after the steps instead of a result: a way to simulate a failing
	// server. Content is then not required.
	Error *ProtocolError `json:"error,omitempty"`
}

// ProtocolError is a JSON-RPC error a respond action ends with.
type ProtocolError struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
}

// Step is one progress or log notification sent while a respond action runs.
type Step struct {
	// DelayMs is waited before the step is sent.
	DelayMs int `json:"delayMs,omitempty"`
	// Progress, when set, sends notifications/progress (if the request
	// carries a progress token).
	Progress *ProgressStep `json:"progress,omitempty"`
	// Log, when set, sends notifications/message (if the request asked for
	// a log level that admits it).
	Log *LogStep `json:"log,omitempty"`
}

// ProgressStep is a progress notification.
type ProgressStep struct {
	Progress float64  `json:"progress"`
	Total    float64  `json:"total,omitempty"`
	Message  Template `json:"message,omitempty"`
}

// LogStep is a log message.
type LogStep struct {
	Level  string   `json:"level"`
	Logger string   `json:"logger,omitempty"`
	Data   Template `json:"data"`
}

// LogLevels are the syslog levels MCP uses, least severe first.
var LogLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// HTTP calls a web API. The URL, query values, headers and body are
// templates over .args, .inputs, .server and {{secret "name"}}.
//
// In JSON (defaults in brackets):
//
//	{
//	  "method": "POST",                  // GET HEAD POST PUT PATCH DELETE OPTIONS [GET]
//	  "url": "https://api.example.com/repos/{{pathescape .args.repo}}/issues",
//	  "query": {"q": "{{.args.q}}"},     // escaped for you; empty values are left out
//	  "headers": {"Authorization": "Bearer {{secret \"gh\"}}"},
//	  "body": "{\"title\": {{json .args.title}}}",
//	  "timeoutMs": 30000,                // whole exchange, body included [30000]
//	  "maxBytes": 5242880                // response body cap [5 MiB]
//	}
//
// Escaping: the URL template is used as written, so a value placed in a
// path segment must be escaped with {{pathescape .args.x}} (which also
// escapes "/", so a value cannot climb to another path), and one placed in
// a hand-written query with {{urlquery .args.x}}. Values in Query are
// escaped automatically and appended to the URL's own query. A value can
// never change the scheme or host when the URL template writes them
// literally ("https://host/…"); only http and https URLs are called. In a
// JSON body, write values with {{json .args.x}} so they arrive quoted and
// escaped.
//
// Each call has its own client: TLS certificates are always verified, the
// environment's proxy settings (HTTPS_PROXY, NO_PROXY) apply but loopback
// is never proxied, no cookies are kept. At most MaxRedirects redirects
// are followed, never from https to http; on a redirect to another host
// (or port) the headers that carry a secret are dropped (as Go already
// does for Authorization and Cookie), and a body that carries a secret is
// not resent.
//
// A 2xx response becomes a text block (JSON, text, XML…; the engine turns
// JSON into structured content when the tool has an output schema), an
// image or audio block for image/* and audio/*, or an embedded resource
// blob for other binary types. Any other status is an isError result
// "HTTP <status> <reason>" with an excerpt of the body.
type HTTP struct {
	// Method is the request method, GET when empty (see HTTPMethods).
	Method string `json:"method,omitempty"`
	// URL is the address, a template; see the escaping rules above.
	URL Template `json:"url"`
	// Query adds query parameters, name → template, escaped automatically
	// and sent in name order; a value that renders empty is left out.
	Query map[string]Template `json:"query,omitempty"`
	// Headers are request headers, name → template; secrets are allowed.
	// A value that renders empty is left out; "Host" sets the request's
	// host. Content-Type defaults to application/json when the body is
	// JSON, else text/plain; User-Agent to "mcptray".
	Headers map[string]Template `json:"headers,omitempty"`
	// Body is the request body, a template; empty sends none.
	Body Template `json:"body,omitempty"`
	// TimeoutMs bounds the whole exchange; 0 means DefaultHTTPTimeout.
	TimeoutMs int `json:"timeoutMs,omitempty"`
	// MaxBytes caps the response body read; 0 means DefaultHTTPMaxBytes,
	// at most HTTPMaxBytesLimit. A longer body is cut and reported as
	// truncated.
	MaxBytes int64 `json:"maxBytes,omitempty"`
}

const (
	// DefaultHTTPTimeout applies when an http action sets no timeout.
	DefaultHTTPTimeout = 30 * time.Second
	// DefaultHTTPMaxBytes caps a response body when an http action sets no cap.
	DefaultHTTPMaxBytes = 5 << 20
	// HTTPMaxBytesLimit is the largest cap an http action may set.
	HTTPMaxBytesLimit = 64 << 20
	// MaxRedirects is how many redirects an http action follows.
	MaxRedirects = 5
)

// HTTPMethods are the methods an http action may use.
var HTTPMethods = []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}

// Command runs a program directly — never through a shell — so a templated
// argument is always exactly one argv entry, whatever it contains: a value
// like "; rm -rf ~" or "$(id)" reaches the program as those literal bytes.
//
// In JSON (defaults in brackets):
//
//	{
//	  "argv": ["git", "-C", "{{.args.repo}}", "log", "-n", "{{.args.n}}"],
//	  "dir": "/home/me/src",           // working directory [the server's]
//	  "inheritEnv": "default",         // "default" | "none" | "all" | ["NAME", "LC_*", "@default"] ["default"]
//	  "env": {"TOKEN": "{{secret \"api\"}}"},
//	  "stdin": "{{.args.text}}",       // [empty]
//	  "timeoutMs": 60000,              // [60000]
//	  "maxOutputBytes": 1048576,       // cap on stdout, and on stderr [1 MiB]
//	  "stream": "progress",            // "progress" | "log" | "" [""]
//	  "os": {"windows": {"argv": ["git.exe", "-C", "{{.args.repo}}", "log"], "dir": "C:\\src"}}
//	}
//
// Exit status 0 gives stdout as text content; any other exit gives an
// isError result carrying the status and stderr. Secret values the templates
// resolved are redacted from everything the command returns, even when the
// program echoes them.
type Command struct {
	// Argv is the program followed by its arguments, each a template over
	// .args, .inputs, .server and {{secret "name"}}. Each rendered entry is
	// one argument, never split and never interpreted by a shell. A program
	// without a path separator is searched in PATH — the PATH the command's
	// environment sets, else the server's; one with a separator is used as
	// is (relative to Dir when relative).
	Argv []Template `json:"argv"`
	// Dir is the working directory (a template); empty means the server's.
	Dir Template `json:"dir,omitempty"`
	// InheritEnv selects which of the server's environment variables the
	// program sees; the zero value means "default" (DefaultInheritedEnv).
	InheritEnv InheritEnv `json:"inheritEnv,omitzero"`
	// Env sets variables on top of the inherited ones, NAME → template;
	// secrets are allowed and are redacted from the output.
	Env map[string]Template `json:"env,omitempty"`
	// Stdin is written to the program's standard input (a template); empty
	// means the program reads end-of-file at once.
	Stdin Template `json:"stdin,omitempty"`
	// TimeoutMs bounds the run; 0 means DefaultCommandTimeout. When it
	// expires the whole process group is killed.
	TimeoutMs int `json:"timeoutMs,omitempty"`
	// MaxOutputBytes caps what is kept of stdout and, separately, of
	// stderr; 0 means DefaultMaxOutputBytes, at most MaxOutputBytesLimit.
	// Output past the cap is read and discarded (the program is not
	// blocked and not killed for it) and the result says it was truncated.
	MaxOutputBytes int `json:"maxOutputBytes,omitempty"`
	// Stream sends each non-blank stdout line while the program runs:
	// "progress" as notifications/progress (message = the line, progress =
	// the number of lines so far), "log" as notifications/message at level
	// info; "" streams nothing. Only lines within the output cap stream.
	Stream string `json:"stream,omitempty"`
	// OS holds the command lines that run instead of Argv (and Dir) on
	// the operating systems it names, by Go's name for them (GOOS:
	// "windows", "darwin" for macOS, "linux"; see OSNames): the same tool
	// can run `date` on Linux and `cmd /c echo %DATE%` on Windows. Every
	// other field is shared. Without an entry for the running system,
	// Argv and Dir run.
	OS map[string]CommandLine `json:"os,omitempty"`
}

// CommandLine is what a command runs on one operating system, in place of
// its own Argv and Dir.
type CommandLine struct {
	// Argv replaces the command's Argv: the program, then its arguments,
	// templates as in Command.Argv.
	Argv []Template `json:"argv"`
	// Dir, when set, replaces the command's Dir; empty keeps it.
	Dir Template `json:"dir,omitempty"`
}

// OSNames are the operating systems a command's OS may name, Go's names
// for them (runtime.GOOS), with what a person calls each.
var OSNames = map[string]string{
	"windows": "Windows",
	"darwin":  "macOS",
	"linux":   "Linux",
	"freebsd": "FreeBSD",
	"openbsd": "OpenBSD",
	"netbsd":  "NetBSD",
}

// On is the command as it runs on the operating system goos (a GOOS
// name): with the command line OS gives for goos, if any, in place of
// Argv and Dir. The command itself is left as it is; a copy is returned.
func (c Command) On(goos string) Command {
	l, ok := c.OS[goos]
	if !ok {
		return c
	}
	c.Argv = l.Argv
	if l.Dir != "" {
		c.Dir = l.Dir
	}
	return c
}

// InheritEnv says which of the server's environment variables a command
// inherits. In JSON it is either a string — "default" (DefaultInheritedEnv),
// "none" or "all" — or a list of names, where "LC_*" matches a prefix and
// "@default" stands for DefaultInheritedEnv: ["@default", "HTTPS_PROXY"]
// adds one variable to the default set. An empty list means none.
type InheritEnv struct {
	// Mode is "default" (or empty), "none" or "all"; ignored when Names is set.
	Mode string
	// Names, when not nil, lists exactly the variables to inherit.
	Names []string
}

// IsZero reports whether the default applies.
func (e InheritEnv) IsZero() bool { return e.Names == nil && (e.Mode == "" || e.Mode == "default") }

// MarshalJSON writes the mode string or the list of names.
func (e InheritEnv) MarshalJSON() ([]byte, error) {
	if e.Names != nil {
		return json.Marshal(e.Names)
	}
	if e.Mode == "" {
		return json.Marshal("default")
	}
	return json.Marshal(e.Mode)
}

// UnmarshalJSON reads a mode string or a list of names.
func (e *InheritEnv) UnmarshalJSON(b []byte) error {
	var mode string
	if err := json.Unmarshal(b, &mode); err == nil {
		*e = InheritEnv{Mode: mode}
		return nil
	}
	var names []string
	if err := json.Unmarshal(b, &names); err != nil {
		return errors.New(`inheritEnv: want "default", "none", "all" or a list of variable names`)
	}
	if len(names) == 0 {
		*e = InheritEnv{Mode: "none"}
		return nil
	}
	*e = InheritEnv{Names: names}
	return nil
}

// Content is one templated content block of a result or a prompt message.
// Which fields apply depends on Type:
//
//	text           Text
//	image, audio   Data (base64) or File (read at call time), MimeType
//	resource       URI, MimeType, and Text or Blob (base64): an embedded resource
//	resource_link  URI, Name, Title, Description, MimeType
type Content struct {
	Type        string   `json:"type"`
	Text        Template `json:"text,omitempty"`
	Data        Template `json:"data,omitempty"`
	File        Template `json:"file,omitempty"`
	Blob        Template `json:"blob,omitempty"`
	MimeType    string   `json:"mimeType,omitempty"`
	URI         Template `json:"uri,omitempty"`
	Name        Template `json:"name,omitempty"`
	Title       string   `json:"title,omitempty"`
	Description string   `json:"description,omitempty"`
}

// ContentTypes are the block types a definition may use.
var ContentTypes = []string{"text", "image", "audio", "resource", "resource_link"}

// Template is a text/template source in a definition. Plain text without
// "{{" is used as is.
type Template string

// IsToken reports whether s is an RFC 9110 token: what a method or a
// header name must be.
func IsToken(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r >= 0x80 || !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("!#$%&'*+-.^_`|~", r)) {
			return false
		}
	}
	return true
}
