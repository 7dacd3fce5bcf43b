package importer

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/testutil"
)

func TestParseCurlRefusesWhatAToolCannotDo(t *testing.T) {
	for cmd, want := range map[string]string{
		``:                          "no curl command given",
		`wget https://x`:            `this is not a curl command: it starts with "wget"`,
		`curl -k https://x`:         "-k/--insecure turns off the check of the server's TLS certificate",
		`curl --insecure https://x`: "-k/--insecure",
		`curl -sSk https://x`:       "-k/--insecure",
		`curl https://x | jq .`:     `sends curl's output to another program ("|")`,
		`curl https://x > out.json`: "redirects curl's input or output (>)",
		`curl https://x; rm -rf /`:  "several commands",
		`curl https://x && echo ok`: "not one curl command",
		`curl https://x/a?b=1&c=2`:  `an "&" outside quotes`,
		`curl -H "Authorization: Bearer $TOKEN" https://x`: "the shell variable $TOKEN",
		`curl -H "X-Date: $(date)" https://x`:              "runs another command inside it",
		`TOKEN=1 curl https://x`:                           "sets the shell variable TOKEN",
		`curl --frobnicate https://x`:                      "the curl option --frobnicate is not one mcptray understands",
		`curl -Z https://x`:                                "the curl option -Z is not one mcptray understands",
		`curl -F file=@a.png https://x`:                    "multipart form",
		`curl -d @body.json https://x`:                     "read from the file body.json",
		`curl -X`:                                          "the option -X needs a value",
		`curl -X POST`:                                     "has no URL",
		`curl https://x https://y`:                         "two URLs",
		`curl ftp://x/file`:                                "not http or https",
		`curl -X BREW https://x`:                           "the method BREW is not one an http tool sends",
		"curl https://x ^\n  -H \"A: b\"":                  "Windows' cmd",
		`curl -H 'NoColon' https://x`:                      `has no ":"`,
		`curl 'https://x?token=a&token=b'`:                 `"token" is given twice and holds a credential`,
	} {
		if _, err := ParseCurl(cmd, "t"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", cmd, err, want)
		}
	}
}

func TestParseCurlReadsWhatBrowsersAndDocsCopy(t *testing.T) {
	// A browser's "Copy as cURL (bash)": continuations, $'…', a cluster
	// of short options, an attached value, --compressed.
	ct, err := ParseCurl("curl 'https://api.example.com/v1/users/42/notes?lang=en' \\\n"+
		"  -XPOST -sSL --compressed \\\n"+
		"  -H 'X-Api-Key: k-123' -H $'Content-Type: application/json' \\\n"+
		`  --data-raw '{"title": "hi {{x}}", "n": 3, "password": "pw"}'`, "notes")
	if err != nil {
		t.Fatal(err)
	}
	if ct.Method != "POST" || ct.URL != "https://api.example.com/v1/users/42/notes" {
		t.Errorf("%s %s", ct.Method, ct.URL)
	}
	var ids, secrets []string
	for _, v := range ct.Values {
		ids = append(ids, v.ID)
		if v.Secret {
			secrets = append(secrets, v.ID+"="+v.SecretName)
		}
	}
	if want := []string{"path.1", "path.2", "path.3", "path.4", "query.lang", "header.X-Api-Key", "body.title", "body.n", "body.password"}; !slices.Equal(ids, want) {
		t.Errorf("values %v, want %v", ids, want)
	}
	if want := []string{"header.X-Api-Key=notes_x_api_key", "body.password=notes_password"}; !slices.Equal(secrets, want) {
		t.Errorf("secrets %v, want %v", secrets, want)
	}
	if p := ct.ProposedParam(ct.Value("path.3")); p != "user" {
		t.Errorf("the path segment after users is proposed as %q", p)
	}
	if len(ct.Notes) != 1 || !strings.HasPrefix(ct.Notes[0], "-L: the tool follows redirects anyway") {
		t.Errorf("notes %q", ct.Notes)
	}
	for cmd, method := range map[string]string{
		`curl -d 'a=1' https://x`:           "POST",
		`curl -G -d 'a=1' https://x`:        "GET",
		`curl -I https://x`:                 "HEAD",
		`curl --request delete https://x/1`: "DELETE",
		`curl --json '{}' https://x`:        "POST",
	} {
		if ct, err := ParseCurl(cmd, "t"); err != nil || ct.Method != method {
			t.Errorf("%s: %v, %v", cmd, ct, err)
		}
	}
}

