package importer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi2"
	"github.com/getkin/kin-openapi/openapi2conv"
	"github.com/getkin/kin-openapi/openapi3"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/parallel"
)

// This file turns an OpenAPI 3.0/3.1 document, or a Swagger 2.0 one
// (converted by kin-openapi's openapi2conv), into one http tool per
// operation. kin-openapi reads all three versions and resolves the
// document's $refs; it is the one library here for all of them, and it
// validates with santhosh-tekuri/jsonschema, which mcpcore already uses.
//
// Real specs carry mistakes. What is sound is imported; each mistake met
// is named in the operation's Notes with what was done about it, and an
// operation that cannot become a tool says why in its Problem.

// MaxSpecSize is the largest spec file or download read.
const MaxSpecSize = 16 << 20

// specTimeout bounds downloading a spec.
const specTimeout = 30 * time.Second

// Spec is an OpenAPI document read for import.
type Spec struct {
	// Title and Version are the API's (info.title, info.version).
	Title, Version string
	// Format says what the document is, for people: "OpenAPI 3.1.0", or
	// "Swagger 2.0 (converted to OpenAPI 3)".
	Format string
	doc    *openapi3.T
	// location is the address the document was downloaded from, against
	// which relative server URLs resolve; nil for a file.
	location *url.URL
}

// OpenAPIOptions adjust the tools made of a spec.
type OpenAPIOptions struct {
	// BaseURL, when set, is the address every tool calls, in place of the
	// servers the spec names (at any level).
	BaseURL string
	// Prefix starts every proposed tool name.
	Prefix string
}

// Conversion is what a spec becomes with some options.
type Conversion struct {
	// Operations are the spec's operations, by path then method, each
	// with the tool it becomes or the reason it cannot.
	Operations []*Operation
	// Notes are about the spec as a whole (its servers, what is ignored).
	Notes []string
	// BaseURL is the address the tools call, unless an operation's path
	// names its own server; "" when the spec gives none that can be used
	// (then BaseURL must be given).
	BaseURL string
	// schemas are the spec's schemas, each converted once for all the
	// operations.
	schemas *schemaGraph
}

// Operation is one operation of the spec and the tool made of it.
type Operation struct {
	// ID names the operation: its operationId, or "GET /pets/{id}".
	ID string
	// Method, Path and Summary are the spec's.
	Method, Path, Summary string
	// Tool is the tool proposed; its Name and Description may be changed
	// before Build. It is the zero Tool when Problem is set.
	Tool catalog.Tool
	// Secrets are the secrets the tool reads (from the security scheme
	// the operation needs), which the person fills in.
	Secrets []SecretRef
	// Notes name each mistake of the spec met in this operation, and what
	// was done about it, and what is left out.
	Notes []string
	// Problem says why the operation cannot become a tool; "" when it can.
	Problem string
}

// SecretRef is a secret tools read by name, whose value the person gives
// (Settings ▸ Secrets, or `mcptray secret set NAME`).
type SecretRef struct {
	Name string
	// Holds says what value to store, for people.
	Holds string
}

// ReadOpenAPI reads the spec at src: an http(s) URL (downloaded, TLS
// verified) or a file.
func ReadOpenAPI(ctx context.Context, src string) (*Spec, error) {
	var data []byte
	var location *url.URL
	if u, err := url.Parse(src); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
		if data, err = download(ctx, u); err != nil {
			return nil, err
		}
		location = u
	} else {
		f, err := os.Open(src)
		if err != nil {
			return nil, fmt.Errorf("reading the spec: %w", err)
		}
		defer f.Close()
		// Read into room for the whole file: growing a buffer as it
		// fills took 70 ms of a 6 MB spec's import.
		var buf bytes.Buffer
		if st, err := f.Stat(); err == nil && st.Size() <= MaxSpecSize {
			buf.Grow(int(st.Size()) + bytes.MinRead)
		}
		if _, err := buf.ReadFrom(io.LimitReader(f, MaxSpecSize+1)); err != nil {
			return nil, fmt.Errorf("reading the spec %s: %w", src, err)
		}
		data = buf.Bytes()
	}
	if len(data) > MaxSpecSize {
		return nil, fmt.Errorf("the spec %s is larger than %d MiB", src, MaxSpecSize>>20)
	}
	return ParseOpenAPI(ctx, data, location)
}

// download fetches a spec over HTTP.
func download(ctx context.Context, u *url.URL) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, specTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("downloading the spec: %w", err)
	}
	req.Header.Set("Accept", "application/json, application/yaml, text/yaml, */*")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("downloading the spec: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("downloading the spec from %s: HTTP %s", u.Redacted(), resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxSpecSize+1))
	if err != nil {
		return nil, fmt.Errorf("downloading the spec from %s: %w", u.Redacted(), err)
	}
	return data, nil
}

