package mcpcore

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/parallel"
	"github.com/mcptray/mcptray/mcpcore/actions"
	"github.com/yosida95/uritemplate/v3"
)

// ValidateCatalog checks every entry and the uniqueness of names and URIs,
// and returns a *ValidationError listing every problem, or nil.
func ValidateCatalog(c *catalog.Catalog) error {
	var ps []catalog.Problem
	if c.Format != "" && c.Format != catalog.CatalogFormat {
		ps = append(ps, catalog.Problem{Entry: "catalog", Field: "format", Message: fmt.Sprintf("is %q, want %q", c.Format, catalog.CatalogFormat)})
	}
	if c.Version > catalog.CatalogVersion {
		ps = append(ps, catalog.Problem{Entry: "catalog", Field: "version", Message: fmt.Sprintf("%d is newer than this mcptray understands (%d)", c.Version, catalog.CatalogVersion)})
	}
	memo, templates := newSchemaMemo(), actions.NewTemplateChecks()
	ps = append(ps, validateAll(c.Tools, func(t catalog.Tool) []catalog.Problem { return validateTool(t, memo, templates) }, func(t catalog.Tool) string { return toolEntry(t.Name) })...)
	ps = append(ps, validateAll(c.Resources, ValidateResource, func(r catalog.Resource) string { return resourceEntry(r.URI) })...)
	ps = append(ps, validateAll(c.ResourceTemplates, ValidateResourceTemplate, func(t catalog.ResourceTemplate) string { return templateEntry(t.URITemplate) })...)
	ps = append(ps, validateAll(c.Prompts, ValidatePrompt, func(p catalog.Prompt) string { return promptEntry(p.Name) })...)
	ps = append(ps, validateAll(c.Upstreams, ValidateUpstream, func(u catalog.Upstream) string { return upstreamEntry(u.Name) })...)
	ps = append(ps, upstreamLinks(c)...)
	return catalog.AsError(ps)
}

// validateAll validates each entry and reports every entry whose key
// (its entry label) repeats an earlier one. The entries are checked on
// every core: a big import's thousands of tools each take milliseconds
// (their schemas), and the problems are listed in the entries' order
// whatever finishes first.
func validateAll[T any](entries []T, validate func(T) []catalog.Problem, entry func(T) string) []catalog.Problem {
	found := make([][]catalog.Problem, len(entries))
	parallel.Each(len(entries), parallelFrom, func(i int) { found[i] = validate(entries[i]) })
	var ps []catalog.Problem
	seen := map[string]int{}
	for i, e := range entries {
		ps = append(ps, found[i]...)
		ps = append(ps, duplicate(seen, entry(e), i)...)
	}
	return ps
}

// duplicate is the problem of entry i whose key an earlier entry had, as
// seen says; otherwise none, and seen notes the key.
func duplicate(seen map[string]int, key string, i int) []catalog.Problem {
	if first, dup := seen[key]; dup {
		return []catalog.Problem{{Entry: key, Message: fmt.Sprintf("duplicate: entry %d has the same key as entry %d", i+1, first+1)}}
	}
	seen[key] = i
	return nil
}

// ToolChecks returns a check of tools handed to it one at a time, as
// ValidateCatalog checks a catalog's: each tool's problems, and a name an
// earlier tool had. Like ValidateCatalog, it checks each schema shape and
// each template text once: for a big import checked as it is stored. It
// is not safe for concurrent use.
func ToolChecks() func(catalog.Tool) []catalog.Problem {
	memo, templates := newSchemaMemo(), actions.NewTemplateChecks()
	seen, n := map[string]int{}, 0
	return func(t catalog.Tool) []catalog.Problem {
		n++
		return append(validateTool(t, memo, templates), duplicate(seen, toolEntry(t.Name), n-1)...)
	}
}

// parallelFrom is how many entries make another core worth starting: a
// person's few entries are checked where they are.
const parallelFrom = 32

func toolEntry(name string) string     { return fmt.Sprintf("tool %q", name) }
func resourceEntry(uri string) string  { return fmt.Sprintf("resource %q", uri) }
func templateEntry(tmpl string) string { return fmt.Sprintf("resource template %q", tmpl) }
func promptEntry(name string) string   { return fmt.Sprintf("prompt %q", name) }

