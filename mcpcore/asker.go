package mcpcore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/mcpcore/actions"
	"github.com/mcptray/mcptray/record"
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
	Tool      string         `json:"tool"`
	ToolTitle string         `json:"toolTitle,omitempty"`
	Arguments string         `json:"arguments"`
	Hints     *catalog.Hints `json:"hints,omitempty"`
	// Prompt, in place of Tool, names the prompt of another MCP server
	// being got, whose server asks a form meanwhile; Arguments are then
	// the prompt's.
	Prompt string `json:"prompt,omitempty"`
	// Server, for a tool of another MCP server mcptray fronts, is that
	// server's name as the person gave it: the tool's name only shows its
	// prefix, which may be another word, or none.
	Server string `json:"server,omitempty"`
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
	// Runs, on an approval, is what the tool will do with every value
	// known when it is asked (actions.Describe): the command line or the
	// request, secrets masked; "" when it only answers. ClientInputs are
	// the AI app's answers to the tool's earlier steps, as indented JSON
	// ("" when none): values the arguments do not show that can change
	// what runs.
	Runs         string `json:"runs,omitempty"`
	ClientInputs string `json:"clientInputs,omitempty"`
}

// Answer is the person's answer to a Question.
type Answer struct {
	// Action is "accept" (allow, or submit the form), "decline" or "cancel".
	Action string `json:"action"`
	// Content is the submitted form.
	Content map[string]any `json:"content,omitempty"`
	// Remember, on an accepted approval, lets the same client app (the same
	// token and declared name) run the same tool, as it is defined now,
	// without asking again: RememberUntilRestart or RememberUntilRevoked;
	// "" asks every time.
	Remember string `json:"remember,omitempty"`
	// Reason is the person's reason for declining, if they gave one; the
	// model reads it. When Unanswered, it says why nobody answered.
	Reason string `json:"reason,omitempty"`
	// Unanswered is set when nobody answered (the question timed out, or no
	// desktop app runs): the model is told so, rather than that a person
	// refused. Reason is then a sentence without its full stop, such as
	// "Nobody at the computer answered within 5 minutes".
	Unanswered bool `json:"unanswered,omitempty"`
}

// PolicyAsker answers desktop questions when no desktop app runs (headless
// `mcptray serve`): it declines them, saying so in the result text.
type PolicyAsker struct {
	// Policy is AskDeny or AskClientOnly.
	Policy string
}

// Ask declines the question: nobody is at the computer to answer it.
func (p PolicyAsker) Ask(_ context.Context, q Question) (Answer, error) {
	return Answer{Action: "decline", Unanswered: true,
		Reason: fmt.Sprintf("Nobody at the computer can answer: the mcptray desktop app is not running (mcptray serve --ask %s)", p.policy())}, nil
}

func (p PolicyAsker) policy() string {
	if p.Policy == "" {
		return catalog.AskDeny
	}
	return p.Policy
}

// ClientFallback says whether desktop-routed forms and URLs go to a client
// that can answer them: with the policy AskClientOnly.
func (p PolicyAsker) ClientFallback() bool { return p.policy() == catalog.AskClientOnly }

// ClientFallbacker is an Asker that may send the forms and URLs routed to
// the desktop to a client that can answer them instead: a headless server
// by its policy, the desktop app while no window can open. The engine asks
// it as it routes each call's steps.
type ClientFallbacker interface {
	ClientFallback() bool
}

// clientFallback reports whether desktop-routed forms and URLs go to a
// client that can answer them.
func (e *Engine) clientFallback() bool {
	f, ok := e.opts.Asker.(ClientFallbacker)
	return ok && f.ClientFallback()
}

// deskCall is what the desktop is told about the call a question is for,
// or the prompt get.
type deskCall struct {
	client, token, tool, taskID string
	// prompt names the prompt of a question asked while getting it (tool
	// is then "").
	prompt string
	// server names the server an upstream tool belongs to ("" for
	// mcptray's own tools).
	server string
	// title is the tool's title for people ("" when it has none).
	title string
	hints *catalog.Hints
	args  map[string]any
	// def is the tool's definition, which a remembered approval is bound
	// to.
	def catalog.Tool
	// approved records each approval given or refused, for the activity log.
	approved func(string)
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
		return Answer{Action: "decline", Unanswered: true, Reason: "Nobody at the computer answered within " + spellDuration(limit)}, nil
	}
	return ans, err
}

// spellDuration says d for people: "5 minutes", "90 seconds", "1 second".
func spellDuration(d time.Duration) string {
	n, unit := int64(d/time.Second), "second"
	if d >= time.Minute && d%time.Minute == 0 {
		n, unit = int64(d/time.Minute), "minute"
	}
	if n != 1 {
		unit += "s"
	}
	return fmt.Sprintf("%d %s", n, unit)
}

