package importer

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/mcpcore"
)

// Store is what adding tools needs of the catalog (storage.Store).
type Store interface {
	Catalog(ctx context.Context) (*catalog.Catalog, error)
	// AddTools stores, all or nothing, the tools produce hands to add,
	// replacing those of the same name (storage.Store.AddTools).
	AddTools(ctx context.Context, produce func(add func(catalog.Tool)) error) error
}

// CheckTools lists, as one *catalog.ValidationError, every problem of
// adding tools to the stored catalog: what mcpcore.ValidateTool finds in
// each, two of them with the same name, and — unless replace — a name
// the catalog already has. nil means AddTools would store them.
func CheckTools(ctx context.Context, st Store, tools []catalog.Tool, replace bool) error {
	var clashes []catalog.Problem
	if !replace {
		var err error
		if clashes, err = nameClashes(ctx, st, tools); err != nil {
			return err
		}
	}
	return withToolProblems(clashes, tools)
}

// withToolProblems is ps, with what mcpcore.ValidateCatalog finds in tools
// after them, as one *catalog.ValidationError; nil when there is none.
func withToolProblems(ps []catalog.Problem, tools []catalog.Tool) error {
	if err := mcpcore.ValidateCatalog(&catalog.Catalog{Tools: tools}); err != nil {
		var ve *catalog.ValidationError
		if !errors.As(err, &ve) {
			return err
		}
		ps = append(ps, ve.Problems...)
	}
	return catalog.AsError(ps)
}

// nameClashes are the tools whose name the stored catalog already has.
func nameClashes(ctx context.Context, st Store, tools []catalog.Tool) ([]catalog.Problem, error) {
	taken, err := storedNames(ctx, st)
	if err != nil {
		return nil, err
	}
	var ps []catalog.Problem
	for _, t := range tools {
		ps = append(ps, taken(t.Name)...)
	}
	return ps, nil
}

// storedNames returns the problem of a tool named as one the stored
// catalog has; none for another name.
func storedNames(ctx context.Context, st Store) (func(name string) []catalog.Problem, error) {
	c, err := st.Catalog(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the catalog: %w", err)
	}
	have := map[string]bool{}
	for _, t := range c.Tools {
		have[t.Name] = true
	}
	return func(name string) []catalog.Problem {
		if !have[name] {
			return nil
		}
		return []catalog.Problem{{Entry: fmt.Sprintf("tool %q", name), Field: "name",
			Message: "the catalog already has a tool of this name: choose another name (or replace it on purpose)"}}
	}, nil
}

// AddTools adds tools to the stored catalog, all or nothing: on any
// problem (see CheckTools) it returns a *catalog.ValidationError listing
// them all and changes nothing. With replace, a tool of the same name is
// replaced; otherwise a name the catalog has is a problem. Every other
// entry of the catalog stays as it is.
func AddTools(ctx context.Context, st Store, tools []catalog.Tool, replace bool) error {
	return AddToolsAsMade(ctx, st, replace, func(add func(catalog.Tool)) error {
		for _, t := range tools {
			add(t)
		}
		return nil
	})
}

// AddToolsAsMade is AddTools for tools handed to add as produce makes
// them: the store checks and writes each while the next is made, and
// none is held after (a big spec's tools are most of its import's memory).
// An error produce returns changes nothing either; a
// *catalog.ValidationError is listed with the tools' problems.
func AddToolsAsMade(ctx context.Context, st Store, replace bool, produce func(add func(catalog.Tool)) error) error {
	taken := func(string) []catalog.Problem { return nil }
	if !replace {
		var err error
		if taken, err = storedNames(ctx, st); err != nil {
			return err
		}
	}
	// The store checks every definition as it writes it, and replaces a
	// tool of the same name: only a clash of names is looked for here. One
	// created by another process since the catalog was read would be
	// replaced — a race of a moment, against a person adding the same
	// name at once.
	err := st.AddTools(ctx, func(add func(catalog.Tool)) error {
		var clashes []catalog.Problem
		err := produce(func(t catalog.Tool) {
			clashes = append(clashes, taken(t.Name)...)
			add(t)
		})
		var ve *catalog.ValidationError
		switch {
		case errors.As(err, &ve):
			return catalog.AsError(slices.Concat(ve.Problems, clashes))
		case err != nil:
			return err
		}
		return catalog.AsError(clashes)
	})
	if ve := (*catalog.ValidationError)(nil); errors.As(err, &ve) {
		return ve
	} else if err != nil {
		return fmt.Errorf("adding the tools: %w", err)
	}
	return nil
}

// SecretStore is what storing a tool's secrets needs (storage.Secrets).
type SecretStore interface {
	Secret(ctx context.Context, name string) (string, error)
	SetSecret(ctx context.Context, name, value string) error
}

// CreateTool adds one tool and stores the secrets it reads, all or
// nothing as far as can be: the tool is checked (CheckTools) and every
// secret name is checked before anything is written. A secret of the same
// name that holds another value is never overwritten — another tool may
// read it — but refused, naming it.
func CreateTool(ctx context.Context, st Store, sec SecretStore, tool catalog.Tool, secrets []SecretValue) error {
	if err := CheckTools(ctx, st, []catalog.Tool{tool}, false); err != nil {
		return err
	}
	if len(secrets) > 0 && sec == nil {
		return errors.New("secrets cannot be stored here (no secret store): the tool was not created")
	}
	for _, s := range secrets {
		// An error is no value (or none that can be read, which SetSecret
		// would then fail to replace too).
		if v, err := sec.Secret(ctx, s.Name); err == nil && v != s.Value {
			return fmt.Errorf("a secret named %s already exists with another value (another tool may read it): choose another name; nothing was written", s.Name)
		}
	}
	for _, s := range secrets {
		if err := sec.SetSecret(ctx, s.Name, s.Value); err != nil {
			return err
		}
	}
	return AddTools(ctx, st, []catalog.Tool{tool}, false)
}
