package committer_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitRepo is a scratch git repository whose work tree tests change with
// plain file operations and whose index git computes trees from: real git
// as the reference for what a tree holds after a change.
type gitRepo struct {
	t   testing.TB
	dir string
	env []string
}

// newGitRepo makes a repository isolated from the machine's and the user's
// git settings, or skips the test when git is missing.
func newGitRepo(t testing.TB) *gitRepo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: the differential tests need it as the reference")
	}
	g := &gitRepo{t: t, dir: t.TempDir()}
	g.env = append(os.Environ(),
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_CEILING_DIRECTORIES="+filepath.Dir(g.dir),
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
		"LC_ALL=C")
	g.git("init", "-q", "--template=", ".")
	for _, kv := range [][2]string{
		{"core.autocrlf", "false"}, {"core.fileMode", "true"}, {"core.symlinks", "true"},
		{"core.excludesFile", "/dev/null"}, {"core.protectHFS", "true"}, {"core.protectNTFS", "true"},
		{"core.ignoreCase", "false"}, {"core.precomposeUnicode", "false"},
	} {
		g.git("config", kv[0], kv[1])
	}
	return g
}

// git runs git in the repository and returns its standard output; a
// failure fails the test.
func (g *gitRepo) git(args ...string) string {
	g.t.Helper()
	out, err := g.try(nil, args...)
	if err != nil {
		g.t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return out
}

// try runs git with stdin and returns its output, or an error holding its
// standard error.
func (g *gitRepo) try(stdin []byte, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = g.dir, g.env
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.String(), &gitError{err: err, stderr: errb.String()}
	}
	return out.String(), nil
}

type gitError struct {
	err    error
	stderr string
}

func (e *gitError) Error() string { return e.err.Error() + ": " + strings.TrimSpace(e.stderr) }

// writeTree stages the whole work tree (git add -A) and returns the SHA of
// the tree git writes from it.
func (g *gitRepo) writeTree() string {
	g.t.Helper()
	g.git("add", "-A", ".")
	return strings.TrimSpace(g.git("write-tree"))
}

// reset empties the work tree and the index.
func (g *gitRepo) reset() {
	g.t.Helper()
	ents, err := os.ReadDir(g.dir)
	if err != nil {
		g.t.Fatal(err)
	}
	for _, e := range ents {
		if e.Name() != ".git" {
			if err := os.RemoveAll(filepath.Join(g.dir, e.Name())); err != nil {
				g.t.Fatal(err)
			}
		}
	}
	if err := os.Remove(filepath.Join(g.dir, ".git", "index")); err != nil && !os.IsNotExist(err) {
		g.t.Fatal(err)
	}
}