// ParseOpenAPI reads a spec (JSON or YAML) from data; location, when not
// nil, is where it was downloaded from. References to other files are not
// followed: a spec from the web could otherwise make mcptray read the
// files of this computer.
func ParseOpenAPI(ctx context.Context, data []byte, location *url.URL) (*Spec, error) {
	// kin-openapi reads every document as YAML first, JSON only when YAML
	// refuses it: a node tree of the whole spec, several times the time and
	// memory of reading JSON as JSON (a 6 MB spec: ~60% of an import). A
	// spec that is JSON is read as JSON here; YAML takes kin's way.
	// The document's members are read once, here, and taken apart below.
	var top map[string]json.RawMessage
	isObject := json.Unmarshal(data, &top) == nil
	isJSON := isObject || json.Valid(data)
	var version struct{ Swagger, OpenAPI string }
	if isObject {
		// A JSON value that is not an object has no version, said below.
		version.Swagger, version.OpenAPI = memberString(top, "swagger"), memberString(top, "openapi")
	}
	var doc2 openapi2.T
	switch {
	case isJSON && version.Swagger != "":
		if err := json.Unmarshal(data, &doc2); err != nil {
			return nil, fmt.Errorf("reading the Swagger spec: %w", err)
		}
	case !isJSON:
		if err := openapi2.UnmarshalFromData(data, &doc2); err != nil {
			doc2.Swagger = ""
		}
	}
	if doc2.Swagger != "" {
		if !strings.HasPrefix(doc2.Swagger, "2.") {
			return nil, fmt.Errorf("the spec says swagger %q: only Swagger 2.0 and OpenAPI 3.0 and 3.1 can be read", doc2.Swagger)
		}
		loader := openapi3.NewLoader()
		loader.Context = ctx
		doc, err := openapi2conv.ToV3WithLoader(&doc2, loader, nil)
		if err != nil {
			return nil, fmt.Errorf("converting the Swagger 2.0 spec to OpenAPI 3: %w", err)
		}
		return &Spec{Title: doc2.Info.Title, Version: doc2.Info.Version, Format: "Swagger " + doc2.Swagger + " (converted to OpenAPI 3)",
			doc: doc, location: location}, nil
	}
	loader := openapi3.NewLoader()
	loader.Context = ctx
	doc, err := loadOpenAPI3(loader, data, top, isJSON && version.OpenAPI != "")
	if err != nil {
		if strings.Contains(err.Error(), "external") {
			return nil, fmt.Errorf("reading the spec: it refers to other files, which mcptray does not read: bundle it into one file first (%w)", err)
		}
		return nil, fmt.Errorf("reading the spec: %w", err)
	}
	switch {
	case doc.OpenAPI == "":
		return nil, errors.New(`not an OpenAPI document: it has no "openapi" (3.x) or "swagger" (2.0) version field`)
	case !strings.HasPrefix(doc.OpenAPI, "3."):
		return nil, fmt.Errorf("the spec says openapi %q: only Swagger 2.0 and OpenAPI 3.0 and 3.1 can be read", doc.OpenAPI)
	}
	s := &Spec{Format: "OpenAPI " + doc.OpenAPI, doc: doc, location: location}
	if doc.Info != nil {
		s.Title, s.Version = doc.Info.Title, doc.Info.Version
	}
	return s, nil
}

// loadOpenAPI3 reads an OpenAPI 3 document and resolves its references
// within it, as loader.LoadFromData does; asJSON reads it as JSON, whose
// members top are (see decodeOpenAPI3JSON).
func loadOpenAPI3(loader *openapi3.Loader, data []byte, top map[string]json.RawMessage, asJSON bool) (*openapi3.T, error) {
	if !asJSON {
		return loader.LoadFromData(data)
	}
	doc, err := decodeOpenAPI3JSON(data, top)
	if err != nil {
		return nil, err
	}
	if err := loader.ResolveRefsIn(doc, nil); err != nil {
		return nil, err
	}
	return doc, nil
}

// methodOrder is the order operations of a path are listed in.
var methodOrder = []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT", "QUERY"}

// Convert makes the tools of every operation of the spec.
func (s *Spec) Convert(opts OpenAPIOptions) *Conversion { return s.ConvertOnce(opts, nil) }

// ConvertOnce is Convert for a spec converted once (a command), whose
// tools are stored as they are made: each path of the spec's model is let
// go as soon as its operations are converted, and take is handed each
// operation then, named. When take returns true it has taken the tool:
// the Conversion keeps the operation, its tool reduced to its Name. So a
// big spec's model and its tools are never held whole beside each other
// (10,000 operations: each some 50 MB). The spec cannot be converted
// again; its Title, Version and Format stay. With take nil, it is
// Convert.
func (s *Spec) ConvertOnce(opts OpenAPIOptions, take func(*Operation) bool) *Conversion {
	conv := &Conversion{schemas: newSchemaGraph(s.doc.Components)}
	base, problem := s.baseURL(opts.BaseURL, s.doc.Servers)
	if problem == "" {
		conv.BaseURL = base
	} else {
		conv.Notes = append(conv.Notes, problem)
	}
	if opts.BaseURL == "" && len(s.doc.Servers) > 1 {
		conv.Notes = append(conv.Notes, fmt.Sprintf("the spec names %d servers: the tools call the first, %s", len(s.doc.Servers), base))
	}
	if n := s.doc.Webhooks; len(n) > 0 {
		conv.Notes = append(conv.Notes, fmt.Sprintf("the spec's %s (requests the API sends, not calls to it) are not tools: left out", count(len(n), "webhook", "webhooks")))
	}
	// The operations, by path then method, are converted a batch at a
	// time on every core (an operation takes some 0.15 ms, mostly its
	// schemas spelled out), then named, handed to take and kept in order.
	type job struct {
		method, path string
		item         *openapi3.PathItem
		op           *openapi3.Operation
		// last is the path's last operation: after it, the path can go.
		last bool
	}
	var jobs []job
	paths := s.doc.Paths.Map()
	for _, path := range slices.Sorted(mapKeys(paths)) {
		item := paths[path]
		if item == nil {
			continue
		}
		ops := item.Operations()
		first := len(jobs)
		for _, method := range methodOrder {
			op := ops[strings.ToUpper(method)]
			if op == nil {
				op = ops[strings.ToLower(method)]
			}
			if op != nil {
				jobs = append(jobs, job{method: method, path: path, item: item, op: op})
			}
		}
		if len(jobs) > first {
			jobs[len(jobs)-1].last = true
		} else if take != nil {
			s.doc.Paths.Delete(path)
		}
	}
	clear(paths)
	taken := map[string]bool{}
	for len(jobs) > 0 {
		batch := jobs[:min(len(jobs), convertBatch)]
		jobs = jobs[len(batch):]
		converted := make([]*Operation, len(batch))
		parallel.Each(len(batch), 16, func(i int) {
			j := batch[i]
			converted[i] = s.operation(j.method, j.path, j.item, j.op, opts, conv.schemas)
		})
		for i, o := range converted {
			if o.Problem == "" {
				o.Tool.Name = catalog.UniqueName(o.Tool.Name, MaxNameLen, func(n string) bool { return taken[n] })
				taken[o.Tool.Name] = true
			}
			if take != nil && take(o) {
				o.Tool = catalog.Tool{Name: o.Tool.Name}
			}
			conv.Operations = append(conv.Operations, o)
			if take != nil && batch[i].last {
				s.doc.Paths.Delete(batch[i].path)
			}
			batch[i] = job{}
		}
	}
	return conv
}