// problems collects the problems of one entry.
type problems struct {
	entry string
	list  []catalog.Problem
}

func (p *problems) add(field, format string, args ...any) {
	p.list = append(p.list, catalog.Problem{Entry: p.entry, Field: field, Message: fmt.Sprintf(format, args...)})
}

func (p *problems) addActions(under string, ps []actions.Problem) {
	for _, a := range ps {
		field := a.Field
		if under != "" {
			field = under + "." + field
		}
		p.list = append(p.list, catalog.Problem{Entry: p.entry, Field: field, Message: a.Message})
	}
}

// ValidateTool lists the problems of one tool definition.
func ValidateTool(t catalog.Tool) []catalog.Problem { return validateTool(t, nil, nil) }

// validateTool is ValidateTool, with what the schema checks found kept in
// memo and what the template checks found in templates (nil: none kept).
func validateTool(t catalog.Tool, memo *schemaMemo, templates *actions.TemplateChecks) []catalog.Problem {
	p := &problems{entry: toolEntry(t.Name)}
	if err := catalog.CheckName(t.Name); err != nil {
		p.add("name", "%v", err)
	}
	if strings.TrimSpace(t.Description) == "" {
		p.add("description", "required: it is how the model decides when to call the tool")
	}
	if len(t.Params) > 0 && len(t.InputSchema) > 0 {
		p.add("inputSchema", "set either params or a hand-written inputSchema, not both")
	}
	validateParams(p, t.Params)
	if len(t.InputSchema) > 0 {
		for _, m := range memo.check("input", t.InputSchema, checkInputSchema) {
			p.add("inputSchema", "%s", m)
		}
	}
	if len(t.OutputSchema) > 0 {
		for _, m := range memo.check("output", t.OutputSchema, checkOutputSchema) {
			p.add("outputSchema", "%s", m)
		}
	}
	validateSteps(p, t.Steps)
	if t.Approval != "" && t.Approval != catalog.ApprovalOff && t.Approval != catalog.ApprovalAlways {
		p.add("approval", "%q is not one of off, always (or empty: ask for destructive tools)", t.Approval)
	}
	if t.TaskMode != "" && !slices.Contains(catalog.TaskModes, t.TaskMode) {
		p.add("taskMode", "%q is not one of %s", t.TaskMode, strings.Join(catalog.TaskModes, ", "))
	}
	p.addActions("action", actions.Validate(t.Action, templates))
	if len(t.OutputSchema) > 0 && t.Action.Respond != nil && len(t.Action.Respond.Structured) == 0 && !t.Action.Respond.IsError && t.Action.Respond.Error == nil {
		p.add("action.respond.structured", "the tool has an output schema, so its result needs structured output")
	}
	return p.list
}

