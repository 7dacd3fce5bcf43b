package mcpcore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/mcptray/mcptray/mcpcore/actions"
)

// Asker answers the input steps routed to the desktop: approvals, and forms
// or URLs a person answers in mcptray rather than in the AI client. The GUI
// implements it with native dialogs. Ask blocks until the person answers or
// ctx ends; ctx ends when the request is cancelled, its client disconnects
// or its task is cancelled, and the question must then be withdrawn.
type Asker interface {
	Ask(ctx context.Context, q Question) (Answer, error)
}

// Question is one input step to answer on the desktop.
type Question struct {
	// Client is the AI client's name (its clientInfo), Token the client
	// token's name (empty when auth is off).
	Client string `json:"client,omitempty"`
	Token  string `json:"token,omitempty"`
	// Tool is the tool being called and ToolTitle its title for people
	// (empty when it has none); Arguments its arguments as indented JSON,
	// Hints its annotations.
	Tool      string `json:"tool"`
	ToolTitle string `json:"toolTitle,omitempty"`
	Arguments string `json:"arguments"`
	Hints     *Hints `json:"hints,omitempty"`
	// TaskID is set when the call runs as a task.
	TaskID string `json:"taskId,omitempty"`
	// Key and Kind (approval, form or url) identify the step; Message is its
	// rendered question, URL the page of a url step, Schema the fields of a
	// form.
	Key     string          `json:"key"`
	Kind    string          `json:"kind"`
	Message string          `json:"message"`
	URL     string          `json:"url,omitempty"`
	Schema  json.RawMessage `json:"schema,omitempty"`
}

// Answer is the person's answer to a Question.
type Answer struct {
	// Action is "accept" (allow, or submit the form), "decline" or "cancel".
	Action string `json:"action"`
	// Content is the submitted form.
	Content map[string]any `json:"content,omitempty"`
	// Remember, on an accepted approval, allows the same client to call the
	// same tool without asking again until mcptray restarts.
	Remember bool `json:"remember,omitempty"`
	// Reason says why the question was declined; it is shown to the model.
	Reason string `json:"reason,omitempty"`
}

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

// PolicyAsker answers desktop questions when no desktop app runs (headless
// `mcptray serve`): it declines them, saying so in the result text.
type PolicyAsker struct {
	// Policy is AskDeny or AskClientOnly.
	Policy string
}

// Ask declines the question.
func (p PolicyAsker) Ask(_ context.Context, q Question) (Answer, error) {
	what := "this step"
	if q.Kind == StepApproval {
		what = "this approval"
	}
	return Answer{Action: "decline", Reason: fmt.Sprintf("the mcptray desktop app is not running, so nobody can answer %s on the desktop (mcptray serve --ask %s)", what, p.policy())}, nil
}

func (p PolicyAsker) policy() string {
	if p.Policy == "" {
		return AskDeny
	}
	return p.Policy
}

// clientFallback reports whether desktop-routed forms and URLs go to a
// client that can answer them.
func (e *Engine) clientFallback() bool {
	p, ok := e.opts.Asker.(PolicyAsker)
	return ok && p.policy() == AskClientOnly
}

// deskCall is what the desktop is told about the call a question is for.
type deskCall struct {
	client, token, tool, taskID string
	// title is the tool's title for people ("" when it has none).
	title string
	hints *Hints
	args  map[string]any
	// approved records each approval given or refused, for the activity log.
	approved func(string)
}

// remembered holds the approvals a person allowed "for this client".
type remembered struct {
	mu  sync.Mutex
	set map[string]bool
}

func rememberKey(c deskCall) string { return c.token + "\x00" + c.client + "\x00" + c.tool }

func (r *remembered) has(c deskCall) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.set[rememberKey(c)]
}

func (r *remembered) add(c deskCall) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.set == nil {
		r.set = map[string]bool{}
	}
	r.set[rememberKey(c)] = true
}

// askInTime asks q within the desktop question timeout (the dialog shows
// the time left): a question nobody answers in time is declined, saying
// so, rather than holding the client's call forever.
func (e *Engine) askInTime(ctx context.Context, asker Asker, q Question) (Answer, error) {
	limit := e.currentSettings().AskTimeout()
	qctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	ans, err := asker.Ask(qctx, q)
	if err != nil && ctx.Err() == nil && errors.Is(qctx.Err(), context.DeadlineExceeded) {
		return Answer{Action: "decline", Reason: fmt.Sprintf("nobody answered on the desktop within %s", limit)}, nil
	}
	return ans, err
}

