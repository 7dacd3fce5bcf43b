package catalog

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Settings are the server-wide options a person can change while it runs.
type Settings struct {
	ServerName   string `json:"serverName"`
	ServerTitle  string `json:"serverTitle,omitempty"`
	Instructions string `json:"instructions,omitempty"`
	// AllowedOrigins are browser origins (scheme://host[:port]) allowed to
	// call the endpoint, beyond the server's own loopback origin.
	AllowedOrigins []string `json:"allowedOrigins,omitempty"`
	// CacheTTLMs and CacheScope fill ttlMs/cacheScope on cacheable results.
	CacheTTLMs int    `json:"cacheTtlMs"`
	CacheScope string `json:"cacheScope"`
	// PageSize bounds list results.
	PageSize int `json:"pageSize"`
	// RequestStateTTLSeconds is how long an input_required round may take.
	RequestStateTTLSeconds int `json:"requestStateTtlSeconds"`
	// MaxBodyBytes caps a request body (413 beyond it).
	MaxBodyBytes int64 `json:"maxBodyBytes"`
	// ActivityMaxRows and ActivityMaxAgeDays bound the activity log: older
	// records beyond either limit are deleted. Its size is bounded too, by
	// storage.DefaultActivityMaxBytes, which is not a setting.
	ActivityMaxRows    int `json:"activityMaxRows"`
	ActivityMaxAgeDays int `json:"activityMaxAgeDays"`
	// TaskTTLMs is how long a task (tasks extension) is kept after it was
	// created; TaskPollIntervalMs is the polling interval suggested to
	// clients.
	TaskTTLMs          int64 `json:"taskTtlMs"`
	TaskPollIntervalMs int64 `json:"taskPollIntervalMs"`
	// Port is the loopback port the server listens on when no --addr is
	// given; 0 means DefaultPort. Client configs in the HTTP form embed
	// it, so it should rarely change.
	Port int `json:"port"`
	// AskPolicy is how `mcptray serve` (no desktop app) answers questions
	// meant for the desktop when --ask is not given: one of AskPolicies.
	AskPolicy string `json:"askPolicy"`
	// AskTimeoutSeconds is how long a question on the desktop (an approval,
	// a form) waits for an answer; then it is declined, saying so, so that
	// no client waits forever on a person who is away.
	AskTimeoutSeconds int `json:"askTimeoutSeconds"`
	// The per-token limits: what one client token may hold at once, so
	// that no local program with a token can starve the others. Requests
	// over a limit get a JSON-RPC error with CodeLimitExceeded naming it.
	//
	// MaxCallsPerToken bounds the tools/call, resources/read and
	// prompts/get requests in flight.
	MaxCallsPerToken int `json:"maxCallsPerToken"`
	// MaxTasksPerToken bounds the tasks not yet ended (working or waiting
	// for input); MaxWaitingTasksPerToken those parked in input_required.
	MaxTasksPerToken        int `json:"maxTasksPerToken"`
	MaxWaitingTasksPerToken int `json:"maxWaitingTasksPerToken"`
	// MaxSessionsPerToken bounds the open 2025-11-25 sessions; a new one
	// beyond it closes the token's least recently used session.
	MaxSessionsPerToken int `json:"maxSessionsPerToken"`
	// MaxResultBytes bounds a result as sent, counted after JSON encoding
	// (a NUL byte of output takes six).
	MaxResultBytes int64 `json:"maxResultBytes"`
}

// DefaultPort is the port mcptray listens on unless told otherwise.
const DefaultPort = 8731

// DefaultSettings are used for any setting never stored.
func DefaultSettings() Settings {
	return Settings{
		ServerName:             "mcptray",
		CacheTTLMs:             5000,
		CacheScope:             "public",
		PageSize:               100,
		RequestStateTTLSeconds: 600,
		MaxBodyBytes:           4 << 20,
		ActivityMaxRows:        10000,
		ActivityMaxAgeDays:     30,
		TaskTTLMs:              3_600_000,
		TaskPollIntervalMs:     1000,
		Port:                   DefaultPort,
		AskPolicy:              AskDeny,
		AskTimeoutSeconds:      300,
		// Limits no real AI app comes near (a handful of calls at once,
		// one session each), which still bound what one token can hold:
		// see docs/security.md, "Limits".
		MaxCallsPerToken:        16,
		MaxTasksPerToken:        64,
		MaxWaitingTasksPerToken: 16,
		MaxSessionsPerToken:     64,
		MaxResultBytes:          8 << 20,
	}
}

// ListenPort is the port to listen on: Port, or DefaultPort when unset.
func (s Settings) ListenPort() int {
	if s.Port == 0 {
		return DefaultPort
	}
	return s.Port
}

// ListenURL is the endpoint of a server listening on the port setting,
// for client configs written while no server runs.
func (s Settings) ListenURL() string {
	return fmt.Sprintf("http://127.0.0.1:%d%s", s.ListenPort(), EndpointPath)
}

// maxTaskTTLMs bounds the task TTL setting: 30 days.
const maxTaskTTLMs = 30 * 24 * 3_600_000

// RequestStateTTL is the request-state lifetime as a duration.
func (s Settings) RequestStateTTL() time.Duration {
	return time.Duration(s.RequestStateTTLSeconds) * time.Second
}

