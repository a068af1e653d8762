package committer_test

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ghcommitter/ghcommitter/committer"
)

// gitRefuses runs git with args outside any repository (or in g) and
// reports whether it exits non-zero.
func gitRefuses(t *testing.T, g *gitRepo, stdin []byte, args ...string) bool {
	t.Helper()
	_, err := g.try(stdin, args...)
	return err != nil
}

// TestValidateBranchAgainstGit: every name `git check-ref-format --branch`
// refuses, ValidateBranch refuses; the only names ValidateBranch refuses
// beyond git's are "@", names starting with "refs/" and invalid UTF-8.
func TestValidateBranchAgainstGit(t *testing.T) {
	g := newGitRepo(t)
	// Run outside the repository, so that git does not expand "@{-1}".
	outside := &gitRepo{t: t, dir: t.TempDir(), env: g.env}
	names := []string{
		"main", "feature/x", "HEAD", "head", "-x", "a..b", "a/.b", ".a", "a.", "a.lock", "a/b.lock", "a/b.lock/c",
		"a//b", "/a", "a/", "a@{b", "@", "@@", "a@b", "a b", "a~b", "a^b", "a:b", "a?b", "a*b", "a[b", "a\\b",
		"a\x01b", "a\x7fb", "é", "refs/heads/x", "a/./b", "a/../b", "...", ".lock", "x.lock.y", "a.lock/b",
		"\xff", "@{-1}", "HEAD/x", "x/HEAD", "a/-b", "a//", "a{b}", "a}b", "\t", "a\nb",
	}
	r := rand.New(rand.NewPCG(11, 12))
	alphabet := []string{"a", "b", "/", ".", "-", "@", "{", "}", "~", "^", ":", "?", "*", "[", "\\", " ", "\x7f", "\x01", "lock", "HEAD", "é", "..", "refs"}
	n := 150
	if !testing.Short() {
		n = 1500
	}
	for range n {
		var b strings.Builder
		for range 1 + r.IntN(6) {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		names = append(names, b.String())
	}
	for _, name := range names {
		ours := committer.ValidateBranch(name)
		gits := gitRefuses(t, outside, nil, "check-ref-format", "--branch", name)
		switch {
		case gits && ours == nil:
			t.Errorf("ValidateBranch(%q) accepts what git check-ref-format --branch refuses", name)
		case !gits && ours != nil:
			if name != "@" && !strings.HasPrefix(name, "refs/") && utf8.ValidString(name) {
				t.Errorf("ValidateBranch(%q) = %v; git accepts it", name, ours)
			}
		}
	}
}

// TestValidatePathAgainstGit: every path git's verify_path refuses (with
// core.protectHFS and core.protectNTFS on) for a file or a symlink, the
// library refuses; it refuses nothing git accepts beyond invalid UTF-8.
func TestValidatePathAgainstGit(t *testing.T) {
	g := newGitRepo(t)
	idx := filepath.Join(t.TempDir(), "index")
	g.env = append(g.env, "GIT_INDEX_FILE="+idx)
	paths := []string{
		"a", "a/b", ".git", ".GIT", "a/.Git/b", ".git.", ".git..", ".git ", ".git. .", "a/.git./b", "git~1", "GIT~1",
		"git~1.", "git~2", "a/git~1/b", ".g\u200cit", "\u200b.git", ".git\u200f", "\ufeff.git", ".g\u206ait/x",
		"a\\.git", "a\\.git\\b", ".git\\x", "git~1\\a", ".gitmodules", "a/.GitModules", "gitmod~1", ".gitmodules.",
		".gitmodules ", "gi7eba~1", ".gitignore", ".gitattributes", ".git2", "x.git", ".gi", ".", "..", "a/./b",
		"a/../b", "..a", "a..", "...", "a//b", "/a", "a/", ".g\u0130t", ".\u212ait", "a:b", "a\\b", "\xff",
	}
	r := rand.New(rand.NewPCG(13, 14))
	alphabet := []string{".", "git", "GIT", "Git", "~1", "~2", "\u200c", "\ufeff", " ", "\\", "a", "/", "modules", "..", "mod", "gi7eba", ":"}
	n := 120
	if !testing.Short() {
		n = 1200
	}
	for range n {
		var b strings.Builder
		for range 1 + r.IntN(5) {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		paths = append(paths, b.String())
	}
	const emptyBlob = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"
	for _, p := range paths {
		for _, mode := range []committer.Mode{committer.ModeFile, committer.ModeSymlink} {
			os.Remove(idx)
			gits := gitRefuses(t, g, nil, "update-index", "--add", "--cacheinfo", string(mode)+","+emptyBlob+","+p)
			ours := validateEntryViaPlan(p, mode)
			switch {
			case gits && ours == nil:
				t.Errorf("%s %q: accepted, but git's verify_path refuses it", mode, p)
			case !gits && ours != nil && utf8.ValidString(p):
				t.Errorf("%s %q: refused (%v), but git accepts it", mode, p, ours)
			}
		}
	}
}

// validateEntryViaPlan checks p as a put of mode would be checked: through
// the public API, before any request (the change set is invalid or not).
func validateEntryViaPlan(p string, mode committer.Mode) error {
	if err := committer.ValidatePath(p); err != nil {
		return err
	}
	if mode == committer.ModeSymlink {
		return committer.ValidateSymlinkPath(p)
	}
	return nil
}
