package githubtest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitOracle is a scratch git repository that rebuilds commits of a fake
// repository with git's own tools (write-tree, commit-tree, merge-tree,
// cherry-pick), so that real git says what each commit's SHA must be (the
// pattern of committer/gitoracle_test.go).
type gitOracle struct {
	t        testing.TB
	ts       *TestServer
	repo     string
	dir      string
	env      []string
	mirrored map[string]bool
}

func newGitOracle(t testing.TB, ts *TestServer, repo string) *gitOracle {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: the merge oracle tests need it")
	}
	o := &gitOracle{t: t, ts: ts, repo: repo, dir: t.TempDir(), mirrored: map[string]bool{}}
	o.env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_CEILING_DIRECTORIES="+filepath.Dir(o.dir), "LC_ALL=C",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	o.git(nil, "init", "-q", "--template=", ".")
	o.git(nil, "config", "core.autocrlf", "false")
	o.git(nil, "config", "core.symlinks", "true")
	return o
}

// run runs git with stdin and extra environment; err holds its stderr.
func (o *gitOracle) run(stdin []byte, env []string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = o.dir, append(append([]string(nil), o.env...), env...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, errb.String())
	}
	return out.String(), nil
}

func (o *gitOracle) git(stdin []byte, args ...string) string {
	o.t.Helper()
	out, err := o.run(stdin, nil, args...)
	if err != nil {
		o.t.Fatal(err)
	}
	return strings.TrimSpace(out)
}

// mirror rebuilds the fake's commit sha and its ancestors in git, from
// their files and headers, and fails unless git names every one of them
// (and its tree) as the fake does.
func (o *gitOracle) mirror(sha string) {
	o.t.Helper()
	if o.mirrored[sha] {
		return
	}
	c, err := o.ts.Commit("acme", o.repo, sha)
	if err != nil {
		o.t.Fatal(err)
	}
	for _, p := range c.Parents {
		o.mirror(p)
	}
	if tree := o.treeOf(sha); tree != c.Tree {
		o.t.Fatalf("commit %s: git writes tree %s for its files, the fake %s", sha, tree, c.Tree)
	}
	if got := o.commit(c.Tree, c.Parents, c); got != sha {
		o.t.Fatalf("git names commit %q %s, the fake %s", c.Message, got, sha)
	}
	o.mirrored[sha] = true
}

// treeOf writes the fake's files at ref into the work tree and returns the
// tree git writes of them.
func (o *gitOracle) treeOf(ref string) string {
	o.t.Helper()
	files, err := o.ts.Files("acme", o.repo, ref)
	if err != nil {
		o.t.Fatal(err)
	}
	ents, _ := os.ReadDir(o.dir)
	for _, e := range ents {
		if e.Name() != ".git" {
			_ = os.RemoveAll(filepath.Join(o.dir, e.Name()))
		}
	}
	_ = os.Remove(filepath.Join(o.dir, ".git", "index"))
	for _, f := range files {
		p := filepath.Join(o.dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			o.t.Fatal(err)
		}
		switch f.Mode {
		case "120000":
			err = os.Symlink(string(f.Content), p)
		case "100755":
			err = os.WriteFile(p, f.Content, 0o755)
		default:
			err = os.WriteFile(p, f.Content, 0o644)
		}
		if err != nil {
			o.t.Fatal(err)
		}
	}
	o.git(nil, "add", "-A", ".")
	return o.git(nil, "write-tree")
}

// commit has git write a commit of tree and parents with c's author,
// committer and message (git commit-tree), and c's signature, which git
// keeps in a gpgsig header after the committer; it returns git's SHA.
func (o *gitOracle) commit(tree string, parents []string, c Commit) string {
	o.t.Helper()
	date := func(s Signature) string { return fmt.Sprintf("@%d %s", s.Date.Unix(), s.Date.Format("-0700")) }
	env := []string{"GIT_AUTHOR_NAME=" + c.Author.Name, "GIT_AUTHOR_EMAIL=" + c.Author.Email, "GIT_AUTHOR_DATE=" + date(c.Author),
		"GIT_COMMITTER_NAME=" + c.Committer.Name, "GIT_COMMITTER_EMAIL=" + c.Committer.Email, "GIT_COMMITTER_DATE=" + date(c.Committer)}
	args := []string{"commit-tree", tree, "-F", "-"}
	for _, p := range parents {
		args = append(args, "-p", p)
	}
	out, err := o.run([]byte(c.Message), env, args...)
	if err != nil {
		o.t.Fatal(err)
	}
	sha := strings.TrimSpace(out)
	if c.PGPSignature == "" {
		return sha
	}
	raw, err := o.run(nil, nil, "cat-file", "commit", sha) // the message's bytes as they are
	if err != nil {
		o.t.Fatal(err)
	}
	head, msg, _ := strings.Cut(raw, "\n\n")
	sig := "gpgsig " + strings.ReplaceAll(strings.TrimSuffix(c.PGPSignature, "\n"), "\n", "\n ")
	return o.git([]byte(head+"\n"+sig+"\n\n"+msg), "hash-object", "-t", "commit", "-w", "--stdin")
}

// mergeTree is git merge-tree --write-tree of two commits: the tree, and
// whether git found conflicts.
func (o *gitOracle) mergeTree(ours, theirs string) (string, bool) {
	o.t.Helper()
	out, err := o.run(nil, nil, "merge-tree", "--write-tree", ours, theirs)
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) {
		o.t.Fatal(err)
	}
	tree, _, _ := strings.Cut(out, "\n")
	return tree, err != nil
}

// cherryPick is the tree of commit picked onto onto by git cherry-pick.
func (o *gitOracle) cherryPick(onto, commit string) string {
	o.t.Helper()
	o.git(nil, "checkout", "-q", "-f", "--detach", onto)
	o.git(nil, "cherry-pick", "--no-commit", commit)
	return o.git(nil, "write-tree")
}
