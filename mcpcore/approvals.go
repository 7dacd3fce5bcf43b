package mcpcore

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/signals"
	"github.com/mcptray/mcptray/record"
)

// ApprovalStore keeps the approvals remembered until the person revokes
// them, across restarts. storage.Store implements it.
type ApprovalStore interface {
	// IsApprovalRemembered reports whether k is kept.
	IsApprovalRemembered(ctx context.Context, k record.ApprovalKey) (bool, error)
	// RememberApproval keeps k (keeping the first Since when it is kept
	// already).
	RememberApproval(ctx context.Context, k record.ApprovalKey) error
	// ForgetApproval drops k; forgetting one that is not kept is no error.
	ForgetApproval(ctx context.Context, k record.ApprovalKey) error
	// RememberedApprovals lists every kept approval, UntilRevoked set.
	RememberedApprovals(ctx context.Context) ([]record.RememberedApproval, error)
}

// remembered holds the approvals remembered until mcptray restarts, and
// who wants to hear when any remembered approval changes.
type remembered struct {
	mu    sync.Mutex
	since map[record.ApprovalKey]time.Time
	subs  signals.Set
}

func (r *remembered) has(k record.ApprovalKey) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.since[k]
	return ok
}

func (r *remembered) add(k record.ApprovalKey) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.since == nil {
		r.since = map[record.ApprovalKey]time.Time{}
	}
	if _, ok := r.since[k]; !ok {
		r.since[k] = time.Now()
	}
}

func (r *remembered) forget(k record.ApprovalKey) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.since, k)
}

func (r *remembered) list() []record.RememberedApproval {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]record.RememberedApproval, 0, len(r.since))
	for k, t := range r.since {
		out = append(out, record.RememberedApproval{ApprovalKey: k, Since: t})
	}
	return out
}

// changed tells every subscriber, without waiting for any: a subscriber
// that has not read the last signal yet gets only one.
func (r *remembered) changed() { r.subs.Notify() }

// toolHash is the hash remembered approvals are bound to: SHA-256 of the
// tool's canonical JSON (object keys sorted, no spaces, numbers as
// written), its Disabled flag left out, so turning a tool off and on again
// keeps its approvals while any other edit asks again. Canonical, not just
// marshalled: the tool's hand-written schemas are kept verbatim, and a
// re-import that only reformats them must not count as an edit.
func toolHash(t catalog.Tool) (string, error) {
	t.Disabled = false
	raw, err := json.Marshal(t)
	if err != nil {
		return "", fmt.Errorf("hashing tool %q: %w", t.Name, err)
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return "", fmt.Errorf("hashing tool %q: %w", t.Name, err)
	}
	canon, err := json.Marshal(v) // maps marshal with sorted keys
	if err != nil {
		return "", fmt.Errorf("hashing tool %q: %w", t.Name, err)
	}
	sum := sha256.Sum256(canon)
	return hex.EncodeToString(sum[:]), nil
}

// approvalKey is the key the approvals of call c are remembered under:
// the tool as defined, and the AI app's answers to its earlier steps
// (inputs), which the person saw in the approval. A later call whose app
// answers otherwise may run something else, so it is asked again.
func approvalKey(c deskCall, inputs map[string]any) (record.ApprovalKey, error) {
	h, err := toolHash(c.def)
	if err != nil {
		return record.ApprovalKey{}, err
	}
	if in := clientInputs(inputs); len(in) > 0 {
		canon, err := json.Marshal(in) // maps marshal with sorted keys
		if err != nil {
			return record.ApprovalKey{}, fmt.Errorf("hashing the answers to %q's steps: %w", c.def.Name, err)
		}
		sum := sha256.Sum256(canon)
		h += "/" + hex.EncodeToString(sum[:])
	}
	return record.ApprovalKey{Token: c.token, Client: c.client, Tool: c.def.Name, ToolHash: h}, nil
}

