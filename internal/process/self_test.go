package process

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestSelfStartsTheProgramAsItWas: a process whose program file an
// upgrade replaced starts, through Self, a process of its own program,
// not of the file now at its path.
func TestSelfStartsTheProgramAsItWas(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("only Linux keeps a replaced program's file")
	}
	prog := filepath.Join(t.TempDir(), "mcptray")
	b, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(prog, b, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(prog, "-test.run=^TestHelperReplacedParent$")
	cmd.Env = append(os.Environ(), "PROCESS_TEST_ROLE=parent")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "the child runs the original program") || strings.Contains(out.String(), "the new version") {
		t.Fatalf("the child ran another program:\n%s", out.String())
	}
}

// TestHelperReplacedParent replaces its own program file by another
// program, as an upgrade does, then starts itself through Self.
func TestHelperReplacedParent(t *testing.T) {
	switch os.Getenv("PROCESS_TEST_ROLE") {
	case "parent":
	case "child":
		os.Stdout.WriteString("the child runs the original program\n")
		return
	default:
		t.Skip("a helper process of TestSelfStartsTheProgramAsItWas")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe+".new", []byte("#!/bin/sh\necho the new version\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(exe+".new", exe); err != nil {
		t.Fatal(err)
	}
	self, err := Self()
	if err != nil {
		t.Fatal(err)
	}
	child := exec.Command(self, "-test.run=^TestHelperReplacedParent$")
	child.Env = append(os.Environ(), "PROCESS_TEST_ROLE=child")
	child.Stdout, child.Stderr = os.Stdout, os.Stderr
	if err := child.Run(); err != nil {
		t.Fatal(err)
	}
}
