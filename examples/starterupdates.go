package examples

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"

	"github.com/mcptray/mcptray/catalog"
)

// starterHistory holds every definition of a starter tool, resource and
// prompt that an mcptray has seeded, this version's included, by kind: a
// database that still holds an entry as one of them holds it as mcptray
// put it there, unchanged by the person, so a newer mcptray may bring it
// up to date (StarterUpdates). Whoever changes starter.json adds the new
// definitions here, keeping the old ones; TestStarterHistoryHoldsTheStarter
// fails until they do.
//
//go:embed starter-history.json
var starterHistory []byte

// seeded is starterHistory decoded.
type seeded struct {
	Tools             []catalog.Tool             `json:"tools"`
	Resources         []catalog.Resource         `json:"resources"`
	ResourceTemplates []catalog.ResourceTemplate `json:"resourceTemplates"`
	Prompts           []catalog.Prompt           `json:"prompts"`
}

// readHistory decodes starterHistory, refusing a field no catalog entry
// has, so a typo there cannot make two definitions look alike.
func readHistory() (*seeded, error) {
	dec := json.NewDecoder(bytes.NewReader(starterHistory))
	dec.DisallowUnknownFields()
	var h seeded
	if err := dec.Decode(&h); err != nil {
		return nil, fmt.Errorf("the starter catalog's history: %w", err)
	}
	return &h, nil
}

// StarterUpdates is what of the starter catalog, as it runs on goos (see
// On), should replace entries of stored, the starter's entries as a
// database holds them (the others are ignored): each stored entry still
// exactly as an earlier mcptray seeded it, which differs from this
// version's, comes back as this version's, its enabled or disabled state
// kept. So a fix to an example reaches the people who have it, while an
// example a person edited, renamed or deleted is left as they made it.
func StarterUpdates(starter, stored *catalog.Catalog, goos string) (*catalog.Catalog, error) {
	h, err := readHistory()
	if err != nil {
		return nil, err
	}
	cur := On(starter, goos)
	out := &catalog.Catalog{}
	if out.Tools, err = updates(cur.Tools, stored.Tools, h.Tools,
		func(t *catalog.Tool) string { return t.Name }, func(t *catalog.Tool) *bool { return &t.Disabled }); err != nil {
		return nil, err
	}
	if out.Resources, err = updates(cur.Resources, stored.Resources, h.Resources,
		func(r *catalog.Resource) string { return r.URI }, func(r *catalog.Resource) *bool { return &r.Disabled }); err != nil {
		return nil, err
	}
	if out.ResourceTemplates, err = updates(cur.ResourceTemplates, stored.ResourceTemplates, h.ResourceTemplates,
		func(t *catalog.ResourceTemplate) string { return t.URITemplate }, func(t *catalog.ResourceTemplate) *bool { return &t.Disabled }); err != nil {
		return nil, err
	}
	if out.Prompts, err = updates(cur.Prompts, stored.Prompts, h.Prompts,
		func(p *catalog.Prompt) string { return p.Name }, func(p *catalog.Prompt) *bool { return &p.Disabled }); err != nil {
		return nil, err
	}
	return out, nil
}

// updates is StarterUpdates for one kind of entry: the entries of cur
// whose stored namesake is one of seen and not cur's own definition, each
// with the stored one's Disabled flag. Definitions are compared as stored,
// in JSON, the flag left out.
func updates[T any](cur, stored, seen []T, key func(*T) string, disabled func(*T) *bool) ([]T, error) {
	def := func(v T) (string, error) {
		*disabled(&v) = false
		b, err := json.Marshal(v)
		if err != nil {
			return "", fmt.Errorf("encode the starter's %q: %w", key(&v), err)
		}
		return string(b), nil
	}
	known := make(map[string]bool, len(seen))
	for _, v := range seen {
		d, err := def(v)
		if err != nil {
			return nil, err
		}
		known[d] = true
	}
	have := make(map[string]T, len(stored))
	for _, v := range stored {
		have[key(&v)] = v
	}
	var out []T
	for _, v := range cur {
		old, ok := have[key(&v)]
		if !ok {
			continue
		}
		was, err := def(old)
		if err != nil {
			return nil, err
		}
		now, err := def(v)
		if err != nil {
			return nil, err
		}
		if was == now || !known[was] {
			continue
		}
		*disabled(&v) = *disabled(&old)
		out = append(out, v)
	}
	return out, nil
}
