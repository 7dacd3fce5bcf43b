package main

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// The shim bundled in the Claude Desktop extension is not beside mcptray,
// and Claude starts it with a PATH that may lack mcptray's folder: it
// still finds the per-user install.
func TestFindMcptrayInTheInstallersFolder(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "darwin" {
		t.Skip("the Linux folders are checked here")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("PATH", t.TempDir())
	t.Setenv("MCPTRAY_BIN", "")
	if got := findMcptray(); got != "" && filepath.Dir(got) != "/usr/bin" && filepath.Dir(got) != "/usr/local/bin" {
		t.Fatalf("before the install: found %q", got)
	}
	bin := filepath.Join(home, ".local", "bin", "mcptray")
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := findMcptray(); got != bin {
		t.Fatalf("findMcptray() = %q, want the per-user install %q", got, bin)
	}
}

func TestInstalledPlaces(t *testing.T) {
	env := map[string]string{"HOME": "/home/ann", "LOCALAPPDATA": `C:\Users\ann\AppData\Local`}
	for goos, want := range map[string]string{
		"windows": filepath.Join(`C:\Users\ann\AppData\Local`, "Programs", "mcptray", "mcptray.exe"),
		"darwin":  "/home/ann/Applications/mcptray.app/Contents/MacOS/mcptray",
		"linux":   "/home/ann/.local/bin/mcptray",
	} {
		got := installedPlaces(goos, func(k string) string { return env[k] })
		if len(got) == 0 || got[0] != want {
			t.Errorf("%s: installedPlaces() = %q, want %q first", goos, got, want)
		}
	}
}
