package process

import (
	"os"
	"strconv"
	"strings"
)

// Replaced says whether the program file a process runs was deleted or
// replaced since it started: a package upgrade puts a new file at the
// path (dpkg and install(1) rename it over the old one), and the kernel
// then names the old one "PATH (deleted)". False when it cannot tell (the
// process ended, or is someone else's).
func Replaced(pid int) bool {
	exe, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/exe")
	return err == nil && strings.HasSuffix(exe, " (deleted)")
}
