package ui

import (
	"cmp"
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/mcptray/mcptray/app/words"
	"github.com/mcptray/mcptray/mcpcore"
)

// AppName names the AI app that asks, for people.
func AppName(q mcpcore.Question) string {
	if q.Client == "" {
		return "An AI app"
	}
	return Shown(q.Client)
}

// clientName names the AI app and the token it connected with.
func clientName(q mcpcore.Question) string {
	name := AppName(q)
	if q.Token != "" && q.Token != q.Client {
		name += " (token " + Shown(q.Token) + ")"
	}
	return name
}

// Shown is text from an AI app as a window shows it: every character a
// person could not see written out (words.Hidden).
func Shown(s string) string {
	v, _ := words.Hidden(s)
	return v
}

// hasHidden reports whether any text of q from the AI app holds a
// character a person could not see.
func hasHidden(q mcpcore.Question) bool {
	for _, s := range []string{q.Client, q.Token, q.Message, q.Arguments, q.Runs, q.ClientInputs, q.URL, q.ToolTitle} {
		if _, found := words.Hidden(s); found {
			return true
		}
	}
	return false
}

// ToolName names the tool for people: its title, quoted, or its name; or,
// for a question asked while a prompt is got, the prompt.
func ToolName(q mcpcore.Question) string {
	if q.Prompt != "" {
		return fmt.Sprintf("the prompt %q", q.Prompt)
	}
	return fmt.Sprintf("%q", cmp.Or(q.ToolTitle, q.Tool))
}

// toolLine is the tool's title with its name after it, or its name alone.
func toolLine(q mcpcore.Question) string {
	if q.ToolTitle == "" || q.ToolTitle == q.Tool {
		return q.Tool
	}
	return q.ToolTitle + " (" + q.Tool + ")"
}

// subjectRow is the header's row naming what the question is about: the
// tool, or the prompt being got.
func subjectRow(q mcpcore.Question) (key, value string) {
	if q.Prompt != "" {
		return "Prompt", q.Prompt
	}
	return "Tool", toolLine(q)
}

// Header is the "who asks what" block every question window starts with.
func Header(q mcpcore.Question, title string) fyne.CanvasObject {
	head := widget.NewLabelWithStyle(title, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	head.Wrapping = fyne.TextWrapWord
	rows := []fyne.CanvasObject{head}
	if hasHidden(q) {
		note := WrapLabel(words.HiddenNote)
		note.Importance = widget.DangerImportance
		rows = append(rows, container.NewBorder(nil, nil, widget.NewIcon(theme.WarningIcon()), nil, note))
	}
	if strings.TrimSpace(q.Message) != "" {
		msg := widget.NewLabel(Shown(q.Message))
		msg.Wrapping = fyne.TextWrapWord
		rows = append(rows, msg)
	}
	key := func(s string) *widget.Label {
		return widget.NewLabelWithStyle(s, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	}
	subject, name := subjectRow(q)
	info := container.New(layout.NewFormLayout(), key("AI app"), WrapLabel(clientName(q)), key(subject), WrapLabel(name))
	if q.Server != "" {
		// A tool or prompt of another server: its name as the person gave
		// it, which the tool's name may not show (another prefix, or none).
		info.Add(key("Server"))
		info.Add(WrapLabel(Shown(q.Server)))
	}
	if q.TaskID != "" {
		info.Add(key("Runs"))
		info.Add(WrapLabel("in the background, as task " + shortID(q.TaskID)))
	}
	rows = append(rows, info)
	return container.NewVBox(rows...)
}

// SmallPrint is a line of explanation, smaller than the question itself
// but in the text colour: grey small print is hard to read on either
// theme.
func SmallPrint(s string) *widget.Label {
	l := WrapLabel(s)
	l.SizeName = theme.SizeNameCaptionText
	return l
}

// shortID shortens a long task id for display.
func shortID(id string) string {
	if len(id) > 12 {
		return id[:12] + "…"
	}
	return id
}