func validateParams(p *problems, params []catalog.Param) {
	seen := map[string]bool{}
	headers := map[string]string{}
	for i, prm := range params {
		f := fmt.Sprintf("params[%d]", i)
		if err := catalog.CheckName(prm.Name); err != nil {
			p.add(f+".name", "%v", err)
		} else if seen[prm.Name] {
			p.add(f+".name", "duplicate parameter %q", prm.Name)
		}
		seen[prm.Name] = true
		if !slices.Contains(catalog.ParamTypes, prm.Type) {
			p.add(f+".type", "%q is not one of %s", prm.Type, strings.Join(catalog.ParamTypes, ", "))
			continue
		}
		for j, e := range prm.Enum {
			if err := checkValue(prm.Type, e); err != nil {
				p.add(fmt.Sprintf("%s.enum[%d]", f, j), "%v", err)
			}
		}
		if prm.Default != nil {
			if err := checkValue(prm.Type, prm.Default); err != nil {
				p.add(f+".default", "%v", err)
			} else if len(prm.Enum) > 0 && !slices.ContainsFunc(prm.Enum, func(e any) bool { return reflect.DeepEqual(e, prm.Default) }) {
				p.add(f+".default", "%v is not one of the enum values", prm.Default)
			}
		}
		if prm.Items != "" && (prm.Type != "array" || !slices.Contains(catalog.ParamTypes, prm.Items)) {
			p.add(f+".items", "only an array parameter has items, of one of %s", strings.Join(catalog.ParamTypes, ", "))
		}
		if prm.Pattern != "" {
			re, err := regexp.Compile(prm.Pattern)
			switch {
			case prm.Type != "string":
				p.add(f+".pattern", "only a text parameter can be required to match a pattern")
			case err != nil:
				p.add(f+".pattern", "not a regular expression: %v", err)
			case prm.Default != nil && !re.MatchString(fmt.Sprint(prm.Default)):
				p.add(f+".default", "%q does not match the pattern %s", prm.Default, prm.Pattern)
			}
		}
		if prm.Header != "" {
			switch {
			case !isToken(prm.Header):
				p.add(f+".header", "%q is not a valid HTTP header name (letters, digits and !#$%%&'*+-.^_`|~)", prm.Header)
			case prm.Type != "string" && prm.Type != "integer" && prm.Type != "boolean":
				p.add(f+".header", "only string, integer and boolean parameters can be sent as a header")
			case headers[strings.ToLower(prm.Header)] != "":
				p.add(f+".header", "header %q is already used by parameter %q", prm.Header, headers[strings.ToLower(prm.Header)])
			default:
				headers[strings.ToLower(prm.Header)] = prm.Name
			}
		}
	}
}

// validateSteps checks input steps: unique keys, a known kind, and what each
// kind needs.
func validateSteps(p *problems, steps []catalog.InputStep) {
	seen := map[string]bool{}
	for i, s := range steps {
		f := fmt.Sprintf("steps[%d]", i)
		if err := catalog.CheckName(s.Key); err != nil {
			p.add(f+".key", "%v", err)
		} else if seen[s.Key] {
			p.add(f+".key", "duplicate step key %q", s.Key)
		}
		seen[s.Key] = true
		if s.Round < 0 || s.Round > 100 {
			p.add(f+".round", "must be between 0 and 100")
		}
		if err := actions.CheckTemplate(s.Message); err != nil {
			p.add(f+".message", "%v", err)
		}
		if s.AnsweredBy != "" {
			switch {
			case !slices.Contains(catalog.AnsweredByValues, s.AnsweredBy):
				p.add(f+".answeredBy", "%q is not one of %s", s.AnsweredBy, strings.Join(catalog.AnsweredByValues, ", "))
			case s.Kind == catalog.StepApproval && s.AnsweredBy != catalog.AnsweredByDesktop:
				p.add(f+".answeredBy", "an approval is answered on the desktop: one the AI client could answer for itself would be no approval")
			case (s.Kind == catalog.StepSampling || s.Kind == catalog.StepRoots) && s.AnsweredBy != catalog.AnsweredByClient:
				p.add(f+".answeredBy", "only the client can answer a %s step", s.Kind)
			}
		}
		if err := actions.CheckTemplate(s.URL); err != nil {
			p.add(f+".url", "%v", err)
		}
		switch s.Kind {
		case catalog.StepForm:
			if s.Message == "" {
				p.add(f+".message", "a form needs a message telling the person what to fill in")
			}
			if len(s.Schema) == 0 {
				p.add(f+".schema", "a form needs a schema (an object of flat primitive properties)")
			} else {
				for _, m := range checkFormSchema(s.Schema) {
					p.add(f+".schema", "%s", m)
				}
			}
		case catalog.StepURL:
			if s.Message == "" || s.URL == "" {
				p.add(f, "a url step needs a message and a url")
			}
		case catalog.StepSampling:
			if s.Message == "" {
				p.add(f+".message", "a sampling step needs the message to send to the model")
			}
			if s.MaxTokens < 0 {
				p.add(f+".maxTokens", "must not be negative")
			}
		case catalog.StepRoots:
		case catalog.StepApproval:
			if s.Message == "" {
				p.add(f+".message", "an approval needs the question shown to the person")
			}
		default:
			p.add(f+".kind", "%q is not one of %s", s.Kind, strings.Join(catalog.StepKinds, ", "))
		}
	}
}

