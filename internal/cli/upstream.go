package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/credential"
	"github.com/mcptray/mcptray/internal/gateway"
	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/record"
	"github.com/mcptray/mcptray/storage"
	"github.com/mcptray/mcptray/upstream"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const upstreamUsage = `usage: mcptray upstream add NAME [--prefix P] [--env K=V]... [--dir D] [--at-start] [--yes] -- COMMAND [ARG...]
       mcptray upstream add NAME URL [--header K=V]... [--sse] [--client-id ID] [--scope S]... [--prefix P] [--yes]
       mcptray upstream signin NAME [--client-id ID] [--scope S]... | signout NAME
       mcptray upstream list | tools NAME | changes [NAME] | approve NAME [TOOL...]
       mcptray upstream refresh NAME | test NAME | remove NAME | enable NAME | disable NAME
       mcptray upstream import [CLIENT|FILE] [--only NAME,...] [--move] [--yes] | import --undo CLIENT|FILE`

// startTimeout bounds a server's start from the command line: a first
// `npx -y` downloads the server, a sign-in waits for the person.
func startTimeout(u catalog.Upstream) time.Duration {
	if u.Remote != nil {
		return upstream.DefaultSignInTimeout + 30*time.Second
	}
	return upstream.DefaultStartTimeout
}

// upstreamTimeout bounds connecting to a server and listing its tools from
// the command line.
func upstreamTimeout(u catalog.Upstream) time.Duration {
	return startTimeout(u) + 30*time.Second
}

