package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mcptray/mcptray/importer"
	"github.com/mcptray/mcptray/storage"
)

const fromCurlUsage = "usage: mcptray tool from-curl NAME [--secret-name N]... [--param ID[=NAME]]... [--description TEXT] [--yes] - (the curl command on stdin)"

// maxCurlCommand bounds the curl command read from stdin.
const maxCurlCommand = 1 << 20

// listFlag collects a flag given several times.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// openTTY opens the terminal to ask on when stdin carries the command.
type openTTY func() (io.ReadWriteCloser, error)

// devTTY is the controlling terminal, where one is.
func devTTY() (io.ReadWriteCloser, error) { return os.OpenFile("/dev/tty", os.O_RDWR, 0) }

// fromCurlCmd makes an http tool of a curl command read from stdin —
// never from the command line, where a token it holds would land in the
// shell's history and the process list.
func fromCurlCmd(ctx context.Context, args []string, env Env) error {
	return fromCurl(ctx, args, env, devTTY)
}

func fromCurl(ctx context.Context, args []string, env Env, tty openTTY) error {
	fs, db := newFlags("tool from-curl")
	var secretNames, params listFlag
	fs.Var(&secretNames, "secret-name", "the secret for each credential found, in the order listed (repeat it)")
	fs.Var(&params, "param", "make a value of the command a parameter: ID or ID=NAME (repeat it; IDs are listed when you leave it out)")
	description := fs.String("description", "", "the tool's description, for the AI app (default: what it calls)")
	yes := fs.Bool("yes", false, "accept the proposed secret names without asking")
	pos, err := parseFlags(fs, args, env.Stdout)
	if err != nil {
		return err
	}
	switch {
	case len(pos) == 2 && pos[1] == "-":
	case len(pos) > 2 || len(pos) == 2:
		return usageError{"mcptray tool from-curl NAME reads the curl command from stdin (a token in it must not land in your shell's history): end the command line with -, e.g. pbpaste | mcptray tool from-curl NAME -"}
	default:
		return usageError{fromCurlUsage}
	}
	name := pos[0]
	b, err := io.ReadAll(io.LimitReader(env.Stdin, maxCurlCommand+1))
	if err != nil {
		return fmt.Errorf("reading the curl command from stdin: %w", err)
	}
	if len(b) > maxCurlCommand {
		return fmt.Errorf("the curl command on stdin is longer than %d bytes", maxCurlCommand)
	}
	ct, err := importer.ParseCurl(string(b), name)
	if err != nil {
		return err
	}
	if *description != "" {
		ct.Description = *description
	}
	if err := applyParams(ct, params); err != nil {
		return err
	}
	if err := nameSecrets(ct, secretNames, *yes, env, tty); err != nil {
		return err
	}
	tool, secrets, err := ct.Tool()
	if err != nil {
		return err
	}
	return withStore(*db, func(st *storage.Store) error {
		var sec importer.SecretStore
		if len(secrets) > 0 {
			s, err := st.OpenSecrets(ctx)
			if err != nil {
				return err
			}
			if w := s.Warning(); w != "" {
				fmt.Fprintf(env.Stderr, "mcptray: WARNING: %s\n", w)
			}
			sec = s
		}
		if err := importer.CreateTool(ctx, st, sec, tool, secrets); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "tool %s created: %s %s\n", tool.Name, ct.Method, ct.URL)
		for _, s := range secrets {
			fmt.Fprintf(env.Stdout, "  secret %s stored (the tool holds only its name)\n", s.Name)
		}
		for _, n := range ct.Notes {
			fmt.Fprintf(env.Stdout, "  note: %s\n", n)
		}
		if len(params) == 0 {
			printCandidates(env.Stdout, ct)
		}
		return nil
	})
}

// applyParams makes the values --param names parameters.
func applyParams(ct *importer.CurlTool, params []string) error {
	for _, p := range params {
		id, name, _ := strings.Cut(p, "=")
		v := ct.Value(id)
		switch {
		case v == nil:
			var ids []string
			for _, v := range ct.Values {
				if !v.Secret {
					ids = append(ids, v.ID)
				}
			}
			return fmt.Errorf("--param %s: the command has no value %q (it has %s)", p, id, strings.Join(ids, ", "))
		case v.Secret:
			return fmt.Errorf("--param %s: the %s is a credential: it becomes a secret, not a parameter", p, v.Where)
		}
		if name == "" {
			name = ct.ProposedParam(v)
		}
		v.Param = name
	}
	return nil
}

// nameSecrets gives each credential its secret's name: those of
// --secret-name, in order; else the proposals, accepted by --yes or on the
// terminal. Without either, it says what it proposes and writes nothing.
func nameSecrets(ct *importer.CurlTool, names []string, yes bool, env Env, tty openTTY) error {
	creds := ct.Secrets()
	var list strings.Builder
	for i, v := range creds {
		fmt.Fprintf(&list, "  %d. the %s → secret %s\n", i+1, v.Where, v.SecretName)
	}
	switch {
	case len(names) > 0 && len(names) != len(creds):
		return fmt.Errorf("the command holds %s, and --secret-name was given %s: give it once for each, in this order:\n%s",
			plural(len(creds), "credential", "credentials"), plural(len(names), "time", "times"), list.String())
	case len(names) > 0:
		for i, v := range creds {
			v.SecretName = names[i]
		}
		return nil
	case len(creds) == 0 || yes:
		return nil
	}
	t, err := tty()
	if err != nil {
		return fmt.Errorf("the command holds %s, which will be stored as secrets:\n%sAccept these names with --yes, or choose them with --secret-name (once for each, in this order); nothing was written",
			plural(len(creds), "credential", "credentials"), list.String())
	}
	defer t.Close()
	in := bufio.NewReader(t)
	fmt.Fprintf(t, "The command holds %s; each is stored as a secret (the tool holds only its name).\n", plural(len(creds), "credential", "credentials"))
	for _, v := range creds {
		fmt.Fprintf(t, "Secret name for the %s [%s]: ", v.Where, v.SecretName)
		line, err := in.ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("reading the answer: %w", err)
		}
		if line = strings.TrimSpace(line); line != "" {
			v.SecretName = line
		}
	}
	return nil
}

// plural is n things in words: "no credentials", "1 credential", "2
// credentials".
func plural(n int, one, many string) string {
	switch n {
	case 0:
		return "no " + many
	case 1:
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// printCandidates lists the values that --param could make parameters.
func printCandidates(w io.Writer, ct *importer.CurlTool) {
	first := true
	for _, v := range ct.Values {
		if v.Secret {
			continue
		}
		if first {
			fmt.Fprintln(w, "  values that could be parameters (edit the tool in the app, or give --param ID[=NAME] next time):")
			first = false
		}
		fmt.Fprintf(w, "    %-24s %s = %s\n", v.ID, v.Where, v.Value)
	}
}
