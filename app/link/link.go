// Package link declares the one channel between mcptray's two desktop
// processes, each method once, with the types it carries: the serving
// process (the server and its tray, app/tray, which never draws) and the
// window process (`mcptray window`, package app, which draws every window).
// Both sides use these declarations, the caller through Call or Send and
// the other side through winlink.Handle on its Mux, so a method's name and
// types cannot drift apart.
//
// What crosses holds no secret: questions are redacted by the engine before
// they are asked, tasks carry their progress (redacted as it is streamed)
// but neither their result nor their input, and the window reads the
// secrets' names from the store itself, their values never.
//
// Data changes do not cross here: the window process reads and writes the
// catalog, tokens, secrets and activity log through its own Store, and the
// serving process notices through SQLite's change feed.
package link

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/winlink"
	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/record"
	"github.com/mcptray/mcptray/upstream"
)

// None is the params or result of a method that carries nothing.
type None struct{}

// The window process calls these; the serving process answers.
var (
	// Hello is the window process's first call: what to show, on what.
	Hello = winlink.Method[None, Start]{Name: "hello"}
	// Ready says the window process can show windows (Problem ""), or why
	// it cannot; the serving process sends it work only once it is ready.
	Ready = winlink.Method[Readiness, None]{Name: "ready"}
	// SetPaused pauses or resumes serving, and answers the state then.
	SetPaused = winlink.Method[bool, State]{Name: "setPaused"}
	// SaveSettings stores and applies settings; settings that do not
	// validate fail with a ValidationError (see SettingsError).
	SaveSettings = winlink.Method[SettingsChange, SettingsSaved]{Name: "saveSettings"}
	// Sync brings the server in line with the stored catalog (Try it runs
	// a tool just saved).
	Sync = winlink.Method[None, None]{Name: "sync"}
	// Approvals lists the remembered approvals, in memory and stored.
	Approvals = winlink.Method[None, []record.RememberedApproval]{Name: "approvals"}
	// ForgetApproval revokes one remembered approval.
	ForgetApproval = winlink.Method[record.ApprovalKey, None]{Name: "forgetApproval"}
	// ForgetAllApprovals revokes every remembered approval.
	ForgetAllApprovals = winlink.Method[None, None]{Name: "forgetAllApprovals"}
	// RunningTasks answers the tasks running now.
	RunningTasks = winlink.Method[None, []Task]{Name: "runningTasks"}
	// WatchTasks starts (true) or stops (false) TaskChanged notices.
	WatchTasks = winlink.Method[bool, None]{Name: "watchTasks"}
	// CancelTask cancels a running task on the person's behalf.
	CancelTask = winlink.Method[string, None]{Name: "cancelTask"}
	// UpstreamStatus answers how the other MCP server named so runs: only
	// the serving process runs them (upstream.Manager), so the window's
	// Servers tab asks it here.
	UpstreamStatus = winlink.Method[string, upstream.Status]{Name: "upstreamStatus"}
	// Closed says the manager window closed, leaving View: the next one
	// opens there.
	Closed = winlink.Method[View, None]{Name: "closed"}
	// Idle says the window process holds no window and no question, and
	// how many calls it has received; the serving process answers whether
	// it may end (no call is on its way to it), and from then on starts a
	// new one for what comes.
	Idle = winlink.Method[Idleness, IdleAnswer]{Name: "idle"}
	// Quit: the person quits mcptray (the window asked about unsaved
	// changes already). The serving process stops serving, then sends Exit.
	Quit = winlink.Method[None, None]{Name: "quit"}
)

// The serving process calls these; the window process answers.
var (
	// Open opens (or raises) a window: the manager, the task window, the
	// Connect window, or the question waiting.
	Open = winlink.Method[Window, None]{Name: "open"}
	// Ask asks the person a question and answers what they chose. Its
	// caller giving up (the AI app cancelled, the question timed out)
	// withdraws it: the window closes.
	Ask = winlink.Method[Question, mcpcore.Answer]{Name: "ask"}
	// AskQuit: Quit in the tray. The window asks about unsaved changes
	// and answers whether to go on quitting.
	AskQuit = winlink.Method[None, bool]{Name: "askQuit"}
)

// The serving process sends these notices.
var (
	// StateChanged is the server's state, sent when it changed.
	StateChanged = winlink.Notice[State]{Name: "state"}
	// TaskChanged is a task that started, progressed or ended, sent while
	// the window watches the tasks (WatchTasks).
	TaskChanged = winlink.Notice[Task]{Name: "taskChanged"}
	// ApprovalsChanged says a remembered approval came or went.
	ApprovalsChanged = winlink.Notice[None]{Name: "approvalsChanged"}
	// CheckIdle: nothing more is on its way to the window process (a call
	// meant for it was dropped before it was sent); if it holds no window,
	// it asks Idle again.
	CheckIdle = winlink.Notice[None]{Name: "checkIdle"}
	// Exit: the serving process is quitting; the window process ends now.
	Exit = winlink.Notice[None]{Name: "exit"}
)

