//go:build ignore

// clientids prints the IDs of the AI clients mcptray configures, one a
// line, for the release scripts (the Windows uninstaller takes mcptray out
// of each):
//
//	go run ./packaging/clientids.go
package main

import (
	"fmt"

	"github.com/mcptray/mcptray/clientconfig"
)

func main() {
	for _, id := range clientconfig.IDs() {
		fmt.Println(id)
	}
}