// askDesktop asks the desktop steps, in round order, one at a time, and
// adds their answers to data.Inputs. A later question may use the earlier
// answers.
func (e *Engine) askDesktop(ctx context.Context, c deskCall, steps []InputStep, data *actions.Data) error {
	if len(steps) == 0 {
		return nil
	}
	answers := map[string]json.RawMessage{}
	asker := e.opts.Asker
	if asker == nil {
		asker = PolicyAsker{Policy: AskDeny}
	}
	args, _ := json.MarshalIndent(c.args, "", "  ")
	for _, round := range roundsOf(steps) {
		for _, s := range inRound(steps, round) {
			data.Inputs = mergeInputs(data.Inputs, decodeAnswers(answers))
			if s.Kind == StepApproval && e.remember.has(c) {
				answers[s.Key], _ = json.Marshal(map[string]any{"action": "accept", "approved": true, "by": "remembered"})
				if c.approved != nil {
					c.approved(s.Key + ": allowed (remembered for this client)")
				}
				continue
			}
			msg, err := s.Message.Render(data)
			if err != nil {
				return fmt.Errorf("input step %q message: %w", s.Key, err)
			}
			q := Question{Client: c.client, Token: c.token, Tool: c.tool, ToolTitle: c.title, Arguments: data.Redact(string(args)), Hints: c.hints,
				TaskID: c.taskID, Key: s.Key, Kind: s.Kind, Message: data.Redact(msg), Schema: s.Schema}
			if s.Kind == StepURL {
				u, err := s.URL.Render(data)
				if err != nil {
					return fmt.Errorf("input step %q url: %w", s.Key, err)
				}
				q.URL = data.Redact(u)
			}
			ans, err := e.askInTime(ctx, asker, q)
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				return fmt.Errorf("asking %q on the desktop: %w", s.Key, err)
			}
			switch ans.Action {
			case "accept", "decline", "cancel":
			default:
				return fmt.Errorf("asking %q on the desktop: unknown answer %q", s.Key, ans.Action)
			}
			if s.Kind == StepForm && ans.Action == "accept" {
				if err := checkFormAnswer(s.Schema, ans.Content); err != nil {
					return fmt.Errorf("the desktop's answer to %q: %w", s.Key, err)
				}
			}
			v := map[string]any{"action": ans.Action, "content": ans.Content, "by": AnsweredByDesktop}
			if ans.Content == nil {
				v["content"] = map[string]any{}
			}
			if ans.Reason != "" {
				v["reason"] = ans.Reason
			}
			if s.Kind == StepApproval {
				v["approved"] = ans.Action == "accept"
				if ans.Action == "accept" && ans.Remember {
					e.remember.add(c)
				}
				if c.approved != nil {
					verdict := "allowed on the desktop"
					if ans.Action != "accept" {
						verdict = "denied"
						if ans.Reason != "" {
							verdict += ": " + ans.Reason
						}
					}
					c.approved(s.Key + ": " + verdict)
				}
			}
			answers[s.Key], _ = json.Marshal(v)
		}
	}
	data.Inputs = mergeInputs(data.Inputs, decodeAnswers(answers))
	return nil
}

// errDenied is a desktop step (an approval, or a form the person declined
// on the desktop) that stops the call; the model sees why.
type errDenied struct{ key, kind, action, reason string }

func (e *errDenied) Error() string {
	what := fmt.Sprintf("the %q step was declined", e.key)
	if e.kind == StepApproval {
		what = fmt.Sprintf("the approval %q was denied", e.key)
	} else if e.action == "cancel" {
		what = fmt.Sprintf("the %q step was cancelled", e.key)
	}
	msg := what + " on the desktop, so the request did not go ahead"
	if e.reason != "" {
		msg += ": " + e.reason
	}
	return msg
}

// deniedOnDesktop returns the first desktop step that was not accepted.
func deniedOnDesktop(steps []InputStep, inputs map[string]any) error {
	for _, s := range steps {
		ans, ok := inputs[s.Key].(map[string]any)
		if !ok || ans["by"] != AnsweredByDesktop {
			continue
		}
		if ans["action"] != "accept" {
			reason, _ := ans["reason"].(string)
			return &errDenied{key: s.Key, kind: s.Kind, action: fmt.Sprint(ans["action"]), reason: strings.TrimSpace(reason)}
		}
	}
	return nil
}
