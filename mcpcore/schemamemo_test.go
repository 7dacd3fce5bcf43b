package mcpcore

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/catalog"
)

// TestSchemaMemoChecksEachShapeOnce: schemas that differ only in their
// descriptions and titles, their keys' order and their spaces are checked
// once; any other difference (a number's text, a default that holds a
// "description", a description that is not text, an extension) is another
// shape, and a schema with a key twice or spelled with an escape is
// checked on its own.
func TestSchemaMemoChecksEachShapeOnce(t *testing.T) {
	base := `{"type":"object","title":"A","description":"one","properties":{"description":{"type":"string","description":"the first"},"n":{"type":"integer","maximum":9007199254740993}}}`
	same := []string{
		`{"type":"object","title":"B","description":"two","properties":{"description":{"type":"string","description":"the second"},"n":{"type":"integer","maximum":9007199254740993}}}`,
		`{"properties":{"n":{"maximum":9007199254740993,"type":"integer"},"description":{"type":"string"}},"type":"object"}`,
		"{ \"type\" : \"object\",\n\t\"properties\": {\"description\": {\"type\": \"string\"}, \"n\": {\"type\": \"integer\", \"maximum\": 9007199254740993}}\n}",
	}
	other := []string{
		`{"type":"object","properties":{"description":{"type":"string"},"n":{"type":"integer","maximum":9007199254740992}}}`,
		`{"type":"object","properties":{"description":{"type":"string","default":{"description":"x"}},"n":{"type":"integer","maximum":9007199254740993}}}`,
		`{"type":"object","description":5,"properties":{"description":{"type":"string"},"n":{"type":"integer","maximum":9007199254740993}}}`,
		`{"type":"object","x-note":{"description":"kept"},"properties":{"description":{"type":"string"},"n":{"type":"integer","maximum":9007199254740993}}}`,
		// A key twice (the last counts) or spelled with an escape.
		`{"type":"object","title":5,"title":"A","properties":{"description":{"type":"string"},"n":{"type":"integer","maximum":9007199254740993}}}`,
		`{"type":"object","properties":{"descr\u0069ption":{"type":"string"},"n":{"type":"integer","maximum":9007199254740993}}}`,
	}
	m := newSchemaMemo()
	checked := 0
	count := func(raw json.RawMessage) []string { checked++; return checkInputSchema(raw) }
	for _, s := range append([]string{base}, same...) {
		m.check("input", json.RawMessage(s), count)
	}
	if checked != 1 {
		t.Errorf("%d checks of one shape, want 1", checked)
	}
	for i, s := range other {
		m.check("input", json.RawMessage(s), count)
		if checked != i+2 {
			t.Fatalf("schema %d (%s) was taken for a shape checked before", i, s)
		}
	}
}

// TestValidateCatalogReportsEveryToolOfAShape: a problem of a schema's
// shape is reported for every tool that has the shape, and a problem only
// one of them has (a description that is not text) for that one.
func TestValidateCatalogReportsEveryToolOfAShape(t *testing.T) {
	tool := func(name, schema string) catalog.Tool {
		return catalog.Tool{Name: name, Description: "d", InputSchema: json.RawMessage(schema),
			Action: catalog.Action{Command: &catalog.Command{Argv: []catalog.Template{"true"}}}}
	}
	c := &catalog.Catalog{Tools: []catalog.Tool{
		tool("a", `{"type":"object","properties":{"x":{"type":"strin","description":"one"}}}`),
		tool("b", `{"type":"object","properties":{"x":{"type":"strin","description":"two"}}}`),
		tool("c", `{"type":"object","properties":{"x":{"type":"string","description":"three"}}}`),
		tool("d", `{"type":"object","properties":{"x":{"type":"string","description":4}}}`),
	}}
	// Enough tools to be checked on every core, in their order.
	for i := range 2 * parallelFrom {
		c.Tools = append(c.Tools, tool(fmt.Sprintf("e%d", i), `{"type":"object","properties":{"x":{"type":"strin","description":"more"}}}`))
	}
	err := ValidateCatalog(c)
	var ve *catalog.ValidationError
	if !errors.As(err, &ve) || len(ve.Problems) != 3+2*parallelFrom || ve.Problems[len(ve.Problems)-1].Entry != fmt.Sprintf("tool %q", fmt.Sprintf("e%d", 2*parallelFrom-1)) {
		t.Errorf("the problems, not one per tool in the tools' order: %v", err)
	}
	for _, name := range []string{`tool "a"`, `tool "b"`, `tool "d"`} {
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("no problem reported for %s: %v", name, err)
		}
	}
	if err != nil && strings.Contains(err.Error(), `tool "c"`) {
		t.Errorf("a problem reported for tool c: %v", err)
	}
}

// TestValidateCatalogReportsEveryToolOfATemplate: a template many tools
// share (checked once) is a problem of each of them, and a tool with
// another text is judged on its own.
func TestValidateCatalogReportsEveryToolOfATemplate(t *testing.T) {
	tool := func(name, body string) catalog.Tool {
		return catalog.Tool{Name: name, Description: "d", Action: catalog.Action{HTTP: &catalog.HTTP{
			Method: "POST", URL: "https://api.example.com/{{pathescape .args.id}}", Body: catalog.Template(body)}}}
	}
	var c catalog.Catalog
	for i := range 2 * parallelFrom {
		c.Tools = append(c.Tools, tool(fmt.Sprintf("bad%d", i), `{"n": {{if .args.n}}{{json .args.n}}}`))
	}
	c.Tools = append(c.Tools, tool("good", `{"n": {{json .args.n}}}`))
	err := ValidateCatalog(&c)
	var ve *catalog.ValidationError
	if !errors.As(err, &ve) || len(ve.Problems) != 2*parallelFrom {
		t.Fatalf("want one problem per tool with the unclosed {{if}}: %v", err)
	}
	for i, p := range ve.Problems {
		if p.Entry != fmt.Sprintf("tool %q", fmt.Sprintf("bad%d", i)) || p.Field != "action.http.body" || !strings.Contains(p.Message, "unexpected EOF") {
			t.Errorf("problem %d: %+v", i, p)
		}
	}
}
