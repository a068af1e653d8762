package main

import (
	"bytes"
	"context"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	var out bytes.Buffer
	fake, err := run(context.Background(), nil, &out)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	sha, ok := fake.Head("acme", "monorepo", "main")
	if !ok || !strings.Contains(out.String(), "committed   "+sha+" to main") {
		t.Errorf("output does not name main's head %s:\n%s", sha, out.String())
	}
	if !strings.Contains(out.String(), `read back   "gogithub-latest example: count a run"`) {
		t.Errorf("output does not show the commit read back through go-github:\n%s", out.String())
	}
	files, err := fake.Files("acme", "monorepo", "main")
	if err != nil {
		t.Fatal(err)
	}
	if got := string(files["gogithub-latest/runs.txt"].Content); got != "1\n" {
		t.Errorf("runs.txt = %q, want 1", got)
	}
	// Every request carried the token of the program's go-github client
	// (the fake refuses any other), and ghcommitter's writes went through it.
	// The ref moves by GraphQL updateRefs (a write, like the tree and the
	// commit): three writes in all.
	if n := fake.CountWrites(); n != 3 {
		t.Errorf("%d writes, want 3 (tree, commit, ref update)", n)
	}
}

func TestRepoNeedsToken(t *testing.T) {
	t.Setenv("GITHUB_TOKEN", "")
	_, err := run(context.Background(), []string{"-repo", "you/scratch"}, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "GITHUB_TOKEN") {
		t.Errorf("err = %v, want one asking for GITHUB_TOKEN", err)
	}
}

// TestImportsNoOldGoGitHub checks the point of the example: the program
// uses the newest go-github and no type of the one ghcommitter is built on.
func TestImportsNoOldGoGitHub(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	var sawNew bool
	for _, name := range files {
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			major, ok := strings.CutPrefix(p, "github.com/google/go-github/")
			if !ok {
				continue
			}
			major, _, _ = strings.Cut(major, "/")
			if !strings.Contains(string(mod), "github.com/google/go-github/"+major+" ") {
				t.Errorf("%s imports %s, which go.mod does not require directly: the old go-github leaks into the example", name, p)
			}
			sawNew = true
		}
	}
	if !sawNew {
		t.Error("the example imports no go-github at all")
	}
}
