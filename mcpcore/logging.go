package mcpcore

import (
	"context"
	"log/slog"
)

// quietHandler drops records below a level. go-sdk logs every stateless
// connection at INFO (three lines per 2026-07-28 request), which would fill
// a tray app's log while an agent works and costs measurable time.
type quietHandler struct {
	slog.Handler
	min slog.Level
}

func (h quietHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min && h.Handler.Enabled(ctx, l)
}

func (h quietHandler) WithAttrs(a []slog.Attr) slog.Handler {
	return quietHandler{Handler: h.Handler.WithAttrs(a), min: h.min}
}

func (h quietHandler) WithGroup(name string) slog.Handler {
	return quietHandler{Handler: h.Handler.WithGroup(name), min: h.min}
}

// sdkLogger is the logger handed to go-sdk: warnings and errors only.
func sdkLogger(l *slog.Logger) *slog.Logger {
	return slog.New(quietHandler{Handler: l.Handler(), min: slog.LevelWarn})
}
