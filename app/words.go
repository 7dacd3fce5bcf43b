package app

import "fmt"

// count words a number of things for people: "1 problem", "3 problems",
// "no problems".
func count(n int, one, many string) string {
	switch n {
	case 0:
		return "no " + many
	case 1:
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
