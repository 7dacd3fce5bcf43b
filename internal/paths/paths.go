// Package paths is the layout of mcptray's config folder: where the default
// database, the endpoint file, the stdio shim's token, a database's
// fallback secrets file and its instance lock live. It is the one place
// that joins these names into paths, and it needs nothing but the standard
// library, so the stdio shim (pure Go, no cgo) shares it with mcptray.
package paths

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// The names inside the config folder.
const (
	dbName        = "mcptray.db"
	endpointName  = "endpoint.json"
	shimTokenName = "shim-token"
)

// Dir is mcptray's folder in the user's config dir: ~/.config/mcptray on
// Linux, ~/Library/Application Support/mcptray on macOS,
// %AppData%\mcptray on Windows. Some AI clients start servers with a
// trimmed environment (Codex keeps an allow-list, dropping
// XDG_CONFIG_HOME and sometimes HOME's siblings), so when the usual
// variables are missing it falls back to the home folder's usual place.
func Dir() (string, error) {
	d, err := configDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "mcptray"), nil
}

func configDir() (string, error) {
	if d, err := os.UserConfigDir(); err == nil {
		return d, nil
	}
	switch runtime.GOOS {
	case "windows":
		if p := os.Getenv("USERPROFILE"); p != "" {
			return filepath.Join(p, "AppData", "Roaming"), nil
		}
	case "darwin":
		if h, err := os.UserHomeDir(); err == nil {
			return filepath.Join(h, "Library", "Application Support"), nil
		}
	default:
		if h, err := os.UserHomeDir(); err == nil {
			return filepath.Join(h, ".config"), nil
		}
	}
	return "", errors.New("finding the config dir: neither a config dir nor a home dir is set (set HOME)")
}

// inDir joins name to Dir.
func inDir(name string) (string, error) {
	d, err := Dir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, name), nil
}

// DefaultDB is the user's database, which every command opens without --db.
func DefaultDB() (string, error) { return inDir(dbName) }

// EndpointFile is where the running server publishes its Endpoint for the
// stdio shim and for a second launch of mcptray.
func EndpointFile() (string, error) { return inDir(endpointName) }

// ShimTokenFile is where the stdio shim (mcptray-stdio) reads its client
// token, which `mcptray shim-token` and the server keep valid.
func ShimTokenFile() (string, error) { return inDir(shimTokenName) }

// IsDefaultDB says whether db (an absolute path) is the user's default
// database.
func IsDefaultDB(db string) bool {
	def, err := DefaultDB()
	return err == nil && filepath.Clean(db) == def
}

// SecretsFile is the file that keeps a database's secret values when no
// keyring is reachable: next to the database and named after it
// (mcptray.db → mcptray.secrets.json).
func SecretsFile(db string) string {
	base := filepath.Base(db)
	return filepath.Join(filepath.Dir(db), strings.TrimSuffix(base, filepath.Ext(base))+".secrets.json")
}

// InstanceLock is the file a server locks, for as long as it runs, to own
// the database db: one server per database.
func InstanceLock(db string) string { return db + ".lock" }