// upstreamCmd manages the other MCP servers mcptray fronts.
func upstreamCmd(ctx context.Context, args []string, env Env) error {
	if len(args) > 0 && args[0] == "import" {
		return upstreamImportCmd(ctx, args[1:], env)
	}
	// What follows -- is the server's command line, never mcptray's flags.
	var argv []string
	if i := slices.Index(args, "--"); i >= 0 {
		args, argv = args[:i], args[i+1:]
	}
	fs, db := newFlags("upstream")
	var envs, headers listFlag
	prefix := fs.String("prefix", "", "what goes before the server's tool names (default: NAME_; \"-\" for none)")
	fs.Var(&envs, "env", `an environment variable of the server's program, K=V; a secret as K={{secret "NAME"}} (repeat it)`)
	fs.Var(&headers, "header", `a header sent to a web server, K=V; a secret as K={{secret "NAME"}} (repeat it)`)
	dir := fs.String("dir", "", "the folder the server's program runs in")
	sse := fs.Bool("sse", false, "the web server speaks the older HTTP+SSE transport")
	clientID := fs.String("client-id", "", "the client id mcptray is registered under with a web server's sign-in (OAuth), when its authorization server does not register clients by itself")
	var scopes listFlag
	fs.Var(&scopes, "scope", "a scope to ask for at a web server's sign-in (OAuth), rather than the ones it names (repeat it)")
	atStart := fs.Bool("at-start", false, "start the server with mcptray, not at its first use")
	yes := fs.Bool("yes", false, "serve all of the server's tools without asking")
	pos, err := parseFlags(fs, args, env.Stdout)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usageError{upstreamUsage}
	}
	sub, pos := pos[0], pos[1:]
	return withStore(*db, func(st *storage.Store) error {
		switch {
		case sub == "add" && (len(pos) == 1 && len(argv) > 0 || len(pos) == 2 && len(argv) == 0):
			u := catalog.Upstream{Name: pos[0]}
			if *prefix == "-" {
				u.Prefix = new(string)
			} else if *prefix != "" {
				u.Prefix = prefix
			}
			if *atStart {
				u.Start = catalog.UpstreamAtStart
			}
			var err error
			if len(argv) > 0 {
				u.Command = &catalog.UpstreamCommand{Argv: argv, Dir: *dir}
				u.Command.Env, err = templates("--env", envs)
			} else {
				u.Remote = &catalog.UpstreamRemote{URL: pos[1]}
				if *sse {
					u.Remote.Transport = catalog.UpstreamSSE
				}
				u.Remote.Headers, err = templates("--header", headers)
				u.Remote.OAuth = oauthSettings(nil, *clientID, scopes)
			}
			if err != nil {
				return err
			}
			return addUpstream(ctx, st, u, *yes, env)
		case sub == "signin" && len(pos) == 1:
			return signIn(ctx, st, pos[0], *clientID, scopes, env)
		case sub == "signout" && len(pos) == 1:
			return signOut(ctx, st, pos[0], env.Stdout)
		case sub == "list" && len(pos) == 0:
			return listUpstreams(ctx, st, env.Stdout)
		case sub == "tools" && len(pos) == 1:
			return listUpstreamTools(ctx, st, pos[0], env.Stdout)
		case sub == "changes" && len(pos) <= 1:
			return showChanges(ctx, st, strings.Join(pos, ""), env.Stdout)
		case sub == "approve" && len(pos) >= 1:
			approved, err := gateway.Approve(ctx, st, pos[0], pos[1:])
			if err != nil {
				return err
			}
			if len(approved) == 0 {
				fmt.Fprintf(env.Stdout, "Nothing of %s waits for your approval.\n", pos[0])
				return nil
			}
			for _, c := range approved {
				fmt.Fprintf(env.Stdout, "Approved: %s (%s)\n", c.Tool, changeWords(c.Kind))
			}
			return nil
		case sub == "refresh" && len(pos) == 1:
			u, err := st.Upstream(ctx, pos[0])
			if err != nil {
				return err
			}
			var tools []*mcp.Tool
			var changes []record.UpstreamChange
			err = withGateway(ctx, st, u, env.Stderr, func(ctx context.Context, m *upstream.Manager, g *gateway.Gateway) error {
				if tools, err = m.Tools(ctx, u.Name); err != nil {
					return err
				}
				changes, err = g.Sync(ctx, u.Name)
				return err
			})
			if err != nil {
				return err
			}
			fmt.Fprintf(env.Stdout, "%s offers %d tools; %d changes wait for your approval.\n", pos[0], len(tools), len(changes))
			if len(changes) > 0 {
				return showChanges(ctx, st, pos[0], env.Stdout)
			}
			return nil
		case sub == "test" && len(pos) == 1:
			tools, err := testUpstream(ctx, st, pos[0], env.Stderr)
			if err != nil {
				return err
			}
			u, err := st.Upstream(ctx, pos[0])
			if err != nil {
				return err
			}
			printOffered(env.Stdout, u, tools)
			return nil
		case sub == "remove" && len(pos) == 1:
			if err := st.DeleteUpstream(ctx, pos[0]); err != nil {
				return err
			}
			fmt.Fprintf(env.Stdout, "Removed the server %s and its tools.\n", pos[0])
			return forgetSignIn(ctx, st, pos[0])
		case (sub == "enable" || sub == "disable") && len(pos) == 1:
			if err := st.SetUpstreamDisabled(ctx, pos[0], sub == "disable"); err != nil {
				return err
			}
			fmt.Fprintf(env.Stdout, "%s is %sd.\n", pos[0], sub)
			return nil
		}
		return usageError{upstreamUsage}
	})
}

// templates reads K=V flags. A value that looks like a credential, typed
// as it is, is refused: it would be kept in the database and the export,
// and it is in the shell's history already.
func templates(flagName string, kvs []string) (map[string]catalog.Template, error) {
	if len(kvs) == 0 {
		return nil, nil
	}
	out := map[string]catalog.Template{}
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, usageError{fmt.Sprintf("%s %q: write it as NAME=VALUE", flagName, kv)}
		}
		if (credential.Name(k) || flagName == "--header" && credential.Header(k)) && v != "" && !strings.Contains(v, "{{") {
			name := strings.ToLower(k)
			return nil, fmt.Errorf("%s %s looks like a credential: keep it in the secret store rather than in mcptray's database —\n  mcptray secret set %s   (it reads the value from stdin)\nthen give %s '%s={{secret %q}}'", flagName, k, name, flagName, k, name)
		}
		out[k] = catalog.Template(v)
	}
	return out, nil
}

