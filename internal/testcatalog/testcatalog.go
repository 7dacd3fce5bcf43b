// Package testcatalog builds the catalog entries tests of several packages
// store and serve.
package testcatalog

import (
	"errors"

	"github.com/mcptray/mcptray/catalog"
)

// RespondTool is a valid tool named name that answers text (a template).
func RespondTool(name, text string) catalog.Tool {
	return catalog.Tool{Name: name, Description: "A test tool.",
		Action: catalog.Action{Respond: &catalog.Respond{Content: []catalog.Content{{Type: "text", Text: catalog.Template(text)}}}}}
}

// CommandTool is a valid tool named name that runs argv.
func CommandTool(name string, argv ...catalog.Template) catalog.Tool {
	return catalog.Tool{Name: name, Description: "Runs a command.", Action: catalog.Action{Command: &catalog.Command{Argv: argv}}}
}

// SyncTool is "sync.run", titled "Sync my folders": a tool that may run as
// a task, reports that it synced 3 of 10 folders, then waits 30 s before
// it is done (long enough for a test to see it run, and cancel it).
func SyncTool() catalog.Tool {
	return catalog.Tool{
		Name: "sync.run", Title: "Sync my folders", Description: "Syncs (pretends to).", TaskMode: catalog.TaskOptional,
		Action: catalog.Action{Respond: &catalog.Respond{
			Steps: []catalog.Step{
				{Progress: &catalog.ProgressStep{Progress: 3, Total: 10, Message: "synced 3 of 10 folders"}},
				{DelayMs: 30000, Progress: &catalog.ProgressStep{Progress: 10, Total: 10}},
			},
			Content: []catalog.Content{{Type: "text", Text: "synced"}},
		}},
	}
}

// ProblemPlaces lists where err's problems are, "ENTRY FIELD" each, in
// their order; ok is false when err is no *catalog.ValidationError.
func ProblemPlaces(err error) (places []string, ok bool) {
	var ve *catalog.ValidationError
	if !errors.As(err, &ve) {
		return nil, false
	}
	for _, p := range ve.Problems {
		places = append(places, p.Entry+" "+p.Field)
	}
	return places, true
}
