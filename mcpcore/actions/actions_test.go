package actions

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/testutil"
)

// recorder is a Reporter that keeps what it was sent.
type recorder struct{ events []string }

func (r *recorder) Progress(_ context.Context, p, total float64, msg string) error {
	r.events = append(r.events, "progress "+msg)
	return nil
}

func (r *recorder) Log(_ context.Context, level, _ string, data any) error {
	r.events = append(r.events, "log "+level+" "+data.(string))
	return nil
}

func text(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) == 0 {
		t.Fatalf("no content: %+v", res)
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content[0] is %T", res.Content[0])
	}
	return tc.Text
}

func TestRespondRendersStepsThenContent(t *testing.T) {
	r := &catalog.Respond{
		Content:    []catalog.Content{{Type: "text", Text: "Hello, {{.args.name}}{{.args.missing}}!"}, {Type: "image", Data: "aGk=", MimeType: "image/png"}},
		Structured: json.RawMessage(`{"greeting":"hi {{.args.name}}","n":3,"list":["{{upper .args.name}}"]}`),
		Steps: []catalog.Step{
			{Progress: &catalog.ProgressStep{Progress: 1, Total: 2, Message: "half of {{.args.name}}"}},
			{DelayMs: 1, Log: &catalog.LogStep{Level: "info", Data: "done"}},
		},
	}
	if ps := validateRespond(r, nil); len(ps) > 0 {
		t.Fatalf("valid action rejected: %v", ps)
	}
	rec := &recorder{}
	res, err := runRespond(context.Background(), r, &Data{Args: map[string]any{"name": "Ada"}}, rec)
	if err != nil {
		t.Fatal(err)
	}
	if got := text(t, res); got != "Hello, Ada!" {
		t.Errorf("text = %q (a missing key renders empty)", got)
	}
	if img := res.Content[1].(*mcp.ImageContent); string(img.Data) != "hi" || img.MIMEType != "image/png" {
		t.Errorf("image = %+v", img)
	}
	want := map[string]any{"greeting": "hi Ada", "n": 3.0, "list": []any{"ADA"}}
	if got, _ := json.Marshal(res.StructuredContent); string(got) != testutil.MustJSON(t, want) {
		t.Errorf("structured = %s", got)
	}
	if strings.Join(rec.events, ";") != "progress half of Ada;log info done" {
		t.Errorf("events = %v", rec.events)
	}
}

func TestRespondStopsOnCancel(t *testing.T) {
	r := &catalog.Respond{Content: []catalog.Content{{Type: "text", Text: "x"}}, Steps: []catalog.Step{{DelayMs: 60_000, Log: &catalog.LogStep{Level: "info", Data: "late"}}}}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(20 * time.Millisecond); cancel() }()
	if _, err := runRespond(ctx, r, nil, &recorder{}); err == nil {
		t.Fatal("a cancelled call ran to the end")
	}
}

func TestValidateReportsFields(t *testing.T) {
	spec := catalog.Action{Respond: &catalog.Respond{
		Content: []catalog.Content{{Type: "video"}, {Type: "image", Data: "***", MimeType: "audio/wav"}, {Type: "resource_link"}},
		Steps:   []catalog.Step{{}, {Log: &catalog.LogStep{Level: "loud"}}},
	}}
	fields := map[string]bool{}
	for _, p := range Validate(spec, nil) {
		fields[p.Field] = true
	}
	for _, f := range []string{"respond.content[0].type", "respond.content[1].data", "respond.content[1].mimeType", "respond.content[2].uri", "respond.content[2].name", "respond.steps[0]", "respond.steps[1].log.level"} {
		if !fields[f] {
			t.Errorf("no problem reported on %s; got %v", f, fields)
		}
	}
	if ps := Validate(catalog.Action{}, nil); len(ps) != 1 {
		t.Errorf("missing action: %v", ps)
	}
	if ps := Validate(catalog.Action{Respond: &catalog.Respond{Content: []catalog.Content{{Type: "text", Text: "x"}}}, Command: &catalog.Command{Argv: []catalog.Template{"true"}}}, nil); len(ps) != 1 {
		t.Errorf("two actions: %v", ps)
	}
}

func TestSecretsRenderAndRedact(t *testing.T) {
	d := &Data{Secret: func(name string) (string, error) {
		if name == "api" {
			return "s3cr3t-value", nil
		}
		return "", errors.New("no such secret")
	}}
	got, err := Render(catalog.Template(`token={{secret "api"}}`), d)
	if err != nil || got != "token=s3cr3t-value" {
		t.Fatalf("render = %q, %v", got, err)
	}
	if r := d.Redact("echo: s3cr3t-value!"); r != "echo: [secret:api]!" {
		t.Errorf("redact = %q", r)
	}
	if _, err := Render(catalog.Template(`{{secret "missing"}}`), d); err == nil || strings.Contains(err.Error(), "s3cr3t") {
		t.Errorf("missing secret: %v", err)
	}
	if _, err := Render(catalog.Template(`{{secret "api"}}`), &Data{}); err == nil {
		t.Error("a secret rendered without a secret store")
	}
}

// TestMissingAndNullPrintNothing: a missing key or a null prints nothing,
// inside if, range and with too, while a value that holds text/template's
// own "<no value>" is printed as it is.
func TestMissingAndNullPrintNothing(t *testing.T) {
	d := &Data{Args: map[string]any{"null": nil, "said": "<no value>", "list": []any{map[string]any{}}}}
	for src, want := range map[string]string{
		"[{{.args.missing}}][{{.args.null}}]":                             "[][]",
		"{{if true}}[{{.args.missing}}]{{else}}x{{end}}":                  "[]",
		"{{range .args.list}}[{{.nope}}]{{end}}":                          "[]",
		"{{with .args.said}}{{.}}{{end}} {{$x := .args.missing}}[{{$x}}]": "<no value> []",
		"{{default \"anon\" .args.missing}}":                              "anon",
	} {
		got, err := Render(catalog.Template(src), d)
		if err != nil || got != want {
			t.Errorf("%s rendered %q, %v; want %q", src, got, err, want)
		}
	}
}
