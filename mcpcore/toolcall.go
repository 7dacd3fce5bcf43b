package mcpcore

import (
	"context"
	"fmt"
	"maps"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/mcpcore/actions"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// One tools/call, top to bottom. go-sdk has checked the arguments against
// the input schema (defaults applied) before callTool runs; then:
//
//  0. the plan: whether the call runs as a task, and who answers each input
//     step — the client or the desktop — and when (steps.go);
//  1. the client's rounds: input_required results carrying a sealed
//     requestState on 2026-07-28, server→client requests on a 2025-11-25
//     session (clientrounds.go, requeststate.go);
//  2. the desktop's questions: approvals, forms and URLs a person answers in
//     mcptray (asker.go);
//  3. the verdict: a step declined in the client or on the desktop stops
//     the call with a tool error the model reads;
//  4. the action (tools.go), its structured output checked.
//
// A call that runs as a task answers with the task as soon as the client's
// rounds are done; steps 2 to 4 then run in the task (taskrun.go), which
// also asks its in-task steps — the client's through tasks/update — after
// the desktop's questions.

// toolCall is one tools/call of a catalog tool, as it goes.
type toolCall struct {
	tool   catalog.Tool
	output *jsonschema.Resolved
	req    *mcp.CallToolRequest
	plan   stepPlan
	// data is the template data of the call: the arguments, and the answers
	// as they come in.
	data *actions.Data
	// desk is what the desktop is told about the call; it names the task
	// once there is one.
	desk deskCall
	// bind ties the call's sealed requestState to it; answers are the
	// client's answers to the tool's own steps, sealed again with an
	// upstream tool's server's round (upstreamrounds.go).
	bind    binding
	answers map[string]any
	// deskForms says an upstream tool's server was told the client shows
	// forms because the desktop does (upstreamdesk.go).
	deskForms bool
}

// callTool runs one tools/call: the plan, the client's rounds, and then,
// in the request or in a task, the rest (finishCall). It returns the
// result and the structured value go-sdk checks and serializes.
func (e *Engine) callTool(ctx context.Context, t catalog.Tool, output *jsonschema.Resolved, req *mcp.CallToolRequest, args map[string]any) (*mcp.CallToolResult, any, error) {
	// 0. The plan.
	asTask, err := runsAsTask(t, req)
	if err != nil {
		return nil, nil, err
	}
	plan, err := e.planSteps(stepsOf(t), asTask, req.ClientCapabilities)
	if err != nil {
		return nil, nil, err
	}
	c := &toolCall{tool: t, output: output, req: req, plan: plan, data: e.data(ctx, args)}
	principal := principalOf(req.Extra)
	c.desk = deskCall{client: clientName(req), token: principal, tool: t.Name, title: t.Title, hints: t.Hints, args: c.data.Args,
		def: t, approved: callRecordOf(ctx).addApproval}
	if up := t.Action.Upstream; up != nil {
		c.desk.server = up.Server
		c.noteCaller(ctx)
	}

	// 1. The client's rounds: a 2026-07-28 request brings the answers to
	// one round and gets the next, until none is left; a 2025-11-25
	// session is asked every round while this request waits.
	c.bind = binding{Method: "tools/call", Name: t.Name, Arguments: c.data.Args, Principal: principal}
	out, err := e.askClient(ctx, roundsRequest{
		steps:     plan.client,
		bind:      c.bind,
		data:      c.data,
		session:   req.Session,
		responses: req.Params.InputResponses,
		state:     req.Params.RequestState,
	})
	if err != nil {
		return nil, nil, err
	}
	if out.Requests != nil {
		return &mcp.CallToolResult{InputRequests: out.Requests, RequestState: out.State}, nil, nil
	}
	c.answers = out.Inputs
	c.data.Inputs = withSkipped(plan.before, out.Inputs)
	if t.Action.Upstream != nil {
		// The server's own rounds, if it asks for input, come after the
		// tool's.
		var caps any
		caps, c.deskForms = e.withDesktopForms(clientCapabilities(req.Params.GetMeta(), req.ClientCapabilities()))
		var desk map[string]any
		if c.data.Round, desk, err = e.upstreamRound(c.bind, caps, req.Params.InputResponses, req.Params.RequestState, len(plan.client) > 0); err != nil {
			return nil, nil, err
		}
		// This request goes on a call the person answered on the desktop
		// already, in its first request: they are not asked again.
		c.data.Inputs = mergeInputs(c.data.Inputs, desk)
	}

	if !asTask {
		return e.finishCall(ctx, c, nil)
	}
	// A form or URL the client declined ends the call before any task
	// exists; from here the call runs as a task, which the client polls.
	if err := declined(plan.before, c.data.Inputs); err != nil {
		return errorResult(err.Error()), nil, nil
	}
	ct, err := e.startTask(ctx, c.desk, func(ctx context.Context, run *taskRun) (*mcp.CallToolResult, error) {
		res, structured, err := e.finishCall(ctx, c.inTask(ctx, e, run), run)
		if err != nil {
			return nil, err
		}
		return withStructured(res, structured), nil
	})
	if err != nil {
		return nil, nil, err
	}
	// The middleware answers with the task in place of this result.
	if rec := callRecordOf(ctx); rec != nil {
		rec.task = ct
	}
	return &mcp.CallToolResult{Content: []mcp.Content{}}, nil, nil
}

// finishCall is the rest of a call once the client's rounds are done: the
// desktop's questions (then, in a task, the in-task steps), the verdict and
// the action. run is the task the call runs as, nil when it runs in the
// request.
func (e *Engine) finishCall(ctx context.Context, c *toolCall, run *taskRun) (*mcp.CallToolResult, any, error) {
	// 2. The desktop's questions: the request waits for the answers; a task
	// says it does, then asks its in-task steps, the client's through
	// tasks/update before the desktop's.
	if run == nil {
		if err := e.askDesktop(ctx, c.desk, c.plan.desktop, c.data); err != nil {
			return nil, nil, err
		}
	} else {
		if err := run.askDesktop(ctx, c.desk, c.plan.desktop, c.data); err != nil {
			return nil, nil, err
		}
		// Refused on the desktop, the call is over: the client is asked
		// nothing more.
		if deniedOnDesktop(c.tool.Name, c.plan.desktop, c.data.Inputs) == nil {
			if err := run.askClient(ctx, c.plan.inTaskClient, c.data); err != nil {
				return nil, nil, err
			}
			if err := run.askDesktop(ctx, c.desk, c.plan.inTaskDesktop, c.data); err != nil {
				return nil, nil, err
			}
		}
	}

	// 3. The verdict: a step declined in the client, then one not accepted
	// on the desktop, stops the call; the model reads why.
	if err := declined(c.plan.all, c.data.Inputs); err != nil {
		return errorResult(err.Error()), nil, nil
	}
	if err := deniedOnDesktop(c.tool.Name, c.plan.all, c.data.Inputs); err != nil {
		return errorResult(err.Error()), nil, nil
	}

	// 4. The action, its progress on the request's stream or on the task.
	var rep actions.Reporter = &reporter{req: c.req, data: c.data}
	if run != nil {
		rep = &taskReporter{r: run, data: c.data}
	}
	res, structured, err := e.runAction(ctx, c.tool, c.output, c.data, rep)
	if err == nil && res.InputRequests != nil && c.data.Round != nil {
		return e.passUpstreamInput(ctx, c, res, run, rep)
	}
	return res, structured, err
}

// inTask is the call as its task carries it on: with template data of the
// task's own, since the request's is bound to the request's context and
// call record (the task's record redacts what the task resolves), holding
// the answers so far and an upstream tool's round (the AI app's
// capabilities, which its server sees); and with desktop questions that
// name the task and record their approvals on it.
func (c *toolCall) inTask(ctx context.Context, e *Engine, run *taskRun) *toolCall {
	t := *c
	t.data = e.data(ctx, c.data.Args)
	maps.Copy(t.data.Inputs, c.data.Inputs)
	t.data.Round = c.data.Round
	t.desk.taskID, t.desk.approved = run.id, run.addApproval
	if t.tool.Action.Upstream != nil {
		t.noteCaller(ctx)
	}
	return &t
}

// noteCaller tells the call record of ctx (the request's, or its task's)
// what a server asking on its own session during the call needs: the call
// a form on the desktop names, and what the AI app can answer
// (AnswerServer, AskCaller).
func (c *toolCall) noteCaller(ctx context.Context) {
	callRecordOf(ctx).setCaller(c.desk, requestCapabilities(c.req))
}

// runsAsTask decides whether a call runs as a task: the tool allows it and
// the 2026-07-28 request declared the tasks extension. A tool that requires
// a task, called without the extension on 2026-07-28, gets -32021; a
// 2025-11-25 session (no tasks there) runs it in the request, with
// server→client requests for its steps.
func runsAsTask(t catalog.Tool, req *mcp.CallToolRequest) (bool, error) {
	if t.TaskMode == "" || t.TaskMode == catalog.TaskNever || isLegacy(req.Session) {
		return false, nil
	}
	var meta map[string]any
	if req.Params != nil {
		meta = req.Params.GetMeta()
	}
	if declaresTasks(meta) {
		return true, nil
	}
	if t.TaskMode == catalog.TaskRequired {
		return false, errTasksUndeclared(fmt.Sprintf("tool %q runs only as a task: declare the client capability extensions[%q] in the request's _meta", t.Name, TasksExtension))
	}
	return false, nil
}

// clientName is the name the client gave in its clientInfo.
func clientName(req mcp.Request) string {
	if _, ci := requestClient(req); ci != nil {
		return ci.Name
	}
	return ""
}
