package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// tokenCmd manages client tokens; a new token is printed once and only its
// hash is kept.
func tokenCmd(ctx context.Context, args []string, stdout io.Writer) error {
	fs, db := newFlags("token")
	tools := fs.String("tools", "", "comma-separated tools the token may see (default: all)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usageError{"usage: mcptray token create NAME | list | revoke NAME"}
	}
	st, _, err := openStore(*db)
	if err != nil {
		return err
	}
	defer st.Close()
	switch {
	case pos[0] == "create" && len(pos) == 2:
		var allow []string
		if *tools != "" {
			for _, t := range strings.Split(*tools, ",") {
				if t = strings.TrimSpace(t); t != "" {
					allow = append(allow, t)
				}
			}
		}
		secret, err := st.CreateToken(ctx, pos[1], allow)
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, secret)
		return nil
	case pos[0] == "list" && len(pos) == 1:
		toks, err := st.ListTokens(ctx)
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
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
	case pos[0] == "revoke" && len(pos) == 2:
		if err := st.RevokeToken(ctx, pos[1]); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "token %s revoked\n", pos[1])
		return nil
	}
	return usageError{"usage: mcptray token create NAME [--tools a,b] | list | revoke NAME"}
}
