package app

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/words"
	"github.com/mcptray/mcptray/internal/gateway"
	"github.com/mcptray/mcptray/upstream"
)

// signInNote says, while mcptray waits for the person to sign in to a
// server in their browser, where they do: a sentence, and a link to the
// page in case the browser did not open.
type signInNote struct {
	says *widget.Label
	link *widget.Hyperlink
}

// show says to sign in to server at u.
func (n signInNote) show(server string, u *url.URL) {
	n.says.Importance = widget.MediumImportance
	n.says.SetText("Sign in to " + server + " in your browser: mcptray waits for you here. If no browser page opened:")
	n.says.Show()
	n.link.SetURL(u)
	n.link.Show()
}

// runConfig is how the window runs a server, for a Test or a sign-in:
// with the secrets already stored, and a sign-in (OAuth) made in the
// person's browser, note saying where (then shown calls shown), kept in
// the secret store for the serving process.
func (s *ServersTab) runConfig(note signInNote, server string, shown func()) upstream.Config {
	var secrets gateway.SecretReader // none: a {{secret}} says it cannot be read
	cfg := upstream.Config{Version: s.cfg.Version}
	if sec := s.cfg.Secrets; sec != nil {
		secrets = sec
		cfg.Tokens = sec
		// On the run's goroutine, which then waits for the sign-in.
		cfg.OpenBrowser = func(addr string) error {
			u, err := url.Parse(addr)
			if err != nil {
				return fmt.Errorf("the server's sign-in page %q: %w", addr, err)
			}
			fyne.Do(func() {
				note.show(server, u)
				shown()
			})
			if err := s.openURL(u); err != nil {
				// The link is shown: the person can open it.
				slog.Warn("opening the sign-in page", "err", err)
			}
			return nil
		}
	}
	cfg.Expand = gateway.Expander(secrets)
	return cfg
}

// signInAgain forgets the detail's server's sign-in and signs in anew in
// the person's browser (another account, or access revoked), then says
// how it went. The serving process uses the new sign-in from the server's
// next start.
func (d *serverDetail) signInAgain() {
	u := d.shown.u
	sec := d.tab.cfg.Secrets
	if u.Remote == nil || sec == nil {
		return
	}
	d.signInBtn.Disable()
	d.signIn.says.Importance = widget.MediumImportance
	d.signIn.says.SetText("Connecting to " + u.Name + "…")
	d.signIn.says.Show()
	cfg := d.tab.runConfig(d.signIn, u.Name, d.body.Refresh)
	var n int
	var err error
	d.work.Run(func() {
		ctx, cancel := context.WithTimeout(d.tab.life, upstream.DefaultSignInTimeout+30*time.Second)
		defer cancel()
		if err = upstream.ForgetTokens(ctx, sec, u.Name); err != nil {
			return
		}
		tools, terr := upstream.Test(ctx, u, cfg)
		n, err = len(tools), terr
	}, func() {
		d.signInBtn.Enable()
		d.signIn.link.Hide()
		if err != nil {
			d.signIn.says.Importance = widget.DangerImportance
			d.signIn.says.SetText("The sign-in did not work: " + err.Error())
		} else {
			d.signIn.says.Importance = widget.SuccessImportance
			d.signIn.says.SetText(fmt.Sprintf("Signed in to %s, which offers %s. mcptray uses the new sign-in from the server's next start.", u.Name, words.Count(n, "tool", "tools")))
		}
		d.body.Refresh()
	})
}