// convertBatch is how many operations are converted at once: enough to
// keep every core busy, few enough that ConvertOnce holds few tools.
const convertBatch = 256

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// count is n things in words: "1 webhook", "2 webhooks".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// baseURL is the address of the first of servers (or override), its
// variables given their defaults and a relative URL resolved against the
// spec's address; else a problem saying why there is none.
func (s *Spec) baseURL(override string, servers openapi3.Servers) (string, string) {
	raw, vars := override, map[string]*openapi3.ServerVariable(nil)
	if raw == "" {
		if len(servers) == 0 || servers[0] == nil {
			return "", "the spec names no server: give the API's address (Base URL)"
		}
		raw, vars = servers[0].URL, servers[0].Variables
	}
	for name, v := range vars {
		value := ""
		if v != nil {
			value = v.Default
			if value == "" && len(v.Enum) > 0 {
				value = v.Enum[0]
			}
		}
		raw = strings.ReplaceAll(raw, "{"+name+"}", value)
	}
	u, err := url.Parse(raw)
	if err != nil || strings.Contains(raw, "{") {
		return "", fmt.Sprintf("the server address %q cannot be used: give the API's address (Base URL)", raw)
	}
	if !u.IsAbs() {
		if s.location == nil || override != "" {
			return "", fmt.Sprintf("the spec's server %q is relative to where the spec is published: give the API's address (Base URL)", raw)
		}
		u = s.location.ResolveReference(u)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return "", fmt.Sprintf("the server address %q is not an http or https URL: give the API's address (Base URL)", raw)
	}
	return strings.TrimSuffix(u.String(), "/"), ""
}

// apiParam is one parameter of the tool being made.
type apiParam struct {
	name string
	// in and key are where the spec sends it and its name there.
	in, key  string
	typ      string
	schema   map[string]any
	required bool
	// simple is the parameter as a catalog.Param; nil when only a JSON
	// Schema can hold it (an object, an array of objects).
	simple *catalog.Param
}

// opConv makes the tool of one operation.
type opConv struct {
	spec   *Spec
	method string
	path   string
	op     *openapi3.Operation
	schema schemaConv
	notes  []string
	params []*apiParam
	http   catalog.HTTP
	// urlQuery are the parts of the URL's query written in the URL
	// template (exploded arrays: one name=value per item), by name.
	urlQuery []queryPart
	cookies  []tmpl
	secrets  []SecretRef
}

// queryPart is a part of the URL's query template and the name it sends.
type queryPart struct {
	name string
	t    tmpl
}

// note records a note once (a schema may be read more than once).
func (c *opConv) note(format string, args ...any) {
	if n := fmt.Sprintf(format, args...); !slices.Contains(c.notes, n) {
		c.notes = append(c.notes, n)
	}
}

// operation converts one operation; schemas are the spec's, converted
// so far.
func (s *Spec) operation(method, path string, item *openapi3.PathItem, op *openapi3.Operation, opts OpenAPIOptions, schemas *schemaGraph) *Operation {
	o := &Operation{ID: op.OperationID, Method: method, Path: path, Summary: oneLine(op.Summary)}
	if o.ID == "" {
		o.ID = method + " " + path
	}
	c := &opConv{spec: s, method: method, path: path, op: op}
	c.schema.note, c.schema.graph = c.note, schemas
	problem := c.convert(item, opts)
	o.Notes = c.notes
	if problem != "" {
		o.Problem = problem
		return o
	}
	name := safeName(op.OperationID, MaxNameLen)
	if name == "" {
		name = safeName(strings.ToLower(method)+"_"+strings.NewReplacer("{", "", "}", "").Replace(path), MaxNameLen)
	}
	// The tool's request is a copy: a pointer into c would keep all of c
	// alive with the tool (its parameters' schemas, the spec's model
	// through c.op): 300 MB for a 10,000-operation spec.
	h := c.http
	o.Tool = catalog.Tool{
		Name:        safeName(opts.Prefix+name, MaxNameLen),
		Description: strings.TrimSpace(op.Description),
		Hints:       methodHints(method),
		Action:      catalog.Action{HTTP: &h},
	}
	// The summary titles the tool, where the lists show it, even when it
	// is all the operation says (and so its description too).
	if o.Summary != "" {
		o.Tool.Title = strings.TrimSuffix(o.Summary, ".")
	}
	switch {
	case o.Tool.Description == "" && o.Summary != "":
		o.Tool.Description = o.Summary
	case o.Tool.Description == "":
		o.Tool.Description = fmt.Sprintf("Calls %s %s of %s.", method, path, cmpOr(s.Title, "the API"))
	}
	if op.Deprecated {
		o.Tool.Description += "\n\nDeprecated by the API."
	}
	if problem := c.finishParams(&o.Tool); problem != "" {
		o.Problem, o.Tool = problem, catalog.Tool{}
		return o
	}
	o.Secrets = c.secrets
	return o
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// oneLine is the first line of s, trimmed.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	return s
}

// methodHints are the hints an HTTP method implies: GET, HEAD and
// OPTIONS only read; DELETE destroys (so mcptray asks an approval) and,
// like PUT, may be repeated; POST adds.
func methodHints(method string) *catalog.Hints {
	yes, no := true, false
	switch method {
	case "GET", "HEAD", "OPTIONS":
		return &catalog.Hints{ReadOnly: &yes}
	case "DELETE":
		return &catalog.Hints{Destructive: &yes, Idempotent: &yes}
	case "PUT":
		return &catalog.Hints{Idempotent: &yes}
	case "POST":
		return &catalog.Hints{Destructive: &no}
	}
	return nil
}

// pathVar matches a {variable} of a path template.
var pathVar = regexp.MustCompile(`\{([^{}]+)\}`)

