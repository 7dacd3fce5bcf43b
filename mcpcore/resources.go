package mcpcore

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/mcpcore/actions"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/yosida95/uritemplate/v3"
)

// addResource registers a fixed resource. Its content is read anew on
// every read: inline text or blob, a file, an HTTP GET (or whatever the
// http source says), or a command's stdout. A source that fails — an HTTP
// status outside 2xx, a command exiting non-zero, output past its cap — is
// a -32603 error saying what failed; resources/read has no tool-style error
// result, and a partial document must not pass for the whole.
func (e *Engine) addResource(srv *mcp.Server, r catalog.Resource) error {
	srv.AddResource(&mcp.Resource{URI: r.URI, Name: r.Name, Title: r.Title, Description: r.Description, MIMEType: r.MimeType},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			if r.Upstream != nil {
				return e.upstreamRead(ctx, r.Upstream.Server, r.URI)
			}
			c := &mcp.ResourceContents{URI: r.URI, MIMEType: r.MimeType}
			switch {
			case r.Text != "":
				c.Text = r.Text
			case r.Blob != "":
				b, err := base64.StdEncoding.DecodeString(r.Blob)
				if err != nil {
					return nil, internalError("resource %s: blob is not valid base64: %v", r.URI, err)
				}
				c.Blob = b
			case r.HTTP != nil:
				if err := e.readHTTP(ctx, r, c); err != nil {
					return nil, err
				}
			case r.Command != nil:
				if err := e.readCommand(ctx, r, c); err != nil {
					return nil, err
				}
			default:
				b, err := os.ReadFile(r.File)
				if errors.Is(err, fs.ErrNotExist) {
					return nil, mcp.ResourceNotFoundError(r.URI)
				}
				if err != nil {
					return nil, internalError("resource %s: %v", r.URI, err)
				}
				fileContents(c, r.File, b)
			}
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{c}}, nil
		})
	return nil
}

// readHTTP fills c from the resource's HTTP source. The MIME type is the
// resource's, else the response's Content-Type.
func (e *Engine) readHTTP(ctx context.Context, r catalog.Resource, c *mcp.ResourceContents) error {
	resp, err := actions.Fetch(ctx, r.HTTP, e.data(ctx, nil))
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		return internalError("resource %s: %v", r.URI, err)
	}
	if resp.Status < 200 || resp.Status > 299 {
		msg := fmt.Sprintf("resource %s: the HTTP source answered %d %s", r.URI, resp.Status, http.StatusText(resp.Status))
		if b := excerpt(string(bytes.ToValidUTF8(resp.Body, nil))); b != "" {
			msg += ": " + b
		}
		data, _ := json.Marshal(map[string]any{"uri": r.URI, "httpStatus": resp.Status})
		return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: msg, Data: data}
	}
	if resp.Truncated {
		return internalError("resource %s: the HTTP response is larger than the source's size cap (maxBytes)", r.URI)
	}
	if c.MIMEType == "" {
		if mt, _, err := mime.ParseMediaType(resp.ContentType); err == nil {
			c.MIMEType = mt
		}
	}
	fileContents(c, "", resp.Body)
	return nil
}

// readCommand fills c with the stdout of the resource's command.
func (e *Engine) readCommand(ctx context.Context, r catalog.Resource, c *mcp.ResourceContents) error {
	out, err := actions.CommandOutput(ctx, r.Command, e.data(ctx, nil))
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		return internalError("resource %s: %v", r.URI, err)
	}
	if out.ExitCode != 0 {
		msg := fmt.Sprintf("resource %s: %s exited with %s", r.URI, out.Program, out.Status)
		if s := excerpt(string(bytes.ToValidUTF8(out.Stderr, nil))); s != "" {
			msg += ": " + s
		}
		return internalError("%s", msg)
	}
	if out.StdoutTruncated {
		return internalError("resource %s: %s wrote %d bytes, more than its output cap of %d (maxOutputBytes)", r.URI, out.Program, out.StdoutBytes, len(out.Stdout))
	}
	fileContents(c, "", out.Stdout)
	return nil
}

// fileContents fills text or blob from a file's bytes: text when the MIME
// type (given, or guessed from the extension) is textual, or when unknown
// and the bytes are valid UTF-8.
func fileContents(c *mcp.ResourceContents, name string, b []byte) {
	if c.MIMEType == "" {
		c.MIMEType = mime.TypeByExtension(filepath.Ext(name))
	}
	textual := strings.HasPrefix(c.MIMEType, "text/") || strings.Contains(c.MIMEType, "json") || strings.Contains(c.MIMEType, "xml") ||
		(c.MIMEType == "" && utf8.Valid(b))
	if textual {
		c.Text = string(b)
		if c.MIMEType == "" {
			c.MIMEType = "text/plain"
		}
		return
	}
	c.Blob = b
	if c.MIMEType == "" {
		c.MIMEType = "application/octet-stream"
	}
}

// addTemplate registers a resource template.
func (e *Engine) addTemplate(srv *mcp.Server, t catalog.ResourceTemplate) error {
	tmpl, err := uritemplate.New(t.URITemplate)
	if err != nil {
		return fmt.Errorf("uri template: %w", err)
	}
	srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: t.URITemplate, Name: t.Name, Title: t.Title, Description: t.Description, MIMEType: t.MimeType},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			uri := req.Params.URI
			if t.Upstream != nil {
				return e.upstreamRead(ctx, t.Upstream.Server, uri)
			}
			vals := tmpl.Match(uri)
			if vals == nil {
				return nil, mcp.ResourceNotFoundError(uri)
			}
			args := map[string]any{}
			for _, name := range tmpl.Varnames() {
				args[name] = vals.Get(name).String()
			}
			c := &mcp.ResourceContents{URI: uri, MIMEType: t.MimeType}
			if t.Folder == "" {
				text, err := actions.Render(t.Text, e.data(ctx, args))
				if err != nil {
					return nil, internalError("resource %s: %v", uri, err)
				}
				c.Text = text
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{c}}, nil
			}
			rel := vals.Get(tmpl.Varnames()[0]).String()
			b, err := readInFolder(t.Folder, rel)
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) || errors.Is(err, errOutside) {
					return nil, mcp.ResourceNotFoundError(uri)
				}
				return nil, internalError("resource %s: %v", uri, err)
			}
			fileContents(c, rel, b)
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{c}}, nil
		})
	return nil
}

var errOutside = errors.New("path leaves the folder")

// readInFolder reads rel inside folder through os.Root, which refuses any
// path — "..", absolute, or a symlink — that would resolve outside it.
func readInFolder(folder, rel string) ([]byte, error) {
	rel = strings.TrimPrefix(rel, "/")
	if rel == "" || !fs.ValidPath(path.Clean(rel)) || path.Clean(rel) != rel {
		return nil, errOutside
	}
	root, err := os.OpenRoot(folder)
	if err != nil {
		return nil, fmt.Errorf("opening folder: %w", err)
	}
	defer root.Close()
	f, err := root.Open(filepath.FromSlash(rel))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		return nil, fmt.Errorf("%w: %v", errOutside, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, fs.ErrNotExist
	}
	b, err := io.ReadAll(io.LimitReader(f, maxResourceBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxResourceBytes {
		return nil, fmt.Errorf("file is over the %d-byte limit", maxResourceBytes)
	}
	return b, nil
}

// maxResourceBytes caps what one resource read returns.
const maxResourceBytes = 16 << 20

func internalError(format string, args ...any) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf(format, args...)}
}
