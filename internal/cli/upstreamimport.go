package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/clientconfig"
	"github.com/mcptray/mcptray/internal/gateway"
	"github.com/mcptray/mcptray/storage"
	"github.com/mcptray/mcptray/upstream"
)

const upstreamImportUsage = "usage: mcptray upstream import [CLIENT|FILE] [--only NAME,...] [--move] [--yes] | import --undo CLIENT|FILE [--force]"

// upstreamImportCmd takes the MCP servers of the AI apps a person has (one
// app, one file, or every app found) into mcptray: their credentials into
// the secret store, their tools approved as they are now; with --move,
// the apps' files then hold mcptray's entry in their place (a backup kept,
// --undo puts a file back byte for byte).
func upstreamImportCmd(ctx context.Context, args []string, env Env) error {
	fs, db := newFlags("upstream import")
	only := fs.String("only", "", "import only these servers (their names in the app, comma-separated)")
	move := fs.Bool("move", false, "then take the imported servers out of the apps' files, leaving mcptray's entry (a backup is kept)")
	undo := fs.Bool("undo", false, "put an app's file back as it was before its last --move")
	force := fs.Bool("force", false, "with --undo: even when the file changed since the move (the changed file is kept beside it)")
	yes := fs.Bool("yes", false, "import (and move) without asking")
	shimFlag := fs.String("shim", "", "with --move: path of mcptray-stdio for the apps' entry (default: next to this program)")
	pos, err := parseFlags(fs, args, env.Stdout)
	if err != nil {
		return err
	}
	if len(pos) > 1 || *undo && len(pos) != 1 {
		return usageError{upstreamImportUsage}
	}
	files, err := importFiles(pos)
	if err != nil {
		return err
	}
	if *undo {
		return undoMoves(files, *force, env.Stdout)
	}
	if len(files) == 0 {
		fmt.Fprintln(env.Stdout, "No AI app's configuration with MCP servers was found here.")
		return nil
	}
	return withStore(*db, func(st *storage.Store) error {
		sec, err := st.OpenSecrets(ctx)
		if err != nil {
			return err
		}
		shim, shimErr := clientconfig.ShimPath(*shimFlag)
		if *move && shimErr != nil {
			return shimErr
		}
		opts := clientconfig.ImportOptions{ShimPath: shim, Only: splitList(*only),
			UpstreamTaken: func(name string) bool { _, err := st.Upstream(ctx, name); return err == nil },
			SecretTaken:   func(name string) bool { v, err := sec.Secret(ctx, name); return err == nil && v != "" },
		}
		imp, err := clientconfig.ReadImport(files, opts)
		if err != nil {
			return err
		}
		fmt.Fprint(env.Stdout, imp.Preview())
		if len(imp.Servers) == 0 {
			return nil
		}
		var plans []clientconfig.MovePlan
		if *move {
			p := clientconfig.Params{ShimPath: shim}
			if plans, err = clientconfig.PlanMoves(imp, clientconfig.Stdio, p); err != nil {
				return err
			}
			for _, pl := range plans {
				fmt.Fprint(env.Stdout, pl.Preview())
			}
		}
		in := bufio.NewReader(env.Stdin)
		if !*yes && !ask(in, env.Stdout, fmt.Sprintf("Import these %d servers%s? [y/N] ", len(imp.Servers), map[bool]string{true: " and take them out of the apps", false: ""}[*move])) {
			return errors.New("nothing imported (answer y, or give --yes)")
		}
		for name, value := range imp.SecretValues() {
			if err := sec.SetSecret(ctx, name, value); err != nil {
				return fmt.Errorf("storing the secret %s: %w", name, err)
			}
		}
		var problems []string
		for _, s := range imp.Servers {
			if _, err := st.SaveUpstream(ctx, "", s.Upstream); err != nil {
				return err
			}
			n, err := adoptTools(ctx, st, s.Upstream)
			if err != nil {
				problems = append(problems, fmt.Sprintf("%s: added, but its tools could not be read: %v\n  (mcptray upstream refresh %s tries again, then mcptray upstream approve %s)", s.Upstream.Name, err, s.Upstream.Name, s.Upstream.Name))
				continue
			}
			fmt.Fprintf(env.Stdout, "Imported %s: %d tools served.\n", s.Upstream.Name, n)
		}
		for _, p := range problems {
			fmt.Fprintln(env.Stdout, p)
		}
		for _, pl := range plans {
			m, err := pl.MoveOut(time.Now())
			if err != nil {
				return err
			}
			fmt.Fprintf(env.Stdout, "Moved out of %s (backup: %s; mcptray upstream import --undo %s puts it back).\n", m.Path, m.Backup, m.Path)
		}
		return nil
	})
}