// convert fills c.http, c.params and c.secrets; it returns why the
// operation cannot become a tool, or "".
func (c *opConv) convert(item *openapi3.PathItem, opts OpenAPIOptions) string {
	if !slices.Contains(catalog.HTTPMethods, c.method) {
		return fmt.Sprintf("%s is not a method mcptray's http action sends (%s)", c.method, strings.Join(catalog.HTTPMethods, ", "))
	}
	c.http.Method = c.method
	servers := c.spec.doc.Servers
	switch {
	case c.op.Servers != nil && len(*c.op.Servers) > 0:
		servers = *c.op.Servers
		if opts.BaseURL != "" {
			c.note("the operation names its own server (%s): the Base URL given replaces it", servers[0].URL)
		}
	case len(item.Servers) > 0:
		servers = item.Servers
		if opts.BaseURL != "" {
			c.note("the path %s names its own server (%s): the Base URL given replaces it", c.path, servers[0].URL)
		}
	}
	base, problem := c.spec.baseURL(opts.BaseURL, servers)
	if problem != "" {
		return problem
	}
	if !slices.Equal(servers, c.spec.doc.Servers) && opts.BaseURL == "" {
		c.note("the path %s names its own server: this tool calls %s", c.path, base)
	}

	params := map[string]*openapi3.Parameter{}
	var order []string
	for _, list := range []openapi3.Parameters{item.Parameters, c.op.Parameters} {
		for _, ref := range list {
			if ref == nil || ref.Value == nil {
				continue
			}
			key := ref.Value.In + " " + ref.Value.Name
			if _, ok := params[key]; !ok {
				order = append(order, key)
			}
			params[key] = ref.Value // an operation's own overrides its path's
		}
	}
	// Path variables first, in the path's order: they are always needed.
	pathRefs := map[string]tmpl{}
	for _, m := range pathVar.FindAllStringSubmatch(c.path, -1) {
		v := m[1]
		p := params["path "+v]
		if p == nil {
			c.note("the path variable {%s} is not declared as a parameter (a mistake in the spec): added as a required text parameter", v)
			p = &openapi3.Parameter{Name: v, In: "path", Required: true, Schema: openapi3.NewStringSchema().NewRef()}
		}
		ap, ok, problem := c.param(p)
		if problem != "" {
			return problem
		}
		if ok {
			pathRefs[v] = pathExpr(ap)
		}
	}
	for _, key := range order {
		p := params[key]
		switch p.In {
		case "path":
			if !strings.Contains(c.path, "{"+p.Name+"}") {
				c.note("the path parameter %q is not in the path %s (a mistake in the spec): left out", p.Name, c.path)
			}
			continue
		case "query", "header", "cookie":
		default:
			c.note("the parameter %q is in %q, which is no place a request has: left out", p.Name, p.In)
			continue
		}
		if (p.In == "header" || p.In == "cookie") && !catalog.IsToken(p.Name) {
			c.note("the %s parameter %q is not a valid %s name (a mistake in the spec): left out", p.In, p.Name, p.In)
			continue
		}
		if p.In == "header" && slices.Contains([]string{"accept", "content-type", "authorization"}, strings.ToLower(p.Name)) {
			c.note("the header parameter %q is set by mcptray (or by the security scheme): left out", p.Name)
			continue
		}
		ap, ok, problem := c.param(p)
		if problem != "" {
			return problem
		}
		if ok {
			c.place(p, ap)
		}
	}
	u := literal(base) + pathTemplate(c.path, pathRefs)
	if problem := c.body(); problem != "" {
		return problem
	}
	c.security()
	if len(c.urlQuery) > 0 {
		sep := "?"
		if strings.Contains(base, "?") {
			sep = "&"
		}
		u += literal(sep)
		for _, q := range c.urlQuery {
			u += q.t
		}
	}
	if len(c.cookies) > 0 {
		c.header("Cookie", joinTmpl(c.cookies, ""))
	}
	c.http.URL = catalog.Template(u)
	if c.acceptsJSON() {
		c.header("Accept", "application/json")
	}
	return ""
}

// pathTemplate is the template of an operation's path: each {variable}
// its parameter's expression (refs), the text between as it is.
func pathTemplate(path string, refs map[string]tmpl) tmpl {
	var out tmpl
	last := 0
	for _, m := range pathVar.FindAllStringSubmatchIndex(path, -1) {
		out += literal(path[last:m[0]])
		out += refs[path[m[2]:m[3]]] // none: a variable left out (noted)
		last = m[1]
	}
	return out + literal(path[last:])
}

// acceptsJSON reports whether a successful response of the operation is
// JSON.
func (c *opConv) acceptsJSON() bool {
	if c.op.Responses == nil {
		return false
	}
	for code, r := range c.op.Responses.Map() {
		if !strings.HasPrefix(code, "2") || r == nil || r.Value == nil {
			continue
		}
		for mt := range r.Value.Content {
			if isJSONType(mt) {
				return true
			}
		}
	}
	return false
}

// isJSONType reports a JSON media type (application/json, …+json).
func isJSONType(mt string) bool {
	mt, _, _ = strings.Cut(strings.ToLower(mt), ";")
	mt = strings.TrimSpace(mt)
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}

func (c *opConv) header(name string, value tmpl) {
	if c.http.Headers == nil {
		c.http.Headers = map[string]catalog.Template{}
	}
	c.http.Headers[name] = catalog.Template(value)
}

// param makes the tool parameter of a spec parameter. ok is false when it
// is left out (noted); problem is set when the operation cannot do
// without it.
func (c *opConv) param(p *openapi3.Parameter) (ap *apiParam, ok bool, problem string) {
	what := fmt.Sprintf("%s parameter %q", p.In, p.Name)
	var s *openapi3.Schema
	switch {
	case p.Schema != nil && p.Schema.Value != nil:
		s = p.Schema.Value
	case len(p.Content) > 0:
		for _, mt := range slices.Sorted(mapKeys(p.Content)) {
			if m := p.Content[mt]; m != nil && m.Schema != nil && m.Schema.Value != nil {
				s = m.Schema.Value
				break
			}
		}
		c.note("%s: its value is a %s document, sent as text", what, cmpOr(firstKey(p.Content), "structured"))
		desc := ""
		if s != nil {
			desc = s.Description
		}
		s = &openapi3.Schema{Type: &openapi3.Types{"string"}, Description: desc}
	default:
		c.note("%s: no schema given (a mistake in the spec): read as text", what)
		s = openapi3.NewStringSchema()
	}
	required := p.Required || p.In == "path"
	ap, err := c.newParam(p.Name, p.In, p.Description, p.Example, s, required, what)
	leaveOut := func(why string) (*apiParam, bool, string) {
		if required {
			return nil, false, fmt.Sprintf("the required %s %s", what, why)
		}
		c.note("%s %s: left out", what, why)
		return nil, false, ""
	}
	switch {
	case errors.Is(err, errBinary):
		return leaveOut("is a file, which a tool cannot send")
	case err != nil:
		return leaveOut(err.Error())
	case ap.typ == "object":
		return leaveOut("is an object, which mcptray cannot spell out in a URL or header")
	case ap.typ == "array" && !isPrimitive(itemType(ap.schema)):
		return leaveOut("is a list of objects, which mcptray cannot spell out in a URL or header")
	case p.In == "query" && p.Style == "deepObject":
		return leaveOut("uses the deepObject style, which mcptray cannot send")
	}
	return ap, true, ""
}

