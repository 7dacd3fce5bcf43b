package importer

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/credential"
	"github.com/mcptray/mcptray/mcpcore"
)

// This file turns a curl command, as pasted from an API's documentation or
// a browser's "Copy as cURL", into an http tool. The command is split with
// the POSIX shell's quoting rules (mvdan.cc/sh's parser, bash variant, so
// $'…' strings and backslash-newline continuations read as a shell reads
// them), and never run.
//
// A literal value that looks like a credential becomes a secret: the tool
// holds {{secret "name"}}, the value goes to the secret store. It looks
// like one when it is
//   - the value of an Authorization, Proxy-Authorization or Cookie header
//     (of "Bearer abc123" only abc123: the scheme stays in the tool), or of
//     a header whose name has a credential word as a word (credential.Name)
//     (X-Api-Key, X-Auth-Token, Private-Token, Ocp-Apim-Subscription-Key);
//   - a query parameter, form field or top-level JSON body field whose name
//     has one of them as a word (api_key, access_token, key, sig);
//   - the user and password of -u/--user or of the URL (user:pw@host),
//     sent as basic auth.
// Every other value (query parameters, headers, top-level body fields,
// path segments) can become a tool parameter instead (CurlValue.Param).

// CurlValue is a value of the curl command that can become a secret or a
// tool parameter.
type CurlValue struct {
	// ID names it for --param and --secret-name: query.city,
	// header.X-Api-Key, body.title, form.q, path.2, auth.
	ID string
	// Where says where it is, for people: `query parameter "city"`.
	Where string
	// Value is the value as the command has it (for a header scheme like
	// Bearer, without the scheme).
	Value string
	// Secret says it looks like a credential: it becomes the secret named
	// SecretName.
	Secret     bool
	SecretName string
	// Param, when set (and not Secret), makes the value the tool
	// parameter of that name; Type is the parameter's type, guessed from
	// the value.
	Param string
	Type  string

	// prefix is kept before the value in the tool (the "Bearer " of an
	// Authorization header); raw is the JSON of a body field.
	prefix string
	raw    json.RawMessage
}

// CurlTool is a tool in the making from a curl command: what the command
// sends, and which of its values become secrets or parameters.
type CurlTool struct {
	// Name and Description become the tool's.
	Name, Description string
	// Method and URL are what the command calls (the URL without its
	// query).
	Method string
	URL    string
	// Values are the command's values that can be secrets or parameters,
	// in the command's order.
	Values []*CurlValue
	// Notes say what of the command was left out, and why.
	Notes []string

	req *curlRequest
}

// SecretValue is a secret to store before the tool is used.
type SecretValue struct {
	Name, Value string
}

// curlRequest is what a curl command sends.
type curlRequest struct {
	method     string
	url        *url.URL
	query      []pair
	rawQuery   string // the parts of the query kept as they are (a name given twice)
	headers    []pair
	data       []string
	dataJSON   bool
	get        bool
	user       string
	hasUser    bool
	timeoutMs  int
	notes      []string
	contentSet bool
}

type pair struct{ name, value string }

// ParseCurl reads a curl command into a CurlTool for the tool named name:
// secrets proposed for every credential (named name_…), no parameter yet.
// A command that is not one curl call, uses what a tool cannot do, or an
// option mcptray does not know, is an error naming it.
func ParseCurl(command, name string) (*CurlTool, error) {
	argv, err := curlWords(command)
	if err != nil {
		return nil, err
	}
	req, err := parseCurlArgs(argv)
	if err != nil {
		return nil, err
	}
	ct := &CurlTool{Name: name, Method: req.method, req: req, Notes: req.notes}
	u := *req.url
	u.User, u.RawQuery, u.ForceQuery = nil, "", false
	ct.URL = u.String()
	ct.Description = fmt.Sprintf("Sends %s %s (made from a curl command).", req.method, ct.URL)
	ct.collect()
	ct.proposeSecretNames()
	return ct, nil
}

// windowsCaret matches a cmd.exe line continuation, which a copy "as
// cURL (cmd)" has.
var windowsCaret = regexp.MustCompile(`\s\^\r?\n`)

