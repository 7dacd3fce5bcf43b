package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"slices"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/record"
	"github.com/mcptray/mcptray/storage"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Lister lists the tools a server offers now (upstream.Manager).
type Lister interface {
	Tools(ctx context.Context, server string) ([]*mcp.Tool, error)
}

// Store keeps the servers, their approved tools and the changes waiting
// for approval (storage.Store).
type Store interface {
	Upstream(ctx context.Context, name string) (catalog.Upstream, error)
	UpstreamTools(ctx context.Context, server string) ([]catalog.Tool, error)
	UpstreamChanges(ctx context.Context, server string) ([]record.UpstreamChange, error)
	ApplyUpstream(ctx context.Context, u storage.UpstreamUpdate) ([]catalog.Problem, error)
}

// offered is one tool a server offers now.
type offered struct {
	tool *mcp.Tool
	hash string
}

func offeredTools(ctx context.Context, l Lister, server string) (map[string]offered, error) {
	tools, err := l.Tools(ctx, server)
	if err != nil {
		return nil, err
	}
	out := make(map[string]offered, len(tools))
	for _, t := range tools {
		h, err := DefinitionHash(t)
		if err != nil {
			return nil, err
		}
		out[t.Name] = offered{tool: t, hash: h}
	}
	return out, nil
}

// storedByRemote indexes a server's stored tools by their name on the
// server.
func storedByRemote(tools []catalog.Tool) map[string]catalog.Tool {
	out := make(map[string]catalog.Tool, len(tools))
	for _, t := range tools {
		out[t.Action.Upstream.Tool] = t
	}
	return out
}

// Sync reads the tools server offers and brings the catalog in line: a
// tool offered as approved is served (again), one changed or gone is held
// back, and every new, changed or gone tool waits for the person's
// approval. It returns the changes waiting now.
func Sync(ctx context.Context, st Store, l Lister, server string) ([]record.UpstreamChange, error) {
	live, err := offeredTools(ctx, l, server)
	if err != nil {
		return nil, fmt.Errorf("read the tools of server %q: %w", server, err)
	}
	return syncOffered(ctx, st, server, live, nil)
}

// syncOffered is Sync, given what the server offers: its tools, and its
// other entries (nil: left as they are).
func syncOffered(ctx context.Context, st Store, server string, live map[string]offered, more *storage.UpstreamOthers) ([]record.UpstreamChange, error) {
	u, err := st.Upstream(ctx, server)
	if err != nil {
		return nil, err
	}
	tools, err := st.UpstreamTools(ctx, server)
	if err != nil {
		return nil, err
	}
	up := storage.UpstreamUpdate{Server: server, Others: more}
	stored := storedByRemote(tools)
	for _, remote := range slices.Sorted(maps.Keys(stored)) {
		t := stored[remote]
		pin := t.Action.Upstream
		o, ok := live[remote]
		switch {
		case ok && o.hash == pin.Pin:
			name := ServedName(u.ToolPrefix(), remote)
			if pin.Held || t.Name != name {
				t.Name = name
				t.Action.Upstream = &catalog.UpstreamTool{Server: server, Tool: remote, Pin: pin.Pin}
				up.Put = append(up.Put, t)
			}
			if t.Name != stored[remote].Name {
				up.Remove = append(up.Remove, stored[remote].Name)
			}
		case ok:
			up.Put = appendHeld(up.Put, t)
			def, err := json.Marshal(o.tool)
			if err != nil {
				return nil, fmt.Errorf("encode tool %q: %w", remote, err)
			}
			up.Changes = append(up.Changes, record.UpstreamChange{Server: server, Tool: remote, Kind: record.UpstreamChanged, Definition: def, Hash: o.hash})
		default:
			up.Put = appendHeld(up.Put, t)
			up.Changes = append(up.Changes, record.UpstreamChange{Server: server, Tool: remote, Kind: record.UpstreamGone})
		}
	}
	for _, remote := range slices.Sorted(maps.Keys(live)) {
		if _, ok := stored[remote]; ok {
			continue
		}
		o := live[remote]
		def, err := json.Marshal(o.tool)
		if err != nil {
			return nil, fmt.Errorf("encode tool %q: %w", remote, err)
		}
		up.Changes = append(up.Changes, record.UpstreamChange{Server: server, Tool: remote, Kind: record.UpstreamNew, Definition: def, Hash: o.hash})
	}
	left, err := st.ApplyUpstream(ctx, up)
	if err != nil {
		return nil, err
	}
	for _, p := range left {
		slog.Warn("an entry of a server mcptray fronts is not served", "server", server, "entry", p.Entry, "why", p.Message)
	}
	return st.UpstreamChanges(ctx, server)
}

// appendHeld appends t held back, unless it is already.
func appendHeld(put []catalog.Tool, t catalog.Tool) []catalog.Tool {
	if t.Action.Upstream.Held {
		return put
	}
	pin := *t.Action.Upstream
	pin.Held = true
	t.Action.Upstream = &pin
	return append(put, t)
}

// Approve approves the waiting changes of server's tools named by their
// names on the server (every waiting change when names is empty): a new
// or changed tool is served as the server offers it now, pinned to that
// definition, keeping what the person set on it; a gone tool leaves the
// catalog. It returns the changes approved. A name with no waiting change
// is an error, and nothing is approved.
func Approve(ctx context.Context, st Store, server string, names []string) ([]record.UpstreamChange, error) {
	u, err := st.Upstream(ctx, server)
	if err != nil {
		return nil, err
	}
	waiting, err := st.UpstreamChanges(ctx, server)
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		if !slices.ContainsFunc(waiting, func(c record.UpstreamChange) bool { return c.Tool == n }) {
			return nil, fmt.Errorf("server %q has no change waiting for its tool %q", server, n)
		}
	}
	tools, err := st.UpstreamTools(ctx, server)
	if err != nil {
		return nil, err
	}
	stored := storedByRemote(tools)
	up := storage.UpstreamUpdate{Server: server}
	var approved []record.UpstreamChange
	for _, c := range waiting {
		if len(names) > 0 && !slices.Contains(names, c.Tool) {
			up.Changes = append(up.Changes, c)
			continue
		}
		approved = append(approved, c)
		kept, had := stored[c.Tool]
		if c.Kind == record.UpstreamGone {
			if had {
				up.Remove = append(up.Remove, kept.Name)
			}
			continue
		}
		var t mcp.Tool
		if err := json.Unmarshal(c.Definition, &t); err != nil {
			return nil, fmt.Errorf("read the waiting definition of tool %q: %w", c.Tool, err)
		}
		var keep *catalog.Tool
		if had {
			keep = &kept
			if name := ServedName(u.ToolPrefix(), c.Tool); name != kept.Name {
				up.Remove = append(up.Remove, kept.Name)
			}
		}
		nt, err := ToolFrom(u, &t, c.Hash, keep)
		if err != nil {
			return nil, err
		}
		up.Put = append(up.Put, nt)
	}
	if _, err := st.ApplyUpstream(ctx, up); err != nil {
		return nil, err
	}
	return approved, nil
}
