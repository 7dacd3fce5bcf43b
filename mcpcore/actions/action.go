// Package actions runs what a catalog tool does when it is called: the
// respond action (templated content), the command action (a program run
// directly, never through a shell) and the http action. The actions are
// plain data in package catalog (catalog.Action); this package validates
// them before they are stored (Validate) and runs them (Run) with the
// arguments, input answers and secrets of one call as template data.
package actions

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcptray/mcptray/catalog"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Problem is one thing wrong with a definition, located by a field path
// relative to the action (e.g. "respond.content[1].text").
type Problem struct {
	Field   string
	Message string
}

// Validate lists every problem with the action; none means it can run.
// tc remembers the templates checked across many definitions (nil: none).
func Validate(s catalog.Action, tc *TemplateChecks) []Problem {
	n := 0
	for _, set := range []bool{s.Respond != nil, s.Command != nil, s.HTTP != nil, s.Upstream != nil} {
		if set {
			n++
		}
	}
	switch {
	case n == 0:
		return []Problem{{Field: "action", Message: "an action is required (respond, command, http or upstream)"}}
	case n > 1:
		return []Problem{{Field: "action", Message: "exactly one action may be set, found several"}}
	}
	switch {
	case s.Respond != nil:
		return prefix("respond", validateRespond(s.Respond, tc))
	case s.Command != nil:
		return prefix("command", ValidateCommand(s.Command, tc))
	case s.Upstream != nil:
		return prefix("upstream", validateUpstream(s.Upstream))
	}
	return prefix("http", ValidateHTTP(s.HTTP, tc))
}

// Reporter receives what an action streams while it runs. Progress is
// dropped when the request asked for none; Log is dropped when the request
// did not ask for a log level. Implementations decide that, not actions.
type Reporter interface {
	Progress(ctx context.Context, progress, total float64, message string) error
	Log(ctx context.Context, level, logger string, data any) error
}

// Run executes the action with the given template data.
func Run(ctx context.Context, s catalog.Action, data *Data, rep Reporter) (*mcp.CallToolResult, error) {
	switch {
	case s.Respond != nil:
		return runRespond(ctx, s.Respond, data, rep)
	case s.Command != nil:
		return runCommand(ctx, s.Command, data, rep)
	case s.HTTP != nil:
		return runHTTP(ctx, s.HTTP, data, rep)
	case s.Upstream != nil:
		return runUpstream(ctx, s.Upstream, data, rep)
	}
	return nil, errors.New("tool has no action")
}

func prefix(p string, ps []Problem) []Problem {
	for i := range ps {
		if ps[i].Field == "" {
			ps[i].Field = p
		} else {
			ps[i].Field = p + "." + ps[i].Field
		}
	}
	return ps
}

func problemf(field, format string, args ...any) Problem {
	return Problem{Field: field, Message: fmt.Sprintf(format, args...)}
}
