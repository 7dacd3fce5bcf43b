// Command helper is the Wine checks' stand-in for what a command tool runs
// on Windows, built for Windows by tests/wine:
//
//	helper.exe tree TAG DEPTH   starts a child (helper.exe tree TAG DEPTH-1)
//	                            while DEPTH > 0, prints "started", and waits
//	                            ten minutes: a process tree marked by TAG
//	helper.exe env NAME         prints the environment variable NAME
package main

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"time"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: helper tree TAG DEPTH | helper env NAME")
		os.Exit(2)
	}
	switch os.Args[1] {
	case "tree":
		depth, _ := strconv.Atoi(os.Args[3])
		if depth > 0 {
			child := exec.Command(os.Args[0], "tree", os.Args[2], strconv.Itoa(depth-1))
			if err := child.Start(); err != nil {
				fmt.Fprintln(os.Stderr, "starting the child:", err)
				os.Exit(1)
			}
		}
		fmt.Println("started")
		time.Sleep(10 * time.Minute)
	case "env":
		fmt.Println(os.Getenv(os.Args[2]))
	}
}
