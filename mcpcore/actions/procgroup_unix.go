//go:build unix

package actions

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"syscall"

	"github.com/mcptray/mcptray/record"
)

// procGroup is a command's process group: the program leads it.
type procGroup struct{}

// groupProcess puts the command in its own process group and kills the
// whole group (SIGKILL) when the command's context is done — cancellation or
// timeout — so grandchildren do not outlive the call. A process that moved
// itself to another group or session (setsid, a daemon) escapes this. On
// Linux the program also dies with mcptray (dieWithParent).
func groupProcess(cmd *exec.Cmd) *procGroup {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	dieWithParent(cmd.SysProcAttr)
	cmd.Cancel = func() error {
		err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		if errors.Is(err, syscall.ESRCH) {
			return os.ErrProcessDone
		}
		return err
	}
	return &procGroup{}
}

// started and release have nothing to do: the group exists from the start
// and ends with its processes.
func (*procGroup) started() {}
func (*procGroup) release() {}

// member is one process of a recorded group.
type member struct {
	pid     int
	started uint64
}

// killLeftover kills the processes of g that started no earlier than its
// leader: the leader itself when its start time matches, and what it
// started (the leader may be gone: Pdeathsig killed it). Each process is
// checked just before it is killed.
func killLeftover(g record.ProcessGroup) int {
	members, err := groupMembers(g.ID)
	if err != nil {
		return 0
	}
	n := 0
	for _, m := range members {
		if m.pid == g.ID && m.started != g.Started {
			// The id now leads another group: not ours at all.
			return n
		}
	}
	for _, m := range members {
		if m.started >= g.Started && syscall.Kill(m.pid, syscall.SIGKILL) == nil {
			n++
		}
	}
	return n
}

// watcherScript is the Reaper's watcher: it keeps the list of running
// groups it is told ("+ID", "-ID" lines), ignores the signals a terminal
// sends mcptray's group, and at the end of its input kills what is listed.
const watcherScript = `trap '' INT TERM HUP
groups=' '
while IFS= read -r l; do
  case $l in
    +*) groups="$groups${l#+} " ;;
    -*) g=${l#-}; case $groups in *" $g "*) groups="${groups%%" $g "*} ${groups#*" $g "}" ;; esac ;;
  esac
done
for g in $groups; do kill -KILL "-$g" 2>/dev/null; done
`

// startWatcher starts the watcher with /bin/sh, in its own process group.
func startWatcher() (io.WriteCloser, func() error, error) {
	cmd := exec.Command("/bin/sh", "-c", watcherScript)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	pipe, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	return pipe, cmd.Wait, nil
}