// upstreamConfig is how the command line runs u: secrets and sign-ins
// from the store, and its own time to start it. A server behind OAuth
// signs in in the person's browser, its address written to signIn; nil
// signIn leaves the sign-in to `mcptray upstream signin`.
func upstreamConfig(ctx context.Context, st *storage.Store, u catalog.Upstream, signIn io.Writer) (upstream.Config, error) {
	sec, err := st.OpenSecrets(ctx)
	if err != nil {
		return upstream.Config{}, err
	}
	cfg := upstream.Config{Expand: gateway.Expander(sec), Tokens: sec, StartTimeout: startTimeout(u)}
	if signIn != nil {
		cfg.OpenBrowser = func(url string) error {
			fmt.Fprintf(signIn, "Sign in to %s in your browser; if it does not open, open this address:\n  %s\n", u.Name, url)
			if err := openBrowser(url); err != nil {
				fmt.Fprintf(signIn, "(the browser could not be opened: %v)\n", err)
			}
			return nil // the address is written: the person can open it
		}
	}
	return cfg, nil
}

// testUpstream connects to a stored server and lists its tools, signing in
// if it asks for it.
func testUpstream(ctx context.Context, st *storage.Store, name string, signIn io.Writer) ([]*mcp.Tool, error) {
	u, err := st.Upstream(ctx, name)
	if err != nil {
		return nil, err
	}
	cfg, err := upstreamConfig(ctx, st, u, signIn)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, upstreamTimeout(u))
	defer cancel()
	return upstream.Test(ctx, u, cfg)
}

// withGateway runs fn with a Manager running u alone (stopped when fn
// returns) and a Gateway over it and st, within upstreamTimeout; signIn is
// upstreamConfig's.
func withGateway(ctx context.Context, st *storage.Store, u catalog.Upstream, signIn io.Writer, fn func(context.Context, *upstream.Manager, *gateway.Gateway) error) error {
	cfg, err := upstreamConfig(ctx, st, u, signIn)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, upstreamTimeout(u))
	defer cancel()
	m := upstream.New(cfg)
	defer m.Close()
	u.Start, u.Disabled, u.IdleStopMs = catalog.UpstreamOnUse, false, -1
	m.Set([]catalog.Upstream{u})
	g := gateway.New(m, st)
	g.SetUpstreams([]catalog.Upstream{u})
	return fn(ctx, m, g)
}

// addUpstream connects to a new server, shows its tools, and on the
// person's yes stores it with all of them approved as they are now.
func addUpstream(ctx context.Context, st *storage.Store, u catalog.Upstream, yes bool, env Env) error {
	if ps := mcpcore.ValidateUpstream(u); len(ps) > 0 {
		return &catalog.ValidationError{Problems: ps}
	}
	if _, err := st.Upstream(ctx, u.Name); err == nil {
		return fmt.Errorf("a server named %q exists already: mcptray upstream remove %s first, or pick another name", u.Name, u.Name)
	} else if !errors.Is(err, storage.ErrNotFound) {
		return err
	}
	fmt.Fprintf(env.Stderr, "Connecting to %s…\n", u.Name)
	err := withGateway(ctx, st, u, env.Stderr, func(ctx context.Context, m *upstream.Manager, g *gateway.Gateway) error {
		tools, err := m.Tools(ctx, u.Name)
		if err != nil {
			return fmt.Errorf("server %q: %w", u.Name, err)
		}
		printOffered(env.Stdout, u, tools)
		if !yes && !ask(bufio.NewReader(env.Stdin), env.Stdout, fmt.Sprintf("Serve these %d tools to your AI apps through mcptray? [y/N] ", len(tools))) {
			return errors.New("nothing added (answer y, or give --yes)")
		}
		if _, err := st.SaveUpstream(ctx, "", u); err != nil {
			return err
		}
		_, err = g.Sync(ctx, u.Name)
		return err
	})
	if err != nil {
		// Nothing added: no sign-in is kept for it either.
		return errors.Join(err, forgetSignIn(ctx, st, u.Name))
	}
	approved, err := gateway.Approve(ctx, st, u.Name, nil)
	if err != nil {
		// The server stays, with nothing served: its tools clash.
		return fmt.Errorf("%w\nthe server is added with none of its tools served; give it another prefix (mcptray upstream remove %s, then add it with --prefix)", err, u.Name)
	}
	fmt.Fprintf(env.Stdout, "Added %s: %d tools served. If one of them changes, it is held back until you approve it (mcptray upstream changes).\n", u.Name, len(approved))
	return nil
}

