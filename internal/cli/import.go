package cli

import (
	"context"
	"fmt"

	"github.com/mcptray/mcptray/storage"
)

// importCmd imports a catalog file, all or nothing: every problem is
// listed and nothing is written.
func importCmd(ctx context.Context, args []string, env Env) error {
	fs, db := newFlags("import")
	merge := fs.Bool("merge", false, "keep entries the file does not name (default: replace the catalog)")
	pos, err := parseFlags(fs, args, env.Stdout)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError{"import needs exactly one FILE"}
	}
	return withStore(*db, func(st *storage.Store) error {
		if _, err := st.ImportFile(ctx, pos[0], !*merge); err != nil {
			return err
		}
		c, err := st.Export(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "imported %s: the catalog now holds %d tools, %d resources, %d resource templates, %d prompts\n",
			pos[0], len(c.Tools), len(c.Resources), len(c.ResourceTemplates), len(c.Prompts))
		return nil
	})
}
