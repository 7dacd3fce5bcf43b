package clientconfig

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Env is the machine a path is computed for, as its OS reports it: the
// home folder, the project (the working directory), and the environment
// variables by which clients let their config move (CLAUDE_CONFIG_DIR,
// CODEX_HOME, XDG_CONFIG_HOME, APPDATA…). Glob lists matches of a pattern
// (filepath.Glob in real use).
type Env struct {
	GOOS       string
	Home       string
	ProjectDir string
	Vars       map[string]string
	Glob       func(pattern string) []string
}

// envVars are the variables Paths reads.
var envVars = []string{"APPDATA", "LOCALAPPDATA", "XDG_CONFIG_HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME",
	"GEMINI_CLI_HOME", "COPILOT_HOME", "CLINE_MCP_SETTINGS_PATH", "CLINE_DATA_DIR", "CLINE_DIR",
	"GOOSE_PATH_ROOT", "CONTINUE_GLOBAL_DIR"}

// LocalEnv is the Env of this machine.
func LocalEnv(goos string) Env {
	home, _ := os.UserHomeDir()
	wd, _ := os.Getwd()
	vars := map[string]string{}
	for _, k := range envVars {
		if v := os.Getenv(k); v != "" {
			vars[k] = v
		}
	}
	return Env{GOOS: goos, Home: home, ProjectDir: wd, Vars: vars,
		Glob: func(p string) []string {
			m, _ := filepath.Glob(p)
			return m
		},
	}
}

func (e Env) get(k string) string { return e.Vars[k] }

func (e Env) join(elem ...string) string {
	if e.GOOS == "windows" {
		return strings.Join(elem, `\`)
	}
	return strings.Join(elem, "/")
}

// xdg is $XDG_CONFIG_HOME, default ~/.config.
func (e Env) xdg() string {
	if v := e.get("XDG_CONFIG_HOME"); v != "" {
		return v
	}
	return e.join(e.Home, ".config")
}

// or is dir when it is set, else the default folder def under the home.
func (e Env) or(dir string, def ...string) string {
	if dir != "" {
		return dir
	}
	return e.join(append([]string{e.Home}, def...)...)
}

// Paths lists the config files of a client on e, the preferred one first,
// following each client's documented location and its overrides. For
// Claude Desktop on Windows every MSIX package folder (Claude_*) comes
// before the classic %APPDATA% location, which is listed only when no
// package exists or it exists too: write all of them when unsure.
func Paths(c Client, e Env) []string {
	switch c.ID {
	case "claude-desktop":
		switch e.GOOS {
		case "darwin":
			return []string{e.join(e.Home, "Library", "Application Support", "Claude", "claude_desktop_config.json")}
		case "windows":
			var out []string
			if e.Glob != nil && e.get("LOCALAPPDATA") != "" {
				pkgs := e.Glob(e.join(e.get("LOCALAPPDATA"), "Packages", "Claude_*"))
				sort.Strings(pkgs)
				for _, p := range pkgs {
					out = append(out, e.join(p, "LocalCache", "Roaming", "Claude", "claude_desktop_config.json"))
				}
			}
			classic := e.join(e.get("APPDATA"), "Claude", "claude_desktop_config.json")
			if len(out) == 0 || (e.Glob != nil && len(e.Glob(e.join(e.get("APPDATA"), "Claude"))) > 0) {
				out = append(out, classic)
			}
			return out
		default:
			return []string{e.join(e.xdg(), "Claude", "claude_desktop_config.json")}
		}
	case "claude-code":
		// With CLAUDE_CONFIG_DIR set, Claude Code keeps .claude.json there.
		return []string{e.join(e.or(e.get("CLAUDE_CONFIG_DIR")), ".claude.json")}
	case "claude-code-project":
		return []string{e.join(e.ProjectDir, ".mcp.json")}
	case "cursor":
		return []string{e.join(e.Home, ".cursor", "mcp.json")}
	case "vscode":
		return []string{e.join(e.userData("Code"), "User", "mcp.json")}
	case "windsurf":
		return []string{e.join(e.Home, ".codeium", "windsurf", "mcp_config.json")}
	case "zed":
		switch e.GOOS {
		case "windows":
			return []string{e.join(e.get("APPDATA"), "Zed", "settings.json")}
		case "darwin":
			return []string{e.join(e.Home, ".config", "zed", "settings.json")}
		default:
			return []string{e.join(e.xdg(), "zed", "settings.json")}
		}
	case "codex":
		return []string{e.join(e.or(e.get("CODEX_HOME"), ".codex"), "config.toml")}
	case "gemini":
		// GEMINI_CLI_HOME stands in for the home folder.
		return []string{e.join(e.or(e.get("GEMINI_CLI_HOME")), ".gemini", "settings.json")}
	case "copilot-cli":
		return []string{e.join(e.or(e.get("COPILOT_HOME"), ".copilot"), "mcp-config.json")}
	case "lmstudio":
		return []string{e.join(e.Home, ".lmstudio", "mcp.json")}
	case "cline":
		// The CLI and the VS Code extension share this file since Cline
		// moved it out of VS Code's storage.
		switch {
		case e.get("CLINE_MCP_SETTINGS_PATH") != "":
			return []string{e.get("CLINE_MCP_SETTINGS_PATH")}
		case e.get("CLINE_DATA_DIR") != "":
			return []string{e.join(e.get("CLINE_DATA_DIR"), "settings", "cline_mcp_settings.json")}
		}
		return []string{e.join(e.or(e.get("CLINE_DIR"), ".cline"), "data", "settings", "cline_mcp_settings.json")}
	case "goose":
		switch {
		case e.get("GOOSE_PATH_ROOT") != "":
			return []string{e.join(e.get("GOOSE_PATH_ROOT"), "config", "config.yaml")}
		case e.GOOS == "windows":
			return []string{e.join(e.get("APPDATA"), "Block", "goose", "config", "config.yaml")}
		}
		return []string{e.join(e.xdg(), "goose", "config.yaml")}
	case "continue":
		// The IDE extension reads every file of ~/.continue/mcpServers,
		// whichever configuration is chosen in it: this one is mcptray's
		// alone. The CLI (cn) reads servers from config.yaml only, which
		// the IDE extension also reads for its local configuration.
		dir := e.or(e.get("CONTINUE_GLOBAL_DIR"), ".continue")
		return []string{e.join(dir, "mcpServers", "mcptray.json"), e.join(dir, "config.yaml")}
	}
	return nil
}

// userData is VS Code's (or a fork's) user data folder.
func (e Env) userData(app string) string {
	switch e.GOOS {
	case "darwin":
		return e.join(e.Home, "Library", "Application Support", app)
	case "windows":
		return e.join(e.get("APPDATA"), app)
	}
	return e.join(e.xdg(), app)
}

// InProject says whether the config file of c at path belongs to a
// project — the client's project file, or any other file in a folder
// under version control (a .git up from it, below the home folder) — and
// is therefore meant to be committed and shared. It touches the file
// system.
func InProject(c Client, e Env, path string) bool {
	if c.Project {
		return true
	}
	for _, p := range Paths(c, e) {
		if p == path {
			return false
		}
	}
	for dir := filepath.Dir(path); dir != e.Home && dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			return true
		}
	}
	return false
}
