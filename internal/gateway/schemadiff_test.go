package gateway

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestParamChangesInWords: a changed input schema is said parameter by
// parameter — added, removed, its type, required or not, its description,
// its other rules, the schema's other rules — and one that is not an
// object of parameters is shown whole.
func TestParamChangesInWords(t *testing.T) {
	was := json.RawMessage(`{"type":"object","properties":{"text":{"type":"string","description":"what to say"},"n":{"type":"integer"},
		"k":{"type":"string","maxLength":3}},"required":["text","k"],"additionalProperties":false}`)
	now := json.RawMessage(`{"type":"object","properties":{"text":{"type":["number","null"],"description":"what to count"},"m":{"type":"boolean"},
		"k":{"type":"string","maxLength":30}},"required":["m","k"]}`)
	want := []string{
		`  parameter k's other rules were: "{\"maxLength\":3}"`,
		`  parameter k's other rules are now: "{\"maxLength\":30}"`,
		"  new parameter m: yes or no, required",
		"  parameter n: removed",
		"  parameter text: now a number or nothing (was text)",
		"  parameter text: no longer required",
		`  parameter text's description was: "what to say"`,
		`  parameter text's description now: "what to count"`,
		`  the other rules of its parameters were: "{\"additionalProperties\":false}"`,
		`  the other rules of its parameters are now: (none)`,
	}
	if got := paramChanges(was, now); !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	whole := paramChanges(json.RawMessage(`{"type":"object"}`), json.RawMessage(`{"type":"array","items":{"type":"string"}}`))
	if len(whole) != 2 || !strings.HasPrefix(whole[0], "  input schema was: ") || !strings.Contains(whole[1], `items`) {
		t.Errorf("a schema that is not of parameters: %q", whole)
	}
	if got := paramChanges(json.RawMessage(`{"type":"object"}`), json.RawMessage(`{"type":"object","properties":{"q":{}}}`)); !slices.Equal(got, []string{"  new parameter q: any value, optional"}) {
		t.Errorf("a parameter of any value: %q", got)
	}
}
