package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"
	commitcmd "github.com/ghcommitter/ghcommitter/internal/cli/commit"
	"github.com/ghcommitter/ghcommitter/internal/cli/input"
)

// xdgExcludes moves the global excludes to git's default place,
// ~/.config/git/ignore: the global configuration names no excludes file.
func (g *gitRepo) xdgExcludes(patterns string) {
	g.t.Helper()
	writeFile(g.t, filepath.Join(g.home, "gitconfig"), "[user]\n\tname = T\n\temail = t@example.com\n[init]\n\tdefaultBranch = main\n", 0o644)
	writeFile(g.t, filepath.Join(g.home, ".config", "git", "ignore"), patterns, 0o644)
}

// withoutGit makes the CLI find no git on PATH for the rest of the test:
// it reads the checkout with go-git.
func withoutGit(t *testing.T) {
	saved := input.LookGit
	input.LookGit = func() error { return input.ErrNoGit }
	t.Cleanup(func() { input.LookGit = saved })
}

// wantLikeGit runs --changed in g, with git on PATH or without it, and
// wants what git add -A && git write-tree makes: the same paths changed,
// the same tree committed. It returns that tree.
func wantLikeGit(t *testing.T, g *gitRepo, noGit bool) (wantTree string) {
	t.Helper()
	srv := fake(t, g.headFiles()...)
	wantTree, wantChanged := g.addAll()
	if noGit {
		withoutGit(t)
	}
	t.Chdir(g.dir)
	c := g.cli()
	dry := c.run(commitArgs(srv, "-m", "changed", "--changed", "--dry-run", "--json")...)
	dry.wantCode(t, 0)
	var plan struct {
		Files []struct{ Path, Action string }
	}
	if err := json.Unmarshal([]byte(dry.stdout), &plan); err != nil {
		t.Fatalf("%v\n%s", err, dry.stdout)
	}
	var differ []string
	for _, f := range plan.Files {
		if f.Action != "unchanged" {
			differ = append(differ, f.Path)
		}
	}
	sort.Strings(differ)
	if !slices.Equal(differ, wantChanged) {
		t.Errorf("--changed would change\n  %q\ngit add -A changes\n  %q", differ, wantChanged)
	}
	res := c.run(commitArgs(srv, "-m", "changed", "--changed", "--json")...)
	res.wantCode(t, 0)
	var out commitcmd.JSONResult
	if err := json.Unmarshal([]byte(res.stdout), &out); err != nil {
		t.Fatalf("%v\n%s", err, res.stdout)
	}
	if out.Tree != wantTree {
		t.Errorf("committed tree %s, git add -A && git write-tree gives %s\n%s", out.Tree, wantTree, g.git("ls-tree", "-r", wantTree))
	}
	return wantTree
}

// bothWays runs f as a subtest with git on PATH and without it.
func bothWays(t *testing.T, f func(t *testing.T, noGit bool)) {
	t.Run("git", func(t *testing.T) { f(t, false) })
	t.Run("go-git", func(t *testing.T) { f(t, true) })
}

