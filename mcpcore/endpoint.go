package mcpcore

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// Endpoint is what the running server publishes in its endpoint file so the
// stdio shim and a second mcptray can find it.
type Endpoint struct {
	URL     string `json:"url"`
	PID     int    `json:"pid"`
	Version string `json:"version"`
	DB      string `json:"db,omitempty"`
	// App says the desktop app serves (not a headless mcptray serve);
	// Control is the secret a second launch of the app sends to ask it to
	// show its window (the file is readable by the user alone).
	App     bool   `json:"app,omitempty"`
	Control string `json:"control,omitempty"`
}

// ConfigDir is mcptray's folder in the user's config dir.
func ConfigDir() (string, error) {
	d, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("finding the config dir: %w", err)
	}
	return filepath.Join(d, "mcptray"), nil
}

// DefaultEndpointFile is where the running server writes its Endpoint.
func DefaultEndpointFile() (string, error) {
	d, err := ConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "endpoint.json"), nil
}

// WriteEndpoint writes the endpoint file atomically, readable only by the user.
func WriteEndpoint(path string, ep Endpoint) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("writing endpoint file: %w", err)
	}
	b, err := json.MarshalIndent(ep, "", "  ")
	if err != nil {
		return fmt.Errorf("writing endpoint file: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".endpoint-*")
	if err != nil {
		return fmt.Errorf("writing endpoint file: %w", err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(append(b, '\n'))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path) // CreateTemp made it 0600
	}
	if err != nil {
		return fmt.Errorf("writing endpoint file: %w", err)
	}
	return nil
}

// ReadEndpoint reads an endpoint file.
func ReadEndpoint(path string) (Endpoint, error) {
	var ep Endpoint
	b, err := os.ReadFile(path)
	if err != nil {
		return ep, fmt.Errorf("reading endpoint file: %w", err)
	}
	if err := json.Unmarshal(b, &ep); err != nil {
		return ep, fmt.Errorf("reading endpoint file %s: %w", path, err)
	}
	return ep, nil
}
