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

// Layout is a config folder's files. The user's is Default(); tests and
// benchmarks give a server a folder of its own.
type Layout struct{ Dir string }

// Default is the layout of the user's config folder, Dir.
func Default() (Layout, error) {
	d, err := Dir()
	return Layout{Dir: d}, err
}

// DB is the database every command opens without --db.
func (l Layout) DB() string { return filepath.Join(l.Dir, dbName) }

// EndpointFile is where the running server publishes its Endpoint for the
// stdio shim and for a second launch of mcptray.
func (l Layout) EndpointFile() string { return filepath.Join(l.Dir, endpointName) }

// ShimTokenFile is where the stdio shim (mcptray-stdio) reads its client
// token, which `mcptray shim-token` and the server keep valid.
func (l Layout) ShimTokenFile() string { return filepath.Join(l.Dir, shimTokenName) }

// DefaultDB is the user's database (Default().DB()).
func DefaultDB() (string, error) { return fromDefault(Layout.DB) }

// EndpointFile is the user's endpoint file (Default().EndpointFile()).
func EndpointFile() (string, error) { return fromDefault(Layout.EndpointFile) }

// ShimTokenFile is the user's shim token file (Default().ShimTokenFile()).
func ShimTokenFile() (string, error) { return fromDefault(Layout.ShimTokenFile) }

func fromDefault(file func(Layout) string) (string, error) {
	l, err := Default()
	if err != nil {
		return "", err
	}
	return file(l), nil
}

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

// LockFile is the file locked to change the file at path (the shim's
// token, say) one process at a time.
func LockFile(path string) string { return path + ".lock" }

// InstanceLock is the file a server locks, for as long as it runs, to own
// the database db: one server per database.
func InstanceLock(db string) string { return LockFile(db) }
