package catalog_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/catalog"
)

// TestSettingsProblemsAreOnTheirFields: every rule names the setting it is
// about, so the app shows it beside that field; Validate words them all.
func TestSettingsProblemsAreOnTheirFields(t *testing.T) {
	if ps := catalog.DefaultSettings().Problems(); len(ps) != 0 {
		t.Fatalf("the defaults have problems: %v", ps)
	}
	set := catalog.DefaultSettings()
	set.ServerName, set.PageSize, set.Port, set.AskPolicy = "", 0, 70000, "maybe"
	set.AllowedOrigins = []string{"ftp://nope"}
	var fields []string
	for _, p := range set.Problems() {
		fields = append(fields, p.Field)
	}
	if want := []string{"serverName", "pageSize", "port", "askPolicy", "allowedOrigins"}; !slices.Equal(fields, want) {
		t.Fatalf("problems on %v, want %v", fields, want)
	}
	err := set.Validate()
	var ve *catalog.ValidationError
	if !errors.As(err, &ve) || len(ve.Problems) != 5 || !strings.HasPrefix(err.Error(), "invalid settings (5 problems)") ||
		!strings.Contains(err.Error(), `allowedOrigins: "ftp://nope" is not an origin`) {
		t.Fatalf("Validate: %v", err)
	}
}

func TestSettingsValidate(t *testing.T) {
	s := catalog.DefaultSettings()
	if err := s.Validate(); err != nil {
		t.Fatalf("defaults invalid: %v", err)
	}
	s.AllowedOrigins = []string{"http://localhost:6274", "not an origin", "http://x.example/path"}
	s.CacheScope = "shared"
	err := s.Validate()
	if err == nil || !strings.Contains(err.Error(), "not an origin") || !strings.Contains(err.Error(), "/path") || !strings.Contains(err.Error(), "cacheScope") {
		t.Errorf("want every problem named, got %v", err)
	}
}
