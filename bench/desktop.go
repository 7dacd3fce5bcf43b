package bench

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// Xdotool runs xdotool with args (the desktop figures drive the display
// with it).
func Xdotool(ctx context.Context, args ...string) error {
	if out, err := exec.CommandContext(ctx, "xdotool", args...).CombinedOutput(); err != nil {
		return fmt.Errorf("xdotool %s: %w: %s", strings.Join(args, " "), err, out)
	}
	return nil
}

// StopProcess sends cmd's process SIGTERM and waits up to grace before it
// kills it; once the process has been waited for, it returns.
func StopProcess(cmd *exec.Cmd, grace time.Duration) {
	_ = cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(grace):
		_ = cmd.Process.Kill()
		<-done
	}
}