// checkFormSchema applies the elicitation rule: an object schema whose
// properties are flat primitives (or enum arrays).
func checkFormSchema(raw json.RawMessage) []string {
	var root struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(raw, &root); err != nil {
		return []string{fmt.Sprintf("not a JSON object: %v", err)}
	}
	var msgs []string
	if root.Type != "object" {
		msgs = append(msgs, `the root must have "type": "object"`)
	}
	if _, err := resolveSchema(raw); err != nil {
		msgs = append(msgs, err.Error())
	}
	for _, name := range slices.Sorted(maps.Keys(root.Properties)) {
		var prop struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(root.Properties[name], &prop); err != nil || !slices.Contains([]string{"string", "number", "integer", "boolean", "array"}, prop.Type) {
			msgs = append(msgs, fmt.Sprintf("property %q must be a string, number, integer, boolean or enum array", name))
		}
	}
	return msgs
}

// ValidateResource lists the problems of one fixed resource.
func ValidateResource(r catalog.Resource) []catalog.Problem {
	p := &problems{entry: resourceEntry(r.URI)}
	checkURI(p, "uri", r.URI)
	if strings.TrimSpace(r.Name) == "" {
		p.add("name", "required")
	}
	sources := 0
	for _, set := range []bool{r.Text != "", r.Blob != "", r.File != "", r.HTTP != nil, r.Command != nil, r.Upstream != nil} {
		if set {
			sources++
		}
	}
	if sources != 1 {
		p.add("text", "exactly one of text, blob, file, http, command or upstream is required (found %d)", sources)
	}
	checkUpstreamSource(p, r.Upstream)
	if r.HTTP != nil {
		p.addActions("http", actions.ValidateHTTP(r.HTTP, nil))
	}
	if r.Command != nil {
		p.addActions("command", actions.ValidateCommand(r.Command, nil))
	}
	if r.Blob != "" {
		if _, err := base64.StdEncoding.DecodeString(r.Blob); err != nil {
			p.add("blob", "not valid base64: %v", err)
		}
	}
	if r.File != "" && !filepath.IsAbs(r.File) {
		p.add("file", "must be an absolute path")
	}
	return p.list
}

func checkURI(p *problems, field, uri string) {
	u, err := url.Parse(uri)
	switch {
	case uri == "":
		p.add(field, "required")
	case err != nil:
		p.add(field, "not a valid URI: %v", err)
	case u.Scheme == "":
		p.add(field, "needs a scheme, e.g. file:///… or notes://…")
	}
}

// ValidateResourceTemplate lists the problems of one resource template.
func ValidateResourceTemplate(t catalog.ResourceTemplate) []catalog.Problem {
	p := &problems{entry: templateEntry(t.URITemplate)}
	if strings.TrimSpace(t.Name) == "" {
		p.add("name", "required")
	}
	tmpl, err := uritemplate.New(t.URITemplate)
	if err != nil {
		p.add("uriTemplate", "not a valid RFC 6570 template: %v", err)
	} else {
		checkURI(p, "uriTemplate", strings.SplitN(t.URITemplate, "{", 2)[0]+"x")
	}
	if n := count(t.Text != "", t.Folder != "", t.Upstream != nil); n != 1 {
		p.add("text", "exactly one of text, folder or upstream is required (found %d)", n)
	}
	checkUpstreamSource(p, t.Upstream)
	if err := actions.CheckTemplate(t.Text); err != nil {
		p.add("text", "%v", err)
	}
	if t.Folder != "" {
		if !filepath.IsAbs(t.Folder) {
			p.add("folder", "must be an absolute path")
		}
		if slices.Contains(strings.Split(filepath.ToSlash(t.Folder), "/"), "..") {
			p.add("folder", "must not contain \"..\"")
		}
		if tmpl != nil && len(tmpl.Varnames()) != 1 {
			p.add("uriTemplate", "a folder template needs exactly one variable (the path inside the folder), found %d", len(tmpl.Varnames()))
		}
	}
	if tmpl != nil {
		for _, v := range slices.Sorted(maps.Keys(t.Completions)) {
			if !slices.Contains(tmpl.Varnames(), v) {
				p.add("completions", "%q is not a variable of the template", v)
			}
		}
	}
	return p.list
}

