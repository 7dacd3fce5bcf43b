// Package testcatalog builds the catalog entries tests of several packages
// store and serve.
package testcatalog

import (
	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/mcpcore/actions"
)

// RespondTool is a valid tool named name that answers text (a template).
func RespondTool(name, text string) mcpcore.Tool {
	return mcpcore.Tool{Name: name, Description: "A test tool.",
		Action: actions.Spec{Respond: &actions.Respond{Content: []actions.Content{{Type: "text", Text: actions.Template(text)}}}}}
}

// CommandTool is a valid tool named name that runs argv.
func CommandTool(name string, argv ...actions.Template) mcpcore.Tool {
	return mcpcore.Tool{Name: name, Description: "Runs a command.", Action: actions.Spec{Command: &actions.Command{Argv: argv}}}
}
