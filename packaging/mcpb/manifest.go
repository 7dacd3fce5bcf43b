//go:build ignore

// manifest writes the Claude Desktop extension's manifest.json (MCP Bundle
// manifest 0.3) for mcptray:
//
//	go run packaging/mcpb/manifest.go VERSION > manifest.json
//
// The bundle's server is the stdio shim, one per platform, which finds the
// mcptray installed on the computer; the bundle does not hold mcptray. So
// what Claude Desktop shows of the extension before anyone uses it — its
// description under the name, then the long description — says first that
// the mcptray app must be installed, and where to get it. It declares no
// tools: the page would list them as the extension's, yet without mcptray
// there are none, and with it they are the person's own, named only in
// their database and listed by the server at run time (tools_generated).
package main

import (
	"encoding/json"
	"log"
	"os"
)

// Where a person gets mcptray, and how to set it up.
const (
	releases = "https://github.com/mcptray/mcptray/releases"
	setup    = "https://github.com/mcptray/mcptray#set-up"
)

// description is the line under the extension's name: first what it
// needs, since it does nothing without it.
const description = "Needs the mcptray app, installed separately (free, from " + releases + "). " +
	"Connects Claude to the tools, resources and prompts you make in mcptray on this computer."

// longDescription is the extension page's text (Markdown): what to do
// first, before what it is.
const longDescription = "**First install the mcptray app on this computer.** This extension is only Claude's connection to it " +
	"and does nothing on its own: without mcptray, Claude gets no tools from it, and each request is answered with how to install mcptray.\n\n" +
	"Get mcptray from " + releases + " (the installer for Windows; the .deb or the archive for Linux), or build it from its source (" + setup + "). " +
	"Once it is installed, Claude starts mcptray by itself whenever it is not running.\n\n" +
	"mcptray is a desktop app where you make your own tools for AI assistants — run a script, call a web API, search your notes — " +
	"and decide which ones may run without asking you. The tools Claude gets through this extension are the ones you have in mcptray; " +
	"a new mcptray starts with a few examples to try."

func main() {
	log.SetFlags(0)
	log.SetPrefix("mcpb manifest: ")
	if len(os.Args) != 2 || os.Args[1] == "" {
		log.Fatal("usage: go run packaging/mcpb/manifest.go VERSION")
	}
	const shim = "${__dirname}/server/mcptray-stdio"
	m := map[string]any{
		"manifest_version": "0.3",
		"name":             "mcptray",
		"display_name":     "mcptray",
		"version":          os.Args[1],
		"description":      description,
		"long_description": longDescription,
		"author":           map[string]any{"name": "The mcptray authors", "url": "https://github.com/mcptray/mcptray"},
		"repository":       map[string]any{"type": "git", "url": "https://github.com/mcptray/mcptray"},
		"homepage":         "https://github.com/mcptray/mcptray",
		"documentation":    setup,
		"support":          "https://github.com/mcptray/mcptray/issues",
		"icon":             "icon.png",
		"license":          "MIT",
		"keywords":         []string{"mcp", "tools", "tray", "local"},
		"server": map[string]any{
			"type":        "binary",
			"entry_point": "server/mcptray-stdio",
			"mcp_config": map[string]any{
				"command": shim,
				"args":    []string{},
				"platform_overrides": map[string]any{
					"win32":  map[string]any{"command": shim + ".exe"},
					"darwin": map[string]any{"command": shim + "-darwin"},
				},
			},
		},
		"tools_generated":   true,
		"prompts_generated": true,
		"compatibility":     map[string]any{"platforms": []string{"darwin", "win32", "linux"}},
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		log.Fatal(err)
	}
}
