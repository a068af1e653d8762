package layout

import (
	"fmt"
	"strings"
	"testing"
)

// The figures docs/architecture.md promises for the committer package tree.
const (
	maxCycle     = 4   // files in the largest reference cycle of package committer
	maxFileLines = 400 // lines in a non-test file
	maxFuncLines = 60  // lines in a non-test function
	restAdapter  = "github.com/ghcommitter/ghcommitter/committer/internal/rest"
	ghclientPkg  = "github.com/ghcommitter/ghcommitter/committer/ghclient"
	committerPkg = "github.com/ghcommitter/ghcommitter/committer"
)

// measured are the packages whose figures are held: the committer, its
// internal packages and its HTTP layer (ghclient). The fake GitHub
// (githubtest) and the structured edits (edits) are tools beside it.
var measured = []string{"./committer", "./committer/internal/...", "./committer/ghclient"}

func TestLayout(t *testing.T) {
	if testing.Short() && testing.Verbose() {
		t.Log("layout is measured in -short runs too: it is cheap")
	}
	pkgs, err := Measure("../..", measured...)
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) < 2 {
		t.Fatalf("measured %d packages, want committer and its internal packages", len(pkgs))
	}
	for _, p := range pkgs {
		if p.ImportPath == committerPkg && len(p.Cycle) > maxCycle {
			t.Errorf("%s: the largest file cycle has %d files (at most %d): %s", p.ImportPath, len(p.Cycle), maxCycle, strings.Join(p.Cycle, " "))
		}
		for _, f := range p.Files {
			if f.Lines > maxFileLines {
				t.Errorf("%s/%s: %d lines (at most %d)", p.ImportPath, f.Name, f.Lines, maxFileLines)
			}
			for _, fn := range f.Funcs {
				if fn.Lines > maxFuncLines {
					t.Errorf("%s/%s: %s is %d lines (at most %d)", p.ImportPath, f.Name, fn.Name, fn.Lines, maxFuncLines)
				}
			}
		}
		for _, imp := range p.Imports {
			if p.ImportPath == ghclientPkg {
				break // the HTTP layer may build go-github clients for callers (ghclient.New)
			}
			if strings.HasPrefix(imp, "github.com/google/go-github/") && p.ImportPath != restAdapter {
				t.Errorf("%s imports %s: only the REST adapter (%s) may", p.ImportPath, imp, restAdapter)
			}
		}
	}
}

// TestLargestSCC checks the cycle finder on a graph with a known answer.
func TestLargestSCC(t *testing.T) {
	g := map[string]map[string]bool{
		"a": {"b": true}, "b": {"c": true}, "c": {"a": true, "d": true},
		"d": {"e": true}, "e": {"d": true}, "f": {},
	}
	got := fmt.Sprint(largestSCC(g))
	if got != "[a b c]" {
		t.Fatalf("largestSCC = %s, want [a b c]", got)
	}
}
