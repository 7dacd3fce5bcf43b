package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mcptray/mcptray/storage"
)

const secretUsage = "usage: mcptray secret set NAME (value on stdin) | list | rename OLD NEW | delete NAME"

// secretCmd manages named secrets. Values live in the OS keyring (or the
// fallback file, with a warning); `set` reads the value from stdin, never
// from the command line, so it lands neither in the shell history nor in
// the process list.
func secretCmd(ctx context.Context, args []string, env Env) error {
	fs, db := newFlags("secret")
	pos, err := parseFlags(fs, args, env.Stdout)
	if err != nil {
		return err
	}
	want := map[string]int{"set": 2, "list": 1, "rename": 3, "delete": 2}
	if len(pos) == 0 || want[pos[0]] != len(pos) {
		if len(pos) > 2 && pos[0] == "set" {
			return usageError{"mcptray secret set NAME reads the value from stdin; do not put it on the command line"}
		}
		return usageError{secretUsage}
	}
	return withStore(*db, func(st *storage.Store) error {
		sec, err := st.OpenSecrets(ctx)
		if err != nil {
			return err
		}
		if w := sec.Warning(); w != "" {
			fmt.Fprintf(env.Stderr, "mcptray: WARNING: %s\n", w)
		}
		switch pos[0] {
		case "set":
			value, err := readSecretValue(ctx, env.Stdin, env.Stderr, pos[1])
			if err != nil {
				return err
			}
			if err := sec.SetSecret(ctx, pos[1], value); err != nil {
				return err
			}
			fmt.Fprintf(env.Stdout, "secret %s saved\n", pos[1])
		case "list":
			list, err := sec.ListSecrets(ctx)
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tCREATED\tUPDATED")
			for _, s := range list {
				fmt.Fprintf(tw, "%s\t%s\t%s\n", s.Name, s.CreatedAt.Local().Format(time.DateTime), s.UpdatedAt.Local().Format(time.DateTime))
			}
			return tw.Flush()
		case "rename":
			if err := sec.RenameSecret(ctx, pos[1], pos[2]); err != nil {
				return err
			}
			fmt.Fprintf(env.Stdout, "secret %s renamed to %s\n", pos[1], pos[2])
		case "delete":
			if err := sec.DeleteSecret(ctx, pos[1]); err != nil {
				return err
			}
			fmt.Fprintf(env.Stdout, "secret %s deleted\n", pos[1])
		}
		return nil
	})
}

// readSecretValue reads a secret's value from stdin: on a terminal, one
// line typed after a prompt, without echo when `stty` can turn it off;
// otherwise all of stdin (a file or a pipe), less one final newline.
func readSecretValue(ctx context.Context, stdin io.Reader, stderr io.Writer, name string) (string, error) {
	var value string
	if f, ok := stdin.(*os.File); ok && isTerminal(f) {
		v, err := promptValue(ctx, f, stderr, name)
		if err != nil {
			return "", err
		}
		value = v
	} else {
		b, err := io.ReadAll(io.LimitReader(stdin, storage.MaxSecretSize+3))
		if err != nil {
			return "", fmt.Errorf("reading the value from stdin: %w", err)
		}
		value = trimNewline(string(b))
	}
	if value == "" {
		return "", errors.New("no value given on stdin (try: mcptray secret set NAME < file, or type it at the prompt)")
	}
	if len(value) > storage.MaxSecretSize {
		return "", fmt.Errorf("the value is longer than %d bytes", storage.MaxSecretSize)
	}
	return value, nil
}

// isTerminal reports whether f is a terminal (a character device).
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// promptValue asks for the value on the terminal f, hiding what is typed
// with `stty -echo` when that works (Linux, macOS), and gives up when ctx
// ends (Ctrl-C), restoring the echo.
func promptValue(ctx context.Context, f *os.File, stderr io.Writer, name string) (string, error) {
	hidden := stty(f, "-echo") == nil
	if hidden {
		defer func() { _ = stty(f, "echo") }()
		fmt.Fprintf(stderr, "Value for secret %s (not shown): ", name)
	} else {
		fmt.Fprintf(stderr, "Value for secret %s (WARNING: it will be shown as you type): ", name)
	}
	type line struct {
		s   string
		err error
	}
	ch := make(chan line, 1)
	go func() {
		s, err := bufio.NewReader(f).ReadString('\n')
		ch <- line{s, err}
	}()
	select {
	case l := <-ch:
		if hidden {
			fmt.Fprintln(stderr)
		}
		if l.err != nil && !errors.Is(l.err, io.EOF) {
			return "", fmt.Errorf("reading the value: %w", l.err)
		}
		return trimNewline(l.s), nil
	case <-ctx.Done():
		fmt.Fprintln(stderr)
		return "", ctx.Err()
	}
}

// stty runs stty with args on the terminal f.
func stty(f *os.File, args ...string) error {
	cmd := exec.Command("stty", args...)
	cmd.Stdin = f
	return cmd.Run()
}

// trimNewline removes one final "\n" or "\r\n".
func trimNewline(s string) string {
	s = strings.TrimSuffix(s, "\n")
	return strings.TrimSuffix(s, "\r")
}
