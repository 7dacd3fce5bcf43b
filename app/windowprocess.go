package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"

	"fyne.io/fyne/v2"

	"github.com/mcptray/mcptray/internal/winlink"
	"github.com/mcptray/mcptray/mcpcore"
)

// The manager window in its own process.
//
// With a tray, the mcptray process that serves sits in the tray all day,
// and whatever a window once drew stays in it: Fyne keeps the fonts it
// parsed for the window, the renderers of widgets the window held, the heap
// they left fragmented, and the code pages they ran. So this process opens
// the manager window in a process of its own (StartWindow), which ends when
// the window closes: at rest, the serving process holds no more than a
// Fyne app with a tray icon. The two talk JSON-RPC over the window
// process's stdin and stdout (internal/winlink); the window process reads
// and writes the catalog, the secrets and the activity log itself, through
// its own Store, and asks this process for what only the server knows or
// does (the methods below).

// WindowProcess is a started manager window process: its stdin and stdout,
// linked to this process, and Wait, which returns once it has exited.
type WindowProcess struct {
	Stdin  io.WriteCloser
	Stdout io.ReadCloser
	Wait   func() error
}

// WindowStarter starts a manager window process (`mcptray window`, which
// runs RunWindow).
type WindowStarter func() (WindowProcess, error)

// Methods of the link. The window process calls the first group; this
// process sends it the second, as notifications.
const (
	// winStart: the window process's first call, answered with windowStart.
	winStart           = "start"
	winSetPaused       = "setPaused"
	winSaveSettings    = "saveSettings"
	winSync            = "sync"
	winApprovals       = "approvals"
	winForgetApproval  = "forgetApproval"
	winForgetApprovals = "forgetAllApprovals"
	winShowTasks       = "showTasks"
	winRaiseQuestion   = "raiseQuestion"
	// winQuit: the person quits mcptray (any editor's changes were
	// confirmed in the window): stop serving and end both processes.
	winQuit = "quit"
	// winClosed: the window closed to the tray, leaving windowView; its
	// process ends next.
	winClosed = "closed"

	winState            = "state"
	winShow             = "show"
	winApprovalsChanged = "approvalsChanged"
	// winAskQuit: Quit in the tray; the window asks about unsaved changes,
	// then calls winQuit.
	winAskQuit = "askQuit"
	// winExit: this process is quitting; the window ends at once.
	winExit = "exit"
)

// codeInvalidSettings is the JSON-RPC error code of settings that did not
// validate (*mcpcore.ValidationError); its data are the problems.
const codeInvalidSettings = -32010

// windowStart is what the window process needs to open the window.
type windowStart struct {
	DB, Version, ShimPath string
	// Welcome: the first start of the app, greeted in this window.
	Welcome bool
	// TrayHost is the tray host's description (Help ▸ Copy diagnostics).
	TrayHost string
	Secrets  windowSecrets
	// HasTasks: the server runs tasks, so View ▸ Task window works.
	HasTasks bool
	// View is where the person left the last window of this run.
	View  windowView
	State windowState
}

// windowSecrets is the secret store the server opened: the window process
// opens the same one, without probing the keyring again. Kind "" is none.
type windowSecrets struct {
	Kind, Reason, Service, File string
}

// windowState is what the window shows of the server: the address, whether
// serving is paused, and how many questions wait for the person.
type windowState struct {
	URL     string
	Paused  bool
	Waiting int
}

// windowView is managerView on the link.
type windowView struct {
	Tab   string
	Panes []windowPane
}

// windowPane is paneView on the link: the search and the entry open.
type windowPane struct {
	Search, Kind, Key, Label string
}

// toWire is v on the link.
func (v managerView) toWire() windowView {
	w := windowView{Tab: v.tab}
	for _, p := range v.panes {
		w.Panes = append(w.Panes, windowPane{Search: p.search, Kind: p.open.kind, Key: p.open.key, Label: p.open.label})
	}
	return w
}

// fromWire is the managerView w carries.
func (w windowView) fromWire() managerView {
	v := managerView{tab: w.Tab}
	for _, p := range w.Panes {
		v.panes = append(v.panes, paneView{search: p.Search, open: catalogEntry{kind: p.Kind, key: p.Key, label: p.Label}})
	}
	return v
}

// windowProc is this process's side of a running window process.
type windowProc struct {
	u    *UI
	link *winlink.Conn
	// closing: the window said it closed; its process is on its way out,
	// so opening the window starts a new one.
	closing bool
	// sent is the state the window was last told, so that a round of the
	// tray that changed nothing of it sends nothing.
	mu   sync.Mutex
	sent windowState
}

// startWindow starts a window process and links it to u; call it on the
// UI goroutine.
func (u *UI) startWindow() error {
	p, err := u.cfg.StartWindow()
	if err != nil {
		return fmt.Errorf("starting the manager window's process: %w", err)
	}
	w := &windowProc{u: u}
	w.link = winlink.New(p.Stdout, p.Stdin, w.handle)
	u.window = w
	ctx, stop := context.WithCancel(context.Background())
	go w.followApprovals(ctx)
	go func() {
		err := w.link.Run(ctx)
		stop()
		_ = p.Stdin.Close()
		werr := p.Wait()
		fyne.Do(func() {
			if u.window == w {
				u.window = nil
			}
			if w.closing || err == nil && werr == nil {
				return
			}
			// It failed (it could not open the database, say, or it
			// crashed): the person who asked for a window gets one,
			// here, for the rest of this run.
			slog.Warn("the manager window's process failed; the window opens in this process", "link", err, "exit", werr)
			u.windowFailed = true
			u.OpenManager()
		})
	}()
	return nil
}