// askDesktop asks the desktop steps, in round order, one at a time, and
// adds their answers to data.Inputs. A later question may use the earlier
// answers. Once a step is not accepted the call will not run, so nothing
// more is asked: the verdict (deniedOnDesktop) says why.
func (e *Engine) askDesktop(ctx context.Context, c deskCall, steps []catalog.InputStep, data *actions.Data) error {
	if len(steps) == 0 || refusedOnDesktop(data.Inputs) {
		return nil
	}
	answers := map[string]json.RawMessage{}
	defer func() { data.Inputs = mergeInputs(data.Inputs, decodeAnswers(answers)) }()
	asker := e.opts.Asker
	if asker == nil {
		asker = PolicyAsker{Policy: catalog.AskDeny}
	}
	args, _ := json.MarshalIndent(c.args, "", "  ")
	for _, round := range roundsOf(steps) {
		for _, s := range inRound(steps, round) {
			data.Inputs = mergeInputs(data.Inputs, decodeAnswers(answers))
			if acceptedOnDesktop(data.Inputs[s.Key]) {
				// Answered in an earlier request of this call (an upstream
				// call's rounds, deskpass.go).
				if s.Kind == catalog.StepApproval {
					c.record(s.Key + ": allowed earlier in this call")
				}
				continue
			}
			var key record.ApprovalKey
			if s.Kind == catalog.StepApproval {
				var err error
				if key, err = approvalKey(c, data.Inputs); err != nil {
					return err
				}
				if how := e.rememberedFor(ctx, key); how != "" {
					answers[s.Key], _ = json.Marshal(map[string]any{"action": "accept", "approved": true, "by": "remembered"})
					c.record(s.Key + ": allowed without asking (remembered " + untilWords(how) + ")")
					continue
				}
			}
			ans, err := e.askStep(ctx, asker, c, s, string(args), data)
			if err != nil {
				return err
			}
			v := map[string]any{"action": ans.Action, "content": ans.Content, "by": catalog.AnsweredByDesktop}
			if ans.Content == nil {
				v["content"] = map[string]any{}
			}
			if ans.Reason != "" {
				v["reason"] = ans.Reason
			}
			if ans.Unanswered {
				v["unanswered"] = true
			}
			accepted := ans.Action == "accept"
			if s.Kind == catalog.StepApproval {
				v["approved"] = accepted
				if accepted && ans.Remember != "" {
					if err := e.rememberApproval(ctx, key, ans.Remember); err != nil {
						return err
					}
				}
				c.record(s.Key + ": " + verdict(ans))
			}
			answers[s.Key], _ = json.Marshal(v)
			if !accepted {
				return nil
			}
		}
	}
	return nil
}

// askStep asks one step on the desktop and checks the answer.
func (e *Engine) askStep(ctx context.Context, asker Asker, c deskCall, s catalog.InputStep, args string, data *actions.Data) (Answer, error) {
	msg, err := actions.Render(s.Message, data)
	if err != nil {
		return Answer{}, fmt.Errorf("input step %q message: %w", s.Key, err)
	}
	q := Question{Client: c.client, Token: c.token, Tool: c.tool, ToolTitle: c.title, Arguments: data.Redact(args), Hints: c.hints,
		Server: c.server, TaskID: c.taskID, Key: s.Key, Kind: s.Kind, Message: data.Redact(msg), Schema: s.Schema}
	if s.Kind == catalog.StepApproval {
		if q.Runs, err = actions.Describe(c.def.Action, data); err != nil {
			return Answer{}, fmt.Errorf("input step %q: saying what %q will run: %w", s.Key, c.tool, err)
		}
		q.Runs = data.Redact(q.Runs)
		if in := clientInputs(data.Inputs); len(in) > 0 {
			b, _ := json.MarshalIndent(in, "", "  ")
			q.ClientInputs = data.Redact(string(b))
		}
	}
	if s.Kind == catalog.StepURL {
		u, err := actions.Render(s.URL, data)
		if err != nil {
			return Answer{}, fmt.Errorf("input step %q url: %w", s.Key, err)
		}
		q.URL = data.Redact(u)
	}
	ans, err := e.askInTime(ctx, asker, q)
	switch {
	case err != nil && ctx.Err() != nil:
		return Answer{}, ctx.Err()
	case err != nil && errors.Is(err, context.Canceled):
		// The call goes on but the question was withdrawn: the server
		// is stopping.
		return Answer{}, fmt.Errorf("mcptray stopped before anyone at the computer answered, so %q did not run", c.tool)
	case err != nil:
		return Answer{}, fmt.Errorf("asking %q on the desktop: %w", s.Key, err)
	}
	switch ans.Action {
	case "accept", "decline", "cancel":
	default:
		return Answer{}, fmt.Errorf("asking %q on the desktop: unknown answer %q", s.Key, ans.Action)
	}
	if s.Kind == catalog.StepForm && ans.Action == "accept" {
		if err := checkFormAnswer(s.Schema, ans.Content); err != nil {
			return Answer{}, fmt.Errorf("the desktop's answer to %q: %w", s.Key, err)
		}
	}
	return ans, nil
}

