package mcpcore

import (
	"context"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcptray/mcptray/catalog"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/yosida95/uritemplate/v3"
)

// maxCompletions is the spec's cap on completion values.
const maxCompletions = 100

// complete offers the values a definition lists for a prompt argument or a
// template variable, filtered by the typed prefix; a folder template's path
// variable is completed from the folder's entries (folderCompletions), and
// another server's prompt or template by that server (upstreamComplete).
func (e *Engine) complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	cat := e.catalog.Load()
	ref, arg := req.Params.Ref, req.Params.Argument
	var values []string
	found := false
	switch ref.Type {
	case "ref/prompt":
		for _, p := range cat.Prompts {
			if p.Name == ref.Name && !p.Disabled {
				if p.Upstream != nil {
					return e.upstreamComplete(ctx, p.Upstream.Server, req.Params, &mcp.CompleteReference{Type: ref.Type, Name: p.Upstream.Prompt})
				}
				found = true
				for _, a := range p.Arguments {
					if a.Name == arg.Name {
						values = a.Completions
					}
				}
			}
		}
	case "ref/resource":
		for _, t := range cat.ResourceTemplates {
			if t.URITemplate == ref.URI && !t.Disabled {
				if t.Upstream != nil {
					// Served as the server offers it: the same template.
					return e.upstreamComplete(ctx, t.Upstream.Server, req.Params, ref)
				}
				found = true
				values = t.Completions[arg.Name]
				if t.Folder != "" && folderVariable(t) == arg.Name {
					// The folder's entries follow any listed values.
					for _, v := range folderCompletions(t.Folder, arg.Value) {
						if !slices.Contains(values, v) {
							values = append(values, v)
						}
					}
				}
			}
		}
	}
	if !found {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "completion: unknown " + strings.TrimPrefix(ref.Type, "ref/") + " reference"}
	}
	matches := []string{}
	for _, v := range values {
		if strings.HasPrefix(strings.ToLower(v), strings.ToLower(arg.Value)) {
			matches = append(matches, v)
		}
	}
	total := len(matches)
	matches = slices.Clip(matches[:min(total, maxCompletions)])
	return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: matches, Total: total, HasMore: total > maxCompletions}}, nil
}

// folderVariable is the name of a folder template's single variable.
func folderVariable(t catalog.ResourceTemplate) string {
	tmpl, err := uritemplate.New(t.URITemplate)
	if err != nil || len(tmpl.Varnames()) != 1 {
		return ""
	}
	return tmpl.Varnames()[0]
}

// folderCompletions lists the entries of folder that complete typed, a
// path inside it: the entries of typed's directory whose name starts with
// its last element (ignoring case; dot-files only when that starts with a
// dot), as paths like typed, directories suffixed "/". It goes through
// os.Root, so a typed path leaving the folder ("..", absolute, through a
// symlink) lists nothing, and a symlink that leads out of the folder (or
// nowhere) is not listed.
func folderCompletions(folder, typed string) []string {
	lead := ""
	if strings.HasPrefix(typed, "/") {
		lead, typed = "/", strings.TrimPrefix(typed, "/")
	}
	dir, prefix := path.Split(typed)
	name := "."
	if dir != "" {
		d := strings.TrimSuffix(dir, "/")
		if d == "." || !fs.ValidPath(d) {
			return nil
		}
		name = filepath.FromSlash(d)
	}
	root, err := os.OpenRoot(folder)
	if err != nil {
		return nil
	}
	defer root.Close()
	f, err := root.Open(name)
	if err != nil {
		return nil
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	if err != nil {
		return nil
	}
	lower := strings.ToLower(prefix)
	var out []string
	for _, ent := range entries {
		n := ent.Name()
		if !strings.HasPrefix(strings.ToLower(n), lower) || (strings.HasPrefix(n, ".") && !strings.HasPrefix(prefix, ".")) {
			continue
		}
		rel := dir + n
		typ := ent.Type()
		if typ&fs.ModeSymlink != 0 {
			st, err := root.Stat(filepath.FromSlash(rel)) // refuses a link out of the folder
			if err != nil {
				continue
			}
			typ = st.Mode().Type()
		}
		switch {
		case typ.IsDir():
			out = append(out, lead+rel+"/")
		case typ.IsRegular():
			out = append(out, lead+rel)
		}
	}
	slices.Sort(out)
	return out
}
