package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/ghcommitter/ghcommitter/examples/internal/target/targettest"
)

func TestRun(t *testing.T) {
	fake, out := targettest.Run(t, run)
	sha, ok := fake.Head("acme", "monorepo", "main")
	if !ok || !strings.Contains(out, "commit      "+sha) {
		t.Errorf("output does not name main's head %s", sha)
	}
	for _, p := range []string{"hello/README.md", "hello/config.yaml", "hello/run.sh"} {
		if !strings.Contains(out, p) {
			t.Errorf("output does not list %s", p)
		}
	}
	files, err := fake.Files("acme", "monorepo", "main")
	if err != nil {
		t.Fatal(err)
	}
	if f := files["hello/run.sh"]; f.Mode != "100755" {
		t.Errorf("hello/run.sh mode %q, want 100755", f.Mode)
	}
	if string(files["hello/config.yaml"].Content) != "greeting: hello\nreplicas: 2\n" {
		t.Errorf("hello/config.yaml = %q", files["hello/config.yaml"].Content)
	}
}

func TestRunNewBranch(t *testing.T) {
	fake, _ := targettest.Run(t, run, "-branch", "try/basic")
	if _, ok := fake.Head("acme", "monorepo", "try/basic"); !ok {
		t.Error("branch try/basic was not created")
	}
}

func TestRepoNeedsToken(t *testing.T) {
	t.Setenv("GITHUB_TOKEN", "")
	_, err := run(context.Background(), []string{"-repo", "you/scratch"}, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "GITHUB_TOKEN") {
		t.Errorf("err = %v, want one asking for GITHUB_TOKEN", err)
	}
}