// StateOpenTaskWindow is the preference (a bool, default false), stored in
// the database, to open the task window when a task starts: the Settings
// tab sets it, the serving process reads it.
const StateOpenTaskWindow = "desktop.openTaskWindow"

// Start is what the window process needs to open windows (Hello).
type Start struct {
	DB, Version, ShimPath string
	// Tray says whether the desktop shows mcptray's tray icon. Without one
	// the manager window is the app: closing it quits.
	Tray bool
	// TrayHost says what was found of a tray host (Help ▸ Copy
	// diagnostics).
	TrayHost string
	// Secrets is the secret store the server opened: the window process
	// opens the same one, without probing the keyring again.
	Secrets SecretStore
	// HasTasks: the server runs tasks, so View ▸ Task window works.
	HasTasks bool
	// View is where the person left the last manager window of this run.
	View  View
	State State
}

// SecretStore names the secret store the server opened; Kind "" is none.
type SecretStore struct {
	Kind, Reason, Service, File string
}

// Readiness is Ready's params: Problem is why the window process cannot
// show windows (no display, no OpenGL), "" when it can.
type Readiness struct {
	Problem string `json:",omitempty"`
}

// State is what the windows show of the server: its address, and whether
// serving is paused. (The questions waiting they count themselves.)
type State struct {
	URL    string
	Paused bool
}

// View is where the person left the manager window: the tab, and each
// catalog tab's search and open entry.
type View struct {
	Tab   string
	Panes []Pane
}

// Pane is a catalog tab's search and the entry open in it.
type Pane struct {
	Search, Kind, Key, Label string
}

// SettingsChange is SaveSettings's params: the settings, and whether to
// move to their port first.
type SettingsChange struct {
	Settings catalog.Settings
	MovePort bool
}

// SettingsSaved is SaveSettings's result: whether the server moved to
// another port, and its address now.
type SettingsSaved struct {
	Moved bool
	URL   string
}

// Idleness is Idle's params: how many of the serving process's calls the
// window process has received (Open, Ask, AskQuit), all answered.
type Idleness struct {
	Received int
}

// IdleAnswer is Idle's result.
type IdleAnswer struct {
	// End: the window process may end now.
	End bool
}

// The windows Open opens.
const (
	OpenManager  = "manager"
	OpenTasks    = "tasks"
	OpenConnect  = "connect"
	OpenQuestion = "question"
)

// Window is Open's params: which window (OpenManager, OpenTasks,
// OpenConnect, OpenQuestion); for the manager, whether to greet the person
// (the first start of the app).
type Window struct {
	What    string
	Welcome bool `json:",omitempty"`
}

// Question is Ask's params: the question, and when it stops waiting for
// an answer (zero: never), which the window counts down.
type Question struct {
	mcpcore.Question
	Deadline time.Time `json:"deadline,omitzero"`
}

// Task is a task as the windows show it: no result and no input, only
// what says where it is.
type Task struct {
	ID, Tool, Title       string
	Status, StatusMessage string
	CreatedAt, UpdatedAt  time.Time
	Progress, Total       float64
	ProgressMessage       string
}

// TaskOf is t on the link.
func TaskOf(t record.Task) Task {
	return Task{ID: t.ID, Tool: t.Tool, Title: t.Title, Status: t.Status, StatusMessage: t.StatusMessage,
		CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt, Progress: t.Progress, Total: t.Total, ProgressMessage: t.ProgressMessage}
}

// Core is t as mcpcore has it, with what the link leaves out empty.
func (t Task) Core() record.Task {
	return record.Task{ID: t.ID, Tool: t.Tool, Title: t.Title, Status: t.Status, StatusMessage: t.StatusMessage,
		CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt, Progress: t.Progress, Total: t.Total, ProgressMessage: t.ProgressMessage}
}

// codeInvalidSettings is the JSON-RPC error code of settings that did not
// validate; its data are the problems.
const codeInvalidSettings = -32010

// SettingsError is err as SaveSettings answers it: a
// *catalog.ValidationError keeps its problems, so that the window shows
// each next to its field.
func SettingsError(err error) error {
	var ve *catalog.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	data, merr := json.Marshal(ve.Problems)
	if merr != nil {
		return err
	}
	return &winlink.Error{Code: codeInvalidSettings, Message: ve.Error(), Data: data}
}

// SettingsProblem is SaveSettings's error as the window process gets it:
// the *catalog.ValidationError SettingsError sent, or err itself.
func SettingsProblem(err error) error {
	var we *winlink.Error
	if errors.As(err, &we) && we.Code == codeInvalidSettings {
		ve := &catalog.ValidationError{}
		if json.Unmarshal(we.Data, &ve.Problems) == nil {
			return ve
		}
	}
	return err
}
