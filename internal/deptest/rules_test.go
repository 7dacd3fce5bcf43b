package deptest

import (
	"bytes"
	"encoding/json"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestTheArchitectureHolds checks every rule on the real import graph, as
// built for Linux, Windows and macOS (build tags change what a package
// imports).
func TestTheArchitectureHolds(t *testing.T) {
	for _, goos := range []string{"linux", "windows", "darwin"} {
		g := graphOf(t, goos)
		for _, r := range Rules {
			for _, breach := range r.Check(g) {
				t.Errorf("%s: %q is broken: %s (%s)", goos, r.Name, breach, r.Why)
			}
		}
	}
}

// TestEachRuleCatchesItsBrokenArrow breaks each arrow in a copy of the real
// graph and checks that its rule, and only a rule, says so: a rule that
// cannot fail guards nothing.
func TestEachRuleCatchesItsBrokenArrow(t *testing.T) {
	g := graphOf(t, "linux")
	breaks := map[string]func(Graph){
		"catalog and record are leaves":                                    func(g Graph) { addImport(g, mod("catalog"), mod("internal/paths")) },
		"catalog, record and mcpcore import neither database/sql nor Fyne": func(g Graph) { addImport(g, mod("mcpcore"), "database/sql") },
		"storage imports neither mcpcore nor go-sdk":                       func(g Graph) { addImport(g, mod("storage"), mod("mcpcore")) },
		"clientconfig needs no database":                                   func(g Graph) { addImport(g, mod("clientconfig"), mod("storage")) },
		"the serving path draws nothing":                                   func(g Graph) { addImport(g, mod("app/tray"), "fyne.io/fyne/v2/widget") },
		"the shim imports only internal/paths, internal/atomicfile, internal/process, internal/upgrade and internal/atmostonce": func(g Graph) {
			addImport(g, mod("cmd/mcptray-stdio"), mod("storage"))
		},
		"only the program's main package imports app":          func(g Graph) { addImport(g, mod("internal/cli"), mod("app")) },
		"only the window process imports the editors":          func(g Graph) { addImport(g, mod("app/tray"), mod("app/editor")) },
		"the desktop's building blocks read and write nothing": func(g Graph) { addImport(g, mod("app/ui"), mod("storage")) },
		"test helpers stay out of the program":                 func(g Graph) { addImport(g, mod("app"), mod("app/internal/uitest")) },
		"upstream needs no database and draws nothing":         func(g Graph) { addImport(g, mod("upstream"), mod("storage")) },
	}
	if len(breaks) != len(Rules) {
		t.Fatalf("%d rules, %d broken arrows: each rule needs one", len(Rules), len(breaks))
	}
	for _, r := range Rules {
		brk, ok := breaks[r.Name]
		if !ok {
			t.Errorf("no broken arrow for the rule %q", r.Name)
			continue
		}
		broken := clone(g)
		brk(broken)
		if got := r.Check(broken); len(got) == 0 {
			t.Errorf("%q: its arrow broken, the rule saw nothing", r.Name)
		} else {
			t.Logf("%q, broken: %s", r.Name, got[0])
		}
	}
}

// TestOnlyGuiGoImportsApp: in the program's main package, the desktop's
// entry (gui.go, left out of the headless build) is the one file that
// starts the window process's package.
func TestOnlyGuiGoImportsApp(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("the main package's files: %v", err)
	}
	for _, f := range files {
		parsed, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range parsed.Imports {
			if strings.Trim(imp.Path.Value, `"`) == mod("app") && filepath.Base(f) != "gui.go" {
				t.Errorf("%s imports %s: only gui.go may", filepath.Base(f), mod("app"))
			}
		}
	}
}

// addImport makes pkg import dep, with dep's own dependencies, as the
// compiler would.
func addImport(g Graph, pkg, dep string) {
	p := g[pkg]
	p.Imports = append(p.Imports, dep)
	p.Deps = append(append(p.Deps, dep), g[dep].Deps...)
	g[pkg] = p
	for name, q := range g {
		for _, d := range q.Deps {
			if d == pkg {
				q.Deps = append(append(q.Deps, dep), g[dep].Deps...)
				g[name] = q
				break
			}
		}
	}
}

func clone(g Graph) Graph {
	out := make(Graph, len(g))
	for k, v := range g {
		v.Imports = append([]string(nil), v.Imports...)
		v.Deps = append([]string(nil), v.Deps...)
		out[k] = v
	}
	return out
}

// graphOf is the import graph of the whole module (tests left out), as
// built for goos: one `go list`.
func graphOf(t *testing.T, goos string) Graph {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "-json=ImportPath,Imports,Deps,Standard,Error", module+"/...")
	// CGO_ENABLED=1: the files a cross build without cgo would leave out
	// (GLFW's) are what the rules are about.
	cmd.Env = append(os.Environ(), "GOOS="+goos, "GOFLAGS=", "CGO_ENABLED=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps (%s): %v\n%s", goos, err, stderr.Bytes())
	}
	g := Graph{}
	dec := json.NewDecoder(bytes.NewReader(b))
	for {
		var p struct {
			ImportPath string
			Error      *struct{ Err string }
			Package
		}
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("go list -deps (%s): %v", goos, err)
		}
		if p.Error != nil { // a graph that left out a file would hide its imports
			t.Fatalf("go list -deps (%s): %s: %s", goos, p.ImportPath, p.Error.Err)
		}
		g[p.ImportPath] = p.Package
	}
	return g
}
