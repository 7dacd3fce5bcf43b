package actions

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcptray/mcptray/catalog"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const maxStepDelay = 10 * time.Minute

// Validate lists the problems of the respond action.
func validateRespond(r *catalog.Respond, tc *TemplateChecks) []Problem {
	var ps []Problem
	if r.Error != nil {
		if r.Error.Code > -32000 || r.Error.Code < -32768 {
			ps = append(ps, problemf("error.code", "must be a JSON-RPC error code (between -32768 and -32000), got %d", r.Error.Code))
		}
		if r.Error.Message == "" {
			ps = append(ps, problemf("error.message", "required"))
		}
	} else if len(r.Content) == 0 && len(r.Structured) == 0 {
		ps = append(ps, problemf("content", "a respond action needs content or structured output"))
	}
	for i, c := range r.Content {
		ps = append(ps, prefix(fmt.Sprintf("content[%d]", i), ValidateContent(c, tc))...)
	}
	if len(r.Structured) > 0 {
		var v any
		if err := json.Unmarshal(r.Structured, &v); err != nil {
			ps = append(ps, problemf("structured", "not valid JSON: %v", err))
		} else if err := checkJSONTemplates(v, tc); err != nil {
			ps = append(ps, problemf("structured", "%v", err))
		}
	}
	for i, s := range r.Steps {
		f := fmt.Sprintf("steps[%d]", i)
		if s.DelayMs < 0 || time.Duration(s.DelayMs)*time.Millisecond > maxStepDelay {
			ps = append(ps, problemf(f+".delayMs", "must be between 0 and %d", maxStepDelay.Milliseconds()))
		}
		if (s.Progress == nil) == (s.Log == nil) {
			ps = append(ps, problemf(f, "a step is either progress or log"))
		}
		if s.Progress != nil {
			if err := tc.check(s.Progress.Message); err != nil {
				ps = append(ps, problemf(f+".progress.message", "%v", err))
			}
			if s.Progress.Total != 0 && s.Progress.Progress > s.Progress.Total {
				ps = append(ps, problemf(f+".progress.progress", "exceeds total"))
			}
		}
		if s.Log != nil {
			if !validLevel(s.Log.Level) {
				ps = append(ps, problemf(f+".log.level", "unknown level %q", s.Log.Level))
			}
			if err := tc.check(s.Log.Data); err != nil {
				ps = append(ps, problemf(f+".log.data", "%v", err))
			}
		}
	}
	return ps
}

func validLevel(l string) bool {
	for _, x := range catalog.LogLevels {
		if x == l {
			return true
		}
	}
	return false
}

// Run streams the steps, then renders the result.
func runRespond(ctx context.Context, r *catalog.Respond, data *Data, rep Reporter) (*mcp.CallToolResult, error) {
	for i, s := range r.Steps {
		if err := sleep(ctx, time.Duration(s.DelayMs)*time.Millisecond); err != nil {
			return nil, err
		}
		if err := runStep(ctx, s, data, rep); err != nil {
			return nil, fmt.Errorf("step %d: %w", i, err)
		}
	}
	if r.Error != nil {
		return nil, &jsonrpc.Error{Code: r.Error.Code, Message: r.Error.Message}
	}
	content, err := RenderAll(r.Content, data)
	if err != nil {
		return nil, err
	}
	res := &mcp.CallToolResult{Content: content, IsError: r.IsError}
	if len(r.Structured) > 0 {
		v, err := renderJSON(r.Structured, data)
		if err != nil {
			return nil, err
		}
		res.StructuredContent = v
	}
	return res, nil
}

func runStep(ctx context.Context, s catalog.Step, data *Data, rep Reporter) error {
	if s.Progress != nil {
		msg, err := Render(s.Progress.Message, data)
		if err != nil {
			return err
		}
		return rep.Progress(ctx, s.Progress.Progress, s.Progress.Total, msg)
	}
	text, err := Render(s.Log.Data, data)
	if err != nil {
		return err
	}
	return rep.Log(ctx, s.Log.Level, s.Log.Logger, text)
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
