package actions

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Command runs a program directly — never through a shell — so a templated
// argument is always exactly one argv entry, whatever it contains.
type Command struct {
	// Argv is the program and its arguments, each a template.
	Argv []Template `json:"argv"`
	// Dir is the working directory (a template); empty means the server's.
	Dir Template `json:"dir,omitempty"`
	// TimeoutMs bounds the run; 0 means DefaultCommandTimeout.
	TimeoutMs int `json:"timeoutMs,omitempty"`
}

// DefaultCommandTimeout applies when a command sets no timeout.
const DefaultCommandTimeout = 60 * time.Second

// maxCommandOutput caps what is kept of stdout and of stderr.
const maxCommandOutput = 1 << 20

// Validate lists the problems of the command action.
func (c *Command) Validate() []Problem {
	var ps []Problem
	if len(c.Argv) == 0 || strings.TrimSpace(string(c.Argv[0])) == "" {
		ps = append(ps, problemf("argv", "the program (argv[0]) is required"))
	}
	for i, a := range c.Argv {
		if err := a.Check(); err != nil {
			ps = append(ps, problemf(fmt.Sprintf("argv[%d]", i), "%v", err))
		}
	}
	if err := c.Dir.Check(); err != nil {
		ps = append(ps, problemf("dir", "%v", err))
	}
	if c.TimeoutMs < 0 {
		ps = append(ps, problemf("timeoutMs", "must not be negative"))
	}
	return ps
}

// Run executes the program. Exit 0 gives its stdout as text; any other exit
// gives an isError result carrying stderr, so the model sees what failed.
func (c *Command) Run(ctx context.Context, data *Data, _ Reporter) (*mcp.CallToolResult, error) {
	argv := make([]string, len(c.Argv))
	for i, a := range c.Argv {
		s, err := a.Render(data)
		if err != nil {
			return nil, fmt.Errorf("argv[%d]: %w", i, err)
		}
		argv[i] = s
	}
	dir, err := c.Dir.Render(data)
	if err != nil {
		return nil, fmt.Errorf("dir: %w", err)
	}
	timeout := DefaultCommandTimeout
	if c.TimeoutMs > 0 {
		timeout = time.Duration(c.TimeoutMs) * time.Millisecond
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	killGroupOnCancel(cmd)
	var stdout, stderr cappedBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		return errorResult(fmt.Sprintf("%s timed out after %s", argv[0], timeout)), nil
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case errors.As(err, &exitErr):
		msg := fmt.Sprintf("%s exited with status %d", argv[0], exitErr.ExitCode())
		if s := strings.TrimSpace(stderr.String()); s != "" {
			msg += ":\n" + s
		}
		return errorResult(msg), nil
	case err != nil:
		return errorResult(fmt.Sprintf("cannot run %s: %v", argv[0], err)), nil
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: stdout.String()}}}, nil
}

func errorResult(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}
}

// cappedBuffer keeps the first maxCommandOutput bytes and notes the rest was cut.
type cappedBuffer struct {
	b         bytes.Buffer
	truncated bool
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	if room := maxCommandOutput - c.b.Len(); room < len(p) {
		c.truncated = true
		if room > 0 {
			c.b.Write(p[:room])
		}
		return len(p), nil
	}
	return c.b.Write(p)
}

func (c *cappedBuffer) String() string {
	if c.truncated {
		return c.b.String() + "\n[output truncated]"
	}
	return c.b.String()
}