func printOffered(w io.Writer, u catalog.Upstream, tools []*mcp.Tool) {
	fmt.Fprintf(w, "%s offers %d tools:\n", u.Name, len(tools))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  SERVED AS\tWHAT IT DOES")
	for _, t := range tools {
		fmt.Fprintf(tw, "  %s\t%s\n", gateway.ServedName(u.ToolPrefix(), t.Name), firstLine(t.Description, 70))
	}
	_ = tw.Flush()
}

func firstLine(s string, max int) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if r := []rune(s); len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return s
}

func listUpstreams(ctx context.Context, st *storage.Store, w io.Writer) error {
	c, err := st.Catalog(ctx)
	if err != nil {
		return err
	}
	changes, err := st.UpstreamChanges(ctx, "")
	if err != nil {
		return err
	}
	if len(c.Upstreams) == 0 {
		fmt.Fprintln(w, "No servers yet: add one with mcptray upstream add NAME -- COMMAND, or NAME URL.")
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tON\tTOOLS SERVED\tWAITING FOR YOU\tSTARTS WITH")
	for _, u := range c.Upstreams {
		served := 0
		for _, t := range c.Tools {
			if up := t.Action.Upstream; up != nil && up.Server == u.Name && !up.Held && !t.Disabled {
				served++
			}
		}
		waiting := 0
		for _, ch := range changes {
			if ch.Server == u.Name {
				waiting++
			}
		}
		how := ""
		if u.Command != nil {
			how = strings.Join(u.Command.Argv, " ")
		} else {
			how = u.Remote.URL
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\n", u.Name, yesNo(!u.Disabled), served, waiting, firstLine(how, 60))
	}
	return tw.Flush()
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func listUpstreamTools(ctx context.Context, st *storage.Store, server string, w io.Writer) error {
	if _, err := st.Upstream(ctx, server); err != nil {
		return err
	}
	tools, err := st.UpstreamTools(ctx, server)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SERVED AS\tITS NAME\tSTATE\tASKS YOU FIRST")
	for _, t := range tools {
		state := "served"
		switch {
		case t.Action.Upstream.Held:
			state = "held back: changed, waiting for you"
		case t.Disabled:
			state = "off"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", t.Name, t.Action.Upstream.Tool, state, yesNo(t.Approval == catalog.ApprovalAlways || len(t.Steps) > 0))
	}
	return tw.Flush()
}

func showChanges(ctx context.Context, st *storage.Store, server string, w io.Writer) error {
	changes, err := st.UpstreamChanges(ctx, server)
	if err != nil {
		return err
	}
	if len(changes) == 0 {
		fmt.Fprintln(w, "Nothing waits for your approval.")
		return nil
	}
	byServer := map[string][]record.UpstreamChange{}
	var order []string
	for _, c := range changes {
		if _, ok := byServer[c.Server]; !ok {
			order = append(order, c.Server)
		}
		byServer[c.Server] = append(byServer[c.Server], c)
	}
	for _, name := range order {
		u, err := st.Upstream(ctx, name)
		if err != nil {
			return err
		}
		tools, err := st.UpstreamTools(ctx, name)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%s:\n", name)
		for _, c := range byServer[name] {
			for _, line := range gateway.Explain(u, c, tools) {
				fmt.Fprintf(w, "  %s\n", line)
			}
		}
		fmt.Fprintf(w, "Approve with: mcptray upstream approve %s [TOOL...]\n", name)
	}
	return nil
}

func changeWords(kind string) string {
	switch kind {
	case record.UpstreamNew:
		return "new, now served"
	case record.UpstreamChanged:
		return "changed, now served as it is"
	}
	return "gone, taken out"
}
