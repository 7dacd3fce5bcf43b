package app

import (
	"context"

	"fyne.io/fyne/v2"

	"github.com/mcptray/mcptray/storage"
)

// This file holds how the window's lists follow the database's change
// feed (storage.Store.Changes): whoever wrote — this window, another one,
// the command line, the server's import — the tools, resources, prompts,
// client tokens and secrets listed are those stored, within moments.

// followChanges runs changed on the UI goroutine after each change st
// reports, until ctx ends or st closes. Signals coalesce: many changes in
// a row give one call.
func followChanges(ctx context.Context, st *storage.Store, changed func()) {
	if st == nil {
		return
	}
	ch := st.Changes(ctx)
	go func() {
		for range ch {
			fyne.Do(changed)
		}
	}()
}

// followStore keeps the catalog's lists as stored while the window
// lives. A change that leaves them as they were (the server's activity
// log, a token's last use) changes nothing on screen.
func (m *Manager) followStore() {
	followChanges(m.life, m.cfg.Store, func() {
		m.reloadEntries()
		m.servers.Reload()
	})
}

// follow keeps the client tokens and the secrets listed as stored until
// ctx ends. The secrets' names are rows of the database whether their
// values are in the keyring or in the fallback file, so a secret set by
// `mcptray secret set` or an import is a change the feed reports.
func (s *SettingsTab) follow(ctx context.Context) {
	followChanges(ctx, s.st, func() {
		s.reloadTokens()
		s.reloadSecrets()
	})
}