// curlWords splits a curl command into its words with the shell's
// quoting rules, refusing what only a shell does.
func curlWords(command string) ([]string, error) {
	command = strings.TrimSpace(strings.ReplaceAll(command, "\r\n", "\n"))
	if command == "" {
		return nil, errors.New("no curl command given")
	}
	if windowsCaret.MatchString(command) {
		return nil, errors.New(`the command is written for Windows' cmd ("^" at line ends): copy it for bash ("Copy as cURL (bash)") or join its lines`)
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(command), "")
	if err != nil {
		return nil, fmt.Errorf("reading the curl command: %w", err)
	}
	switch {
	case len(f.Stmts) == 0:
		return nil, errors.New("no curl command given")
	case f.Stmts[0].Background:
		return nil, errors.New(`an "&" outside quotes ends the command in a shell (is the URL unquoted?): put the URL in quotes ('https://…?a=1&b=2')`)
	case len(f.Stmts) > 1:
		return nil, errors.New("the text holds several commands: paste one curl command")
	}
	st := f.Stmts[0]
	if len(st.Redirs) > 0 {
		return nil, fmt.Errorf("the command redirects curl's input or output (%s): remove that part — the tool returns the response itself", st.Redirs[0].Op)
	}
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok {
		if b, isBin := st.Cmd.(*syntax.BinaryCmd); isBin && (b.Op == syntax.Pipe || b.Op == syntax.PipeAll) {
			return nil, errors.New(`the command sends curl's output to another program ("|"): remove that part — the tool returns the response itself`)
		}
		return nil, errors.New("the text is shell code, not one curl command (&&, ||, a loop…): paste the curl command alone")
	}
	if len(call.Assigns) > 0 {
		return nil, fmt.Errorf("the command sets the shell variable %s: paste the curl command alone, with the values written out", call.Assigns[0].Name.Value)
	}
	var argv []string
	for _, w := range call.Args {
		var bad error
		syntax.Walk(w, func(n syntax.Node) bool {
			switch x := n.(type) {
			case *syntax.ParamExp:
				name := "…"
				if x.Param != nil {
					name = x.Param.Value
				}
				bad = fmt.Errorf("the command uses the shell variable $%s, whose value mcptray cannot know: write the value itself in its place (a credential becomes a secret)", name)
			case *syntax.CmdSubst, *syntax.ProcSubst, *syntax.ArithmExp:
				bad = errors.New("the command runs another command inside it ($(…) or `…`): write the value itself in its place")
			}
			return bad == nil
		})
		if bad != nil {
			return nil, bad
		}
		s, err := expand.Literal(nil, w)
		if err != nil {
			return nil, fmt.Errorf("reading the curl command: %w", err)
		}
		argv = append(argv, s)
	}
	if len(argv) == 0 || !isCurl(argv[0]) {
		return nil, fmt.Errorf("this is not a curl command: it starts with %q", argv[0])
	}
	return argv[1:], nil
}

