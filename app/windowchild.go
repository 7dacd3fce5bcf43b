package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"fyne.io/fyne/v2"

	"github.com/mcptray/mcptray/app/tryit"
	"github.com/mcptray/mcptray/internal/winlink"
	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/storage"
)

// WindowEnv is what the manager window's own process runs on.
type WindowEnv struct {
	// Link is the process's stdin and stdout, the serving process's pipe.
	Link io.Reader
	Out  io.Writer
	// Screen is as Config.Screen.
	Screen func() (width, height int)
}

// RunWindow is the manager window's own process (`mcptray window`, started
// by the serving process's StartWindow): it shows the window on the
// database the serving process names, and returns once the window has
// closed, the person has quit, or the serving process has gone.
func RunWindow(ctx context.Context, a fyne.App, env WindowEnv) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	u, done, err := openWindowProcess(ctx, a, env)
	if err != nil {
		return err
	}
	defer done()
	u.Run(ctx)
	return nil
}

// openWindowProcess links to the serving process, opens what it names and
// builds the UI of the window, which Run shows; done closes what it
// opened. The window quits when the link ends.
func openWindowProcess(ctx context.Context, a fyne.App, env WindowEnv) (u *UI, done func(), err error) {
	p := &parentLink{}
	p.link = winlink.New(env.Link, env.Out, p.handle)
	linkDone := make(chan error, 1)
	go func() { linkDone <- p.link.Run(ctx) }()
	var start windowStart
	// Only the serving process starts this one, and answers at once:
	// anything else on stdin (a person running the command) ends it.
	sctx, cancel := context.WithTimeout(ctx, startTimeout)
	err = p.link.Call(sctx, winStart, nil, &start)
	cancel()
	if err != nil {
		return nil, nil, fmt.Errorf("asking the serving mcptray what to show: %w", err)
	}
	p.state, p.hasTasks = start.State, start.HasTasks
	st, err := storage.Open(start.DB)
	if err != nil {
		return nil, nil, err
	}
	closers := []func() error{st.Close}
	done = func() {
		for i := len(closers) - 1; i >= 0; i-- {
			_ = closers[i]()
		}
	}
	cfg := Config{Store: st, Server: p, Approvals: p, DB: start.DB, Version: start.Version, ShimPath: start.ShimPath,
		Screen: env.Screen, Welcome: start.Welcome, ShowManager: true, parent: p}
	if s := start.Secrets; s.Kind != "" {
		sec, err := st.OpenSecrets(ctx, storage.WithKeyringService(s.Service), storage.WithSecretsFile(s.File),
			storage.WithKnownBackend(s.Kind, s.Reason))
		if err != nil {
			slog.Warn("the manager window cannot manage secrets", "err", err)
		} else {
			cfg.Secrets = sec
		}
	}
	if tr, err := tryit.New(st, p.URL); err != nil {
		slog.Warn("the tool editor's Try it is off", "err", err)
	} else {
		closers = append(closers, tr.Close)
		cfg.TryIt = TryItTrier(tr, p)
	}
	u = newUI(a, cfg, TrayHost{Present: true, About: start.TrayHost})
	u.view = start.View.fromWire()
	p.mu.Lock()
	p.ui = u
	p.mu.Unlock()
	go func() {
		// The serving process gone (quit, or killed): nothing is left
		// to save to; the window goes with it.
		if err := <-linkDone; err != nil {
			slog.Warn("the link to the serving mcptray broke", "err", err)
		}
		fyne.Do(u.quitApp)
	}()
	return u, done, nil
}

// startTimeout bounds the wait for the serving process's first answer.
const startTimeout = 30 * time.Second

// parentLink is the serving process as the window process sees it: the
// Server, the remembered approvals and the catalog's Sync, over the link.
type parentLink struct {
	link *winlink.Conn
	ui   *UI

	mu       sync.Mutex
	state    windowState
	hasTasks bool
	subs     map[chan struct{}]struct{}
}