// ValidatePrompt lists the problems of one prompt.
func ValidatePrompt(pr catalog.Prompt) []catalog.Problem {
	p := &problems{entry: promptEntry(pr.Name)}
	if err := catalog.CheckName(pr.Name); err != nil {
		p.add("name", "%v", err)
	}
	if strings.TrimSpace(pr.Description) == "" {
		p.add("description", "required")
	}
	seen := map[string]bool{}
	for i, a := range pr.Arguments {
		f := fmt.Sprintf("arguments[%d]", i)
		if err := catalog.CheckName(a.Name); err != nil {
			p.add(f+".name", "%v", err)
		} else if seen[a.Name] {
			p.add(f+".name", "duplicate argument %q", a.Name)
		}
		seen[a.Name] = true
	}
	switch {
	case pr.Upstream != nil && len(pr.Messages) > 0:
		p.add("messages", "a prompt of another server has no messages of its own")
	case pr.Upstream != nil:
		if pr.Upstream.Server == "" || pr.Upstream.Prompt == "" {
			p.add("upstream", "the server and the prompt's name there are required")
		}
	case len(pr.Messages) == 0:
		p.add("messages", "a prompt needs at least one message")
	}
	for i, m := range pr.Messages {
		f := fmt.Sprintf("messages[%d]", i)
		if m.Role != "user" && m.Role != "assistant" {
			p.add(f+".role", "%q must be user or assistant", m.Role)
		}
		p.addActions(f+".content", actions.ValidateContent(m.Content, nil))
	}
	validateSteps(p, pr.Steps)
	for i, s := range pr.Steps {
		f := fmt.Sprintf("steps[%d]", i)
		if s.InTask {
			p.add(f+".inTask", "only a tool's steps can be asked inside a task")
		}
		if s.Kind == catalog.StepApproval || (s.AnsweredBy != "" && s.AnsweredBy != catalog.AnsweredByClient) {
			p.add(f+".answeredBy", "a prompt's steps are answered by the client; approvals and desktop steps are for tools")
		}
	}
	return p.list
}

// ParseCatalog decodes a catalog document strictly (catalog.Decode) and
// validates it: a *ValidationError lists every problem.
func ParseCatalog(data []byte) (*catalog.Catalog, error) {
	c, err := catalog.Decode(data)
	if err != nil {
		return nil, err
	}
	if err := ValidateCatalog(c); err != nil {
		return nil, err
	}
	return c, nil
}

// Validator holds every rule of a catalog entry, for storage.Store, which
// checks what it stores with it. Its zero value is ready to use.
type Validator struct{}

// Tool lists the problems of a tool (ValidateTool).
func (Validator) Tool(t catalog.Tool) []catalog.Problem { return ValidateTool(t) }

// Resource lists the problems of a resource (ValidateResource).
func (Validator) Resource(r catalog.Resource) []catalog.Problem { return ValidateResource(r) }

// ResourceTemplate lists the problems of a resource template
// (ValidateResourceTemplate).
func (Validator) ResourceTemplate(t catalog.ResourceTemplate) []catalog.Problem {
	return ValidateResourceTemplate(t)
}

// Prompt lists the problems of a prompt (ValidatePrompt).
func (Validator) Prompt(p catalog.Prompt) []catalog.Problem { return ValidatePrompt(p) }

// Upstream lists the problems of an upstream server (ValidateUpstream).
func (Validator) Upstream(u catalog.Upstream) []catalog.Problem { return ValidateUpstream(u) }

// Catalog checks a whole catalog (ValidateCatalog).
func (Validator) Catalog(c *catalog.Catalog) error { return ValidateCatalog(c) }

// ToolChecks checks tools one at a time (ToolChecks).
func (Validator) ToolChecks() func(catalog.Tool) []catalog.Problem { return ToolChecks() }
