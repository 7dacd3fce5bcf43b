package gateway

import (
	"context"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/mcpcore/actions"
)

// SecretReader reads a stored secret (storage.Secrets).
type SecretReader interface {
	Secret(ctx context.Context, name string) (string, error)
}

// Expander renders a server's environment and header values: templates
// where {{secret "NAME"}} reads secrets; nil secrets leave every secret
// unreadable, with an error saying so.
func Expander(secrets SecretReader) func(ctx context.Context, t catalog.Template) (string, error) {
	return func(ctx context.Context, t catalog.Template) (string, error) {
		d := &actions.Data{}
		if secrets != nil {
			d.Secret = func(name string) (string, error) { return secrets.Secret(ctx, name) }
		}
		return actions.Render(t, d)
	}
}
