package storage

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/mcpcore"
)

// wait bounds every wait for something asynchronous.
const wait = 5 * time.Second

// openTest opens a fresh database in a temporary directory, closed when the
// test ends.
func openTest(t *testing.T) *Store {
	t.Helper()
	return openAt(t, filepath.Join(t.TempDir(), "mcptray.db"))
}

// openAt opens the database at path, closed when the test ends.
func openAt(t *testing.T, path string) *Store {
	t.Helper()
	s, err := Open(path, mcpcore.Validator{})
	if err != nil {
		t.Fatalf("Open(%s, mcpcore.Validator{}): %v", path, err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

func ptr[T any](v T) *T { return &v }

func greetTool(name, description string) catalog.Tool {
	return catalog.Tool{
		Name:        name,
		Title:       "Greet",
		Description: description,
		Params: []catalog.Param{
			{Name: "who", Type: "string", Description: "Who to greet", Required: true},
			{Name: "style", Type: "string", Enum: []any{"plain", "loud"}, Default: "plain"},
		},
		Hints: &catalog.Hints{ReadOnly: ptr(true), OpenWorld: ptr(false)},
		Action: catalog.Action{Respond: &catalog.Respond{
			Content: []catalog.Content{{Type: "text", Text: "Hello, {{.args.who}}!"}},
		}},
	}
}

func commandTool(name string) catalog.Tool {
	return catalog.Tool{
		Name:        name,
		Description: "Lists a directory.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"dir":{"type":"string"}},"required":["dir"]}`),
		Hints:       &catalog.Hints{ReadOnly: ptr(true)},
		Action: catalog.Action{Command: &catalog.Command{
			Argv:      []catalog.Template{"ls", "-la", "{{.args.dir}}"},
			TimeoutMs: 5000,
		}},
	}
}

func readmeResource(uri string) catalog.Resource {
	return catalog.Resource{URI: uri, Name: "readme", Title: "Read me", MimeType: "text/markdown", Text: "# Hello\n"}
}

func notesTemplate(uriTemplate, folder string) catalog.ResourceTemplate {
	return catalog.ResourceTemplate{
		URITemplate: uriTemplate,
		Name:        "notes",
		Description: "My notes, by path.",
		MimeType:    "text/markdown",
		Folder:      folder,
		Completions: map[string][]string{"path": {"todo.md", "ideas.md"}},
	}
}

func reviewPrompt(name string) catalog.Prompt {
	return catalog.Prompt{
		Name:        name,
		Description: "Review a piece of code.",
		Arguments:   []catalog.PromptArgument{{Name: "code", Required: true, Completions: []string{"main.go"}}},
		Messages: []catalog.PromptMessage{
			{Role: "user", Content: catalog.Content{Type: "text", Text: "Please review:\n{{.args.code}}"}},
		},
	}
}

// dump renders every row of every table, timestamps included, to check
// that a failed operation changed nothing.
func dump(t *testing.T, s *Store) string {
	t.Helper()
	ctx := context.Background()
	var b strings.Builder
	for _, table := range []string{"tools", "resources", "resource_templates", "prompts", "settings", "tokens", "server_keys", "schema_migrations"} {
		rows, err := s.db.QueryContext(ctx, "SELECT * FROM "+table+" ORDER BY 1")
		if err != nil {
			t.Fatalf("dump %s: %v", table, err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatalf("dump %s: %v", table, err)
			}
			fmt.Fprintf(&b, "%s %q\n", table, vals)
		}
		if err := rows.Err(); err != nil {
			t.Fatalf("dump %s: %v", table, err)
		}
		rows.Close()
	}
	return b.String()
}

// receive waits up to d for a signal on ch.
func receive(ch <-chan struct{}, d time.Duration) bool {
	select {
	case _, ok := <-ch:
		return ok
	case <-time.After(d):
		return false
	}
}

// storeKey is the named key of s's secret store, opened anew as another
// process would open it.
func storeKey(ctx context.Context, s *Store, name string, size int) ([]byte, error) {
	x, err := s.OpenSecrets(ctx)
	if err != nil {
		return nil, err
	}
	return x.Key(ctx, name, size)
}
