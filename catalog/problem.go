package catalog

import (
	"fmt"
	"strings"
)

// Problem is one thing wrong with a definition: which entry, which field,
// and what is wrong, worded for a person.
type Problem struct {
	// Entry names the definition, e.g. `tool "greet"` or `resource "test://x"`.
	Entry string `json:"entry"`
	// Field is a path inside the entry, e.g. "params[0].name".
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
}

// String is the problem as one line: entry, field and message.
func (p Problem) String() string {
	if p.Field == "" {
		return fmt.Sprintf("%s: %s", p.Entry, p.Message)
	}
	return fmt.Sprintf("%s: %s: %s", p.Entry, p.Field, p.Message)
}

// ValidationError lists every problem found; nothing was stored or served.
type ValidationError struct {
	Problems []Problem
}

// Error lists the problems, one per line.
func (e *ValidationError) Error() string {
	lines := make([]string, len(e.Problems))
	what := "settings"
	for i, p := range e.Problems {
		lines[i] = "  - " + p.String()
		if p.Entry != "settings" {
			what = "catalog"
		}
	}
	count := "1 problem"
	if len(e.Problems) != 1 {
		count = fmt.Sprintf("%d problems", len(e.Problems))
	}
	return fmt.Sprintf("invalid %s (%s):\n%s", what, count, strings.Join(lines, "\n"))
}

// AsError returns nil for no problems, else a *ValidationError.
func AsError(ps []Problem) error {
	if len(ps) == 0 {
		return nil
	}
	return &ValidationError{Problems: ps}
}
