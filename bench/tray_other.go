//go:build !linux

package bench

import "errors"

// ThreadCosts is measured from /proc, so on Linux only.
func ThreadCosts(int) ([]ThreadCost, error) {
	return nil, errors.New("threads are measured on Linux only")
}

// Children is read from /proc, so on Linux only.
func Children(int) (map[int]string, error) {
	return nil, errors.New("child processes are listed on Linux only")
}