func firstKey[V any](m map[string]V) string {
	keys := slices.Sorted(mapKeys(m))
	if len(keys) == 0 {
		return ""
	}
	return keys[0]
}

// itemType is the type of an array schema's items ("string" when none).
func itemType(schema map[string]any) string {
	if items, ok := schema["items"].(map[string]any); ok {
		if t, ok := items["type"].(string); ok {
			return t
		}
		return ""
	}
	return "string"
}

// newParam adds a tool parameter for the value named key in the request
// (in says where: path, query, header, cookie, body). Its name is key made
// valid, or — when another parameter has it — prefixed with where it goes
// ("body_id").
func (c *opConv) newParam(key, in, description string, example any, s *openapi3.Schema, required bool, what string) (*apiParam, error) {
	schema, err := c.schema.jsonSchema(s, what, 0)
	if err != nil {
		return nil, err
	}
	typ, _ := schema["type"].(string)
	if typ == "" {
		c.note("%s: no type given: read as text", what)
		typ = "string"
		schema["type"] = typ
	}
	if description = strings.TrimSpace(description); description == "" {
		description, _ = schema["description"].(string)
	}
	if ex := c.schema.exampleOf(example, s, typ, what); ex != "" {
		description = strings.TrimSpace(description + " (e.g. " + ex + ")")
	}
	if description != "" {
		schema["description"] = description
	} else {
		delete(schema, "description")
	}
	name := safeName(key, MaxNameLen)
	if name == "" {
		name = in
	}
	taken := func(n string) bool {
		return slices.ContainsFunc(c.params, func(p *apiParam) bool { return p.name == n })
	}
	if taken(name) {
		name = catalog.UniqueName(safeName(in+"_"+name, MaxNameLen), MaxNameLen, taken)
		c.note("%s: another parameter is named %q too: this one is %q", what, key, name)
	}
	ap := &apiParam{name: name, in: in, key: key, typ: typ, schema: schema, required: required}
	if simple := simpleParam(name, description, schema, required); simple != nil {
		ap.simple = simple
	}
	c.params = append(c.params, ap)
	return ap, nil
}

// simpleParam is the catalog.Param holding a value of schema, when one
// can: a primitive, or a list of primitives, with no other constraint
// than an enum and a default (bounds and patterns are then said in the
// description, which catalog.Param serves).
func simpleParam(name, description string, schema map[string]any, required bool) *catalog.Param {
	typ, _ := schema["type"].(string)
	p := &catalog.Param{Name: name, Type: typ, Description: description, Required: required}
	switch {
	case isPrimitive(typ):
	case typ == "array":
		items, _ := schema["items"].(map[string]any)
		it, _ := items["type"].(string)
		for k := range items {
			if k != "type" && k != "format" && k != "description" {
				return nil // an enum, bounds, properties: only a schema holds them
			}
		}
		if len(items) > 0 && !isPrimitive(it) {
			return nil
		}
		if it != "" && it != "string" {
			p.Items = it
		}
		if f, ok := items["format"].(string); ok {
			p.Description = strings.TrimSpace(p.Description + " (each of format " + f + ")")
		}
	default:
		return nil
	}
	if e, ok := schema["enum"].([]any); ok {
		p.Enum = e
	}
	p.Default = schema["default"]
	if limits := describeLimits(schema); limits != "" {
		p.Description = strings.TrimSpace(p.Description + " " + limits)
	}
	return p
}

