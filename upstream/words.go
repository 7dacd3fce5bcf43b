package upstream

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// installHints says what to install for the programs MCP servers are most
// often started with; a missing one is the most common failure in every
// MCP client's issue tracker.
var installHints = map[string]string{
	"npx":     "Node.js",
	"node":    "Node.js",
	"npm":     "Node.js",
	"uvx":     "uv (docs.astral.sh/uv)",
	"uv":      "uv (docs.astral.sh/uv)",
	"python":  "Python",
	"python3": "Python",
	"pipx":    "pipx",
	"docker":  "Docker",
	"deno":    "Deno",
	"bun":     "Bun",
}

// notFound is the words for a program that could not be found. A desktop
// app started from a menu often has a shorter PATH than a terminal (macOS
// gives it only the system folders), hence the full path.
func notFound(program string) error {
	base := strings.TrimSuffix(strings.ToLower(filepath.Base(program)), ".exe")
	if what, ok := installHints[base]; ok {
		return fmt.Errorf("%q was not found: install %s, or give the full path to %s", program, what, program)
	}
	return fmt.Errorf("%q was not found: install it, or give its full path", program)
}

// tailLines is how many standard error lines failure words quote.
const tailLines = 5

// withStderr adds the program's last standard error lines to msg.
func withStderr(msg string, lines []string) string {
	if len(lines) == 0 {
		return msg + "; it wrote nothing on standard error"
	}
	return msg + "; the last it wrote on standard error:\n" + strings.Join(lines, "\n")
}

// httpWords says in words why a remote server could not be reached or
// refused a request: bad is the last status >= 400 the server answered
// (0: none), err what the client returned.
func httpWords(url string, bad int, err error) error {
	switch {
	case bad == http.StatusUnauthorized || bad == http.StatusForbidden:
		return fmt.Errorf("the server refused the sign-in (HTTP %d): check the headers or token", bad)
	case bad == http.StatusNotFound:
		return fmt.Errorf("nothing answers MCP at %s (HTTP 404): check the web address", url)
	case bad == http.StatusMethodNotAllowed:
		return fmt.Errorf("%s does not take MCP requests (HTTP 405): check the web address, or try the other transport (streamable or sse)", url)
	case bad != 0:
		return fmt.Errorf("the server answered HTTP %d %s", bad, http.StatusText(bad))
	}
	var dnsErr *net.DNSError
	var unknownCA x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var invalid x509.CertificateInvalidError
	var recordErr tls.RecordHeaderError
	switch {
	case errors.As(err, &dnsErr) && dnsErr.IsNotFound:
		return fmt.Errorf("the name %q was not found (DNS): check the web address", dnsErr.Name)
	case errors.As(err, &dnsErr):
		return fmt.Errorf("could not look up %q (DNS): %v; is this computer online?", dnsErr.Name, dnsErr.Err)
	case errors.Is(err, syscall.ECONNREFUSED), err != nil && strings.Contains(err.Error(), "actively refused"): // the second: Windows' words
		return fmt.Errorf("nothing is listening at %s (connection refused): is the server running?", url)
	case errors.As(err, &unknownCA):
		return fmt.Errorf("the secure connection to %s failed: its certificate is not signed by an authority this computer trusts", url)
	case errors.As(err, &hostErr):
		return fmt.Errorf("the secure connection to %s failed: its certificate is for another name (%v)", url, hostErr.Certificate.DNSNames)
	case errors.As(err, &invalid):
		return fmt.Errorf("the secure connection to %s failed: its certificate is not valid (%v)", url, invalid)
	case errors.As(err, &recordErr):
		return fmt.Errorf("the secure connection to %s failed: the server does not speak HTTPS there (try http://)", url)
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded):
		return fmt.Errorf("%s did not answer in time", url)
	}
	return err
}