// rememberedFor says for how long k is remembered: RememberUntilRevoked,
// RememberUntilRestart, or "" when it is not. A store that cannot be read
// is logged and counts as not remembered: the person is asked.
func (e *Engine) rememberedFor(ctx context.Context, k record.ApprovalKey) string {
	if st := e.opts.Approvals; st != nil {
		ok, err := st.IsApprovalRemembered(ctx, k)
		if err != nil {
			e.log.Error("reading the remembered approvals", "tool", k.Tool, "err", err)
		} else if ok {
			return record.RememberUntilRevoked
		}
	}
	if e.remember.has(k) {
		return record.RememberUntilRestart
	}
	return ""
}

// rememberApproval remembers k for as long as how says. Without an
// ApprovalStore, an approval meant to last until revoked lasts until
// mcptray restarts, and the log says so.
func (e *Engine) rememberApproval(ctx context.Context, k record.ApprovalKey, how string) error {
	switch how {
	case record.RememberUntilRevoked:
		if st := e.opts.Approvals; st != nil {
			if err := st.RememberApproval(ctx, k); err != nil {
				return fmt.Errorf("remembering the approval of %q: %w", k.Tool, err)
			}
			break
		}
		e.log.Warn("no approval store: remembering an approval until mcptray restarts instead of until revoked", "tool", k.Tool)
		e.remember.add(k)
	case record.RememberUntilRestart:
		e.remember.add(k)
	default:
		return fmt.Errorf("remembering the approval of %q: unknown duration %q (want %q or %q)", k.Tool, how, record.RememberUntilRestart, record.RememberUntilRevoked)
	}
	e.remember.changed()
	return nil
}

// RememberedApprovals lists the approvals remembered now, newest first:
// those kept until mcptray restarts and those kept until revoked, each
// with the tool's title now and whether it still matches the tool's
// definition.
func (e *Engine) RememberedApprovals(ctx context.Context) ([]record.RememberedApproval, error) {
	out := e.remember.list()
	if st := e.opts.Approvals; st != nil {
		kept, err := st.RememberedApprovals(ctx)
		if err != nil {
			return nil, fmt.Errorf("listing the remembered approvals: %w", err)
		}
		out = append(out, kept...)
	}
	// The source's catalog, not the engine's: a list read right after an
	// edit must not race the engine's resync.
	cat, err := e.src.Catalog(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing the remembered approvals: %w", err)
	}
	tools := map[string]catalog.Tool{}
	for _, t := range cat.Tools {
		tools[t.Name] = t
	}
	for i := range out {
		a := &out[i]
		t, ok := tools[a.Tool]
		if !ok {
			continue
		}
		a.ToolTitle = t.Title
		h, err := toolHash(t)
		a.Matches = err == nil && h == a.DefinitionHash()
	}
	slices.SortStableFunc(out, func(a, b record.RememberedApproval) int {
		return cmp.Or(b.Since.Compare(a.Since), cmp.Compare(a.Client, b.Client), cmp.Compare(a.Tool, b.Tool))
	})
	return out, nil
}

// ForgetApproval revokes the approval k, however long it was remembered
// for: the next such call asks again.
func (e *Engine) ForgetApproval(ctx context.Context, k record.ApprovalKey) error {
	e.remember.forget(k)
	defer e.remember.changed()
	if st := e.opts.Approvals; st != nil {
		if err := st.ForgetApproval(ctx, k); err != nil {
			return fmt.Errorf("revoking the approval of %q for %q: %w", k.Tool, k.Client, err)
		}
	}
	return nil
}

// ForgetAllApprovals revokes every remembered approval.
func (e *Engine) ForgetAllApprovals(ctx context.Context) error {
	all, err := e.RememberedApprovals(ctx)
	if err != nil {
		return err
	}
	var errs []error
	for _, a := range all {
		errs = append(errs, e.ForgetApproval(ctx, a.ApprovalKey))
	}
	return errors.Join(errs...)
}

// SubscribeApprovals signals on the returned channel whenever a remembered
// approval is added or revoked, until ctx ends or the engine shuts down;
// then the channel is closed. Signals coalesce: read the list anew
// (RememberedApprovals) on each.
func (e *Engine) SubscribeApprovals(ctx context.Context) <-chan struct{} {
	return e.remember.subs.Subscribe(ctx)
}
