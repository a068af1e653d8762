package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

// The black-box side of issue #11's tree shapes and hostile values: what the
// library decides, seen through the CLI's exit codes and the branch.

// TestSyncFileToDirectoryAndBack: a sync replaces a remote file by a local
// directory and a remote directory by a local file, as git would.
func TestSyncFileToDirectoryAndBack(t *testing.T) {
	srv := fake(t, githubtest.File{Path: "d/a", Content: []byte("file\n")}, githubtest.File{Path: "e/a/x", Content: []byte("x\n")})
	local := t.TempDir()
	writeFile(t, filepath.Join(local, "d/a/b"), "b\n", 0o644)
	writeFile(t, filepath.Join(local, "e/a"), "now a file\n", 0o644)
	r := newCLI(t).run(commitArgs(srv, "-m", "m", "--sync", filepath.Join(local, "d")+"=d", "--sync", filepath.Join(local, "e")+"=e")...)
	r.wantCode(t, 0)
	if got := files(t, srv); got != "d/a/b e/a" {
		t.Errorf("files = %s, want d/a/b e/a", got)
	}
	if got, _ := readFile(t, srv, "main", "e/a"); got != "now a file\n" {
		t.Errorf("e/a = %q", got)
	}
}

// TestPutThroughOrOntoRefused: a put through a file or onto a directory
// would delete files silently: exit 3, nothing committed. Said explicitly
// with --delete, it works, and --dry-run lists what is deleted.
func TestPutThroughOrOntoRefused(t *testing.T) {
	srv := fake(t, githubtest.File{Path: "t/a", Content: []byte("a\n")}, githubtest.File{Path: "t/d/x", Content: []byte("x\n")})
	f := filepath.Join(t.TempDir(), "f")
	writeFile(t, f, "f\n", 0o644)
	before := head(t, srv, "main")
	for _, add := range []string{"t/a/b=" + f, "t/d=" + f} {
		r := newCLI(t).run(commitArgs(srv, "-m", "m", "--add", add)...)
		r.wantCode(t, 3)
		if head(t, srv, "main") != before {
			t.Fatalf("--add %s moved the branch", add)
		}
	}
	r := newCLI(t).run(commitArgs(srv, "-m", "m", "--dry-run", "--delete", "t/d", "--add", "t/d="+f)...)
	r.wantCode(t, 0)
	if !strings.Contains(r.stdout, "t/d/x") {
		t.Errorf("dry run does not list the deleted t/d/x:\n%s", r.stdout)
	}
	newCLI(t).run(commitArgs(srv, "-m", "m", "--delete", "t/a", "--add", "t/a/b="+f, "--delete", "t/d", "--add", "t/d="+f)...).wantCode(t, 0)
	if got := files(t, srv); got != "t/a/b t/d" {
		t.Errorf("files = %s, want t/a/b t/d", got)
	}
}

// TestSymlinkThroughGitDirRefused: a link routed through a skipped .git
// directory must not publish a file from outside the synced tree.
func TestSymlinkThroughGitDirRefused(t *testing.T) {
	srv := fake(t)
	outside := t.TempDir()
	writeFile(t, filepath.Join(outside, "secret"), "secret\n", 0o644)
	tree := t.TempDir()
	if err := os.MkdirAll(filepath.Join(tree, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(tree, ".git", "up")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(".git/up/secret", filepath.Join(tree, "leak")); err != nil {
		t.Fatal(err)
	}
	before := head(t, srv, "main")
	for _, mode := range [][]string{nil, {"--no-file-mode"}} {
		args := append([]string{"-m", "m", "--sync", tree + "=deploy"}, mode...)
		r := newCLI(t).run(commitArgs(srv, args...)...)
		r.wantCode(t, 2)
		if head(t, srv, "main") != before || writes(srv) != 0 {
			t.Fatalf("%v: something was written", mode)
		}
	}
}

// TestBadValuesRefused: values that would make objects git fsck rejects,
// or names git refuses, are exit 2 before any write.
func TestBadValuesRefused(t *testing.T) {
	srv := fake(t)
	before := head(t, srv, "main")
	for _, args := range [][]string{
		{"-m", "m", "--author", "A <b@c> <d@e.com>", "--edit", "a=echo a"},
		{"-m", "m", "--author", "A>B <d@e.com>", "--edit", "a=echo a"},
		{"-m", "a\x00b", "--edit", "a=echo a"},
		{"-m", "a\xffb", "--edit", "a=echo a"},
		{"-m", "m", "-b", "HEAD", "--edit", "a=echo a"},
		{"-m", "m", "--edit", ".GIT/config=echo a"},
		{"-m", "m", "--edit", "git~1/config=echo a"},
		{"-m", "m", "--edit", ".git./config=echo a"},
	} {
		srv.ResetRequests()
		r := newCLI(t).run(commitArgs(srv, args...)...)
		r.wantCode(t, 2)
		if head(t, srv, "main") != before || writes(srv) != 0 {
			t.Fatalf("%q: something was written", args)
		}
	}
}
