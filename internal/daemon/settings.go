package daemon

import (
	"context"
	"fmt"

	"github.com/mcptray/mcptray/catalog"
)

// SaveSettings stores set, which the running server applies at once.
// Invalid settings are a *catalog.ValidationError and change nothing. With
// movePort, and a port other than the one served now, the server moves to
// set's port first: a taken port is a *catalog.ValidationError about the
// field "port" and nothing is stored; when storing then fails, the server
// moves back. It reports whether the server moved.
func (d *Daemon) SaveSettings(ctx context.Context, set catalog.Settings, movePort bool) (moved bool, err error) {
	old, err := d.port()
	if err != nil {
		return false, err
	}
	if movePort && set.ListenPort() != old {
		if err := set.Validate(); err != nil {
			return false, err
		}
		if err := d.SetPort(set.ListenPort()); err != nil {
			return false, &catalog.ValidationError{Problems: []catalog.Problem{{Field: "port", Message: err.Error()}}}
		}
		moved = true
	}
	if err := d.st.PutSettings(ctx, set); err != nil {
		if moved {
			// The stored port is still the old one: serve there again.
			if berr := d.SetPort(old); berr != nil {
				return false, fmt.Errorf("%w; and moving back to port %d failed: %v", err, old, berr)
			}
		}
		return false, err
	}
	return moved, nil
}