// importFiles are the files to read: those of the app or the file named,
// or every app's.
func importFiles(pos []string) ([]clientconfig.AppFile, error) {
	e := clientconfig.LocalEnv(runtime.GOOS)
	if len(pos) == 0 {
		var out []clientconfig.AppFile
		for _, c := range clientconfig.Clients() {
			out = append(out, clientconfig.ServerFiles(c, e)...)
		}
		return out, nil
	}
	if c, ok := clientconfig.Lookup(pos[0]); ok {
		return clientconfig.ServerFiles(c, e), nil
	}
	path, err := filepath.Abs(pos[0])
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("%q is neither an AI app (%s) nor a file: %w", pos[0], strings.Join(clientconfig.IDs(), ", "), err)
	}
	c, ok := clientconfig.ClientForFile(path)
	if !ok {
		return nil, fmt.Errorf("%s: which app's configuration is it? Its name says nothing; name the app instead (%s)", path, strings.Join(clientconfig.IDs(), ", "))
	}
	return []clientconfig.AppFile{{Client: c, Path: path}}, nil
}

// undoMoves puts back each file that a move changed.
func undoMoves(files []clientconfig.AppFile, force bool, w io.Writer) error {
	undone := 0
	var errs []error
	for _, f := range files {
		u, err := clientconfig.UndoMove(f.Path, force, time.Now())
		if err != nil {
			errs = append(errs, err)
			continue
		}
		undone++
		fmt.Fprintf(w, "Put back %s as it was on %s: %s are in it again.\n", u.Path, u.At.Local().Format(time.DateTime), strings.Join(u.Moved, ", "))
		if u.Saved != "" {
			fmt.Fprintf(w, "  What it held since is kept in %s.\n", u.Saved)
		}
	}
	if undone > 0 {
		fmt.Fprintln(w, "The servers stay in mcptray too; take one out with mcptray upstream remove NAME.")
	}
	if undone == 0 || len(errs) > 0 && len(files) == 1 {
		return errors.Join(errs...)
	}
	return nil
}

// adoptTools reads a new server's tools and approves them as they are now:
// the first import is the person's approval, all at once.
func adoptTools(ctx context.Context, st *storage.Store, u catalog.Upstream) (int, error) {
	if u.Disabled {
		return 0, nil
	}
	var n int
	// A server behind OAuth is signed in to later (mcptray upstream
	// signin): an import of many would open as many browsers.
	err := withGateway(ctx, st, u, nil, func(ctx context.Context, _ *upstream.Manager, g *gateway.Gateway) error {
		if _, err := g.Sync(ctx, u.Name); err != nil {
			return err
		}
		approved, err := gateway.Approve(ctx, st, u.Name, nil)
		n = len(approved)
		return err
	})
	return n, err
}

// ask asks a yes/no question; only y or yes is a yes.
func ask(in *bufio.Reader, out io.Writer, question string) bool {
	fmt.Fprint(out, question)
	answer, _ := in.ReadString('\n')
	a := strings.ToLower(strings.TrimSpace(answer))
	return a == "y" || a == "yes"
}

// splitList splits a comma-separated flag value, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}
