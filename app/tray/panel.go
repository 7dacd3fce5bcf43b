package tray

import "context"

// followPanel tells set whether the panel the tray icon sits on is dark,
// now and (where the system announces it) each time that changes, until
// ctx ends. It runs on a goroutine of its own: asking the system may take
// a while, and the icon is drawn for a dark panel until the answer comes
// (most panels are dark, and the icons carry a halo for either).
// opened receives a value each time the tray's menu opens: where the
// system announces no change, the panel is looked at anew then.
func followPanel(ctx context.Context, opened <-chan struct{}, set func(dark bool)) {
	go watchPanel(ctx, opened, set)
}
