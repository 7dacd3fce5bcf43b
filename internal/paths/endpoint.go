package paths

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mcptray/mcptray/internal/atomicfile"
)

// Endpoint is what the running server publishes in its endpoint file so the
// stdio shim and a second launch of mcptray can find it.
type Endpoint struct {
	URL     string `json:"url"`
	PID     int    `json:"pid"`
	Version string `json:"version"`
	DB      string `json:"db,omitempty"`
	// App says the desktop app serves (not a headless mcptray serve);
	// Control is the secret a second launch sends to the control endpoint
	// to ask it to show its window or to make way. The file is readable by
	// the user alone.
	App     bool   `json:"app,omitempty"`
	Control string `json:"control,omitempty"`
}

// WriteEndpoint replaces the endpoint file at path atomically, readable
// only by the user, creating its folder (0700) when needed.
func WriteEndpoint(path string, ep Endpoint) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("writing the endpoint file: %w", err)
	}
	b, err := json.MarshalIndent(ep, "", "  ")
	if err != nil {
		return fmt.Errorf("writing the endpoint file: %w", err)
	}
	return atomicfile.WriteFile(path, append(b, '\n'), 0o600)
}

// ReadEndpoint reads the endpoint file at path.
func ReadEndpoint(path string) (Endpoint, error) {
	var ep Endpoint
	b, err := os.ReadFile(path)
	if err != nil {
		return ep, fmt.Errorf("reading the endpoint file: %w", err)
	}
	if err := json.Unmarshal(b, &ep); err != nil {
		return ep, fmt.Errorf("reading the endpoint file %s: %w", path, err)
	}
	if ep.URL == "" {
		return ep, fmt.Errorf("the endpoint file %s names no url", path)
	}
	return ep, nil
}
