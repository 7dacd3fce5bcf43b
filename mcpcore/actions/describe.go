package actions

import (
	"fmt"
	"strings"

	"github.com/mcptray/mcptray/catalog"
)

// maxDescribedBody is how much of a request body or a command's input a
// description shows: enough to read, not a window of noise.
const maxDescribedBody = 4000

// Describe says what action a will do with the values data holds now, as
// the person asked to approve it reads it: the command line with its
// folder, environment and input, or the request with its method, URL,
// headers and body. Secrets show as [secret:NAME], in every form a
// template writes them: Describe never reads one. It is "" for an action
// that only answers (respond), which runs nothing.
func Describe(a catalog.Action, data *Data) (string, error) {
	if data == nil {
		data = &Data{}
	}
	d := &Data{Args: data.Args, Inputs: data.Inputs, Server: data.Server, OS: data.OS,
		Secret: func(name string) (string, error) { return "[secret:" + name + "]", nil }}
	var lines []string
	var err error
	switch {
	case a.Command != nil:
		lines, err = describeCommand(a.Command, d)
	case a.HTTP != nil:
		lines, err = describeHTTP(a.HTTP, d)
	case a.Upstream != nil:
		lines = describeUpstream(a.Upstream)
	}
	if err != nil {
		return "", err
	}
	// The placeholders went through the templates' escaping like a value:
	// Redact finds them in each form and writes them back as they read.
	return d.Redact(strings.Join(lines, "\n")), nil
}

func describeCommand(c *catalog.Command, d *Data) ([]string, error) {
	here := c.On(d.goos())
	c = &here
	argv, err := renderArgv(c, d)
	if err != nil {
		return nil, err
	}
	goos := d.goos()
	lines := []string{"Runs: " + commandLine(goos, argv)}
	if c.Dir != "" {
		dir, err := Render(c.Dir, d)
		if err != nil {
			return nil, fmt.Errorf("dir: %w", err)
		}
		lines = append(lines, "In the folder: "+dir)
	}
	for _, k := range sortedKeys(c.Env) {
		v, err := Render(c.Env[k], d)
		if err != nil {
			return nil, fmt.Errorf("env.%s: %w", k, err)
		}
		lines = append(lines, "With "+k+"="+quoteFor(goos, v))
	}
	if c.Stdin != "" {
		in, err := Render(c.Stdin, d)
		if err != nil {
			return nil, fmt.Errorf("stdin: %w", err)
		}
		lines = append(lines, "Its input: "+cutText(in))
	}
	return lines, nil
}

func describeHTTP(h *catalog.HTTP, d *Data) ([]string, error) {
	r, err := renderRequest(h, d)
	if err != nil {
		return nil, err
	}
	lines := []string{"Sends: " + r.method + " " + r.url.String()}
	for _, kv := range r.headers {
		lines = append(lines, kv[0]+": "+kv[1])
	}
	if r.body != "" {
		lines = append(lines, "With the body: "+cutText(r.body))
	}
	return lines, nil
}

// cutText is s, at most maxDescribedBody bytes of it, saying so when cut.
func cutText(s string) string {
	if len(s) <= maxDescribedBody {
		return s
	}
	return string(trimPartialRune([]byte(s[:maxDescribedBody]))) + fmt.Sprintf("… (%d more bytes)", len(s)-maxDescribedBody)
}

// commandLine writes argv as the system goos reads it, so that where one
// argument ends is plain to see. On Windows that is the command line the
// program is started with: cmd's arguments as written (cmdCommandLine),
// any other program's quoted as Go's os/exec quotes them for the C
// runtime; a POSIX shell's quotes ('…') would be wrong there. Elsewhere it
// is the line a POSIX shell would need.
func commandLine(goos string, argv []string) string {
	if goos == "windows" && len(argv) > 0 && isCmd(argv[0]) {
		return cmdCommandLine(argv)
	}
	words := make([]string, len(argv))
	for i, a := range argv {
		words[i] = quoteFor(goos, a)
	}
	return strings.Join(words, " ")
}

// ShowCommandLine writes a definition's command line, its templates not
// filled in, for a person to read on the system goos: on Windows as the
// program is started there (see commandLine), each template kept whole as
// written; elsewhere as JoinCommandLine writes it, which a POSIX shell
// reads. The tool editor's own field stays JoinCommandLine's on every
// system: what is typed there is read back by SplitCommandLine.
func ShowCommandLine(goos string, argv []catalog.Template) string {
	if goos != "windows" {
		return JoinCommandLine(argv)
	}
	raw := make([]string, len(argv))
	for i, a := range argv {
		raw[i] = string(a)
	}
	if len(raw) > 0 && isCmd(raw[0]) {
		return cmdCommandLine(raw)
	}
	words := make([]string, len(raw))
	for i, a := range raw {
		// A template's own quotes are not the argument's: it is quoted
		// for what the text around it holds, then put back as written.
		safe, tmpls, err := protect(a)
		if err != nil {
			words[i] = windowsQuote(a)
			continue
		}
		words[i] = restore(windowsQuote(safe), tmpls)
	}
	return strings.Join(words, " ")
}

// quoteFor writes one argument as the system goos reads it.
func quoteFor(goos, s string) string {
	if goos == "windows" {
		return windowsQuote(s)
	}
	if plainWord.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// windowsQuote quotes s as syscall.EscapeArg does on Windows (which only
// Windows builds have): by the C runtime's rules, double quotes around an
// argument with a blank, a backslash before each " and before the
// backslashes that precede a " or the closing quote.
func windowsQuote(s string) string {
	if s == "" {
		return `""`
	}
	if !strings.ContainsAny(s, "\" \t") {
		return s
	}
	var b strings.Builder
	quote := strings.ContainsAny(s, " \t")
	if quote {
		b.WriteByte('"')
	}
	slashes := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			slashes++
		case '"':
			b.WriteString(strings.Repeat(`\`, slashes+1))
			slashes = 0
		default:
			slashes = 0
		}
		b.WriteByte(s[i])
	}
	if quote {
		b.WriteString(strings.Repeat(`\`, slashes) + `"`)
	}
	return b.String()
}
