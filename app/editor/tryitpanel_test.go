package editor

import (
	"context"
	"encoding/json"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/mcptray/mcptray/app/internal/uitest"
	"github.com/mcptray/mcptray/app/ui"
	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/testutil"
)

// TestTryItAnswersTheFormInThePanel: Try it is the AI app, so a form the
// tool asks the AI app shows in Try it's panel, and what is sent there is
// the answer the tool uses.
func TestTryItAnswersTheFormInThePanel(t *testing.T) {
	uitest.NewTestApp(t)
	s := uitest.NewAuthServed(t)
	tool := catalog.Tool{Name: "ask", Description: "asks",
		Steps: []catalog.InputStep{{Key: "q", Kind: catalog.StepForm, Message: "Your name?",
			Schema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","title":"Name"}},"required":["name"]}`)}},
		Action: catalog.Action{Respond: &catalog.Respond{Content: []catalog.Content{{Type: "text", Text: "Hi {{.inputs.q.content.name}}"}}}}}
	if err := s.St.PutTool(context.Background(), tool); err != nil {
		t.Fatal(err)
	}
	tr := newTrier(t, s)
	e := newEditor(t, s.St, tool, false)
	e.SetTrier(TryItTrier(tr, s.Eng))
	p := e.Try
	if p.question.Visible() {
		t.Fatal("a question shows before any call")
	}
	test.Tap(p.run)
	testutil.Eventually(t, "the form in the panel", func() bool {
		var asked bool
		fyne.DoAndWait(func() { asked = p.asked != nil && p.question.Visible() })
		return asked
	})
	var f *ui.FormDialog
	fyne.DoAndWait(func() { f = p.asked })
	f.Fields[0].Entry.SetText("Ada")
	test.Tap(f.Submit)
	p.Calls.Wait()
	if p.result.Text != "Hi Ada" || p.question.Visible() {
		t.Fatalf("result %q, question still shown %v", p.result.Text, p.question.Visible())
	}
}
