package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/examples/internal/target/targettest"
)

func TestRun(t *testing.T) {
	fake, out := targettest.Run(t, run)
	first, second, ok := strings.Cut(out, "run 2:")
	if !ok {
		t.Fatal("output has no second run")
	}
	for _, want := range []string{"added     site/about.html", "modified  site/index.html", "deleted   site/old.html", "committed "} {
		if !strings.Contains(first, want) {
			t.Errorf("first run does not say %q", want)
		}
	}
	if !strings.Contains(second, "no-op") || strings.Contains(second, "added") || strings.Contains(second, "deleted") {
		t.Errorf("second run is not a no-op:\n%s", second)
	}
	files, err := fake.Files("acme", "monorepo", "main")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := files["site/old.html"]; ok {
		t.Error("site/old.html was not deleted")
	}
	if got := files["site/bin/publish.sh"]; got.Mode != "100755" {
		t.Errorf("site/bin/publish.sh mode %q, want 100755", got.Mode)
	}
	if got := files["site/img/logo.bin"]; !bytes.HasPrefix(got.Content, []byte("\x89PNG")) {
		t.Errorf("site/img/logo.bin = %q", got.Content)
	}
	if _, ok := files["README.md"]; !ok {
		t.Error("README.md outside site/ was touched")
	}
	// One sync commit on top of the seed: the second run made none.
	hist, err := fake.History("acme", "monorepo", "main")
	if err != nil {
		t.Fatal(err)
	}
	if len(hist) != 3 || !strings.HasPrefix(hist[0].Message, "sync site/") {
		t.Errorf("history has %d commits, newest %q; want init, seed, one sync", len(hist), hist[0].Message)
	}
}

func TestRunOwnDirToRoot(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "only.txt"), []byte("only\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fake, _ := targettest.Run(t, run, "-dir", dir, "-remote-dir", ".", "-branch", "mirror")
	files, err := fake.Files("acme", "monorepo", "mirror")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || string(files["only.txt"].Content) != "only\n" {
		t.Errorf("mirror branch holds %v, want only only.txt", keys(files))
	}
}

func keys[M ~map[string]V, V any](m M) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

// An empty -remote-dir (an unset variable) is refused before any write:
// only "." syncs onto the root.
func TestRunRefusesEmptyRemoteDir(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "only.txt"), []byte("only\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	fake, err := run(context.Background(), []string{"-dir", dir, "-remote-dir", "", "-branch", "mirror"}, &out)
	if !errors.Is(err, committer.ErrInvalid) {
		t.Fatalf("err = %v, want ErrInvalid\n%s", err, &out)
	}
	if _, ok := fake.Head("acme", "monorepo", "mirror"); ok {
		t.Error("the refused sync created the mirror branch")
	}
}
