package cli

import (
	"context"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/storage"
)

// exportCmd writes the catalog as JSON: to FILE (replaced atomically, as
// the app's File ▸ Export does), or to stdout.
func exportCmd(ctx context.Context, args []string, env Env) error {
	fs, db := newFlags("export")
	pos, err := parseFlags(fs, args, env.Stdout)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usageError{"export takes at most one FILE"}
	}
	return withStore(*db, func(st *storage.Store) error {
		if len(pos) == 1 {
			return st.ExportFile(ctx, pos[0])
		}
		c, err := st.Export(ctx)
		if err != nil {
			return err
		}
		b, err := catalog.Marshal(c)
		if err != nil {
			return err
		}
		_, err = env.Stdout.Write(b)
		return err
	})
}
