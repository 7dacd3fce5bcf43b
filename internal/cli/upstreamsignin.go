package cli

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"runtime"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/storage"
	"github.com/mcptray/mcptray/upstream"
)

// oauthSettings is a server's sign-in settings with what the command line
// gives (a client id, scopes) put over was; nil when there are none.
func oauthSettings(was *catalog.UpstreamOAuth, clientID string, scopes []string) *catalog.UpstreamOAuth {
	var o catalog.UpstreamOAuth
	if was != nil {
		o = *was
	}
	if clientID != "" {
		o.ClientID = clientID
	}
	if len(scopes) > 0 {
		o.Scopes = scopes
	}
	if o.ClientID == "" && len(o.Scopes) == 0 {
		return nil
	}
	return &o
}

// signIn signs in to a stored server anew in the person's browser (under
// the client registration kept, if any), with the settings given kept
// for the next ones.
func signIn(ctx context.Context, st *storage.Store, name, clientID string, scopes []string, env Env) error {
	u, err := st.Upstream(ctx, name)
	if err != nil {
		return err
	}
	if u.Remote == nil {
		return fmt.Errorf("%s is a program mcptray starts: only a server on the web signs in", name)
	}
	if clientID != "" || len(scopes) > 0 {
		u.Remote.OAuth = oauthSettings(u.Remote.OAuth, clientID, scopes)
		if _, err := st.SaveUpstream(ctx, name, u); err != nil {
			return err
		}
	}
	sec, err := st.OpenSecrets(ctx)
	if err != nil {
		return err
	}
	if err := upstream.ForgetTokens(ctx, sec, name); err != nil {
		return err
	}
	tools, err := testUpstream(ctx, st, name, env.Stderr)
	if err != nil {
		return err
	}
	if kept, err := sec.LoadSignIn(ctx, name); err != nil || kept == nil {
		fmt.Fprintf(env.Stdout, "%s asked for no sign-in; it offers %d tools.\n", name, len(tools))
		return err
	}
	fmt.Fprintf(env.Stdout, "Signed in to %s; it offers %d tools. mcptray keeps the sign-in in the secret store and renews it.\n", name, len(tools))
	return nil
}

// signOut forgets the sign-in to a stored server.
func signOut(ctx context.Context, st *storage.Store, name string, w io.Writer) error {
	if _, err := st.Upstream(ctx, name); err != nil {
		return err
	}
	if err := forgetSignIn(ctx, st, name); err != nil {
		return err
	}
	fmt.Fprintf(w, "Signed out of %s: mcptray keeps no token for it now (a running mcptray drops its own at the server's next start).\n", name)
	return nil
}

// forgetSignIn drops what the secret store keeps of the sign-in to a
// server: signed out, removed, or never added.
func forgetSignIn(ctx context.Context, st *storage.Store, name string) error {
	sec, err := st.OpenSecrets(ctx)
	if err == nil {
		err = sec.DeleteSignIn(ctx, name)
	}
	if err != nil {
		return fmt.Errorf("the sign-in to %s is still kept: %w", name, err)
	}
	return nil
}

// openBrowser opens url in the person's browser without waiting for it; a
// variable, so that tests follow the address themselves.
var openBrowser = func(url string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", url)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	default:
		cmd = exec.Command("xdg-open", url)
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { _ = cmd.Wait() }()
	return nil
}
