package daemon

import (
	"context"
	"fmt"
	"runtime"
	"strings"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/examples"
	"github.com/mcptray/mcptray/internal/paths"
	"github.com/mcptray/mcptray/mcpcore"
)

// The state keys of the first start on the user's database.
const (
	stateSeeded   = "starterSeeded"
	stateWelcomed = "welcomed"
)

// isDefaultDB says whether db is the user's default database, the only one
// that gets the starter catalog and the welcome: a database named with --db
// is a test's, a CI's or a second profile, which a person fills on purpose.
func isDefaultDB(db string) bool {
	def, err := paths.DefaultDB()
	return err == nil && def == db
}

// seed imports the starter catalog into the user's default database the
// first time a server starts on it, whoever starts it (the app, `mcptray
// serve`, the stdio shim's headless serve), however the database came to
// exist (a `mcptray config … --install` or `token create` before the
// first start creates it empty). A database with a catalog of its own is
// the person's, or was seeded by an mcptray from before this was recorded:
// it is only marked, and the person, welcomed long ago, is not welcomed
// again. Afterwards, on every start, the examples it still holds as an
// earlier mcptray seeded them are brought up to date (updateStarter). It
// reports whether it imported the starter.
func (d *Daemon) seed(ctx context.Context) (bool, error) {
	if !isDefaultDB(d.db) {
		return false, nil
	}
	starter, err := mcpcore.ParseCatalog(examples.Starter)
	if err != nil {
		return false, fmt.Errorf("the built-in starter catalog: %w", err)
	}
	var done bool
	switch ok, err := d.st.State(ctx, stateSeeded, &done); {
	case err != nil:
		return false, err
	case ok:
		d.updateStarter(ctx, starter)
		return false, nil
	}
	cat, err := d.st.Catalog(ctx)
	if err != nil {
		return false, err
	}
	if len(cat.Tools)+len(cat.Resources)+len(cat.ResourceTemplates)+len(cat.Prompts) > 0 {
		if err := d.st.SetState(ctx, stateWelcomed, true); err != nil {
			return false, err
		}
		d.updateStarter(ctx, starter)
		return false, d.st.SetState(ctx, stateSeeded, true)
	}
	if err := d.st.Import(ctx, examples.On(starter, runtime.GOOS), false); err != nil {
		return false, fmt.Errorf("seeding %s with the starter catalog: %w", d.db, err)
	}
	return true, d.st.SetState(ctx, stateSeeded, true)
}

// updateStarter brings the examples of the starter catalog that the
// database still holds as an earlier mcptray seeded them up to this
// version's (examples.StarterUpdates: a fixed command line reaches the
// people who have the example; one they edited stays theirs), and says
// which. The examples are a convenience: when this fails, it is said and
// the server starts all the same.
func (d *Daemon) updateStarter(ctx context.Context, starter *catalog.Catalog) {
	var up *catalog.Catalog
	err := d.st.Revise(ctx, starter, func(stored *catalog.Catalog) (*catalog.Catalog, error) {
		var err error
		up, err = examples.StarterUpdates(starter, stored, runtime.GOOS)
		return up, err
	})
	var names []string
	if err == nil {
		for _, t := range up.Tools {
			names = append(names, t.Name)
		}
		for _, r := range up.Resources {
			names = append(names, r.URI)
		}
		for _, t := range up.ResourceTemplates {
			names = append(names, t.URITemplate)
		}
		for _, p := range up.Prompts {
			names = append(names, p.Name)
		}
	}
	switch {
	case err != nil:
		d.say("WARNING: could not bring the example tools up to date: %v", err)
	case len(names) > 0:
		d.say("brought the examples %s up to date: each was still as an earlier mcptray added it", strings.Join(names, ", "))
	}
}

// TakeWelcome reports whether the person has never been welcomed on this
// database — the default one, seeded now or by an earlier headless start
// — and records that they are being welcomed now: the desktop app asks it
// once at start and shows the welcome when it says so.
func (d *Daemon) TakeWelcome(ctx context.Context) (bool, error) {
	if !isDefaultDB(d.db) {
		return false, nil
	}
	var done bool
	if ok, err := d.st.State(ctx, stateWelcomed, &done); err != nil || ok {
		return false, err
	}
	return true, d.st.SetState(ctx, stateWelcomed, true)
}