// maxAskTimeoutSeconds bounds the desktop question timeout: a day.
const maxAskTimeoutSeconds = 86400

// The bounds of the maxResultBytes setting: a result must at least hold a
// page of text, and a GiB is more than any client takes.
const (
	minResultBytes = 64 << 10
	maxResultBytes = 1 << 30
)

// AskTimeout is the desktop question timeout as a duration.
func (s Settings) AskTimeout() time.Duration {
	return time.Duration(s.AskTimeoutSeconds) * time.Second
}

// Problems lists what is wrong with a settings value, each problem on
// its field (the setting's JSON name), so a form can show it there.
func (s Settings) Problems() []Problem {
	var ps []Problem
	bad := func(field, format string, args ...any) {
		ps = append(ps, Problem{Entry: "settings", Field: field, Message: fmt.Sprintf(format, args...)})
	}
	if s.ServerName == "" {
		bad("serverName", "required")
	}
	if s.CacheTTLMs < 0 {
		bad("cacheTtlMs", "must not be negative")
	}
	if s.CacheScope != "public" && s.CacheScope != "private" {
		bad("cacheScope", `must be "public" or "private"`)
	}
	if s.PageSize < 1 || s.PageSize > 10000 {
		bad("pageSize", "must be between 1 and 10000")
	}
	if s.RequestStateTTLSeconds < 1 {
		bad("requestStateTtlSeconds", "must be at least 1")
	}
	if s.MaxBodyBytes < 1024 {
		bad("maxBodyBytes", "must be at least 1024")
	}
	if s.ActivityMaxRows < 1 || s.ActivityMaxRows > 10_000_000 {
		bad("activityMaxRows", "must be between 1 and 10000000")
	}
	if s.ActivityMaxAgeDays < 1 || s.ActivityMaxAgeDays > 3650 {
		bad("activityMaxAgeDays", "must be between 1 and 3650")
	}
	if s.TaskTTLMs < 1000 || s.TaskTTLMs > maxTaskTTLMs {
		bad("taskTtlMs", "must be between 1000 and %d (30 days)", maxTaskTTLMs)
	}
	if s.TaskPollIntervalMs < 100 || s.TaskPollIntervalMs > 3_600_000 {
		bad("taskPollIntervalMs", "must be between 100 and 3600000")
	}
	if s.Port < 0 || s.Port > 65535 {
		bad("port", "must be between 1 and 65535 (or 0 for the default, %d)", DefaultPort)
	}
	if s.AskTimeoutSeconds < 1 || s.AskTimeoutSeconds > maxAskTimeoutSeconds {
		bad("askTimeoutSeconds", "must be between 1 and %d (a day)", maxAskTimeoutSeconds)
	}
	for _, l := range []struct {
		field string
		v     int
		max   int
	}{
		{"maxCallsPerToken", s.MaxCallsPerToken, 10_000},
		{"maxTasksPerToken", s.MaxTasksPerToken, 10_000},
		{"maxWaitingTasksPerToken", s.MaxWaitingTasksPerToken, 10_000},
		{"maxSessionsPerToken", s.MaxSessionsPerToken, 10_000},
	} {
		if l.v < 1 || l.v > l.max {
			bad(l.field, "must be between 1 and %d", l.max)
		}
	}
	if s.MaxWaitingTasksPerToken > s.MaxTasksPerToken && s.MaxTasksPerToken >= 1 {
		bad("maxWaitingTasksPerToken", "must not be more than maxTasksPerToken (%d): a task waiting for input is a task", s.MaxTasksPerToken)
	}
	if s.MaxResultBytes < minResultBytes || s.MaxResultBytes > maxResultBytes {
		bad("maxResultBytes", "must be between %d (64 KiB) and %d (1 GiB)", minResultBytes, maxResultBytes)
	}
	if !slices.Contains(AskPolicies, s.AskPolicy) {
		bad("askPolicy", "must be one of %s", strings.Join(AskPolicies, ", "))
	}
	for _, o := range s.AllowedOrigins {
		if _, err := NormalizeOrigin(o); err != nil {
			bad("allowedOrigins", "%v", err)
		}
	}
	return ps
}

// Validate returns a *ValidationError listing the Problems, or nil.
func (s Settings) Validate() error { return AsError(s.Problems()) }

// Ask policies of PolicyAsker.
const (
	// AskDeny declines every desktop question.
	AskDeny = "deny"
	// AskClientOnly sends desktop-routed forms and URLs to the client when
	// it can answer them, and declines approvals.
	AskClientOnly = "client-only"
)

// AskPolicies are the policies `mcptray serve --ask` accepts.
var AskPolicies = []string{AskDeny, AskClientOnly}

// EndpointPath is where the MCP endpoint is served.
const EndpointPath = "/mcp"

// NormalizeOrigin turns a configured origin into the exact form browsers
// send (scheme://host[:port], lower-case, no path), or reports why it is not
// one.
func NormalizeOrigin(o string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(o))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.User != nil {
		return "", fmt.Errorf("%q is not an origin like http://localhost:6274", o)
	}
	return strings.ToLower(u.Scheme + "://" + u.Host), nil
}
