package actions

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/catalog"
)

// TestSecretsAreRedactedInTheFormsMcptrayEncodesThem calls APIs that echo
// the request back, each with the secret in a place mcptray encodes it,
// and checks that the secret reaches the result in none of its forms.
func TestSecretsAreRedactedInTheFormsMcptrayEncodesThem(t *testing.T) {
	const odd = "AbC/dE+fG==&<x> y\"é"
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		switch {
		case strings.HasPrefix(r.URL.Path, "/line"):
			fmt.Fprintf(w, "%s %s", r.Method, r.RequestURI) // as sent: upper-case hex
		case r.URL.Path == "/lower":
			fmt.Fprint(w, lowerHex(r.RequestURI)) // as some servers print it
		case r.URL.Path == "/body":
			w.Write(body) // the JSON body as mcptray wrote it
		case r.URL.Path == "/auth":
			user, pass, _ := r.BasicAuth()
			fmt.Fprintf(w, "user %s, signed in as %s:%s with %s", user, user, pass, r.Header.Get("Authorization"))
		case r.URL.Path == "/b64":
			fmt.Fprint(w, base64.StdEncoding.EncodeToString(body))
		}
	}))
	defer echo.Close()
	basic := base64.StdEncoding.EncodeToString([]byte("me:" + odd))
	for _, tc := range []struct {
		name string
		h    catalog.HTTP
	}{
		{"query map", catalog.HTTP{URL: catalog.Template(echo.URL + "/line"), Query: map[string]catalog.Template{"api_key": `{{secret "k"}}`}}},
		{"query in the URL", catalog.HTTP{URL: catalog.Template(echo.URL + `/line?api_key={{urlquery (secret "k")}}`)}},
		{"path", catalog.HTTP{URL: catalog.Template(echo.URL + `/line/{{pathescape (secret "k")}}`)}},
		{"lower-case hex", catalog.HTTP{URL: catalog.Template(echo.URL + "/lower"), Query: map[string]catalog.Template{"api_key": `{{secret "k"}}`}}},
		{"JSON body", catalog.HTTP{Method: "POST", URL: catalog.Template(echo.URL + "/body"), Body: `{"key": {{json (secret "k")}}}`}},
		{"form body", catalog.HTTP{Method: "POST", URL: catalog.Template(echo.URL + "/body"), Body: `key={{urlquery (secret "k")}}`}},
		{"base64 of a body", catalog.HTTP{Method: "POST", URL: catalog.Template(echo.URL + "/b64"), Body: `{{secret "k"}}`}},
		{"basic auth", catalog.HTTP{URL: catalog.Template(echo.URL + "/auth"), Headers: map[string]catalog.Template{"Authorization": `Basic {{secret "basic"}}`}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := &Data{Secret: secrets(map[string]string{"k": odd, "basic": basic})}
			res, err := runHTTP(context.Background(), &tc.h, data, nil)
			if err != nil || res.IsError {
				t.Fatalf("%+v, %v", res, err)
			}
			got := text(t, res)
			for _, form := range leakForms(odd, basic) {
				if strings.Contains(got, form) {
					t.Errorf("the secret reached the result as %q: %s", form, got)
				}
			}
			if !strings.Contains(got, "[secret:") {
				t.Errorf("nothing was redacted: %s", got)
			}
		})
	}
}

// leakForms are the ways the secrets of the test can be written.
func leakForms(odd, basic string) []string {
	q, p := url.QueryEscape(odd), url.PathEscape(odd)
	return []string{odd, q, p, lowerHex(q), lowerHex(p), `AbC\/dE`, `\u0026\u003cx\u003e`, `\u0026\u003Cx\u003E`,
		base64.StdEncoding.EncodeToString([]byte(odd)), basic, "me:" + odd}
}

// lowerHex writes the %XX escapes of s in lower case.
func lowerHex(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			b.WriteString("%" + strings.ToLower(s[i+1:i+3]))
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// TestAnEncodedSecretStraddlingTheCutNeverLeaks: the cut of a command's
// output sees each encoded form of a secret whole, as it sees the value.
func TestAnEncodedSecretStraddlingTheCutNeverLeaks(t *testing.T) {
	requireUnix(t)
	const secret = "k/e+y=v/a+l=u/e+s"
	encoded := url.QueryEscape(secret) // 29 bytes, longer than the value
	const limit = 40
	pad := strings.Repeat("x", limit-len(encoded)/2)
	c := &catalog.Command{
		Argv:           []catalog.Template{"sh", "-c", `printf '%s%s tail' "$1" "$T"`, "sh", catalog.Template(pad)},
		Env:            map[string]catalog.Template{"T": `{{urlquery (secret "api")}}`},
		MaxOutputBytes: limit,
	}
	out, err := CommandOutput(context.Background(), c, &Data{Secret: secrets(map[string]string{"api": secret})})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(out.Stdout); got != pad+"[secret:api]" || !out.StdoutTruncated {
		t.Errorf("kept %q (cut %v), want the encoded secret redacted whole at the cut", got, out.StdoutTruncated)
	}
}
