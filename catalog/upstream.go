package catalog

import (
	"fmt"
	"regexp"
	"strings"
	"time"
)

// Upstream is another MCP server a person uses, fronted by mcptray: its
// tools are served to every client under mcptray's tokens, approvals,
// activity log and tasks. Exactly one of Command and Remote is set.
//
// In JSON (defaults in brackets):
//
//	{
//	  "name": "github",
//	  "prefix": "gh_",                   // [name + "_"]; "" serves the names as they are
//	  "command": {"argv": ["npx", "-y", "@modelcontextprotocol/server-github"],
//	              "env": {"GITHUB_TOKEN": "{{secret \"github_token\"}}"}, "dir": ""},
//	  "remote": {"url": "https://example.com/mcp", "transport": "streamable",
//	             "headers": {"Authorization": "Bearer {{secret \"x\"}}"},
//	             "oauth": {"clientId": "", "scopes": []}},       // [absent: sign in as the server asks]
//	  "start": "onUse",                  // "onUse" | "atStart" ["onUse"]
//	  "idleStopMs": 600000,              // stop a command server unused this long [10 min]; -1 never
//	  "callTimeoutMs": 600000,           // a call of one of its tools ends with an error after this [10 min]; -1 never
//	  "disabled": false
//	}
type Upstream struct {
	// Name names the server for people and is its key (CheckName's rules).
	Name string `json:"name"`
	// Prefix goes before each of its tools' and prompts' names; nil means
	// Name + "_".
	Prefix *string `json:"prefix,omitempty"`
	// Command starts a server that speaks MCP on its standard input and
	// output.
	Command *UpstreamCommand `json:"command,omitempty"`
	// Remote reaches a server over HTTP.
	Remote *UpstreamRemote `json:"remote,omitempty"`
	// Start says when a command server starts: UpstreamOnUse or
	// UpstreamAtStart.
	Start string `json:"start,omitempty"`
	// IdleStopMs stops a command server unused this long; 0 means
	// DefaultUpstreamIdleStop, a negative value never.
	IdleStopMs int `json:"idleStopMs,omitempty"`
	// CallTimeoutMs bounds a call of one of its tools; 0 means
	// DefaultUpstreamCallTimeout, a negative value never.
	CallTimeoutMs int `json:"callTimeoutMs,omitempty"`
	// Disabled servers are kept but neither started nor served.
	Disabled bool `json:"disabled,omitempty"`
}

// UpstreamCommand is how a local MCP server is started. Argv and Dir are
// used as written (no call's values reach them); Env's values are templates
// where only {{secret "NAME"}} has a value.
type UpstreamCommand struct {
	Argv []string            `json:"argv"`
	Env  map[string]Template `json:"env,omitempty"`
	Dir  string              `json:"dir,omitempty"`
}

// UpstreamRemote is how a remote MCP server is reached.
type UpstreamRemote struct {
	URL string `json:"url"`
	// Transport is UpstreamStreamable (the default) or UpstreamSSE.
	Transport string `json:"transport,omitempty"`
	// Headers are sent with every request; values are templates where only
	// {{secret "NAME"}} has a value.
	Headers map[string]Template `json:"headers,omitempty"`
	// OAuth is what the person set for a server behind an OAuth sign-in;
	// nil: mcptray signs in when the server asks for it, registering itself
	// with the server's authorization server.
	OAuth *UpstreamOAuth `json:"oauth,omitempty"`
}

// UpstreamOAuth is what the person set for signing in to a remote server:
// what an authorization server without dynamic client registration needs,
// or narrower scopes than the server asks for.
type UpstreamOAuth struct {
	// ClientID is the client id mcptray was registered under by the
	// person; "" registers dynamically.
	ClientID string `json:"clientId,omitempty"`
	// Scopes are the scopes asked for; none: the ones the server names.
	Scopes []string `json:"scopes,omitempty"`
}

// When an upstream command server starts, and how a remote one is reached.
const (
	UpstreamOnUse      = "onUse"
	UpstreamAtStart    = "atStart"
	UpstreamStreamable = "streamable"
	UpstreamSSE        = "sse"
)

// DefaultUpstreamIdleStop is how long an unused command server runs.
const DefaultUpstreamIdleStop = 10 * time.Minute

// DefaultUpstreamCallTimeout bounds a call of a server's tool: servers do
// slow work (a browser, a build), and an app that cannot wait runs the
// call as a task.
const DefaultUpstreamCallTimeout = 10 * time.Minute

