package mcpcore_test

// Resource reads that must fail: unknown URIs in each era's error code, and
// a folder-backed template asked to leave its folder.

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/catalog"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// read sends a 2026 resources/read.
func (e *env) read(t *testing.T, uri string) *reply {
	t.Helper()
	return e.send(t, e.modern("resources/read", map[string]any{"uri": uri}).Request)
}

// notFound requires the 2026 resource-not-found error naming uri.
func notFound(t *testing.T, rep *reply, uri string) {
	t.Helper()
	re := rep.wantError(t, http.StatusBadRequest, codeInvalidParams)
	if got := field(decode(t, re.Data), "uri"); got != uri {
		t.Errorf("error data.uri = %v, want %q", got, uri)
	}
}

func TestResourceNotFound(t *testing.T) {
	e := newEnv(t, envOptions{})
	const missing = "test://no-such-resource"

	t.Run(modern, func(t *testing.T) {
		notFound(t, e.read(t, missing), missing)
	})
	t.Run(legacy, func(t *testing.T) {
		cs := e.connect(t, legacy, nil, "")
		_, err := cs.ReadResource(testCtx(t), &mcp.ReadResourceParams{URI: missing})
		var re *jsonrpc.Error
		if !errors.As(err, &re) || re.Code != codeLegacyNotFound {
			t.Fatalf("reading %s in a legacy session: %v, want error %d", missing, err, codeLegacyNotFound)
		}
	})
}

func TestFolderTemplateStaysInside(t *testing.T) {
	base := t.TempDir()
	notes := filepath.Join(base, "notes")
	if err := os.Mkdir(notes, 0o700); err != nil {
		t.Fatal(err)
	}
	const secret = "TOP-SECRET-OUTSIDE-THE-FOLDER"
	write := func(path, content string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(notes, "hello.txt"), "hello from the notes")
	write(filepath.Join(base, "secret.txt"), secret)
	if err := os.Symlink(filepath.Join(base, "secret.txt"), filepath.Join(notes, "link.txt")); err != nil {
		t.Skipf("cannot make a symlink here: %v", err)
	}
	e := newEnv(t, envOptions{extra: &catalog.Catalog{ResourceTemplates: []catalog.ResourceTemplate{
		{URITemplate: "file:///notes/{path}", Name: "notes", Folder: notes},
	}}})

	var res struct {
		Contents []struct {
			URI      string `json:"uri"`
			MIMEType string `json:"mimeType"`
			Text     string `json:"text"`
		} `json:"contents"`
	}
	e.read(t, "file:///notes/hello.txt").result(t, &res)
	if len(res.Contents) != 1 || res.Contents[0].Text != "hello from the notes" || res.Contents[0].URI != "file:///notes/hello.txt" {
		t.Errorf("reading a file inside the folder: %+v", res)
	}

	for _, uri := range []string{
		"file:///notes/..%2Fsecret.txt",
		"file:///notes/../secret.txt",
		"file:///notes/link.txt",
	} {
		t.Run(uri, func(t *testing.T) {
			rep := e.read(t, uri)
			if strings.Contains(string(rep.body), secret) {
				t.Fatalf("the file outside the folder leaked: %v", rep)
			}
			notFound(t, rep, uri)
		})
	}
}
