//go:build ignore

// manifest writes the Claude Desktop extension's manifest.json (MCP Bundle
// manifest 0.3) for mcptray:
//
//	go run packaging/mcpb/manifest.go VERSION > manifest.json
//
// The bundle's server is the stdio shim, one per platform, which finds the
// installed mcptray. The tools it declares are the starter catalog's,
// which ships in every mcptray and holds nothing of the person's: their
// own tools, named only in their database, are listed by the server at
// run time (tools_generated).
package main

import (
	"encoding/json"
	"log"
	"os"

	"github.com/mcptray/mcptray/examples"
	"github.com/mcptray/mcptray/mcpcore"
)

type tool struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

func main() {
	log.SetFlags(0)
	log.SetPrefix("mcpb manifest: ")
	if len(os.Args) != 2 || os.Args[1] == "" {
		log.Fatal("usage: go run packaging/mcpb/manifest.go VERSION")
	}
	starter, err := mcpcore.ParseCatalog(examples.Starter)
	if err != nil {
		log.Fatalf("the starter catalog: %v", err)
	}
	var tools []tool
	for _, t := range starter.Tools {
		tools = append(tools, tool{Name: t.Name, Description: t.Description})
	}
	const shim = "${__dirname}/server/mcptray-stdio"
	m := map[string]any{
		"manifest_version": "0.3",
		"name":             "mcptray",
		"display_name":     "mcptray",
		"version":          os.Args[1],
		"description":      "Your own tools, resources and prompts from the mcptray app on this computer.",
		"long_description": "mcptray is a desktop app that serves the tools, resources and prompts you define to AI assistants over MCP. " +
			"This extension connects Claude Desktop to the mcptray installed on this computer, starting it when it is not running; " +
			"install mcptray first (https://github.com/mcptray/mcptray#setup). The tools listed here are mcptray's starter examples; " +
			"Claude sees the ones you define.",
		"author":     map[string]any{"name": "The mcptray authors", "url": "https://github.com/mcptray/mcptray"},
		"repository": map[string]any{"type": "git", "url": "https://github.com/mcptray/mcptray"},
		"homepage":   "https://github.com/mcptray/mcptray",
		"support":    "https://github.com/mcptray/mcptray/issues",
		"icon":       "icon.png",
		"license":    "MIT",
		"keywords":   []string{"mcp", "tools", "tray", "local"},
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
		"tools":             tools,
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
