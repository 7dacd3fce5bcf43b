package cli

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mcptray/mcptray/storage"
)

const tokenUsage = "usage: mcptray token create NAME [--tools a,b] | list | revoke NAME"

// tokenCmd manages client tokens; a new token is printed once and only its
// hash is kept.
func tokenCmd(ctx context.Context, args []string, env Env) error {
	fs, db := newFlags("token")
	tools := fs.String("tools", "", "comma-separated tools the token may see (default: all)")
	pos, err := parseFlags(fs, args, env.Stdout)
	if err != nil {
		return err
	}
	want := map[string]int{"create": 2, "list": 1, "revoke": 2}
	if len(pos) == 0 || want[pos[0]] != len(pos) {
		return usageError{tokenUsage}
	}
	return withStore(*db, func(st *storage.Store) error {
		switch pos[0] {
		case "create":
			var allow []string
			for _, t := range strings.Split(*tools, ",") {
				if t = strings.TrimSpace(t); t != "" {
					allow = append(allow, t)
				}
			}
			secret, err := st.CreateToken(ctx, pos[1], allow)
			if err != nil {
				return err
			}
			fmt.Fprintln(env.Stdout, secret)
			return nil
		case "list":
			toks, err := st.ListTokens(ctx)
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tTOOLS\tCREATED\tLAST USED")
			for _, t := range toks {
				scope, used := "all", "never"
				if t.Tools != nil {
					scope = strings.Join(t.Tools, ",")
				}
				if t.LastUsedAt != nil {
					used = t.LastUsedAt.Local().Format(time.DateTime)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", t.Name, scope, t.CreatedAt.Local().Format(time.DateTime), used)
			}
			return tw.Flush()
		default:
			if err := st.RevokeToken(ctx, pos[1]); err != nil {
				return err
			}
			fmt.Fprintf(env.Stdout, "token %s revoked\n", pos[1])
			return nil
		}
	})
}