// ServedNamePattern is what every client accepts as a tool's name; an
// upstream's served names are made to match it.
var ServedNamePattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// prefixPattern is what an upstream's prefix may hold: served names stay
// within ServedNamePattern, with room for the tool's own name.
var prefixPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,32}$`)

// ToolPrefix is the prefix the upstream's tools and prompts are served
// under.
func (u Upstream) ToolPrefix() string {
	if u.Prefix != nil {
		return *u.Prefix
	}
	return u.Name + "_"
}

// IdleStop is how long an unused command server runs; 0 means never.
func (u Upstream) IdleStop() time.Duration { return msOr(u.IdleStopMs, DefaultUpstreamIdleStop) }

// CallTimeout bounds a call of one of its tools; 0 means never.
func (u Upstream) CallTimeout() time.Duration {
	return msOr(u.CallTimeoutMs, DefaultUpstreamCallTimeout)
}

// msOr reads a duration field in milliseconds: 0 is def, a negative value
// never (0).
func msOr(ms int, def time.Duration) time.Duration {
	switch {
	case ms < 0:
		return 0
	case ms == 0:
		return def
	}
	return time.Duration(ms) * time.Millisecond
}

// Problems lists what is wrong with the upstream's definition, each a
// sentence for people; none means it is complete. Templates in Env and
// Headers are checked by the engine.
func (u Upstream) Problems() []string {
	var out []string
	if err := CheckName(u.Name); err != nil {
		out = append(out, "name: "+err.Error())
	}
	if p := u.ToolPrefix(); p != "" && !prefixPattern.MatchString(p) {
		out = append(out, fmt.Sprintf("prefix %q: use at most 32 of A-Z a-z 0-9 _ -", p))
	}
	switch {
	case u.Command == nil && u.Remote == nil:
		out = append(out, "give a command line that starts the server, or its web address")
	case u.Command != nil && u.Remote != nil:
		out = append(out, "give a command line or a web address, not both")
	case u.Command != nil:
		if len(u.Command.Argv) == 0 || strings.TrimSpace(u.Command.Argv[0]) == "" {
			out = append(out, "command: the program to start is missing")
		}
		for name := range u.Command.Env {
			if name == "" || strings.ContainsAny(name, "=\x00") {
				out = append(out, fmt.Sprintf("environment variable %q: a name cannot be empty or hold = ", name))
			}
		}
	case u.Remote != nil:
		if !strings.HasPrefix(u.Remote.URL, "http://") && !strings.HasPrefix(u.Remote.URL, "https://") {
			out = append(out, fmt.Sprintf("web address %q: must start with https:// (or http://)", u.Remote.URL))
		}
		switch u.Remote.Transport {
		case "", UpstreamStreamable, UpstreamSSE:
		default:
			out = append(out, fmt.Sprintf("transport %q: use %q or %q", u.Remote.Transport, UpstreamStreamable, UpstreamSSE))
		}
	}
	switch u.Start {
	case "", UpstreamOnUse, UpstreamAtStart:
	default:
		out = append(out, fmt.Sprintf("start %q: use %q or %q", u.Start, UpstreamOnUse, UpstreamAtStart))
	}
	return out
}

// UpstreamTool makes a tool call another server's tool: the arguments pass
// through as they are, and its result comes back as the call's result. The
// tool's name, description, schemas and hints are the server's, as the
// person approved them.
type UpstreamTool struct {
	// Server is the Upstream's name.
	Server string `json:"server"`
	// Tool is the tool's name on that server.
	Tool string `json:"tool"`
	// Pin is the hash of the definition the person approved
	// (DefinitionHash); the server's tool is served only while its
	// definition has this hash.
	Pin string `json:"pin"`
	// Held is set while the server offers a definition other than the
	// approved one, or none: the tool is not served until the person
	// approves the change (or the server offers the approved one again).
	Held bool `json:"held,omitempty"`
}

// UpstreamSource makes a resource or a resource template another MCP
// server's: a read asks that server for the same URI.
type UpstreamSource struct {
	// Server is the Upstream's name.
	Server string `json:"server"`
}

// UpstreamPrompt makes a prompt another MCP server's: getting it asks that
// server, with the arguments as given.
type UpstreamPrompt struct {
	// Server is the Upstream's name.
	Server string `json:"server"`
	// Prompt is the prompt's name on that server.
	Prompt string `json:"prompt"`
}