// Files git ignores through the global excludes (git's default
// ~/.config/git/ignore, $XDG_CONFIG_HOME/git/ignore, core.excludesFile of
// the global configuration) or the repository's own core.excludesFile are
// not committed, with git on PATH or without it.
func TestChangedHonoursEveryExcludesFile(t *testing.T) {
	setups := map[string]func(g *gitRepo){
		"xdg default": func(g *gitRepo) { g.xdgExcludes(".env\n*.pem\n") },
		"XDG_CONFIG_HOME": func(g *gitRepo) {
			g.xdgExcludes("")
			xdg := filepath.Join(g.home, "xdg")
			writeFile(g.t, filepath.Join(xdg, "git", "ignore"), ".env\n*.pem\n", 0o644)
			g.env = append(g.env, "XDG_CONFIG_HOME="+xdg)
		},
		"repository core.excludesFile": func(g *gitRepo) {
			g.xdgExcludes("") // the repository's excludes file is read instead
			writeFile(g.t, filepath.Join(g.home, "repo-excludes"), ".env\n*.pem\n", 0o644)
			g.git("config", "core.excludesFile", filepath.Join(g.home, "repo-excludes"))
		},
		"repository core.excludesFile overrides the default": func(g *gitRepo) {
			g.xdgExcludes(".env\n*.pem\n")
			writeFile(g.t, filepath.Join(g.home, "repo-excludes"), "*.pem\n", 0o644)
			g.git("config", "core.excludesFile", filepath.Join(g.home, "repo-excludes"))
		},
		"global core.excludesFile with ~": func(g *gitRepo) {
			writeFile(g.t, filepath.Join(g.home, "ex"), ".env\n*.pem\n", 0o644)
			writeFile(g.t, filepath.Join(g.home, "gitconfig"), "[user]\n\tname = T\n\temail = t@example.com\n[core]\n\texcludesFile = ~/ex\n", 0o644)
		},
	}
	for name, setup := range setups {
		t.Run(name, func(t *testing.T) {
			bothWays(t, func(t *testing.T, noGit bool) {
				g := newGitRepo(t)
				g.write("app.yaml", "v: 1\n", 0o644)
				g.git("add", "-A")
				g.git("commit", "-q", "-m", "HEAD")
				setup(g)
				g.write("app.yaml", "v: 2\n", 0o644)
				g.write(".env", "API_KEY=hunter2\n", 0o600)
				g.write("keys/id.pem", "-----BEGIN PRIVATE KEY-----\n", 0o600)
				want := []string{"app.yaml"}
				if strings.Contains(name, "overrides") {
					want = []string{".env", "app.yaml"}
				}
				if st := g.statusPaths(); !slices.Equal(st, want) {
					t.Fatalf("git status: %q", st)
				}
				wantLikeGit(t, g, noGit)
			})
		})
	}
}

// An [includeIf] in git's configuration is refused by the go-git
// fallback, which cannot judge its condition, with nothing written.
func TestChangedWithoutGitRefusesIncludeIf(t *testing.T) {
	g := newGitRepo(t)
	g.write("app.yaml", "v: 1\n", 0o644)
	g.git("add", "-A")
	g.git("commit", "-q", "-m", "HEAD")
	writeFile(t, filepath.Join(g.home, "gitconfig"), "[includeIf \"gitdir:~/work/\"]\n\tpath = ~/work.gitconfig\n", 0o644)
	g.write("app.yaml", "v: 2\n", 0o644)
	srv := fake(t, g.headFiles()...)
	withoutGit(t)
	t.Chdir(g.dir)
	res := g.cli().run(commitArgs(srv, "-m", "x", "--changed")...)
	res.wantCode(t, cmdutil.ExitUsage)
	if !strings.Contains(res.stderr, "includeIf") || !strings.Contains(res.stderr, "install git") {
		t.Errorf("stderr:\n%s", res.stderr)
	}
	if writes(srv) != 0 {
		t.Errorf("%d writes", writes(srv))
	}
}

// With core.fileMode=false, git add -A keeps the index's modes for files
// it has and gives new files 100644, whatever their bits on disk.
func TestChangedFileModeFalse(t *testing.T) {
	bothWays(t, func(t *testing.T, noGit bool) {
		g := newGitRepo(t)
		g.write("run.sh", "#!/bin/sh\necho 1\n", 0o755)
		g.write("data.txt", "1\n", 0o644)
		g.write("chmod-only.sh", "x\n", 0o755)
		g.git("add", "-A")
		g.git("commit", "-q", "-m", "HEAD")
		g.git("config", "core.fileMode", "false")
		g.write("run.sh", "#!/bin/sh\necho 2\n", 0o644)
		g.write("data.txt", "2\n", 0o755)
		g.write("chmod-only.sh", "x\n", 0o644)
		g.write("new.sh", "#!/bin/sh\n", 0o755)
		wantLikeGit(t, g, noGit)
	})
}