// handle answers the serving process's notifications.
func (p *parentLink) handle(_ context.Context, method string, params json.RawMessage) (any, error) {
	p.mu.Lock()
	u := p.ui
	p.mu.Unlock()
	if u == nil {
		return nil, nil // before the window is up: the start's state is news enough
	}
	switch method {
	case winState:
		var s windowState
		if err := json.Unmarshal(params, &s); err != nil {
			return nil, badParams(method, err)
		}
		p.mu.Lock()
		p.state = s
		p.mu.Unlock()
		fyne.Do(u.stateChanged)
	case winShow:
		fyne.Do(u.OpenManager)
	case winApprovalsChanged:
		p.mu.Lock()
		for ch := range p.subs {
			select {
			case ch <- struct{}{}:
			default:
			}
		}
		p.mu.Unlock()
	case winAskQuit:
		fyne.Do(u.Quit)
	case winExit:
		fyne.Do(u.quitApp)
	}
	return nil, nil
}

// notify tells the serving process something, logging what fails.
func (p *parentLink) notify(method string, params any) {
	if err := p.link.Notify(method, params); err != nil {
		slog.Warn("telling the serving mcptray", "method", method, "err", err)
	}
}

// URL is the server's address (Server).
func (p *parentLink) URL() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.state.URL
}

// Paused says whether serving is paused (Server).
func (p *parentLink) Paused() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.state.Paused
}

// SetPaused pauses or resumes serving (Server); the window shows it at
// once, and the serving process confirms with its state.
func (p *parentLink) SetPaused(paused bool) {
	p.mu.Lock()
	p.state.Paused = paused
	p.mu.Unlock()
	if err := p.link.Call(context.Background(), winSetPaused, paused, nil); err != nil {
		slog.Warn("asking the serving mcptray to pause or resume", "err", err)
	}
}

// SaveSettings stores and applies set in the serving process (Server).
func (p *parentLink) SaveSettings(ctx context.Context, set mcpcore.Settings, movePort bool) (bool, error) {
	var res saveSettingsResult
	err := p.link.Call(ctx, winSaveSettings, saveSettingsParams{Settings: set, MovePort: movePort}, &res)
	var we *winlink.Error
	if errors.As(err, &we) && we.Code == codeInvalidSettings {
		ve := &mcpcore.ValidationError{}
		if json.Unmarshal(we.Data, &ve.Problems) == nil {
			return false, ve
		}
	}
	if err != nil {
		return false, err
	}
	// The settings tab says where mcptray serves now, before the serving
	// process's next state could arrive.
	p.mu.Lock()
	p.state.URL = res.URL
	p.mu.Unlock()
	return res.Moved, nil
}

// Sync brings the server in line with the stored catalog (Syncer).
func (p *parentLink) Sync(ctx context.Context) error {
	return p.link.Call(ctx, winSync, nil, nil)
}

// RememberedApprovals lists the server's remembered approvals
// (ApprovalKeeper).
func (p *parentLink) RememberedApprovals(ctx context.Context) ([]mcpcore.RememberedApproval, error) {
	var out []mcpcore.RememberedApproval
	if err := p.link.Call(ctx, winApprovals, nil, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// ForgetApproval revokes one (ApprovalKeeper).
func (p *parentLink) ForgetApproval(ctx context.Context, k mcpcore.ApprovalKey) error {
	return p.link.Call(ctx, winForgetApproval, k, nil)
}

// ForgetAllApprovals revokes them all (ApprovalKeeper).
func (p *parentLink) ForgetAllApprovals(ctx context.Context) error {
	return p.link.Call(ctx, winForgetApprovals, nil, nil)
}

// SubscribeApprovals signals each change the serving process reports,
// until ctx ends or the link does (ApprovalKeeper).
func (p *parentLink) SubscribeApprovals(ctx context.Context) <-chan struct{} {
	ch := make(chan struct{}, 1)
	p.mu.Lock()
	if p.subs == nil {
		p.subs = map[chan struct{}]struct{}{}
	}
	p.subs[ch] = struct{}{}
	p.mu.Unlock()
	go func() {
		select {
		case <-ctx.Done():
		case <-p.link.Done():
		}
		p.mu.Lock()
		delete(p.subs, ch)
		close(ch)
		p.mu.Unlock()
	}()
	return ch
}

// waiting is how many questions wait for the person.
func (p *parentLink) waiting() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.state.Waiting
}