// describeLimits says in words the constraints a catalog.Param cannot
// carry.
func describeLimits(schema map[string]any) string {
	var parts []string
	if f, ok := schema["format"].(string); ok {
		parts = append(parts, "format "+f)
	}
	for _, k := range []struct{ key, words string }{
		{"minimum", "at least"}, {"exclusiveMinimum", "more than"}, {"maximum", "at most"}, {"exclusiveMaximum", "less than"},
		{"minLength", "at least this many characters:"}, {"maxLength", "at most this many characters:"}, {"pattern", "matching"},
	} {
		if v, ok := schema[k.key]; ok {
			parts = append(parts, fmt.Sprintf("%s %v", k.words, v))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "(" + strings.Join(parts, "; ") + ")"
}

// pathExpr is the template of a path parameter: a text escaped for one
// path segment, a number or yes/no as JSON writes it (never 1e+06), a
// list joined with commas.
func pathExpr(p *apiParam) tmpl {
	ref := argRef(p.name)
	switch p.typ {
	case "string":
		return "{{pathescape " + ref + "}}"
	case "array":
		return "{{range $i, $v := " + ref + "}}{{if $i}},{{end}}{{pathescape (print $v)}}{{end}}"
	}
	return "{{json " + ref + "}}"
}

// valueExpr is the template of a query or header value: empty when the
// argument is missing (the http action then leaves it out), the text, or
// a number or yes/no as JSON writes it.
func valueExpr(p *apiParam, sep tmpl) tmpl {
	ref := argRef(p.name)
	switch p.typ {
	case "string":
		return "{{" + ref + "}}"
	case "array":
		item := tmpl("{{$v}}")
		if itemType(p.schema) != "string" {
			item = "{{json $v}}"
		}
		return "{{range $i, $v := " + ref + "}}{{if $i}}" + sep + "{{end}}" + item + "{{end}}"
	}
	return "{{if ne " + ref + " nil}}{{json " + ref + "}}{{end}}"
}

// place puts a query, header or cookie parameter in the request.
func (c *opConv) place(p *openapi3.Parameter, ap *apiParam) {
	switch p.In {
	case "query":
		explode := p.Explode == nil || *p.Explode
		if ap.typ == "array" && explode && (p.Style == "" || p.Style == "form") {
			item := tmpl("{{urlquery $v}}")
			if itemType(ap.schema) != "string" {
				item = "{{json $v}}"
			}
			c.urlQuery = append(c.urlQuery, queryPart{p.Name, "{{range $v := " + argRef(ap.name) + "}}" + literal(url.QueryEscape(p.Name)) + "=" + item + "&{{end}}"})
			return
		}
		sep := tmpl(",")
		switch p.Style {
		case "spaceDelimited":
			sep = " "
		case "pipeDelimited":
			sep = "|"
		}
		if c.http.Query == nil {
			c.http.Query = map[string]catalog.Template{}
		}
		c.http.Query[p.Name] = catalog.Template(valueExpr(ap, sep))
	case "header":
		c.header(p.Name, valueExpr(ap, ","))
	case "cookie":
		ref := argRef(ap.name)
		c.cookies = append(c.cookies, "{{if ne "+ref+" nil}}"+literal(p.Name)+"="+valueExpr(ap, ",")+"; {{end}}")
	}
}

// body adds the request body's parameters and template; it returns why
// the operation cannot become a tool, or "".
func (c *opConv) body() string {
	if c.op.RequestBody == nil || c.op.RequestBody.Value == nil || len(c.op.RequestBody.Value.Content) == 0 {
		return ""
	}
	rb := c.op.RequestBody.Value
	types := slices.Sorted(mapKeys(rb.Content))
	pick := func(ok func(string) bool) string {
		for _, t := range types {
			if ok(t) {
				return t
			}
		}
		return ""
	}
	mt := pick(isJSONType)
	form := false
	if mt == "" {
		if mt = pick(func(t string) bool { return strings.HasPrefix(t, "application/x-www-form-urlencoded") }); mt != "" {
			form = true
		}
	}
	text := false
	if mt == "" {
		if mt = pick(func(t string) bool { return strings.HasPrefix(t, "text/") }); mt != "" {
			text = true
		}
	}
	if mt == "" {
		why := fmt.Sprintf("the request body is %s, which a tool cannot send (it sends JSON, a form or text)", strings.Join(types, " or "))
		if rb.Required {
			return why
		}
		c.note("%s: the tool sends none", why)
		return ""
	}
	if len(types) > 1 {
		c.note("the request body may be %s: the tool sends %s", strings.Join(types, ", "), mt)
	}
	var s *openapi3.Schema
	if m := rb.Content[mt]; m.Schema != nil {
		s = m.Schema.Value
	}
	if s == nil {
		s = &openapi3.Schema{}
	}
	c.header("Content-Type", literal(mt))
	if text {
		ap, err := c.newParam("body", "body", rb.Description, nil, &openapi3.Schema{Type: &openapi3.Types{"string"}, Description: s.Description}, rb.Required, "the request body")
		if err != nil {
			return err.Error()
		}
		c.http.Body = catalog.Template("{{" + argRef(ap.name) + "}}")
		return ""
	}
	fields, problem := c.flatten(merged(s), nil, rb.Required, 0, form)
	if problem != "" {
		return problem
	}
	if fields == nil {
		// Not an object of properties: one parameter holds the whole body.
		ap, err := c.newParam("body", "body", rb.Description, nil, s, rb.Required, "the request body")
		switch {
		case errors.Is(err, errBinary):
			return "the request body is a file, which a tool cannot send"
		case err != nil:
			return err.Error()
		case form:
			return "the request body is a form that is not a set of fields, which mcptray cannot send"
		}
		ref := argRef(ap.name)
		c.http.Body = catalog.Template("{{if ne " + ref + " nil}}{{json " + ref + "}}{{end}}")
		return ""
	}
	if form {
		c.http.Body = catalog.Template(formTemplate(fields))
	} else {
		c.http.Body = catalog.Template(jsonTemplate(fields))
	}
	return ""
}

// bodyField is one property of a flattened request body: a parameter, or
// an object whose own properties are fields.
type bodyField struct {
	key      string
	param    *apiParam
	children []*bodyField
	required bool
}

// flatten makes the properties of an object body (and of objects in it,
// one level down) parameters of their own: "category": {"id"} becomes
// category_id. A property that cannot be flattened (a list of objects, a
// map, a choice of shapes) becomes one parameter with its schema. It
// returns nil fields when s is not an object of properties.
func (c *opConv) flatten(s *openapi3.Schema, parent []string, required bool, depth int, form bool) ([]*bodyField, string) {
	if s == nil || len(s.Properties) == 0 || len(s.OneOf) > 0 || len(s.AnyOf) > 0 {
		return nil, ""
	}
	if typ, err := c.schema.typeOf(s, "the request body"); err == nil && typ != "object" && typ != "" {
		return nil, ""
	}
	var fields []*bodyField
	for _, key := range propertyOrder(s) {
		ref := s.Properties[key]
		if ref == nil || ref.Value == nil || ref.Value.ReadOnly {
			continue
		}
		ps := merged(ref.Value)
		req := required && slices.Contains(s.Required, key)
		path := append(slices.Clone(parent), key)
		what := "body field " + strings.Join(path, ".")
		if typ, _ := c.schema.typeOf(ps, what); typ == "object" && depth < 1 && !form && len(ps.Properties) > 0 && len(ps.OneOf)+len(ps.AnyOf) == 0 {
			children, problem := c.flatten(ps, path, req, depth+1, form)
			if problem != "" {
				return nil, problem
			}
			if children != nil {
				fields = append(fields, &bodyField{key: key, children: children, required: req})
				continue
			}
		}
		ap, err := c.newParam(strings.Join(path, "_"), "body", "", nil, ps, req, what)
		switch {
		case errors.Is(err, errBinary) && req:
			return nil, fmt.Sprintf("the required %s is a file, which a tool cannot send", what)
		case errors.Is(err, errBinary):
			c.note("%s is a file, which a tool cannot send: left out", what)
			continue
		case err != nil:
			return nil, err.Error()
		}
		if form && !isPrimitive(ap.typ) {
			if req {
				return nil, fmt.Sprintf("the required form field %s is not a single value, which mcptray cannot send in a form", what)
			}
			c.note("form field %s is not a single value: left out", what)
			c.params = slices.DeleteFunc(c.params, func(p *apiParam) bool { return p == ap })
			continue
		}
		fields = append(fields, &bodyField{key: key, param: ap, required: req})
	}
	return fields, ""
}

// present is the template condition that any of fields was given.
func present(fields []*bodyField) tmpl {
	var refs []tmpl
	var walk func(fs []*bodyField)
	walk = func(fs []*bodyField) {
		for _, f := range fs {
			if f.param != nil {
				refs = append(refs, "ne "+argRef(f.param.name)+" nil")
			}
			walk(f.children)
		}
	}
	walk(fields)
	if len(refs) == 1 {
		return refs[0]
	}
	return "or (" + joinTmpl(refs, ") (") + ")"
}

// jsonTemplate writes a JSON object of fields, leaving out those not
// given: each field goes in only when its argument is there (or it is
// required), after a comma when one came before — $sN holds the comma of
// nesting level N.
func jsonTemplate(fields []*bodyField) tmpl {
	var b strings.Builder
	writeJSONTemplate(&b, fields, 0)
	// A copy of its length: the builder's spare room would stay with the
	// tool, thousands of times over.
	return tmpl(strings.Clone(b.String()))
}

// writeJSONTemplate writes jsonTemplate's object of fields at nesting
// level to b: into one buffer, as a body of a few KB written by adding
// strings was copied at every field.
func writeJSONTemplate(b *strings.Builder, fields []*bodyField, level int) {
	sep := "$s" + strconv.Itoa(level)
	b.WriteString("{{" + sep + ` := ""}}{`)
	for _, f := range fields {
		key, _ := json.Marshal(f.key)
		b.WriteString("\n")
		if !f.required {
			b.WriteString("{{if " + string(present([]*bodyField{f})) + "}}")
		}
		b.WriteString("{{" + sep + "}}" + string(literal(string(key))) + ": ")
		if f.param != nil {
			b.WriteString("{{json " + string(argRef(f.param.name)) + "}}")
		} else {
			writeJSONTemplate(b, f.children, level+1)
		}
		b.WriteString("{{" + sep + ` = ","}}`)
		if !f.required {
			b.WriteString("{{end}}")
		}
	}
	b.WriteString("\n}")
}

// formTemplate writes a form (name=value&…) of fields, leaving out those
// not given.
func formTemplate(fields []*bodyField) tmpl {
	b := tmpl(`{{$s := ""}}`)
	for _, f := range fields {
		ref := argRef(f.param.name)
		value := "{{urlquery " + ref + "}}"
		if f.param.typ != "string" {
			value = "{{json " + ref + "}}"
		}
		b += "{{if ne " + ref + " nil}}{{$s}}" + literal(url.QueryEscape(f.key)) + "=" + value + `{{$s = "&"}}{{end}}`
	}
	return b
}

// security makes the operation send the credentials of the first set of
// security schemes it accepts that mcptray can send: an API key (header,
// query or cookie), a bearer token or basic auth, each read from a secret.
// OAuth 2 and OpenID Connect cannot be: the tool is made without them,
// and a note says so.
func (c *opConv) security() {
	reqs := c.spec.doc.Security
	if c.op.Security != nil {
		reqs = *c.op.Security
	}
	if len(reqs) == 0 {
		return
	}
	var schemes map[string]*openapi3.SecuritySchemeRef
	if c.spec.doc.Components != nil {
		schemes = c.spec.doc.Components.SecuritySchemes
	}
	lookup := func(name string) *openapi3.SecurityScheme {
		if ref := schemes[name]; ref != nil {
			return ref.Value
		}
		return nil
	}
	var unsupported []string
	for _, alt := range reqs {
		ok := true
		for _, name := range slices.Sorted(mapKeys(alt)) {
			s := lookup(name)
			if s == nil {
				c.note("the security scheme %q is not defined in the spec (a mistake): left out", name)
				continue
			}
			if why := unsupportedScheme(s); why != "" {
				ok = false
				unsupported = append(unsupported, fmt.Sprintf("%s (%s)", name, why))
			}
		}
		if !ok {
			continue
		}
		for _, name := range slices.Sorted(mapKeys(alt)) {
			if s := lookup(name); s != nil {
				c.useScheme(name, s)
			}
		}
		return
	}
	c.note("the API asks for %s, which mcptray cannot sign in with: the tool is made without it; if you have a token, add a header such as Authorization: Bearer {{secret \"NAME\"}} in the editor",
		strings.Join(unsupported, " or "))
}

// unsupportedScheme says why mcptray cannot send a security scheme, or "".
func unsupportedScheme(s *openapi3.SecurityScheme) string {
	switch strings.ToLower(s.Type) {
	case "apikey":
		if (s.In == "header" || s.In == "cookie") && !catalog.IsToken(s.Name) {
			return fmt.Sprintf("an API key in the %s %q, which is not a valid %s name", s.In, s.Name, s.In)
		}
		if s.In == "header" || s.In == "query" || s.In == "cookie" {
			return ""
		}
		return fmt.Sprintf("an API key in %q", s.In)
	case "http":
		switch strings.ToLower(s.Scheme) {
		case "bearer", "basic":
			return ""
		}
		return fmt.Sprintf("HTTP %s authentication", s.Scheme)
	case "oauth2":
		return "OAuth 2"
	case "openidconnect":
		return "OpenID Connect"
	}
	return s.Type
}

// useScheme sends the credential of a security scheme, read from a
// secret named after the API and the scheme.
func (c *opConv) useScheme(scheme string, s *openapi3.SecurityScheme) {
	name := safeName(slug(cmpOr(c.spec.Title, "api"), 24)+"_"+slug(scheme, 38), MaxNameLen)
	ref := SecretRef{Name: name}
	secret := secretRef(name)
	switch strings.ToLower(s.Type) {
	case "apikey":
		ref.Holds = fmt.Sprintf("the API key of %s (sent in the %s %q)", cmpOr(c.spec.Title, "the API"), s.In, s.Name)
		switch s.In {
		case "header":
			c.dropParam("header", s.Name)
			c.header(s.Name, secret)
		case "query":
			c.dropParam("query", s.Name)
			if c.http.Query == nil {
				c.http.Query = map[string]catalog.Template{}
			}
			c.http.Query[s.Name] = catalog.Template(secret)
		case "cookie":
			c.cookies = append(c.cookies, literal(s.Name)+"="+secret+"; ")
		}
	default:
		if strings.EqualFold(s.Scheme, "basic") {
			ref.Holds = fmt.Sprintf("the user name and password for %s, as base64 of user:password (printf 'me:password' | base64)", cmpOr(c.spec.Title, "the API"))
			c.header("Authorization", "Basic "+secret)
		} else {
			ref.Holds = fmt.Sprintf("the bearer token of %s", cmpOr(c.spec.Title, "the API"))
			c.header("Authorization", "Bearer "+secret)
		}
	}
	if !slices.Contains(c.secrets, ref) {
		c.secrets = append(c.secrets, ref)
	}
}

// dropParam removes a parameter that the security scheme sends instead
// (specs often list the API key as a parameter too).
func (c *opConv) dropParam(in, key string) {
	switch in {
	case "header":
		for k := range c.http.Headers {
			if strings.EqualFold(k, key) {
				delete(c.http.Headers, k)
				c.note("the header %q is the API key: it is read from the secret, not given by the AI app", key)
			}
		}
	case "query":
		_, ok := c.http.Query[key]
		n := len(c.urlQuery)
		c.urlQuery = slices.DeleteFunc(c.urlQuery, func(q queryPart) bool { return q.name == key })
		if ok || len(c.urlQuery) < n {
			delete(c.http.Query, key)
			c.note("the query parameter %q is the API key: it is read from the secret, not given by the AI app", key)
		}
	}
	// The parameter the spec sends under that very name, not one whose
	// name reads the same as a tool's argument: a scheme named
	// q{secret"x" would otherwise drop the parameter q{secret"x"}, both
	// q_secret_x, and leave its query sending an argument the tool lacks.
	c.params = slices.DeleteFunc(c.params, func(p *apiParam) bool {
		return p.in == in && (p.key == key || in == "header" && strings.EqualFold(p.key, key))
	})
}

// finishParams gives the tool its parameters: as catalog.Params when each
// is one, else as a hand-written input schema holding them all. It
// returns why that cannot be, or "".
func (c *opConv) finishParams(t *catalog.Tool) string {
	all := true
	for _, p := range c.params {
		all = all && p.simple != nil
	}
	if all {
		for _, p := range c.params {
			t.Params = append(t.Params, *p.simple)
		}
		return ""
	}
	props := map[string]any{}
	required := []string{}
	for _, p := range c.params {
		props[p.name] = p.schema
		if p.required {
			required = append(required, p.name)
		}
	}
	schema := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		schema["required"] = required
	}
	b, err := marshalSchema(schema)
	if err != nil {
		// YAML has values JSON has not (.nan, .inf).
		return fmt.Sprintf("the parameters' schemas cannot be written as JSON: %v", err)
	}
	t.InputSchema = b
	return ""
}

// Select picks operations by ID, by tool name or as "METHOD /path"; with
// no names, every operation that can become a tool. Unknown names are an
// error naming them.
func (conv *Conversion) Select(only []string) ([]*Operation, error) {
	if len(only) == 0 {
		var out []*Operation
		for _, o := range conv.Operations {
			if o.Problem == "" {
				out = append(out, o)
			}
		}
		return out, nil
	}
	var out []*Operation
	var unknown []string
	for _, id := range only {
		i := slices.IndexFunc(conv.Operations, func(o *Operation) bool {
			return o.ID == id || o.Tool.Name != "" && o.Tool.Name == id || strings.EqualFold(o.Method+" "+o.Path, id)
		})
		if i < 0 {
			unknown = append(unknown, id)
			continue
		}
		if !slices.Contains(out, conv.Operations[i]) {
			out = append(out, conv.Operations[i])
		}
	}
	if len(unknown) > 0 {
		return nil, fmt.Errorf("the spec has no operation %s", strings.Join(quoteAll(unknown), ", "))
	}
	return out, nil
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

// Build gathers the tools of ops and the secrets they read, all or
// nothing: an operation that cannot become a tool and two tools of one
// name are listed together in a *catalog.ValidationError. What mcpcore
// refuses in a tool's definition is found as it is stored (AddTools), off
// the window's goroutine: for a big spec, that takes seconds.
func Build(ops []*Operation) ([]catalog.Tool, []SecretRef, error) {
	var ps []catalog.Problem
	var tools []catalog.Tool
	var secrets []SecretRef
	for _, o := range ops {
		if o.Problem != "" {
			ps = append(ps, catalog.Problem{Entry: "operation " + o.ID, Message: o.Problem})
			continue
		}
		tools = append(tools, o.Tool)
		for _, s := range o.Secrets {
			if !slices.Contains(secrets, s) {
				secrets = append(secrets, s)
			}
		}
	}
	if len(ops) == 0 {
		ps = append(ps, catalog.Problem{Entry: "import", Message: "no operation is chosen"})
	}
	first := map[string]int{}
	for i, t := range tools {
		if j, dup := first[t.Name]; dup {
			ps = append(ps, catalog.Problem{Entry: fmt.Sprintf("tool %q", t.Name), Field: "name",
				Message: fmt.Sprintf("duplicate: tools %d and %d have this name", j+1, i+1)})
			continue
		}
		first[t.Name] = i
	}
	if len(ps) > 0 {
		return nil, nil, &catalog.ValidationError{Problems: ps}
	}
	return tools, secrets, nil
}

// memberString is the string member name of a JSON object's members, as
// encoding/json would read it into a field of that name (whose case it
// ignores); "" when there is none, or it is not a string.
func memberString(members map[string]json.RawMessage, name string) string {
	raw, ok := members[name]
	if !ok {
		for k, v := range members {
			if strings.EqualFold(k, name) {
				raw = v
				break
			}
		}
	}
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}
