package wine

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptray/mcptray/internal/testutil"
)

// The fixtures the examples need, in the user's folder.
const (
	notes     = home + `\Notes`
	note      = notes + `\shopping list.md`
	noteText  = "Buy milk and bread"
	scripts   = home + `\mcptray-scripts`
	script    = "hello.cmd"
	downloads = home + `\Downloads`
	oldFile   = downloads + `\old report.txt`
	newFile   = downloads + `\new report.txt`
	oldFolder = downloads + `\old folder`
	deleteMe  = home + `\delete me.txt`
)

// example is a tool of examples/*.json, as far as the check reads it.
type example struct {
	Name   string         `json:"name"`
	Action map[string]any `json:"action"`
	Hints  struct {
		OpenWorld   *bool `json:"openWorld"`
		Destructive bool  `json:"destructive"`
	} `json:"hints"`
	Params []struct {
		Name     string `json:"name"`
		Required bool   `json:"required"`
	} `json:"params"`
	InputSchema struct {
		Required []string `json:"required"`
	} `json:"inputSchema"`
	Steps []map[string]any `json:"steps"`
	raw   map[string]any
}

// offlineExamples reads the starter catalog and the gallery, as shipped,
// and keeps the tools that need no network (openWorld false): the list
// follows the examples as they change.
func offlineExamples(t *testing.T) []example {
	var out []example
	for _, f := range []string{"starter.json", "gallery.json"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "examples", f))
		if err != nil {
			t.Fatal(err)
		}
		var raw struct{ Tools []map[string]any }
		var typed struct{ Tools []example }
		if err := json.Unmarshal(b, &raw); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &typed); err != nil {
			t.Fatal(err)
		}
		for i, ex := range typed.Tools {
			if _, ok := ex.windows(); !ok && ex.Action["command"] != nil {
				continue // not offered on Windows (examples.On)
			}
			if ex.Hints.OpenWorld == nil || *ex.Hints.OpenWorld {
				continue
			}
			ex.raw = raw.Tools[i]
			out = append(out, ex)
		}
	}
	if len(out) == 0 {
		t.Fatal("the examples hold no offline tool")
	}
	return out
}

// windows is the example's Windows command line, if it has one.
func (ex example) windows() ([]string, bool) {
	b, _ := json.Marshal(ex.Action["command"])
	var c struct {
		OS map[string]struct{ Argv []string } `json:"os"`
	}
	_ = json.Unmarshal(b, &c)
	w, ok := c.OS["windows"]
	return w.Argv, ok
}

// notWindows' names the programs some examples run that Windows does not
// ship (a person installs them): under Wine they are missing, and the
// check says it skipped the example rather than failing it.
var notWindows = []string{"rg", "git"}

// script makes the batch file an example runs from the user's folder (its
// program, by name, as the examples write it: {{.server.home}}\…\NAME.cmd).
func (p *prefix) script(t *testing.T, ex example) {
	argv, _ := ex.windows()
	if len(argv) == 0 {
		return
	}
	prog := strings.ReplaceAll(argv[0], "{{.server.home}}", home)
	prog = strings.ReplaceAll(prog, "{{.args.script}}", script)
	if strings.HasPrefix(prog, home) && !strings.Contains(prog, "{{") &&
		(strings.HasSuffix(prog, ".cmd") || strings.HasSuffix(prog, ".bat")) {
		p.write(t, prog, "@echo off\r\necho hello from the script\r\n")
	}
}

// args are the arguments the check gives an example: a value for each
// required parameter, by its name, pointing at the fixtures.
func (ex example) args(t *testing.T) map[string]any {
	values := map[string]any{
		"query": "milk", "script": script, "days": 30, "folder": notes, "text": "one two three",
		"count": 3, "repo": home, "path": note,
	}
	if ex.Hints.Destructive {
		values["path"] = deleteMe
	}
	required := ex.InputSchema.Required
	for _, prm := range ex.Params {
		if prm.Required {
			required = append(required, prm.Name)
		}
	}
	args := map[string]any{}
	for _, name := range required {
		v, ok := values[name]
		if !ok {
			t.Errorf("%s: no fixture value for its parameter %q: add one to the Wine check (tests/wine)", ex.Name, name)
			continue
		}
		args[name] = v
	}
	return args
}

