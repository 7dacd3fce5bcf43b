package editor

import (
	"github.com/mcptray/mcptray/app/ui"
	"github.com/mcptray/mcptray/catalog"
)

// The choices of the editors' selects.
var (
	// AnsweredByChoices say who answers an input step.
	AnsweredByChoices = ui.Choices{
		{Label: "the AI app (client)", Value: catalog.AnsweredByClient},
		{Label: "me, on this computer (desktop)", Value: catalog.AnsweredByDesktop},
		{Label: "the AI app if it can, else me (auto)", Value: catalog.AnsweredByAuto},
	}
	// StepKindChoices are what an input step asks.
	StepKindChoices = ui.Choices{
		{Label: "Questions to fill in (form)", Value: catalog.StepForm},
		{Label: "A web page to open (url)", Value: catalog.StepURL},
		{Label: "A question to the AI's model (sampling)", Value: catalog.StepSampling},
		{Label: "The AI app's folders (roots)", Value: catalog.StepRoots},
		{Label: "Allow or deny (approval)", Value: catalog.StepApproval},
	}
	// TaskModeChoices say whether a tool runs in the background.
	TaskModeChoices = ui.Choices{
		{Label: "never", Value: catalog.TaskNever},
		{Label: "if the AI app supports it (optional)", Value: catalog.TaskOptional},
		{Label: "always (required)", Value: catalog.TaskRequired},
	}
	// ParamTypeChoices are the kinds of value a parameter takes.
	ParamTypeChoices = ui.Choices{
		{Label: "text", Value: "string"},
		{Label: "whole number", Value: "integer"},
		{Label: "number", Value: "number"},
		{Label: "yes or no", Value: "boolean"},
		{Label: "list", Value: "array"},
		{Label: "object", Value: "object"},
	}
)
