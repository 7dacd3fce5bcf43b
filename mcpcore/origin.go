package mcpcore

import (
	"fmt"
	"net/url"
	"strings"
)

// normalizeOrigin turns a configured origin into the exact form browsers
// send (scheme://host[:port], lower-case, no path), or reports why it is not
// one.
func normalizeOrigin(o string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(o))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.User != nil {
		return "", fmt.Errorf("%q is not an origin like http://localhost:6274", o)
	}
	return strings.ToLower(u.Scheme + "://" + u.Host), nil
}