// dirBecameSymlink is a checkout whose directory cfg/ (ignored by
// .gitignore when ignored) is now a symbolic link to other/.
func dirBecameSymlink(t *testing.T, ignored bool) *gitRepo {
	g := newGitRepo(t)
	g.write("cfg/app.yaml", "cfg: 1\n", 0o644)
	g.write("other/app.yaml", "other: 1\n", 0o644)
	g.write("other/more.yaml", "more: 1\n", 0o644)
	if ignored {
		g.write(".gitignore", "/cfg\n", 0o644)
	}
	g.git("add", "-A")
	g.git("add", "-f", "cfg/app.yaml")
	g.git("commit", "-q", "-m", "HEAD")
	if err := os.RemoveAll(filepath.Join(g.dir, "cfg")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("other", filepath.Join(g.dir, "cfg")); err != nil {
		t.Fatal(err)
	}
	return g
}

// A directory replaced by an ignored symbolic link deletes the files that
// were under it, as git add -A does: the link is not followed.
func TestChangedDirectoryBecameSymlink(t *testing.T) {
	t.Run("ignored", func(t *testing.T) {
		bothWays(t, func(t *testing.T, noGit bool) {
			g := dirBecameSymlink(t, true)
			if st := g.statusPaths(); !slices.Equal(st, []string{"cfg/app.yaml"}) {
				t.Fatalf("git status: %q", st)
			}
			wantLikeGit(t, g, noGit)
		})
	})
	// Not ignored, the link replaces the directory: git add -A commits
	// it; --changed refuses (the files under it cannot be guarded while
	// the link replaces them), naming the path, with nothing written.
	t.Run("not ignored", func(t *testing.T) {
		bothWays(t, func(t *testing.T, noGit bool) {
			g := dirBecameSymlink(t, false)
			srv := fake(t, g.headFiles()...)
			if noGit {
				withoutGit(t)
			}
			t.Chdir(g.dir)
			res := g.cli().run(commitArgs(srv, "-m", "x", "--changed")...)
			res.wantCode(t, cmdutil.ExitUsage)
			if !strings.Contains(res.stderr, `"cfg/app.yaml": is under "cfg"`) {
				t.Errorf("stderr:\n%s", res.stderr)
			}
			if writes(srv) != 0 {
				t.Errorf("%d writes", writes(srv))
			}
		})
	})
}

// A racily clean index entry: a file rewritten with the same size in the
// second its index entry and the index itself were written (played here
// with fixed mtimes and core.trustctime=false). git hashes it again and
// finds the change; so must --changed, and so must the test's oracle.
func TestChangedRacilyCleanEntry(t *testing.T) {
	bothWays(t, func(t *testing.T, noGit bool) {
		g := newGitRepo(t)
		g.git("config", "core.trustctime", "false")
		when := time.Now().Add(-time.Hour).Truncate(time.Second)
		g.write("a.txt", "one\n", 0o644)
		if err := os.Chtimes(filepath.Join(g.dir, "a.txt"), when, when); err != nil {
			t.Fatal(err)
		}
		g.git("add", "-A")
		g.git("commit", "-q", "-m", "HEAD")
		g.write("a.txt", "two\n", 0o644) // in place: the same inode and size
		for _, p := range []string{"a.txt", ".git/index"} {
			if err := os.Chtimes(filepath.Join(g.dir, p), when, when); err != nil {
				t.Fatal(err)
			}
		}
		// git status, without refreshing the index (which would smudge
		// the entry and end the race).
		if st := g.gitEnv([]string{"GIT_OPTIONAL_LOCKS=0"}, "status", "--porcelain"); st != " M a.txt\n" {
			t.Fatalf("git status: %q", st)
		}
		wantLikeGit(t, g, noGit)
	})
}
