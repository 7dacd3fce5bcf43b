package tray

import "context"

// followPanel tells set whether the panel the tray icon sits on is dark,
// now and (where the system announces it) each time that changes, until
// ctx ends. It runs on a goroutine of its own: asking the system may take
// a while, and the icon is drawn for a dark panel until the answer comes
// (most panels are dark, and the icons carry a halo for either).
func followPanel(ctx context.Context, set func(dark bool)) {
	go watchPanel(ctx, set)
}
