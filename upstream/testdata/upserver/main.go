// Command upserver is the upstream MCP server of package upstream's tests:
// go-sdk's server over standard input and output, or over HTTP on
// 127.0.0.1 (-http streamable|sse, printing its address), with tools that
// echo, wait until cancelled, report progress, crash, change the tool
// list, start a child process and ask the client (echoing "touch" says
// the resource changed) or for its roots, two prompts (one asking the
// client), a resource, and a resource template that reads an environment
// variable, whose arguments it completes. With -calls it writes each call
// on standard error, and each cancellation.
package main

import (
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	var (
		banner    = flag.String("banner", "", "a line printed on standard output before serving")
		garbage   = flag.Bool("garbage", false, "speak no MCP: print a line, then read input forever")
		exitCode  = flag.Int("exit", -1, "complain on standard error and exit with this code at once")
		noise     = flag.Int("stderr", 0, "lines written on standard error at start")
		hang      = flag.Bool("hang", false, "do nothing until killed (a child of the child tool)")
		httpMode  = flag.String("http", "", "serve over HTTP: streamable or sse")
		stateless = flag.Bool("stateless", false, "with -http streamable: serve 2026-07-28 (stateless) only")
		token     = flag.String("token", "", "with -http: the bearer token required")
		addr      = flag.String("addr", "127.0.0.1:0", "with -http: where to listen")
		linger    = flag.Bool("linger", false, "keep running once the input ended, until SIGTERM")
		calls     = flag.Bool("calls", false, "write each tool call (its name and arguments) on standard error")
	)
	flag.Parse()
	switch {
	case *hang:
		select {}
	case *exitCode >= 0:
		fmt.Fprintln(os.Stderr, "starting")
		fmt.Fprintln(os.Stderr, "error: the setting TOKEN is missing")
		os.Exit(*exitCode)
	case *garbage:
		fmt.Println("hello, I am not an MCP server")
		select {}
	}
	for i := range *noise {
		fmt.Fprintf(os.Stderr, "noise line %d\n", i)
	}
	if *banner != "" {
		fmt.Println(*banner)
	}
	srv := newServer(*calls)
	if *httpMode == "" {
		if err := srv.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			fmt.Fprintln(os.Stderr, "serving:", err)
			os.Exit(1)
		}
		if *linger {
			term := make(chan os.Signal, 1)
			signal.Notify(term, syscall.SIGTERM)
			fmt.Fprintln(os.Stderr, "input ended; lingering")
			<-term
			fmt.Fprintln(os.Stderr, "got SIGTERM")
		}
		return
	}
	serveHTTP(srv, *httpMode, *addr, *stateless, *token)
}

