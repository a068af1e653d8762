package cli

import (
	"crypto/sha1"
	"encoding/hex"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

func files(t *testing.T, srv *githubtest.TestServer) string {
	t.Helper()
	fs, err := srv.Files("acme", "mono", "main")
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for p := range fs {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	return strings.Join(paths, " ")
}

// TestSyncThroughSymlinkedDirectory: a LOCAL_DIR that is a symlink to a
// directory syncs the directory it points to.
func TestSyncThroughSymlinkedDirectory(t *testing.T) {
	srv := fake(t, githubtest.File{Path: "deploy/stale", Content: []byte("s\n")}, githubtest.File{Path: "README.md", Content: []byte("r\n")})
	t.Chdir(t.TempDir())
	writeFile(t, "build/out/app.yaml", "a: 1\n", 0o644)
	if err := os.Symlink("build/out", "out"); err != nil {
		t.Fatal(err)
	}
	r := newCLI(t).run(commitArgs(srv, "-m", "m", "--sync", "out=deploy")...)
	r.wantCode(t, 0)
	if got := files(t, srv); got != "README.md deploy/app.yaml" {
		t.Errorf("files = %s", got)
	}
}

// TestSyncRefusesEmptyRemoteDir: an empty REMOTE_DIR (an unset shell
// variable), "/" or "./" (a prefix before one) would mirror over the whole
// repository: refused before any request; only "." means the root.
func TestSyncRefusesEmptyRemoteDir(t *testing.T) {
	srv := fake(t, githubtest.File{Path: "keep/me", Content: []byte("k\n")}, githubtest.File{Path: "README.md", Content: []byte("r\n")})
	local := t.TempDir()
	writeFile(t, filepath.Join(local, "x"), "x\n", 0o644)
	before := head(t, srv, "main")
	for _, args := range [][]string{
		{"--sync", local + "="},
		{"--sync", local + "=/"},
		{"--sync", local + "=//"},
		{"--sync", local + "=./"},
		{"--sync", local + "=.//"},
		{"--add", "=" + local},
		{"--add", "/=" + local},
		{"--add", "./=" + local},
		{"--prefix", "./", local},
	} {
		srv.ResetRequests()
		r := newCLI(t).run(commitArgs(srv, append([]string{"-m", "m"}, args...)...)...)
		r.wantCode(t, 2)
		if !strings.Contains(r.stderr, `"." is the root`) {
			t.Errorf("%v: stderr = %q, want a hint that . is the root", args, r.stderr)
		}
		if n := len(srv.Requests()); n != 0 || head(t, srv, "main") != before {
			t.Errorf("%v: %d requests sent", args, n)
		}
	}
	newCLI(t).run(commitArgs(srv, "-m", "m", "--sync", local+"=.")...).wantCode(t, 0)
	if got := files(t, srv); got != "x" {
		t.Errorf("after --sync DIR=. the files are %s, want the mirror", got)
	}
}

// TestEqualsInPaths: --expect-sha splits at the last "=", --sync at the
// last, --add at the first.
func TestEqualsInPaths(t *testing.T) {
	srv := fake(t, githubtest.File{Path: "k=v", Content: []byte("held\n")})
	sum := sha1.Sum([]byte("blob 5\x00held\n"))
	sha := hex.EncodeToString(sum[:])
	before := head(t, srv, "main")
	r := newCLI(t).run(commitArgs(srv, "-m", "m", "--expect-sha", "k=v="+strings.Repeat("1", 40), "--delete", "k=v")...)
	r.wantCode(t, 3)
	if head(t, srv, "main") != before {
		t.Fatal("the branch moved")
	}
	newCLI(t).run(commitArgs(srv, "-m", "m", "--expect-sha", "k=v="+sha, "--delete", "k=v")...).wantCode(t, 0)

	t.Chdir(t.TempDir())
	writeFile(t, "a=b/f", "f\n", 0o644)
	writeFile(t, "x=y", "x\n", 0o644)
	newCLI(t).run(commitArgs(srv, "-m", "m", "--sync", "a=b=dir", "--add", "c/x=x=y")...).wantCode(t, 0)
	if got, _ := readFile(t, srv, "main", "dir/f"); got != "f\n" {
		t.Errorf("dir/f = %q", got)
	}
	if got, _ := readFile(t, srv, "main", "c/x"); got != "x\n" {
		t.Errorf("c/x = %q", got)
	}
}

// TestJudgedAgainstTheBranchWritesNothing: input that only the branch shows
// to be wrong (an --edit of a directory, a --sync onto a file) is exit 2
// after read requests, and still nothing was written.
func TestJudgedAgainstTheBranchWritesNothing(t *testing.T) {
	srv := fake(t, githubtest.File{Path: "d/x", Content: []byte("x\n")}, githubtest.File{Path: "f", Content: []byte("f\n")})
	local := t.TempDir()
	writeFile(t, filepath.Join(local, "a"), "a\n", 0o644)
	before := head(t, srv, "main")
	for _, args := range [][]string{{"--edit", "d=echo a"}, {"--sync", local + "=f"}} {
		srv.ResetRequests()
		r := newCLI(t).run(commitArgs(srv, append([]string{"-m", "m"}, args...)...)...)
		r.wantCode(t, 2)
		if head(t, srv, "main") != before || writes(srv) != 0 {
			t.Errorf("%v: the branch moved or %d writes were sent", args, writes(srv))
		}
	}
}
