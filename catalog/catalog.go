package catalog

import (
	"encoding/json"
)

// CatalogFormat and CatalogVersion identify the JSON document a catalog is
// imported from and exported to.
const (
	CatalogFormat  = "mcptray-catalog"
	CatalogVersion = 1
)

// Catalog is everything a person defines. Its JSON form is the import/export
// format (see docs/tools.md).
type Catalog struct {
	Format            string             `json:"format"`
	Version           int                `json:"version"`
	Tools             []Tool             `json:"tools,omitempty"`
	Resources         []Resource         `json:"resources,omitempty"`
	ResourceTemplates []ResourceTemplate `json:"resourceTemplates,omitempty"`
	Prompts           []Prompt           `json:"prompts,omitempty"`
	// Upstreams are the other MCP servers mcptray fronts; their tools are
	// in Tools, each with an Upstream action.
	Upstreams []Upstream `json:"upstreams,omitempty"`
}

// Tool is a callable tool.
type Tool struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description"`
	// Disabled tools are kept but not served.
	Disabled bool `json:"disabled,omitempty"`
	// Params generate the input schema. Mutually exclusive with InputSchema.
	Params []Param `json:"params,omitempty"`
	// InputSchema is a hand-written JSON Schema, served verbatim.
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
	// OutputSchema, when set, makes results carry checked structuredContent.
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Hints        *Hints          `json:"hints,omitempty"`
	// Steps ask for input before the action runs.
	Steps []InputStep `json:"steps,omitempty"`
	// TaskMode says whether a call runs as a task of the 2026-07-28 tasks
	// extension (io.modelcontextprotocol/tasks): "never" (the default),
	// "optional" (as a task when the request declares the extension) or
	// "required" (a request without the extension gets -32021).
	TaskMode string `json:"taskMode,omitempty"`
	// Approval controls the approval a destructive tool (hints.destructive)
	// asks on the desktop before it runs: "" asks it for destructive tools,
	// "always" for every call, "off" never. An explicit approval step
	// replaces it.
	Approval string `json:"approval,omitempty"`
	Action   Action `json:"action"`
}

// Approval settings of a tool.
const (
	ApprovalOff    = "off"
	ApprovalAlways = "always"
)

// Task modes of a tool.
const (
	TaskNever    = "never"
	TaskOptional = "optional"
	TaskRequired = "required"
)

// TaskModes are the task modes a tool may have.
var TaskModes = []string{TaskNever, TaskOptional, TaskRequired}

// Param is one tool argument, from which the input schema is generated.
type Param struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
	Enum        []any  `json:"enum,omitempty"`
	Default     any    `json:"default,omitempty"`
	// Items is the element type of an array parameter (default string).
	Items string `json:"items,omitempty"`
	// Header, when set, asks HTTP clients to mirror the value in an
	// Mcp-Param-{Header} request header (x-mcp-header).
	Header string `json:"header,omitempty"`
	// Minimum and Maximum bound a number parameter (JSON Schema's
	// minimum and maximum): clean_downloads refuses days=0 by them.
	Minimum *float64 `json:"minimum,omitempty"`
	Maximum *float64 `json:"maximum,omitempty"`
	// Pattern is a regular expression a text parameter must match (JSON
	// Schema's pattern): run_script takes a file name, never a path, by it.
	Pattern string `json:"pattern,omitempty"`
}

// ParamTypes are the JSON types a parameter may have.
var ParamTypes = []string{"string", "integer", "number", "boolean", "array", "object"}

// Hints are the tool annotations clients may show; nil means the spec default.
type Hints struct {
	ReadOnly    *bool `json:"readOnly,omitempty"`
	Destructive *bool `json:"destructive,omitempty"`
	Idempotent  *bool `json:"idempotent,omitempty"`
	OpenWorld   *bool `json:"openWorld,omitempty"`
}

// Resource is a resource with a fixed URI.
type Resource struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MimeType    string `json:"mimeType,omitempty"`
	Disabled    bool   `json:"disabled,omitempty"`
	// Exactly one source: Text (inline), Blob (inline base64), File (read
	// on every read, and watched: a change publishes
	// notifications/resources/updated), HTTP (fetched on every read) or
	// Command (run on every read; its stdout is the content). Whether the
	// content is text or a blob follows MimeType (given, or guessed from the
	// file name or the HTTP Content-Type).
	Text    string   `json:"text,omitempty"`
	Blob    string   `json:"blob,omitempty"`
	File    string   `json:"file,omitempty"`
	HTTP    *HTTP    `json:"http,omitempty"`
	Command *Command `json:"command,omitempty"`
	// Upstream reads the resource of the same URI from another MCP server
	// mcptray fronts.
	Upstream *UpstreamSource `json:"upstream,omitempty"`
}

// ResourceTemplate is a family of resources named by an RFC 6570 URI
// template. Its content is either templated text over the URI variables, or
// the file a "{path}"-style variable names inside Folder.
type ResourceTemplate struct {
	URITemplate string `json:"uriTemplate"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MimeType    string `json:"mimeType,omitempty"`
	Disabled    bool   `json:"disabled,omitempty"`
	// Text is a template over .args (the URI variables).
	Text Template `json:"text,omitempty"`
	// Folder maps the template's single variable onto files inside it; a
	// read can never leave the folder, and completion of the variable lists
	// the folder's entries.
	Folder string `json:"folder,omitempty"`
	// Completions offer values per URI variable.
	Completions map[string][]string `json:"completions,omitempty"`
	// Upstream reads the resources the template names from another MCP
	// server mcptray fronts, by their URIs.
	Upstream *UpstreamSource `json:"upstream,omitempty"`
}

// Prompt is a reusable message template.
type Prompt struct {
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description"`
	Disabled    bool             `json:"disabled,omitempty"`
	Arguments   []PromptArgument `json:"arguments,omitempty"`
	Steps       []InputStep      `json:"steps,omitempty"`
	Messages    []PromptMessage  `json:"messages"`
	// Upstream gets the prompt from another MCP server mcptray fronts, in
	// place of Messages.
	Upstream *UpstreamPrompt `json:"upstream,omitempty"`
}