// serveHTTP serves srv at addr, printing its URL.
func serveHTTP(srv *mcp.Server, mode, addr string, stateless bool, token string) {
	get := func(*http.Request) *mcp.Server { return srv }
	var h http.Handler
	path := "/mcp"
	if mode == "sse" {
		h, path = mcp.NewSSEHandler(get, nil), "/sse"
	} else {
		h = mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{Stateless: stateless})
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("http://%s%s\n", ln.Addr(), path)
	mux := http.NewServeMux()
	mux.Handle(path, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if token != "" && r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, "who are you?", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	fmt.Fprintln(os.Stderr, http.Serve(ln, mux))
}

type textArg struct {
	Text string `json:"text"`
}

type countArg struct {
	N int `json:"n"`
	// Hold keeps the call running, once its progress is sent, until it
	// is cancelled.
	Hold bool `json:"hold,omitempty"`
	// Log sends a log message with each step, to a client that asked
	// for a level.
	Log bool `json:"log,omitempty"`
}

type nameArg struct {
	Name string `json:"name"`
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func newServer(calls bool) *mcp.Server {
	// A small page, so that listing the tools takes several.
	srv := mcp.NewServer(&mcp.Implementation{Name: "upserver", Version: "1"}, &mcp.ServerOptions{PageSize: 3, CompletionHandler: complete,
		// go-sdk keeps the subscribers; these only accept them.
		SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { return nil },
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil }})
	if calls {
		// Each call written on standard error (which mcptray keeps) tells
		// a test whether a call reached the server at all; each
		// cancellation, whether one did (a request may end before its
		// cancellation comes, which then cancels nothing).
		srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				switch p := req.GetParams().(type) {
				case *mcp.CallToolParamsRaw:
					fmt.Fprintf(os.Stderr, "called %s %s\n", p.Name, p.Arguments)
				case *mcp.CancelledParams:
					fmt.Fprintf(os.Stderr, "cancelled %v\n", p.RequestID)
				}
				return next(ctx, method, req)
			}
		})
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "echo", Description: "says text back"},
		func(ctx context.Context, _ *mcp.CallToolRequest, a textArg) (*mcp.CallToolResult, any, error) {
			if a.Text == "touch" {
				// The subscription tests' way to change a resource.
				return text(a.Text), nil, srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: "upserver://hello"})
			}
			return text(a.Text), nil, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "wait", Description: "waits until cancelled"},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, "waiting")
			<-ctx.Done()
			fmt.Fprintln(os.Stderr, "wait was cancelled")
			return nil, nil, ctx.Err()
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "progress", Description: "reports progress n times (and logs each step)"},
		func(ctx context.Context, req *mcp.CallToolRequest, a countArg) (*mcp.CallToolResult, any, error) {
			for i := 1; i <= a.N; i++ {
				err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
					ProgressToken: req.Params.GetProgressToken(), Progress: float64(i), Total: float64(a.N),
					Message: "step " + strconv.Itoa(i)})
				if err != nil {
					return nil, nil, err
				}
				if a.Log {
					if err := req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Logger: "progress", Data: "step " + strconv.Itoa(i)}); err != nil {
						return nil, nil, err
					}
				}
			}
			if a.Hold {
				<-ctx.Done()
				return nil, nil, ctx.Err()
			}
			return text("done"), nil, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "crash", Description: "exits with status n"},
		func(_ context.Context, _ *mcp.CallToolRequest, a countArg) (*mcp.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, "crashing now")
			os.Exit(a.N)
			return nil, nil, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "add", Description: "adds a tool"},
		func(_ context.Context, _ *mcp.CallToolRequest, a nameArg) (*mcp.CallToolResult, any, error) {
			srv.AddTool(&mcp.Tool{Name: a.Name, InputSchema: map[string]any{"type": "object"}},
				func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return text(a.Name), nil })
			return text("added"), nil, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "child", Description: "starts a child that waits forever; says its pid"},
		func(_ context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			self, err := os.Executable()
			if err != nil {
				return nil, nil, err
			}
			cmd := exec.Command(self, "-hang")
			if err := cmd.Start(); err != nil {
				return nil, nil, err
			}
			go cmd.Wait()
			return text(strconv.Itoa(cmd.Process.Pid)), nil, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "ask", Description: "asks the client (elicitation; $VARS in the text expanded) and says the answer"},
		func(ctx context.Context, req *mcp.CallToolRequest, a textArg) (*mcp.CallToolResult, any, error) {
			if caps := req.ClientCapabilities(); caps == nil || caps.Elicitation == nil {
				data, _ := json.Marshal(mcp.MissingRequiredClientCapabilityData{
					RequiredCapabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{}}})
				return nil, nil, &jsonrpc.Error{Code: mcp.CodeMissingRequiredClientCapabilities, Message: "elicitation required", Data: data}
			}
			// Sent only to a client that asked for a log level.
			req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Logger: "ask", Data: "asking: " + a.Text})
			// The 2026-07-28 way, which go-sdk's server turns into an
			// elicitation/create for a 2025-11-25 client.
			res, ok := req.Params.InputResponses["who"].(*mcp.ElicitResult)
			if !ok {
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"who": &mcp.ElicitParams{Message: os.ExpandEnv(a.Text),
					RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}}}}, nil, nil
			}
			return text(fmt.Sprintf("%s %v", res.Action, res.Content["name"])), nil, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "roots", Description: "asks the client for its roots and says them"},
		func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			res, ok := req.Params.InputResponses["roots"].(*mcp.ListRootsResult)
			if !ok {
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"roots": &mcp.ListRootsParams{}}}, nil, nil
			}
			var uris []string
			for _, r := range res.Roots {
				uris = append(uris, r.URI)
			}
			return text(strings.Join(uris, " ")), nil, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "pid", Description: "says its pid"},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return text(strconv.Itoa(os.Getpid())), nil, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "env", Description: "says an environment variable"},
		func(_ context.Context, _ *mcp.CallToolRequest, a nameArg) (*mcp.CallToolResult, any, error) {
			return text(os.Getenv(a.Name)), nil, nil
		})
	srv.AddPrompt(&mcp.Prompt{Name: "greet_asked", Description: "greets whom the client names (elicitation)",
		Arguments: []*mcp.PromptArgument{{Name: "question", Description: "the question asked ($VARS expanded)"}}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			res, ok := req.Params.InputResponses["who"].(*mcp.ElicitResult)
			if !ok || req.Params.RequestState != "asked" {
				question := cmp.Or(os.ExpandEnv(req.Params.Arguments["question"]), "Whom to greet?")
				return &mcp.GetPromptResult{RequestState: "asked", InputRequests: mcp.InputRequestMap{"who": &mcp.ElicitParams{Message: question,
					RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}}}}, nil
			}
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: fmt.Sprintf("Say hello to %v", res.Content["name"])}}}}, nil
		})
	srv.AddPrompt(&mcp.Prompt{Name: "greet", Description: "greets someone", Arguments: []*mcp.PromptArgument{{Name: "name", Required: true}}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "Say hello to " + req.Params.Arguments["name"]}}}}, nil
		})
	srv.AddResource(&mcp.Resource{URI: "upserver://hello", Name: "hello", MIMEType: "text/plain"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "hello from upserver"}}}, nil
		})
	srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "upserver://env/{name}", Name: "env", MIMEType: "text/plain"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			name := strings.TrimPrefix(req.Params.URI, "upserver://env/")
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: name + "=" + os.Getenv(name)}}}, nil
		})
	return srv
}

// complete offers names for the greet prompt's argument and the env
// template's variable, those starting with what was typed.
func complete(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	var names []string
	switch ref := req.Params.Ref; {
	case ref.Type == "ref/prompt" && ref.Name == "greet":
		names = []string{"Ada", "Alan", "Grace"}
	case ref.Type == "ref/resource" && ref.URI == "upserver://env/{name}":
		names = []string{"HOME", "PATH", "UP_KEY"}
	default:
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "nothing to complete for " + ref.Type}
	}
	values := []string{}
	for _, n := range names {
		if strings.HasPrefix(strings.ToLower(n), strings.ToLower(req.Params.Argument.Value)) {
			values = append(values, n)
		}
	}
	return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: values, Total: len(values)}}, nil
}