// makeFixtures writes what the examples work on: a Notes folder with a
// note, a scripts folder with a script, a Downloads folder with a
// read-only file 90 days old (Windows' DeleteFile refuses one: del /f
// and Go's os.Remove clear the attribute first), a new one and a folder
// as old (a folder is never cleaned), a file to delete.
func (p *prefix) makeFixtures(t *testing.T) {
	p.write(t, note, "# Shopping\r\n\r\n"+noteText+"\r\n")
	p.write(t, scripts+`\`+script, "@echo off\r\necho hello from the script\r\n")
	p.write(t, oldFile, "old\r\n")
	p.write(t, newFile, "new\r\n")
	p.write(t, oldFolder+`\kept.txt`, "kept\r\n")
	p.write(t, deleteMe, "delete me\r\n")
	old := time.Now().AddDate(0, 0, -90)
	for _, f := range []string{oldFile, oldFolder + `\kept.txt`, oldFolder} {
		if err := os.Chtimes(p.unix(f), old, old); err != nil {
			t.Fatal(err)
		}
	}
	// Wine reads a file without write permission as read-only.
	if err := os.Chmod(p.unix(oldFile), 0o444); err != nil {
		t.Fatal(err)
	}
}

// checkExamples calls every starter tool and offline gallery example
// through the server, each with the fixtures it needs, and checks what
// each did. An approval is the person's at the desktop (the desktop check
// answers one): here the examples run without their approval step, and
// a destructive one without its hint, which asks for an approval too.
func (p *prefix) checkExamples(t *testing.T, s *server) {
	p.makeFixtures(t)
	exs := offlineExamples(t)
	var tools []map[string]any
	for _, ex := range exs {
		tool := map[string]any{}
		for k, v := range ex.raw {
			tool[k] = v
		}
		var steps []any
		for _, st := range ex.Steps {
			if st["kind"] != "approval" {
				steps = append(steps, st)
			}
		}
		tool["steps"] = steps
		if hints, ok := tool["hints"].(map[string]any); ok {
			delete(hints, "destructive")
		}
		tools = append(tools, tool)
	}
	p.importTools(t, tools)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cs := s.connectHTTP(t, ctx, eras[0])
	testutil.Eventually(t, "the examples to be served", func() bool {
		l, err := cs.ListTools(ctx, nil)
		return err == nil && len(l.Tools) >= len(exs)
	})
	for _, ex := range exs {
		t.Run(ex.Name, func(t *testing.T) {
			p.script(t, ex)
			if argv, _ := ex.windows(); len(argv) > 0 && slices.Contains(notWindows, argv[0]) {
				if _, err := os.Stat(p.unix(`C:\windows\system32\` + argv[0] + ".exe")); err != nil {
					t.Skipf("runs %s, which Windows does not ship and this Wine prefix lacks", argv[0])
				}
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: ex.Name, Arguments: ex.args(t)})
			if err != nil {
				t.Fatalf("tools/call: %v", err)
			}
			got := text(res)
			if res.IsError && strings.Contains(got, "needs PowerShell, which this computer does not have") {
				// Wine has no PowerShell: the example's own fallback answered.
				t.Skipf("its Windows line needs PowerShell, which Wine lacks; its fallback answered: %s", got)
			}
			if res.IsError {
				t.Fatalf("answered an error: %s", got)
			}
			t.Logf("answered: %.200q", got)
			p.checkEffect(t, ex.Name, got)
		})
	}
}

// freeSpace is how disk_space's answer tells the free space: a number,
// and "free".
var freeSpace = regexp.MustCompile(`(?is)[0-9].*free|free.*[0-9]`)

// checkEffect checks what an example did, where the check knows it.
func (p *prefix) checkEffect(t *testing.T, name, got string) {
	exists := func(win string) bool { _, err := os.Stat(p.unix(win)); return err == nil }
	switch name {
	case "current_time":
		if !strings.Contains(got, strconv.Itoa(time.Now().Year())) {
			t.Errorf("the time without this year: %q", got)
		}
	case "search_notes":
		// As grep -rniI prints it: the path in Notes, the line's number.
		if want := filepath.Base(p.unix(note)) + ":3:" + noteText; !strings.Contains(got, want) {
			t.Errorf("the answer does not hold the note's line as %q", want)
		}
	case "search_notes_rg", "read_file":
		if !strings.Contains(got, noteText) {
			t.Errorf("the note's line %q is not in the answer", noteText)
		}
	case "list_folder":
		if !strings.Contains(got, filepath.Base(p.unix(note))) {
			t.Errorf("the note is not in the listing")
		}
	case "run_script", "run_backup":
		if !strings.Contains(got, "hello from the script") {
			t.Errorf("the script's output is not in the answer")
		}
	case "disk_space":
		// PowerShell's table has a Free column; dir's last line is "N bytes free".
		if !freeSpace.MatchString(got) {
			t.Errorf("the answer says nothing of the free space")
		}
	case "clean_downloads":
		if exists(oldFile) {
			t.Errorf("the 90-day-old file is still in Downloads")
		}
		if !strings.Contains(got, oldFile) {
			t.Errorf("the answer does not name the deleted file %s", oldFile)
		}
		if !exists(newFile) {
			t.Errorf("the new file was deleted from Downloads")
		}
		if !exists(oldFolder + `\kept.txt`) {
			t.Errorf("the old folder in Downloads was cleaned")
		}
	case "delete_file":
		if exists(deleteMe) {
			t.Errorf("%s was not deleted", deleteMe)
		}
	case "count_words":
		if !strings.Contains(got, "3") {
			t.Errorf("three words not counted")
		}
	case "add_to_inbox":
		b, _ := os.ReadFile(p.unix(notes + `\inbox.md`))
		if !strings.Contains(string(b), "one two three") {
			t.Errorf("the inbox holds %q, not the note", b)
		}
	}
}