func isCurl(prog string) bool {
	base := prog[strings.LastIndexAny(prog, `/\`)+1:]
	return base == "curl" || base == "curl.exe"
}

// curlOption is an option curl takes: names, whether it takes a value,
// and what mcptray does with it.
type curlOption struct {
	names []string
	arg   bool
	do    func(r *curlRequest, v string) error
}

// ignored is what an option that changes only how curl shows things does.
func ignored(why string) func(r *curlRequest, v string) error {
	return func(r *curlRequest, _ string) error {
		if why != "" && !slices.Contains(r.notes, why) {
			r.notes = append(r.notes, why)
		}
		return nil
	}
}

func refused(why string) func(r *curlRequest, v string) error {
	return func(*curlRequest, string) error { return errors.New(why) }
}

func addData(json bool, encode func(string) (string, error)) func(r *curlRequest, v string) error {
	return func(r *curlRequest, v string) error {
		if encode != nil {
			var err error
			if v, err = encode(v); err != nil {
				return err
			}
		}
		r.data = append(r.data, v)
		r.dataJSON = r.dataJSON || json
		return nil
	}
}

func dataFromFile(v string) (string, error) {
	if strings.HasPrefix(v, "@") {
		return "", fmt.Errorf("the body is read from the file %s, which a tool cannot do: paste the body itself (with --data-raw)", v[1:])
	}
	return v, nil
}

// curlOptions are the options mcptray reads; any other is an error.
var curlOptions = []curlOption{
	{[]string{"-X", "--request"}, true, func(r *curlRequest, v string) error { r.method = strings.ToUpper(v); return nil }},
	{[]string{"-H", "--header"}, true, func(r *curlRequest, v string) error {
		name, value, ok := strings.Cut(v, ":")
		if !ok {
			if strings.HasSuffix(v, ";") {
				return nil // "Name;" sends the header empty: a tool leaves empty headers out
			}
			if strings.HasPrefix(v, "@") {
				return fmt.Errorf("the headers are read from the file %s, which a tool cannot do: write them with -H", v[1:])
			}
			return fmt.Errorf("the header %q has no \":\" between its name and value", v)
		}
		r.headers = append(r.headers, pair{strings.TrimSpace(name), strings.TrimSpace(value)})
		return nil
	}},
	{[]string{"-d", "--data", "--data-ascii", "--data-binary"}, true, addData(false, dataFromFile)},
	{[]string{"--data-raw"}, true, addData(false, nil)},
	{[]string{"--json"}, true, addData(true, dataFromFile)},
	{[]string{"--data-urlencode"}, true, addData(false, func(v string) (string, error) {
		name, value, ok := strings.Cut(v, "=")
		switch {
		case strings.HasPrefix(v, "@") || strings.Contains(name, "@"):
			return "", fmt.Errorf("--data-urlencode %s reads a file, which a tool cannot do", v)
		case !ok:
			return url.QueryEscape(v), nil
		case name == "":
			return url.QueryEscape(value), nil
		}
		return name + "=" + url.QueryEscape(value), nil
	})},
	{[]string{"-G", "--get"}, false, func(r *curlRequest, _ string) error { r.get = true; return nil }},
	{[]string{"-I", "--head"}, false, func(r *curlRequest, _ string) error { r.method = "HEAD"; return nil }},
	{[]string{"-u", "--user"}, true, func(r *curlRequest, v string) error { r.user, r.hasUser = v, true; return nil }},
	{[]string{"-A", "--user-agent"}, true, func(r *curlRequest, v string) error {
		r.headers = append(r.headers, pair{"User-Agent", v})
		return nil
	}},
	{[]string{"-e", "--referer"}, true, func(r *curlRequest, v string) error {
		r.headers = append(r.headers, pair{"Referer", v})
		return nil
	}},
	{[]string{"-b", "--cookie"}, true, func(r *curlRequest, v string) error {
		if !strings.Contains(v, "=") {
			return fmt.Errorf("--cookie %s reads cookies from a file, which a tool cannot do: give them as name=value", v)
		}
		r.headers = append(r.headers, pair{"Cookie", v})
		return nil
	}},
	{[]string{"-m", "--max-time"}, true, func(r *curlRequest, v string) error {
		secs, err := strconv.ParseFloat(v, 64)
		if err != nil || secs <= 0 {
			return fmt.Errorf("--max-time %q is not a number of seconds", v)
		}
		r.timeoutMs = int(secs * 1000)
		return nil
	}},
	{[]string{"--url"}, true, func(r *curlRequest, v string) error { return r.setURL(v) }},
	{[]string{"-k", "--insecure"}, false, refused("-k/--insecure turns off the check of the server's TLS certificate, which mcptray always makes: remove it (for a server with a self-signed certificate, add that certificate to the system's trusted ones)")},
	{[]string{"-F", "--form", "--form-string"}, true, refused("-F/--form sends a multipart form (a file upload), which an http tool cannot send: it sends JSON, a form (-d) or text")},
	{[]string{"-T", "--upload-file"}, true, refused("-T/--upload-file sends a file, which a tool cannot do")},
	{[]string{"-x", "--proxy"}, true, refused("-x/--proxy: the tool uses the proxy of mcptray's environment (HTTPS_PROXY, NO_PROXY): remove the option")},
	{[]string{"-E", "--cert", "--key", "--cacert", "--capath"}, true, refused("client certificates and custom CA files are not supported by mcptray's http tools")},
	{[]string{"--digest", "--ntlm", "--negotiate", "--aws-sigv4"}, false, refused("this authentication method is not supported by mcptray's http tools (basic auth with -u and tokens in headers are)")},
	{[]string{"-L", "--location"}, false, ignored("-L: the tool follows redirects anyway (up to 5, never from https to http)")},
	{[]string{"--compressed"}, false, ignored("")},
	{[]string{"-o", "--output", "-w", "--write-out", "--connect-timeout", "--retry", "-r", "--range"}, true, ignored("output and retry options (-o, -w, --retry…) do not apply: the tool returns the response")},
	{[]string{"-O", "--remote-name", "-s", "--silent", "-S", "--show-error", "-v", "--verbose", "-i", "--include",
		"-f", "--fail", "--fail-with-body", "-#", "--progress-bar", "-N", "--no-buffer", "--http1.1", "--http2", "-g", "--globoff", "-q"}, false, ignored("")},
}

func findOption(name string) *curlOption {
	for i := range curlOptions {
		if slices.Contains(curlOptions[i].names, name) {
			return &curlOptions[i]
		}
	}
	return nil
}

// parseCurlArgs reads curl's arguments (after "curl").
func parseCurlArgs(args []string) (*curlRequest, error) {
	r := &curlRequest{}
	apply := func(o *curlOption, name string, rest []string, attached string) ([]string, error) {
		v := attached
		if o.arg && v == "" {
			if len(rest) == 0 {
				return nil, fmt.Errorf("the option %s needs a value", name)
			}
			v, rest = rest[0], rest[1:]
		}
		if err := o.do(r, v); err != nil {
			return nil, err
		}
		return rest, nil
	}
	for len(args) > 0 {
		a := args[0]
		args = args[1:]
		var err error
		switch {
		case a == "--":
			for _, u := range args {
				if err := r.setURL(u); err != nil {
					return nil, err
				}
			}
			args = nil
		case strings.HasPrefix(a, "--"):
			name, value, hasValue := strings.Cut(a, "=")
			o := findOption(name)
			if o == nil {
				o = findOption(a)
				hasValue = false
			}
			if o == nil {
				return nil, fmt.Errorf("the curl option %s is not one mcptray understands: remove it, or build the tool in the editor", name)
			}
			if hasValue && !o.arg {
				return nil, fmt.Errorf("the curl option %s takes no value", name)
			}
			if args, err = apply(o, name, args, value); err != nil {
				return nil, err
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			// A cluster of short options, -sSL, or one with its value
			// attached, -XPOST.
			for i := 1; i < len(a); i++ {
				name := "-" + a[i:i+1]
				o := findOption(name)
				if o == nil {
					return nil, fmt.Errorf("the curl option %s is not one mcptray understands: remove it, or build the tool in the editor", name)
				}
				if o.arg {
					if args, err = apply(o, name, args, a[i+1:]); err != nil {
						return nil, err
					}
					break
				}
				if args, err = apply(o, name, args, ""); err != nil {
					return nil, err
				}
			}
		default:
			if err := r.setURL(a); err != nil {
				return nil, err
			}
		}
	}
	if r.url == nil {
		return nil, errors.New("the curl command has no URL")
	}
	return r, r.finish()
}

// setURL takes the command's URL.
func (r *curlRequest) setURL(raw string) error {
	if r.url != nil {
		return fmt.Errorf("the command calls two URLs (%s and %s): a tool calls one", r.url.Redacted(), raw)
	}
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw // as curl does
		r.notes = append(r.notes, "the URL has no scheme: http:// is assumed, as curl does")
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return fmt.Errorf("the URL %q cannot be read: %v", raw, err)
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("the URL %q is not http or https", u.Redacted())
	case u.Host == "":
		return fmt.Errorf("the URL %q has no host", u.Redacted())
	}
	r.url = u
	return nil
}

// finish works out the method, the query and the body's type, as curl
// does: data makes a POST (or, with -G, goes to the query).
func (r *curlRequest) finish() error {
	if u := r.url.User; u != nil && !r.hasUser {
		r.user, r.hasUser = u.String(), true
		if un, err := url.PathUnescape(r.user); err == nil {
			r.user = un
		}
	}
	r.url.User = nil
	body := strings.Join(r.data, "&")
	if r.dataJSON {
		body = strings.Join(r.data, "")
	}
	query := r.url.RawQuery
	if r.get && len(r.data) > 0 {
		if query != "" {
			query += "&"
		}
		query += body
		body, r.data = "", nil
	}
	counts := map[string]int{}
	var pairs []pair
	for _, part := range strings.Split(query, "&") {
		if part == "" {
			continue
		}
		k, v, _ := strings.Cut(part, "=")
		ku, err1 := url.QueryUnescape(k)
		vu, err2 := url.QueryUnescape(v)
		if err1 != nil || err2 != nil {
			return fmt.Errorf("the query part %q is not validly escaped", part)
		}
		counts[ku]++
		pairs = append(pairs, pair{ku, vu})
	}
	var raw []string
	for _, p := range pairs {
		if counts[p.name] > 1 {
			if credential.Name(p.name) {
				return fmt.Errorf("the query parameter %q is given twice and holds a credential: give it once", p.name)
			}
			raw = append(raw, url.QueryEscape(p.name)+"="+url.QueryEscape(p.value))
			continue
		}
		r.query = append(r.query, p)
	}
	r.rawQuery = strings.Join(raw, "&")
	if len(raw) > 0 {
		r.notes = append(r.notes, "query parameters given more than once stay in the URL as they are")
	}
	r.url.RawQuery = ""
	for _, h := range r.headers {
		if strings.EqualFold(h.name, "Content-Type") {
			r.contentSet = true
		}
	}
	if len(r.data) > 0 {
		if r.dataJSON {
			r.setDefaultHeader("Content-Type", "application/json")
			r.setDefaultHeader("Accept", "application/json")
		} else {
			r.setDefaultHeader("Content-Type", "application/x-www-form-urlencoded")
		}
		if r.method == "" {
			r.method = "POST"
		}
		r.data = []string{body}
	}
	if r.method == "" {
		r.method = "GET"
	}
	if !slices.Contains(catalog.HTTPMethods, r.method) {
		return fmt.Errorf("the method %s is not one an http tool sends (%s)", r.method, strings.Join(catalog.HTTPMethods, ", "))
	}
	return nil
}

func (r *curlRequest) setDefaultHeader(name, value string) {
	for _, h := range r.headers {
		if strings.EqualFold(h.name, name) {
			return
		}
	}
	r.headers = append(r.headers, pair{name, value})
}

// body is the request body, "" for none.
func (r *curlRequest) body() string {
	if len(r.data) == 0 {
		return ""
	}
	return r.data[0]
}

// contentType is the body's media type.
func (r *curlRequest) contentType() string {
	for _, h := range r.headers {
		if strings.EqualFold(h.name, "Content-Type") {
			mt, _, _ := strings.Cut(strings.ToLower(h.value), ";")
			return strings.TrimSpace(mt)
		}
	}
	return ""
}

// fixedHeaders are headers whose values describe the request itself, not
// data a parameter would give.
var fixedHeaders = []string{"content-type", "accept", "user-agent", "content-length", "host", "accept-encoding", "connection"}

// collect lists the command's values that may be secrets or parameters.
func (ct *CurlTool) collect() {
	r := ct.req
	add := func(v *CurlValue) { ct.Values = append(ct.Values, v) }
	segments := strings.Split(strings.Trim(r.url.EscapedPath(), "/"), "/")
	for i, seg := range segments {
		if seg == "" {
			continue
		}
		value, err := url.PathUnescape(seg)
		if err != nil {
			value = seg
		}
		add(&CurlValue{ID: fmt.Sprintf("path.%d", i+1), Where: fmt.Sprintf("path segment %d", i+1), Value: value, Type: guessType(value)})
	}
	for _, q := range r.query {
		add(&CurlValue{ID: "query." + q.name, Where: fmt.Sprintf("query parameter %q", q.name), Value: q.value,
			Secret: credential.Name(q.name), Type: guessType(q.value)})
	}
	for _, h := range r.headers {
		lower := strings.ToLower(h.name)
		if slices.Contains(fixedHeaders, lower) {
			continue
		}
		v := &CurlValue{ID: "header." + h.name, Where: fmt.Sprintf("header %q", h.name), Value: h.value, Type: "string"}
		if credential.Header(h.name) {
			v.Secret = true
			if lower != "cookie" {
				if scheme, cred, ok := credential.SplitScheme(h.value); ok {
					v.prefix, v.Value = scheme, cred
				}
			}
		}
		add(v)
	}
	if r.hasUser {
		// The secret holds what the header sends.
		add(&CurlValue{ID: "auth", Where: "user and password (-u, basic auth)", Value: base64.StdEncoding.EncodeToString([]byte(r.user)),
			Secret: true, Type: "string", prefix: "Basic "})
	}
	switch body := r.body(); {
	case body == "":
	case strings.Contains(r.contentType(), "json") || r.dataJSON:
		fields, err := orderedObject([]byte(body))
		if err != nil {
			ct.Notes = append(ct.Notes, "the body is not a JSON object: it is sent as it is")
			return
		}
		for _, f := range fields {
			v := &CurlValue{ID: "body." + f.name, Where: fmt.Sprintf("body field %q", f.name), raw: f.raw, Type: valueType(jsonValue(f.raw))}
			v.Value = string(f.raw)
			if s, ok := jsonValue(f.raw).(string); ok {
				v.Value = s
				v.Secret = credential.Name(f.name)
			}
			add(v)
		}
	case r.contentType() == "application/x-www-form-urlencoded":
		vals, err := formPairs(body)
		if err != nil {
			ct.Notes = append(ct.Notes, "the form body cannot be read as fields: it is sent as it is")
			return
		}
		for _, p := range vals {
			add(&CurlValue{ID: "form." + p.name, Where: fmt.Sprintf("form field %q", p.name), Value: p.value,
				Secret: credential.Name(p.name), Type: guessType(p.value)})
		}
	}
}

func jsonValue(raw json.RawMessage) any {
	var v any
	_ = json.Unmarshal(raw, &v)
	return v
}

// guessType is the parameter type a value written in a URL or header
// reads as.
func guessType(v string) string {
	if _, err := strconv.ParseInt(v, 10, 64); err == nil {
		return "integer"
	}
	if _, err := strconv.ParseFloat(v, 64); err == nil && strings.ContainsAny(v, ".") {
		return "number"
	}
	if v == "true" || v == "false" {
		return "boolean"
	}
	return "string"
}

type field struct {
	name string
	raw  json.RawMessage
}

// orderedObject reads a JSON object's fields in their order.
func orderedObject(b []byte) ([]field, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	var out []field
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name, _ := t.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		out = append(out, field{name, raw})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("text after the JSON object")
	}
	return out, nil
}

// formPairs reads a urlencoded form in order.
func formPairs(body string) ([]pair, error) {
	var out []pair
	for _, part := range strings.Split(body, "&") {
		if part == "" {
			continue
		}
		k, v, _ := strings.Cut(part, "=")
		ku, err := url.QueryUnescape(k)
		if err != nil {
			return nil, err
		}
		vu, err := url.QueryUnescape(v)
		if err != nil {
			return nil, err
		}
		out = append(out, pair{ku, vu})
	}
	return out, nil
}

// proposeSecretNames names each credential after the tool and where it
// is: weather_token (an Authorization header), weather_login (basic
// auth), weather_x_api_key.
func (ct *CurlTool) proposeSecretNames() {
	used := map[string]bool{}
	for _, v := range ct.Values {
		if !v.Secret {
			continue
		}
		what := slug(v.ID[strings.IndexByte(v.ID, '.')+1:], 32)
		switch {
		case v.ID == "auth":
			what = "login"
		case strings.EqualFold(v.ID, "header.Authorization") || strings.EqualFold(v.ID, "header.Proxy-Authorization"):
			what = "token"
		}
		name := safeName(slug(ct.Name, 30)+"_"+what, MaxNameLen)
		v.SecretName = catalog.UniqueName(name, MaxNameLen, func(n string) bool { return used[n] })
		used[v.SecretName] = true
	}
}

// Secrets are the values of the command that become secrets.
func (ct *CurlTool) Secrets() []*CurlValue {
	var out []*CurlValue
	for _, v := range ct.Values {
		if v.Secret {
			out = append(out, v)
		}
	}
	return out
}

// Value is the value of that ID, or nil.
func (ct *CurlTool) Value(id string) *CurlValue {
	for _, v := range ct.Values {
		if v.ID == id {
			return v
		}
	}
	return nil
}

// ProposedParam is the parameter name a value would get: its name in the
// request made valid (a path segment is named after the one before it,
// users/42 → user).
func (ct *CurlTool) ProposedParam(v *CurlValue) string {
	kind, name, _ := strings.Cut(v.ID, ".")
	if kind == "path" {
		n, _ := strconv.Atoi(name)
		if prev := ct.Value(fmt.Sprintf("path.%d", n-1)); prev != nil && !strings.ContainsAny(prev.Value, "0123456789") {
			name = strings.TrimSuffix(prev.Value, "s")
			if name == prev.Value {
				name += "_id"
			}
		} else {
			name = "segment_" + name
		}
	}
	if p := safeName(name, MaxNameLen); p != "" {
		return p
	}
	return "value"
}

// Tool makes the tool and the secrets to store: each Secret value becomes
// {{secret "SecretName"}}, each value with a Param the parameter's
// template, every other value stays literal. A problem with a choice (a
// secret without a valid name, two parameters of one name) is an error.
func (ct *CurlTool) Tool() (catalog.Tool, []SecretValue, error) {
	r := ct.req
	var secrets []SecretValue
	var params []catalog.Param
	var problems []string
	seen := map[string]bool{}
	// expr is the template standing for v in a place: path, value (query,
	// header), form (a form field), json (a body field); "" when v stays
	// literal.
	expr := func(v *CurlValue, place string) tmpl {
		switch {
		case v == nil:
			return ""
		case v.Secret:
			if err := catalog.CheckName(v.SecretName); err != nil {
				problems = append(problems, fmt.Sprintf("the secret for the %s: name %q: %v", v.Where, v.SecretName, err))
			} else if !slices.ContainsFunc(secrets, func(s SecretValue) bool { return s.Name == v.SecretName }) {
				secrets = append(secrets, SecretValue{Name: v.SecretName, Value: v.Value})
			}
			switch place {
			case "json":
				return "{{json " + secretCall(v.SecretName) + "}}"
			case "form":
				return "{{urlquery " + secretCall(v.SecretName) + "}}"
			}
			return secretRef(v.SecretName)
		case v.Param != "":
			if err := catalog.CheckName(v.Param); err != nil {
				problems = append(problems, fmt.Sprintf("the parameter for the %s: name %q: %v", v.Where, v.Param, err))
				return ""
			}
			if seen[v.Param] {
				problems = append(problems, fmt.Sprintf("two values are the parameter %q: give each its own name", v.Param))
			}
			seen[v.Param] = true
			params = append(params, catalog.Param{Name: v.Param, Type: v.Type, Required: true, Description: exampleOf(v.Value)})
			ref := argRef(v.Param)
			switch {
			case place == "json" || v.Type != "string":
				return "{{json " + ref + "}}"
			case place == "path":
				return "{{pathescape " + ref + "}}"
			case place == "form":
				return "{{urlquery " + ref + "}}"
			}
			return "{{" + ref + "}}"
		}
		return ""
	}

	h := &catalog.HTTP{Method: r.method, TimeoutMs: r.timeoutMs}
	u := *r.url
	var path tmpl
	for i, seg := range strings.Split(strings.TrimPrefix(u.EscapedPath(), "/"), "/") {
		path += "/"
		if e := expr(ct.Value(fmt.Sprintf("path.%d", i+1)), "path"); e != "" {
			path += e
		} else {
			path += literal(seg)
		}
	}
	u.Path, u.RawPath = "", ""
	full := literal(u.String()) + path
	if r.rawQuery != "" {
		full += "?" + literal(r.rawQuery)
	}
	h.URL = catalog.Template(full)
	for _, q := range r.query {
		if h.Query == nil {
			h.Query = map[string]catalog.Template{}
		}
		value := literal(q.value)
		if e := expr(ct.Value("query."+q.name), "value"); e != "" {
			value = e
		}
		h.Query[q.name] = catalog.Template(value)
	}
	for _, hd := range r.headers {
		if h.Headers == nil {
			h.Headers = map[string]catalog.Template{}
		}
		value := literal(hd.value)
		if v := ct.Value("header." + hd.name); v != nil {
			if e := expr(v, "value"); e != "" {
				value = literal(v.prefix) + e
			}
		}
		if _, dup := h.Headers[hd.name]; dup {
			ct.Notes = append(ct.Notes, fmt.Sprintf("the header %q is given twice: the last one is kept", hd.name))
		}
		h.Headers[hd.name] = catalog.Template(value)
	}
	if v := ct.Value("auth"); v != nil {
		if h.Headers == nil {
			h.Headers = map[string]catalog.Template{}
		}
		if _, dup := h.Headers["Authorization"]; dup {
			ct.Notes = append(ct.Notes, "the command has both -u and an Authorization header: -u is kept")
		}
		h.Headers["Authorization"] = catalog.Template(literal(v.prefix) + expr(v, "value"))
	}
	h.Body = catalog.Template(literal(r.body()))
	if body := r.body(); body != "" {
		switch {
		case slices.ContainsFunc(ct.Values, func(v *CurlValue) bool { return strings.HasPrefix(v.ID, "body.") }):
			fields, _ := orderedObject([]byte(body))
			var entries []tmpl
			for _, f := range fields {
				key, _ := json.Marshal(f.name)
				value := literal(string(f.raw))
				if e := expr(ct.Value("body."+f.name), "json"); e != "" {
					value = e
				}
				entries = append(entries, literal(string(key))+": "+value)
			}
			h.Body = catalog.Template("{" + joinTmpl(entries, ", ") + "}")
		case slices.ContainsFunc(ct.Values, func(v *CurlValue) bool { return strings.HasPrefix(v.ID, "form.") }):
			fields, _ := formPairs(body)
			var parts []tmpl
			for _, f := range fields {
				value := literal(url.QueryEscape(f.value))
				if e := expr(ct.Value("form."+f.name), "form"); e != "" {
					value = e
				}
				parts = append(parts, literal(url.QueryEscape(f.name))+"="+value)
			}
			h.Body = catalog.Template(joinTmpl(parts, "&"))
		}
	}
	if len(problems) > 0 {
		return catalog.Tool{}, nil, errors.New(strings.Join(problems, "; "))
	}
	t := catalog.Tool{Name: ct.Name, Title: titleOf(ct.Name), Description: ct.Description, Params: params, Hints: methodHints(r.method),
		Action: catalog.Action{HTTP: h}}
	if ps := mcpcore.ValidateTool(t); len(ps) > 0 {
		return catalog.Tool{}, nil, &catalog.ValidationError{Problems: ps}
	}
	return t, secrets, nil
}

// exampleOf is a parameter's description: the value the command had.
func exampleOf(v string) string {
	if v == "" {
		return ""
	}
	if len(v) > 60 {
		v = v[:57] + "…"
	}
	return "e.g. " + v
}
