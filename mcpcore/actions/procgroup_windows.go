package actions

import (
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"unsafe"

	"github.com/mcptray/mcptray/record"
	"golang.org/x/sys/windows"
)

// procGroup is a command's job object: every process the program starts
// joins it, and the system kills them all when the job's last handle
// closes — on cancellation or timeout (Cancel terminates it), when the
// command ends (release), and when mcptray ends in any way, since the system
// closes a process's handles then. A process the program starts in the
// instant between its start and its assignment to the job escapes it.
type procGroup struct {
	cmd *exec.Cmd
	mu  sync.Mutex
	job windows.Handle
}

// groupProcess prepares cmd so that its whole tree can be killed.
func groupProcess(cmd *exec.Cmd) *procGroup {
	g := &procGroup{cmd: cmd}
	cmd.Cancel = func() error {
		g.mu.Lock()
		if g.job != 0 {
			_ = windows.TerminateJobObject(g.job, 1)
		}
		g.mu.Unlock()
		return cmd.Process.Kill()
	}
	return g
}

// started puts the started program in a new job object that kills its
// processes when closed. A failure leaves the program running outside a
// job, as before job objects: it is not a reason to fail the call.
func (g *procGroup) started() {
	job, err := newKillOnCloseJob()
	if err != nil {
		return
	}
	p, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(g.cmd.Process.Pid))
	if err != nil {
		_ = windows.CloseHandle(job)
		return
	}
	defer windows.CloseHandle(p)
	if err := windows.AssignProcessToJobObject(job, p); err != nil {
		_ = windows.CloseHandle(job)
		return
	}
	g.mu.Lock()
	g.job = job
	g.mu.Unlock()
}

// release closes the job, killing what the program left running in it.
func (g *procGroup) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.job != 0 {
		_ = windows.CloseHandle(g.job)
		g.job = 0
	}
}

// newKillOnCloseJob creates a job object with
// JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE.
func newKillOnCloseJob() (windows.Handle, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, fmt.Errorf("creating a job object: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		_ = windows.CloseHandle(job)
		return 0, fmt.Errorf("setting up a job object: %w", err)
	}
	return job, nil
}

// pinThread does nothing: job objects do not depend on threads.
func pinThread() (unpin func()) { return func() {} }

// startTime is a process's creation time, in 100 ns since 1601.
func startTime(pid int) (uint64, error) {
	p, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return 0, err
	}
	defer windows.CloseHandle(p)
	return creationTime(p)
}

// creationTime is the creation time of the process p, in 100 ns since 1601.
func creationTime(p windows.Handle) (uint64, error) {
	var created, exited, kernel, user windows.Filetime
	if err := windows.GetProcessTimes(p, &created, &exited, &kernel, &user); err != nil {
		return 0, err
	}
	return uint64(created.HighDateTime)<<32 | uint64(created.LowDateTime), nil
}

// killLeftover kills g's program if it still runs with the recorded
// creation time. Its job died with the mcptray that held it, so this is a
// second line only: the program itself, if it somehow outlived its job.
func killLeftover(g record.ProcessGroup) int {
	p, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION|windows.PROCESS_TERMINATE, false, uint32(g.ID))
	if err != nil {
		return 0
	}
	defer windows.CloseHandle(p)
	if created, err := creationTime(p); err != nil || created != g.Started {
		return 0 // gone, or the id was reused by another program
	}
	if err := windows.TerminateProcess(p, 1); err != nil && !errors.Is(err, windows.ERROR_ACCESS_DENIED) {
		return 0
	}
	return 1
}

// startWatcher: no watcher on Windows, where each command's job object
// dies with mcptray.
func startWatcher() (io.WriteCloser, func() error, error) {
	return nil, nil, errors.New("not needed on Windows: job objects end with mcptray")
}
