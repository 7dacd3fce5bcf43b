package tray

import (
	"context"
	"errors"
	"sync"

	"github.com/mcptray/mcptray/app/link"
	"github.com/mcptray/mcptray/internal/signals"
	"github.com/mcptray/mcptray/internal/winlink"
	"github.com/mcptray/mcptray/mcpcore"
)

// Asker answers the engine's desktop questions (approvals, forms, URLs) in
// the window process, which it starts when none runs: the question's
// window opens there, and its answer comes back over the link. A question
// withdrawn (its ctx ends: the AI app cancelled, it timed out, the server
// stops) closes its window.
//
// When the window process cannot give an answer, the question is answered
// all the same, at once: "nobody answered" when the process died while it
// was asked, and "nobody could be asked", with the reason, when no window
// can open at all (then forms and URLs go to an AI app that can answer
// them: ClientFallback).
type Asker struct {
	mu sync.Mutex
	// win is the window process's supervisor, set by New before anything
	// is asked.
	win *windows
	// open counts the questions asked and not answered yet.
	open    int
	changed signals.Set
}

var _ mcpcore.Asker = (*Asker)(nil)

// NewAsker returns an Asker for a Tray to serve: hand it to the server
// (daemon.Config.Asker), then to New.
func NewAsker() *Asker { return &Asker{} }

// errNoTray is what questions get when the Asker serves no Tray.
var errNoTray = errors.New("the desktop app is not running")

// Ask asks q in the window process and blocks until the person answers it
// or ctx ends.
func (a *Asker) Ask(ctx context.Context, q mcpcore.Question) (mcpcore.Answer, error) {
	a.count(1)
	defer a.count(-1)
	a.mu.Lock()
	w := a.win
	a.mu.Unlock()
	if w == nil {
		return nobodyCould(errNoTray), nil
	}
	deadline, _ := ctx.Deadline()
	p, err := w.get(ctx, false)
	if err != nil {
		if ctx.Err() != nil {
			return mcpcore.Answer{}, ctx.Err()
		}
		return nobodyCould(err), nil
	}
	ans, err := link.Ask.Call(ctx, p.link, link.Question{Question: q, Deadline: deadline})
	switch {
	case err == nil:
		return ans, nil
	case ctx.Err() != nil:
		return mcpcore.Answer{}, ctx.Err()
	case errors.Is(err, winlink.ErrClosed):
		return mcpcore.Answer{Action: "decline", Unanswered: true,
			Reason: "Nobody at the computer answered: mcptray's window closed before anyone could"}, nil
	}
	return mcpcore.Answer{}, err
}

// nobodyCould is the answer to a question no window could ask.
func nobodyCould(why error) mcpcore.Answer {
	return mcpcore.Answer{Action: "decline", Unanswered: true, Reason: "Nobody at the computer could be asked: " + why.Error()}
}

// ClientFallback says whether desktop forms and URLs go to an AI app that
// can answer them: while no window can open.
func (a *Asker) ClientFallback() bool {
	a.mu.Lock()
	w := a.win
	a.mu.Unlock()
	if w == nil {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.problem != ""
}

// count adds n to the questions open and signals the subscribers.
func (a *Asker) count(n int) {
	a.mu.Lock()
	a.open += n
	a.mu.Unlock()
	a.changed.Notify()
}

// Pending reports how many questions wait for an answer.
func (a *Asker) Pending() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.open
}

// Subscribe returns a channel that receives a value each time Pending
// changes; signals coalesce. It is closed when ctx ends.
func (a *Asker) Subscribe(ctx context.Context) <-chan struct{} { return a.changed.Subscribe(ctx) }
