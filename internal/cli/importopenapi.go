package cli

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
	"text/tabwriter"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/importer"
	"github.com/mcptray/mcptray/storage"
)

const importOpenAPIUsage = "usage: mcptray import-openapi SPEC [--base-url URL] [--only ID,...] [--prefix P] [--replace] [--list]"

// importMemoryLimit is the import's soft memory limit (see
// importOpenAPICmd).
const importMemoryLimit = 170 << 20

// importOpenAPICmd adds a tool for each operation of an OpenAPI (3.0,
// 3.1) or Swagger 2.0 spec, a file or a URL, all or nothing. Unlike
// `import`, it adds to the catalog: a name the catalog has is a problem,
// unless --replace.
func importOpenAPICmd(ctx context.Context, args []string, env Env) error {
	fs, db := newFlags("import-openapi")
	base := fs.String("base-url", "", "the API's address, in place of the spec's servers")
	only := fs.String("only", "", "import only these operations: operationIds, tool names or \"GET /path\", comma-separated")
	prefix := fs.String("prefix", "", "start every tool's name with this")
	replace := fs.Bool("replace", false, "replace tools of the same name (default: a name the catalog has is a problem)")
	list := fs.Bool("list", false, "list the spec's operations and the tools they would be; write nothing")
	pos, err := parseFlags(fs, args, env.Stdout)
	if err != nil {
		return err
	}
	// A spec's model, its tools and their JSON turn to garbage soon after
	// they are made: a soft limit has the collector run before the heap
	// doubles, which keeps a 10,000-operation import under 200 MB (make
	// bench) for about a tenth more CPU. Soft: a bigger spec still
	// imports, collecting more often.
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(importMemoryLimit))
	if len(pos) != 1 {
		return usageError{importOpenAPIUsage}
	}
	spec, err := importer.ReadOpenAPI(ctx, pos[0])
	if err != nil {
		return err
	}
	opts := importer.OpenAPIOptions{BaseURL: *base, Prefix: *prefix}
	if *list {
		listOperations(env.Stdout, spec, spec.Convert(opts))
		return nil
	}
	var ids []string
	for _, id := range strings.Split(*only, ",") {
		if id = strings.TrimSpace(id); id != "" {
			ids = append(ids, id)
		}
	}
	// The tools are stored as they are made (the spec's model and its
	// tools are never held whole together); what is said of them is
	// written once all are made, and printed once they are stored.
	var report strings.Builder
	return withStore(*db, func(st *storage.Store) error {
		err := importer.AddToolsAsMade(ctx, st, *replace, func(add func(catalog.Tool)) error {
			// Every operation that can be a tool is one, unless some are
			// chosen: then they are found once all are converted.
			conv := spec.ConvertOnce(opts, func(o *importer.Operation) bool {
				if len(ids) > 0 || o.Problem != "" {
					return false
				}
				add(o.Tool)
				return true
			})
			ops, err := conv.Select(ids)
			if err != nil {
				return err
			}
			tools, secrets, err := importer.Build(ops)
			if err != nil {
				return err
			}
			if len(ids) > 0 {
				for _, t := range tools {
					add(t)
				}
			}
			writeImportReport(&report, spec, conv, ops, secrets, len(ids) == 0)
			return nil
		})
		if err != nil {
			return fmt.Errorf("%s was not imported: %w", pos[0], err)
		}
		_, err = io.WriteString(env.Stdout, report.String())
		return err
	})
}

// writeImportReport writes what import-openapi says once ops are stored
// as tools; all says every operation was asked for.
func writeImportReport(w io.Writer, spec *importer.Spec, conv *importer.Conversion, ops []*importer.Operation, secrets []importer.SecretRef, all bool) {
	fmt.Fprintf(w, "imported %s from %s (%s):\n", plural(len(ops), "tool", "tools"), orAPI(spec.Title), spec.Format)
	for _, o := range ops {
		fmt.Fprintf(w, "  %s  %s %s\n", o.Tool.Name, o.Method, o.Path)
		for _, n := range o.Notes {
			fmt.Fprintf(w, "      note: %s\n", n)
		}
	}
	for _, n := range conv.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	if all {
		for _, o := range conv.Operations {
			if o.Problem != "" {
				fmt.Fprintf(w, "skipped %s %s: %s\n", o.Method, o.Path, o.Problem)
			}
		}
	}
	if len(secrets) > 0 {
		fmt.Fprintln(w, "The tools read these secrets; give each its value (Settings › Secrets in the app, or the command shown):")
		for _, s := range secrets {
			fmt.Fprintf(w, "  %s: %s\n      mcptray secret set %s\n", s.Name, s.Holds, s.Name)
		}
	}
}

func orAPI(title string) string {
	if title == "" {
		return "the spec"
	}
	return title
}

// listOperations prints what --list shows.
func listOperations(w io.Writer, spec *importer.Spec, conv *importer.Conversion) {
	fmt.Fprintf(w, "%s %s (%s), calling %s\n", orAPI(spec.Title), spec.Version, spec.Format, orNone(conv.BaseURL))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tMETHOD\tPATH\tTOOL\tSUMMARY")
	for _, o := range conv.Operations {
		tool := o.Tool.Name
		if o.Problem != "" {
			tool = "(cannot be a tool: " + o.Problem + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", o.ID, o.Method, o.Path, tool, o.Summary)
	}
	_ = tw.Flush()
	for _, n := range conv.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}

func orNone(s string) string {
	if s == "" {
		return "no address (give one with --base-url)"
	}
	return s
}