// notify sends the window a notification; a window gone is no error.
func (w *windowProc) notify(method string, params any) {
	if err := w.link.Notify(method, params); err != nil && !errors.Is(err, winlink.ErrClosed) {
		slog.Warn("telling the manager window", "method", method, "err", err)
	}
}

// windowState is the server's state as the window shows it.
func (u *UI) windowState() windowState {
	s := windowState{Waiting: u.waiting()}
	if srv := u.cfg.Server; srv != nil {
		s.URL, s.Paused = srv.URL(), srv.Paused()
	}
	return s
}

// sendState tells the window the server's state when it changed.
func (w *windowProc) sendState(s windowState) {
	w.mu.Lock()
	same := s == w.sent
	w.sent = s
	w.mu.Unlock()
	if !same {
		w.notify(winState, s)
	}
}

// followApprovals tells the window when a remembered approval comes or
// goes, as long as the link lives.
func (w *windowProc) followApprovals(ctx context.Context) {
	eng := w.u.cfg.Engine
	if eng == nil {
		return
	}
	for range eng.SubscribeApprovals(ctx) {
		w.notify(winApprovalsChanged, nil)
	}
}

// start is the answer to winStart. The welcome goes to the first window
// only.
func (w *windowProc) start() windowStart {
	var s windowStart
	fyne.DoAndWait(func() {
		u := w.u
		s = windowStart{DB: u.cfg.DB, Version: u.cfg.Version, ShimPath: u.cfg.ShimPath, Welcome: u.welcomeDue,
			TrayHost: u.host.About, HasTasks: u.cfg.Engine != nil, View: u.view.toWire(), State: u.windowState()}
		u.welcomeDue = false
		if sec := u.cfg.Secrets; sec != nil {
			s.Secrets = windowSecrets{Kind: sec.Backend(), Reason: sec.Reason(), Service: sec.Service(), File: sec.File()}
		}
		w.mu.Lock()
		w.sent = s.State
		w.mu.Unlock()
	})
	return s
}

// handle answers the window process.
func (w *windowProc) handle(ctx context.Context, method string, params json.RawMessage) (any, error) {
	u := w.u
	eng := u.cfg.Engine
	switch method {
	case winStart:
		return w.start(), nil
	case winSetPaused:
		var paused bool
		if err := json.Unmarshal(params, &paused); err != nil {
			return nil, badParams(method, err)
		}
		if u.cfg.Server != nil {
			u.cfg.Server.SetPaused(paused)
		}
		fyne.Do(u.stateChanged)
		return nil, nil
	case winSaveSettings:
		var p saveSettingsParams
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, badParams(method, err)
		}
		if u.cfg.Server == nil {
			return nil, errors.New("mcptray is not serving")
		}
		moved, err := u.cfg.Server.SaveSettings(ctx, p.Settings, p.MovePort)
		var ve *mcpcore.ValidationError
		if errors.As(err, &ve) {
			data, _ := json.Marshal(ve.Problems)
			return nil, &winlink.Error{Code: codeInvalidSettings, Message: ve.Error(), Data: data}
		}
		if err != nil {
			return nil, err
		}
		fyne.Do(u.stateChanged)
		return saveSettingsResult{Moved: moved, URL: u.cfg.Server.URL()}, nil
	case winSync:
		if eng == nil {
			return nil, nil
		}
		return nil, eng.Sync(ctx)
	case winApprovals:
		if eng == nil {
			return []mcpcore.RememberedApproval{}, nil
		}
		return eng.RememberedApprovals(ctx)
	case winForgetApproval:
		var k mcpcore.ApprovalKey
		if err := json.Unmarshal(params, &k); err != nil {
			return nil, badParams(method, err)
		}
		if eng == nil {
			return nil, nil
		}
		return nil, eng.ForgetApproval(ctx, k)
	case winForgetApprovals:
		if eng == nil {
			return nil, nil
		}
		return nil, eng.ForgetAllApprovals(ctx)
	case winShowTasks:
		fyne.Do(func() { u.ShowTaskWindow() })
		return nil, nil
	case winRaiseQuestion:
		fyne.Do(u.raiseQuestion)
		return nil, nil
	case winQuit:
		fyne.Do(u.quit)
		return nil, nil
	case winClosed:
		var v windowView
		if err := json.Unmarshal(params, &v); err != nil {
			return nil, badParams(method, err)
		}
		fyne.Do(func() {
			w.closing = true
			u.view = v.fromWire()
		})
		return nil, nil
	}
	return nil, &winlink.Error{Code: winlink.CodeMethodNotFound, Message: "no method " + method}
}

// saveSettingsParams are winSaveSettings's params.
type saveSettingsParams struct {
	Settings mcpcore.Settings
	MovePort bool
}

// saveSettingsResult is winSaveSettings's result: whether the server
// moved to another port, and its address now.
type saveSettingsResult struct {
	Moved bool
	URL   string
}

// badParams is the error of params that do not decode.
func badParams(method string, err error) error {
	return &winlink.Error{Code: winlink.CodeInvalidParams, Message: fmt.Sprintf("%s: %v", method, err)}
}