// record notes an approval's outcome for the activity log.
func (c deskCall) record(line string) {
	if c.approved != nil {
		c.approved(line)
	}
}

// untilWords says how long an approval is remembered, for the activity log.
func untilWords(how string) string {
	if how == record.RememberUntilRevoked {
		return "until revoked"
	}
	return "until mcptray restarts"
}

// verdict is the activity log's word on an approval the desktop answered:
// "allowed once", "allowed until revoked", "denied: not now", "nobody at
// the computer answered within 5 minutes"…
func verdict(ans Answer) string {
	switch {
	case ans.Action == "accept" && ans.Remember != "":
		return "allowed " + untilWords(ans.Remember)
	case ans.Action == "accept":
		return "allowed once"
	case ans.Unanswered:
		return lowerFirst(ans.Reason)
	case ans.Reason != "":
		return "denied: " + ans.Reason
	}
	return "denied"
}

// lowerFirst lowers a sentence's first letter, to continue a line with it.
func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// clientInputs are the answers of inputs the AI app gave (forms, pages,
// sampling, roots), those skipped left out: what a desktop approval must
// show, and what an approval is remembered with.
func clientInputs(inputs map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range inputs {
		ans, ok := v.(map[string]any)
		if !ok {
			continue
		}
		switch ans["by"] {
		case catalog.AnsweredByDesktop, "remembered":
			continue
		}
		if ans["action"] == "skipped" {
			continue
		}
		out[k] = v
	}
	return out
}

// acceptedOnDesktop reports whether answer is a step's accepted on the
// desktop.
func acceptedOnDesktop(answer any) bool {
	ans, ok := answer.(map[string]any)
	return ok && ans["by"] == catalog.AnsweredByDesktop && ans["action"] == "accept"
}

// onDesktop are the answers of steps accepted on the desktop in inputs,
// by key; nil when there is none.
func onDesktop(steps []catalog.InputStep, inputs map[string]any) map[string]any {
	var out map[string]any
	for _, s := range steps {
		if acceptedOnDesktop(inputs[s.Key]) {
			if out == nil {
				out = map[string]any{}
			}
			out[s.Key] = inputs[s.Key]
		}
	}
	return out
}

// refusedOnDesktop reports whether a step answered on the desktop so far
// was not accepted.
func refusedOnDesktop(inputs map[string]any) bool {
	for _, v := range inputs {
		if ans, ok := v.(map[string]any); ok && ans["by"] == catalog.AnsweredByDesktop && ans["action"] != "accept" {
			return true
		}
	}
	return false
}

// errDenied is a desktop step (an approval, or a form or page the person
// did not accept on the desktop) that stops the call. Its text is what the
// model reads, so it says plainly what happened and that the tool did not
// run.
type errDenied struct {
	tool, key, kind, action, reason string
	// unanswered: nobody answered, and reason says why.
	unanswered bool
}

func (e *errDenied) Error() string {
	reason := strings.TrimRight(e.reason, ". ")
	if e.unanswered {
		return fmt.Sprintf("%s, so %q did not run.", reason, e.tool)
	}
	msg := "The person at the computer "
	if e.kind == catalog.StepApproval {
		msg += fmt.Sprintf("denied running %q", e.tool)
		if reason != "" {
			msg += ": " + reason
		}
		return msg + "."
	}
	switch {
	case e.kind == catalog.StepURL:
		msg += fmt.Sprintf("did not open the page %q", e.key)
	case e.action == "cancel":
		msg += fmt.Sprintf("cancelled the form %q", e.key)
	default:
		msg += fmt.Sprintf("declined the form %q", e.key)
	}
	if reason != "" {
		msg += " (" + reason + ")"
	}
	return fmt.Sprintf("%s, so %q did not run.", msg, e.tool)
}

// deniedOnDesktop returns the first of tool's desktop steps that was not
// accepted.
func deniedOnDesktop(tool string, steps []catalog.InputStep, inputs map[string]any) error {
	for _, s := range steps {
		ans, ok := inputs[s.Key].(map[string]any)
		if !ok || ans["by"] != catalog.AnsweredByDesktop {
			continue
		}
		if ans["action"] != "accept" {
			reason, _ := ans["reason"].(string)
			unanswered, _ := ans["unanswered"].(bool)
			return &errDenied{tool: tool, key: s.Key, kind: s.Kind, action: fmt.Sprint(ans["action"]),
				reason: strings.TrimSpace(reason), unanswered: unanswered}
		}
	}
	return nil
}
