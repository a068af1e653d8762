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
	if fake.TokensIssued(fakeInstallationID) == 0 {
		t.Error("no installation token was issued: the commit did not authenticate as the app")
	}
	sha, _ := fake.Head("acme", "monorepo", "main")
	c, err := fake.Commit("acme", "monorepo", sha)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(c.Author.Name, "[bot]") || c.Message != "github-app example: commit as an app installation" {
		t.Errorf("head commit by %q: %q; want the app's bot", c.Author.Name, c.Message)
	}
	if !strings.Contains(out, "verified    true (valid)") || !strings.Contains(out, sha) {
		t.Errorf("output does not show a verified commit %s", sha)
	}
}

func TestRepoNeedsApp(t *testing.T) {
	_, err := run(context.Background(), []string{"-repo", "you/scratch"}, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "-app-id") {
		t.Errorf("err = %v, want one asking for -app-id and -key-file", err)
	}
}
