//go:build !unix && !windows

package actions

import (
	"errors"
	"io"
	"os/exec"

	"github.com/mcptray/mcptray/record"
)

// procGroup does nothing here: only the program itself is killed on
// cancellation, as exec.CommandContext does.
type procGroup struct{}

func groupProcess(*exec.Cmd) *procGroup { return &procGroup{} }
func (*procGroup) started()             {}
func (*procGroup) release()             {}
func pinThread() (unpin func())         { return func() {} }

var errNoStartTime = errors.New("process start times are not read on this system")

func startTime(int) (uint64, error)        { return 0, errNoStartTime }
func killLeftover(record.ProcessGroup) int { return 0 }

func startWatcher() (io.WriteCloser, func() error, error) { return nil, nil, errNoStartTime }
