package deptest

import (
	"fmt"
	"slices"
	"strings"
)

// module is mcptray's module path.
const module = "github.com/mcptray/mcptray"

// Graph is the import graph of a build: for each package, the packages it
// imports directly and all it depends on, as `go list -deps` reports them.
type Graph map[string]Package

// Package is one package of a Graph.
type Package struct {
	Imports  []string
	Deps     []string
	Standard bool
}

// A Rule is one arrow of docs/ARCHITECTURE.md that must hold.
type Rule struct {
	// Name says the rule for people; Why says what it protects.
	Name, Why string
	// Check lists the breaches of the rule in g, one line each.
	Check func(g Graph) []string
}

// Rules are the arrows the architecture test enforces.
var Rules = []Rule{
	{
		Name:  "catalog and record are leaves",
		Why:   "storage, clientconfig, importer, the desktop and the engine share the model without sharing anything else",
		Check: importsNoneOf([]string{mod("catalog"), mod("record")}, mod("")),
	},
	{
		Name:  "catalog, record and mcpcore import neither database/sql nor Fyne",
		Why:   "the model and the engine are tested alone, with no database and no display",
		Check: dependsOnNoneOf([]string{mod("catalog"), mod("record"), mod("mcpcore"), mod("mcpcore/actions")}, "database/sql", "fyne.io/", "github.com/go-gl/"),
	},
	{
		Name:  "storage imports neither mcpcore nor go-sdk",
		Why:   "the SQLite layer needs no MCP engine, JSON Schema or shell parser; it is handed its validator",
		Check: dependsOnNoneOf([]string{mod("storage")}, mod("mcpcore"), "github.com/modelcontextprotocol/", "fyne.io/"),
	},
	{
		Name:  "clientconfig needs no database",
		Why:   "writing an AI client's config file needs no SQLite; tokens come through clientconfig.Tokens",
		Check: dependsOnNoneOf([]string{mod("clientconfig")}, mod("storage"), "github.com/mattn/go-sqlite3"),
	},
	{
		Name:  "the serving path draws nothing",
		Why:   "the serving process sits in the tray all day: no Fyne, no GLFW, no GL context (the window process draws)",
		Check: dependsOnNoneOf(servingPath, "fyne.io/fyne/", "github.com/go-gl/"),
	},
	{
		Name: "the shim imports only internal/paths, internal/atomicfile, internal/process, internal/upgrade and internal/atmostonce",
		// golang.org/x/sys: whether a pid runs and the detached start, on Windows.
		Why:   "the stdio shim is pure Go with no cgo, small, and starts fast for every AI client",
		Check: onlyDependsOn(mod("cmd/mcptray-stdio"), mod("internal/paths"), mod("internal/atomicfile"), mod("internal/process"), mod("internal/upgrade"), mod("internal/atmostonce"), "golang.org/x/sys/"),
	},
	{
		Name:  "only the program's main package imports app",
		Why:   "the window process (package app) is a leaf of the program: nothing else may draw",
		Check: importedOnlyBy(mod("app"), module),
	},
	{
		Name:  "only the window process imports the editors",
		Why:   "the editors are screens of the manager window (package app), which places them; nothing else opens one",
		Check: importedOnlyBy(mod("app/editor"), mod("app")),
	},
	{
		Name:  "the desktop's building blocks read and write nothing",
		Why:   "app/ui draws pieces of windows; what they show and save is handed in by the screens, so it needs no store, link or editor",
		Check: dependsOnNoneOf([]string{mod("app/ui")}, mod("storage"), mod("app/link"), mod("app/editor"), "database/sql"),
	},
	{
		Name:  "upstream needs no database and draws nothing",
		Why:   "connecting to other MCP servers is tested alone, with real processes but no SQLite, store or display; the daemon hands it what it needs (secrets, process records)",
		Check: dependsOnNoneOf([]string{mod("upstream")}, "database/sql", mod("storage"), mod("app"), "fyne.io/", "github.com/go-gl/"),
	},
	{
		Name:  "test helpers stay out of the program",
		Why:   "app/internal/uitest starts servers on temporary databases and mocks the keyring: only tests may use it",
		Check: importedOnlyBy(mod("app/internal/uitest")),
	},
}

// servingPath are the packages the serving process runs: the server, its
// tray, the link to the window process and what they build on.
var servingPath = []string{
	mod("internal/cli"), mod("internal/daemon"), mod("app/tray"), mod("app/trayicon"),
	mod("app/link"), mod("app/words"), mod("internal/winlink"), mod("mcpcore"),
	mod("storage"), mod("clientconfig"), mod("assets"), mod("catalog"), mod("record"),
}

// mod is the import path of one of mcptray's packages ("" for its root).
func mod(p string) string {
	if p == "" {
		return module
	}
	return module + "/" + p
}

// has reports whether path is prefix or under it (a path prefix, or a
// prefix ending in "/" that path starts with).
func has(path, prefix string) bool {
	if strings.HasSuffix(prefix, "/") {
		return strings.HasPrefix(path, prefix)
	}
	return path == prefix || strings.HasPrefix(path, prefix+"/")
}

// dependsOnNoneOf: no package of pkgs depends on anything under banned.
func dependsOnNoneOf(pkgs []string, banned ...string) func(Graph) []string {
	return func(g Graph) []string {
		var out []string
		for _, p := range pkgs {
			for _, d := range g[p].Deps {
				for _, b := range banned {
					if has(d, b) {
						out = append(out, fmt.Sprintf("%s depends on %s", p, d))
					}
				}
			}
		}
		return out
	}
}

// importsNoneOf: no package of pkgs imports anything under banned, but the
// standard library's and its own.
func importsNoneOf(pkgs []string, banned string) func(Graph) []string {
	return func(g Graph) []string {
		var out []string
		for _, p := range pkgs {
			for _, i := range g[p].Imports {
				if has(i, banned) && !has(i, p) {
					out = append(out, fmt.Sprintf("%s imports %s", p, i))
				}
			}
		}
		return out
	}
}

// onlyDependsOn: pkg depends on the standard library and allowed alone
// (paths, or prefixes ending in "/").
func onlyDependsOn(pkg string, allowed ...string) func(Graph) []string {
	return func(g Graph) []string {
		var out []string
		for _, d := range g[pkg].Deps {
			if g[d].Standard || slices.ContainsFunc(allowed, func(a string) bool { return has(d, a) }) {
				continue
			}
			out = append(out, fmt.Sprintf("%s depends on %s", pkg, d))
		}
		return out
	}
}

// importedOnlyBy: no package but those allowed imports pkg.
func importedOnlyBy(pkg string, allowed ...string) func(Graph) []string {
	return func(g Graph) []string {
		var out []string
		for p, info := range g {
			if slices.Contains(allowed, p) || has(p, pkg) {
				continue
			}
			if slices.Contains(info.Imports, pkg) {
				out = append(out, fmt.Sprintf("%s imports %s", p, pkg))
			}
		}
		slices.Sort(out)
		return out
	}
}
