package cli

import (
	"context"
	"fmt"

	"github.com/mcptray/mcptray/storage"
)

// toggleCmd enables, disables or toggles a tool or prompt; the running
// server notices the edit and tells listening clients the list changed.
func toggleCmd(ctx context.Context, kind string, args []string, env Env) error {
	fs, db := newFlags(kind)
	pos, err := parseFlags(fs, args, env.Stdout)
	if err != nil {
		return err
	}
	if len(pos) != 2 || (pos[0] != "enable" && pos[0] != "disable" && pos[0] != "toggle") {
		return usageError{fmt.Sprintf("usage: mcptray %s enable|disable|toggle NAME", kind)}
	}
	verb, name := pos[0], pos[1]
	set, toggle := (*storage.Store).SetToolDisabled, (*storage.Store).ToggleTool
	if kind == "prompt" {
		set, toggle = (*storage.Store).SetPromptDisabled, (*storage.Store).TogglePrompt
	}
	return withStore(*db, func(st *storage.Store) error {
		disabled := verb == "disable"
		var err error
		if verb == "toggle" {
			disabled, err = toggle(st, ctx, name)
		} else {
			err = set(st, ctx, name, disabled)
		}
		if err != nil {
			return err
		}
		state := "enabled"
		if disabled {
			state = "disabled"
		}
		fmt.Fprintf(env.Stdout, "%s %s is now %s\n", kind, name, state)
		return nil
	})
}
