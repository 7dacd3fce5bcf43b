package record

// ProcessGroup identifies a running command's processes for a later start
// of mcptray, should this one die before the command ends.
type ProcessGroup struct {
	// ID is the process group id — the leader's pid (on Windows: the pid).
	ID int
	// Started is the leader's start time as the OS counts it (Linux: clock
	// ticks since boot; macOS: microseconds since 1970; Windows: 100 ns
	// since 1601); 0 when it cannot be read, and then nothing is killed.
	Started uint64
	// Program is argv[0], for the log.
	Program string
}