// PromptArgument is one prompt argument; Completions are offered to clients.
type PromptArgument struct {
	Name        string   `json:"name"`
	Title       string   `json:"title,omitempty"`
	Description string   `json:"description,omitempty"`
	Required    bool     `json:"required,omitempty"`
	Completions []string `json:"completions,omitempty"`
}

// PromptMessage is one message: a role and a single content block.
type PromptMessage struct {
	Role    string  `json:"role"`
	Content Content `json:"content"`
}

// InputStep asks for something before a tool's action runs or a prompt is
// rendered. Steps with the same Round are asked together; rounds are asked
// in ascending order. The answer is visible to templates as .inputs.<Key>.
type InputStep struct {
	Key  string `json:"key"`
	Kind string `json:"kind"`
	// Round groups steps asked together (0 first).
	Round int `json:"round,omitempty"`
	// Optional steps are skipped when the client cannot answer them;
	// otherwise the call fails with -32021 naming the missing capability.
	Optional bool `json:"optional,omitempty"`
	// Message is the question (form, url) or the user message (sampling).
	Message Template `json:"message,omitempty"`
	// Schema is a form's requestedSchema, sent verbatim.
	Schema json.RawMessage `json:"schema,omitempty"`
	// URL is the page a url step opens.
	URL Template `json:"url,omitempty"`
	// MaxTokens and SystemPrompt shape a sampling request.
	MaxTokens    int    `json:"maxTokens,omitempty"`
	SystemPrompt string `json:"systemPrompt,omitempty"`
	// AnsweredBy routes the step: "desktop" (a person answers in mcptray,
	// through the Asker), "client" (the AI client answers) or "auto" (the
	// client when the request declared the capability, else the desktop).
	// Approvals default to and can only be "desktop"; sampling and roots can
	// only be "client"; forms and URLs default to "client".
	AnsweredBy string `json:"answeredBy,omitempty"`
	// InTask steps of a tool that runs as a task are asked while the task
	// runs (the task parks in input_required until tasks/update answers
	// them); other steps are answered before the task is created. When the
	// call does not run as a task, InTask steps are asked like the others.
	InTask bool `json:"inTask,omitempty"`
}

// Input step kinds.
const (
	StepForm     = "form"
	StepURL      = "url"
	StepSampling = "sampling"
	StepRoots    = "roots"
	// StepApproval asks a person on the desktop to allow or deny the call.
	StepApproval = "approval"
)

// StepKinds are the input step kinds a definition may use.
var StepKinds = []string{StepForm, StepURL, StepSampling, StepRoots, StepApproval}

// InputSchemaJSON returns the tool's input schema as served: the hand-written
// one verbatim, or the one generated from its parameters.
func (t Tool) InputSchemaJSON() json.RawMessage {
	if len(t.InputSchema) > 0 {
		return t.InputSchema
	}
	return generateSchema(t.Params)
}

// generateSchema builds a closed object schema from parameters.
func generateSchema(params []Param) json.RawMessage {
	props := map[string]any{}
	required := []string{}
	for _, p := range params {
		s := map[string]any{"type": p.Type}
		if p.Description != "" {
			s["description"] = p.Description
		}
		if len(p.Enum) > 0 {
			s["enum"] = p.Enum
		}
		if p.Default != nil {
			s["default"] = p.Default
		}
		if p.Type == "array" {
			items := p.Items
			if items == "" {
				items = "string"
			}
			s["items"] = map[string]any{"type": items}
		}
		if p.Header != "" {
			s["x-mcp-header"] = p.Header
		}
		if p.Minimum != nil {
			s["minimum"] = *p.Minimum
		}
		if p.Maximum != nil {
			s["maximum"] = *p.Maximum
		}
		if p.Pattern != "" {
			s["pattern"] = p.Pattern
		}
		props[p.Name] = s
		if p.Required {
			required = append(required, p.Name)
		}
	}
	schema := map[string]any{"type": "object", "additionalProperties": false}
	if len(params) > 0 {
		schema["properties"] = props
	}
	if len(required) > 0 {
		schema["required"] = required
	}
	b, _ := json.Marshal(schema) // a map of JSON values always marshals
	return b
}

// Step routing: who answers an input step.
const (
	AnsweredByDesktop = "desktop"
	AnsweredByClient  = "client"
	AnsweredByAuto    = "auto"
)

// AnsweredByValues are the routes a step may name.
var AnsweredByValues = []string{AnsweredByDesktop, AnsweredByClient, AnsweredByAuto}

// Route is the step's route, defaults filled in: approvals on the
// desktop, everything else by the client.
func (s InputStep) Route() string {
	switch {
	case s.AnsweredBy != "":
		return s.AnsweredBy
	case s.Kind == StepApproval:
		return AnsweredByDesktop
	}
	return AnsweredByClient
}
