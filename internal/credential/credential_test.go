package credential

import "testing"

func TestName(t *testing.T) {
	for name, want := range map[string]bool{
		"GITHUB_TOKEN": true, "X-Api-Key": true, "DB_PASSWORD": true, "access_token": true, "OPENAI_APIKEY": true,
		"sig": true, "BRAVE_API_KEY": true, "PGPASSWORD": true, "CLIENTSECRET": true,
		"Idempotency-Key": false, "key_id": false, "LOG_LEVEL": false, "HOME": false, "Content-Type": false,
	} {
		if got := Name(name); got != want {
			t.Errorf("Name(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestHeader(t *testing.T) {
	for name, want := range map[string]bool{"Authorization": true, "cookie": true, "X-Auth-Token": true, "Accept": false} {
		if got := Header(name); got != want {
			t.Errorf("Header(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestSplitScheme(t *testing.T) {
	if s, c, ok := SplitScheme("Bearer abc123"); !ok || s != "Bearer " || c != "abc123" {
		t.Errorf("SplitScheme(Bearer abc123) = %q, %q, %v", s, c, ok)
	}
	if s, c, ok := SplitScheme("abc123"); ok || s != "" || c != "abc123" {
		t.Errorf("SplitScheme(abc123) = %q, %q, %v", s, c, ok)
	}
}

func TestValue(t *testing.T) {
	for v, want := range map[string]bool{
		"ghp_0123456789abcdefghij0123456789abcd":           true,
		"sk-proj-abcdefghijklmnopqrstuvwxyz":               true,
		"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abcdefghijk": true,
		"a8f3k2j4h5g6f7d8s9a0q1w2e3r4t5y6u7":               true,
		"ghp_short":                                        false,
		"/usr/local/lib/node_modules/server":               false,
		"https://example.com/mcp":                          false,
		"production":                                       false,
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa":               false,
		"debug info with spaces and 1234567890 abcdefghij": false,
	} {
		if got := Value(v); got != want {
			t.Errorf("Value(%q) = %v, want %v", v, got, want)
		}
	}
}