// TestCurlToolCallsTheAPIWithSecrets makes tools of curl commands and
// calls them through mcptray's server against a local API: credentials
// become secrets (never in the tool), chosen values become parameters,
// the rest stays as the command had it.
func TestCurlToolCallsTheAPIWithSecrets(t *testing.T) {
	a := testutil.NewAPI(t)
	ct, err := ParseCurl(`curl -u 'ann:p@ss:word' -H "Authorization-Extra: x" -H 'Accept-Language: fr' `+
		`--json '{"title": "Hello", "count": 2, "client_secret": "cs-SECRET", "tags": ["a"]}' '`+a.URL+`/v1/boards/7/cards?api_key=AK-1&lang=fr'`, "add_card")
	if err != nil {
		t.Fatal(err)
	}
	for id, param := range map[string]string{"path.3": "board", "body.title": "title", "query.lang": "lang"} {
		ct.Value(id).Param = param
	}
	ct.Value("body.count").Param = "count"
	tool, secrets, err := ct.Tool()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(tool)
	for _, secret := range []string{"cs-SECRET", "AK-1", "p@ss", base64.StdEncoding.EncodeToString([]byte("ann:p@ss:word"))} {
		if strings.Contains(string(b), secret) {
			t.Errorf("the tool holds the secret %q: %s", secret, b)
		}
	}
	names := map[string]string{}
	for _, s := range secrets {
		names[s.Name] = s.Value
	}
	want := map[string]string{"add_card_login": base64.StdEncoding.EncodeToString([]byte("ann:p@ss:word")), "add_card_api_key": "AK-1",
		"add_card_client_secret": "cs-SECRET", "add_card_authorization_extra": "x"}
	if len(names) != len(want) {
		t.Errorf("secrets %v, want %v", names, want)
	}
	for k, v := range want {
		if names[k] != v {
			t.Errorf("secret %s = %q, want %q", k, names[k], v)
		}
	}
	s := serve(t, []catalog.Tool{tool}, names)
	call(t, s, "add_card", map[string]any{"board": 1234567, "title": "Q3 plan", "count": 5, "lang": "de"})
	r := a.Last(t)
	if r.Method != "POST" || r.Path != "/v1/boards/1234567/cards" {
		t.Errorf("sent %s %s", r.Method, r.Path)
	}
	if q := queryOf(t, r.RawQuery); q.Get("api_key") != "AK-1" || q.Get("lang") != "de" {
		t.Errorf("sent the query %v", q)
	}
	if user, pw, ok := (&http.Request{Header: r.Header}).BasicAuth(); !ok || user != "ann" || pw != "p@ss:word" {
		t.Errorf("basic auth %q", r.Header.Get("Authorization"))
	}
	if r.Header.Get("Accept-Language") != "fr" || r.Header.Get("Authorization-Extra") != "x" || r.Header.Get("Content-Type") != "application/json" {
		t.Errorf("headers %v", r.Header)
	}
	jsonEqual(t, "the body", r.Body, `{"title": "Q3 plan", "count": 5, "client_secret": "cs-SECRET", "tags": ["a"]}`)

	// A form body: a credential field is a secret, urlencoded when sent.
	ct, err = ParseCurl(`curl -d 'q=hello world' --data-urlencode 'access_token=T&k' `+a.URL+`/search`, "search")
	if err != nil {
		t.Fatal(err)
	}
	ct.Value("form.q").Param = "q"
	tool, secrets, err = ct.Tool()
	if err != nil || len(secrets) != 1 || secrets[0] != (SecretValue{"search_access_token", "T&k"}) {
		t.Fatalf("form: %v, %v", secrets, err)
	}
	s = serve(t, []catalog.Tool{tool}, map[string]string{"search_access_token": "T&k"})
	call(t, s, "search", map[string]any{"q": "a+b c"})
	if r := a.Last(t); r.Body != "q=a%2Bb+c&access_token=T%26k" || r.Header.Get("Content-Type") != "application/x-www-form-urlencoded" {
		t.Errorf("form sent %q (%s)", r.Body, r.Header.Get("Content-Type"))
	}

	// A bad choice is refused with what is wrong.
	ct.Value("form.q").Param = "bad name"
	if _, _, err := ct.Tool(); err == nil || !strings.Contains(err.Error(), `name "bad name"`) {
		t.Errorf("a bad parameter name: %v", err)
	}
}
