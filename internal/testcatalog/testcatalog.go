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

// SyncTool is "sync.run", titled "Sync my folders": a tool that may run as
// a task, reports that it synced 3 of 10 folders, then waits 30 s before
// it is done (long enough for a test to see it run, and cancel it).
func SyncTool() mcpcore.Tool {
	return mcpcore.Tool{
		Name: "sync.run", Title: "Sync my folders", Description: "Syncs (pretends to).", TaskMode: mcpcore.TaskOptional,
		Action: actions.Spec{Respond: &actions.Respond{
			Steps: []actions.Step{
				{Progress: &actions.ProgressStep{Progress: 3, Total: 10, Message: "synced 3 of 10 folders"}},
				{DelayMs: 30000, Progress: &actions.ProgressStep{Progress: 10, Total: 10}},
			},
			Content: []actions.Content{{Type: "text", Text: "synced"}},
		}},
	}
}
