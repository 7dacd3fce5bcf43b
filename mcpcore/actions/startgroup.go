package actions

import (
	"context"
	"os/exec"
)

// StartGroup starts a long-running program under the no-orphans rules of
// commands (procgroup.go): it leads a process group of its own (on Windows
// a kill-on-close job object), on Linux it dies with mcptray (Pdeathsig,
// with the starting goroutine kept on its OS thread until the program
// ends), and its group is recorded in groups (nil: not recorded) while it
// runs. When the program ends, what it left running in its group is killed
// too, so a server's helpers never outlive it.
//
// cmd must come from exec.CommandContext: cancelling that context kills
// the whole group. wait waits for the program to end and returns what
// cmd.Wait returned; it may be called any number of times.
func StartGroup(cmd *exec.Cmd, groups ProcessGroups) (wait func() error, err error) {
	grp := groupProcess(cmd)
	noConsoleWindow(cmd)
	started := make(chan error, 1)
	done := make(chan struct{})
	var waitErr error
	go func() {
		defer close(done)
		defer pinThread()()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		grp.started()
		defer grp.release()
		forget := recordGroup(context.Background(), &Data{Processes: groups}, cmd, cmd.Args[0])
		defer forget()
		started <- nil
		waitErr = cmd.Wait()
		if cmd.Cancel != nil {
			// The leader has ended; its Cancel kills the rest of its group
			// (Unix) or job (Windows).
			_ = cmd.Cancel()
		}
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return func() error {
		<-done
		return waitErr
	}, nil
}

// FindProgram resolves a program's name as a command's is resolved: a name
// with a path separator is used as it is (relative to dir), a bare name is
// searched in the PATH of env (the program's environment), or in the
// server's when env has none. The error matches ErrProgramNotFound when
// there is no such program.
func FindProgram(name, dir string, env []string) (string, error) {
	return findProgram(name, dir, env)
}
