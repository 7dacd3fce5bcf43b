package actions

import (
	"context"
	"os/exec"
	"time"

	"github.com/mcptray/mcptray/record"
)

// No orphans: a command's processes end with mcptray, however it ends.
//
//   - Linux: the program leads a process group of its own and gets SIGKILL
//     when mcptray dies (Pdeathsig). The kernel sends it when the thread
//     that started the program ends, not the process, so the goroutine that
//     starts a program keeps its OS thread until the program has ended
//     (pinThread): Go ends a thread only when a goroutine locked to it
//     exits, and this one unlocks first. Pdeathsig reaches the leader only;
//     what the leader started in its group is killed by the next start.
//   - macOS and the BSDs: no Pdeathsig; the next start kills the groups.
//   - Windows: each program runs in a job object that kills every process
//     in it when its last handle closes — the one mcptray holds, which the
//     system closes when mcptray ends in any way.
//
// And everywhere, each running program's group is recorded (ProcessGroups,
// in the database) with its leader's start time; the next start of
// mcptray kills what a crash left (KillLeftovers), checking start times
// so that a process that merely got a reused id is never touched.

// ProcessGroups keeps the process groups of running commands durably.
// storage implements it; commands record their group when they start and
// forget it when they end.
type ProcessGroups interface {
	// AddProcessGroup records a group that started.
	AddProcessGroup(ctx context.Context, g record.ProcessGroup) error
	// RemoveProcessGroup forgets the group with that id.
	RemoveProcessGroup(ctx context.Context, id int) error
}

// recordTimeout bounds the database writes that record a group.
const recordTimeout = 5 * time.Second

// recordGroup records the group cmd's program leads, when data has a
// ProcessGroups, and returns what forgets it. A failure to record costs
// only the clean-up after a crash, so it does not stop the command.
func recordGroup(ctx context.Context, data *Data, cmd *exec.Cmd, program string) (forget func()) {
	if data == nil || data.Processes == nil {
		return func() {}
	}
	g := record.ProcessGroup{ID: cmd.Process.Pid, Program: program}
	g.Started, _ = startTime(g.ID)
	// Recorded and forgotten even when the call was cancelled meanwhile.
	ctx = context.WithoutCancel(ctx)
	rctx, cancel := context.WithTimeout(ctx, recordTimeout)
	err := data.Processes.AddProcessGroup(rctx, g)
	cancel()
	if err != nil {
		return func() {}
	}
	return func() {
		fctx, cancel := context.WithTimeout(ctx, recordTimeout)
		defer cancel()
		_ = data.Processes.RemoveProcessGroup(fctx, g.ID)
	}
}

// KillLeftovers kills what is left of groups recorded by an mcptray that
// ended without forgetting them (it crashed, or was killed): each process
// of the group that started no earlier than its leader did; a group whose
// leader's start time was not recorded is left alone. It returns how many
// processes it killed. Call it only while no command of this process runs
// (at start, before serving).
func KillLeftovers(groups []record.ProcessGroup) int {
	n := 0
	for _, g := range groups {
		if g.ID <= 0 || g.Started == 0 {
			continue
		}
		n += killLeftover(g)
	}
	return n
}
