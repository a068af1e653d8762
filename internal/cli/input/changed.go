// Package input reads what a commit is made of from the local side: the git
// checkout --changed commits from (OpenCheckout), the --edit commands
// (ShellEdit), a manifest document (ParseManifest), the structured edits
// (StructuredOp, AddStructured) and the blob SHA of a local file
// (LocalBlobSHA).
package input

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"
	"github.com/ghcommitter/ghcommitter/internal/cli/secure"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// A checkout's changes, as git sees them: --changed, and the .gitignore
// rules a LOCAL_PATH directory is walked with. Everything here asks the git
// on PATH, run in the current directory, so that .gitignore files at every
// level, their negations, .git/info/exclude, core.excludesFile and the
// global excludes mean exactly what they mean to git status and git add.

// GitChange is one path git status reports under the LOCAL_PATH arguments.
type GitChange struct {
	Path    string // relative to the checkout's top level, / separated
	Local   string // the file on disk, relative to the current directory
	HeadSHA string // its blob SHA at the checkout's HEAD, "" when absent there
	Mode    string // the mode git add takes for a regular file, "" for the one on disk
	Keep    bool   // the checkout has it (tracked or not ignored): put it; else delete it
}

// GitCheckout is the git work tree the current directory is in.
type GitCheckout struct {
	ctx context.Context
	e   *cmdutil.Env
	top string // absolute, symlinks resolved
	cwd string // absolute, symlinks resolved
	// gogit reads the checkout when git is not on PATH.
	gogit *goGitCheckout
}

// ErrNoGit is git's absence: what a test's LookGit returns to play it.
// OpenCheckout then reads the checkout with go-git.
var ErrNoGit = errors.New("git is not on PATH")

// LookGit finds git (tests play its absence).
var LookGit = func() error { _, err := exec.LookPath("git"); return err }

// OpenCheckout finds the work tree around the current directory. ok is
// false, with no error, when the directory is in none.
func OpenCheckout(ctx context.Context, e *cmdutil.Env) (*GitCheckout, bool, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return nil, false, err
	}
	if cwd, err = filepath.EvalSymlinks(cwd); err != nil {
		return nil, false, err
	}
	g := &GitCheckout{ctx: ctx, e: e, cwd: cwd}
	if LookGit() != nil {
		gg, top, ok, err := openGoGit(cwd, e.Getenv)
		if !ok || err != nil {
			return nil, ok, err
		}
		g.gogit, g.top = gg, top
		return g, true, nil
	}
	out, err := g.git("", "rev-parse", "--is-inside-work-tree", "--show-toplevel")
	if err != nil {
		// Not a repository, or inside its .git directory.
		return nil, false, nil
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2 || lines[0] != "true" {
		return nil, false, nil
	}
	if g.top, err = filepath.EvalSymlinks(lines[1]); err != nil {
		return nil, false, err
	}
	return g, true, nil
}

// Head is the commit the checkout's HEAD names, "" when it names none
// (an unborn branch) or git cannot tell.
func (g *GitCheckout) Head() string {
	out, err := g.git(g.top, "rev-parse", "--verify", "-q", "HEAD^{commit}")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// git runs git with args in the current directory (dir "" ) or dir, with
// pathspecs taken literally, and returns its stdout. The commands it runs
// only read (status may refresh the index's stat cache, as git status
// does). The environment is the one --edit commands get: no credentials.
func (g *GitCheckout) git(dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(g.ctx, "git", append([]string{"--literal-pathspecs", "-c", "core.quotePath=false"}, args...)...) //nolint:gosec // G204: git, with the subcommands above; paths are literal pathspecs
	cmd.Dir = dir
	cmd.Env = append(childEnv(g.e), "GIT_OPTIONAL_LOCKS=0", "GIT_TERMINAL_PROMPT=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, fmt.Errorf("git %s: %s", args[0], msg)
	}
	return out, nil
}

// Changes returns what git status reports changed under the pathspecs
// (relative to the current directory): added, modified, deleted, type and
// mode Changes, relative to the checkout's HEAD, untracked files that no
// ignore rule matches included, ignored ones not, tracked files whatever
// the rules say. Submodules are left out. Sorted by path.
func (g *GitCheckout) Changes(pathspecs []string) ([]GitChange, error) {
	if g.gogit != nil {
		return g.gogit.changes(g.top, g.cwd, pathspecs)
	}
	out, err := g.git("", append([]string{"status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames", "--ignore-submodules=all", "--"}, pathspecs...)...)
	if err != nil {
		return nil, err
	}
	type state struct{ inIndex, untracked bool }
	seen := map[string]*state{}
	var paths []string
	for _, rec := range strings.Split(string(out), "\x00") {
		if rec == "" {
			continue
		}
		if len(rec) < 4 || rec[2] != ' ' {
			return nil, fmt.Errorf("git status: unexpected line %q", rec)
		}
		xy, p := rec[:2], rec[3:]
		if strings.Contains(xy, "U") || xy == "AA" || xy == "DD" {
			return nil, cmdutil.UsageErrorf("resolve the merge first, then commit", "--changed: %s has merge conflicts (%s)", p, xy)
		}
		st := seen[p]
		if st == nil {
			st = &state{}
			seen[p] = st
			paths = append(paths, p)
		}
		switch {
		case xy == "??":
			st.untracked = true
		case xy[0] != 'D':
			st.inIndex = true
		}
	}
	heads, err := g.headBlobs(paths)
	if err != nil {
		return nil, err
	}
	modes, err := g.indexModes(paths)
	if err != nil {
		return nil, err
	}
	var changes []GitChange
	for _, p := range paths {
		st := seen[p]
		abs := filepath.Join(g.top, filepath.FromSlash(p))
		local, err := filepath.Rel(g.cwd, abs)
		if err != nil {
			return nil, err
		}
		// A path under a directory that is now a symbolic link is gone,
		// as git sees it: the link is not followed.
		_, lerr := os.Lstat(abs)
		keep := lerr == nil && !beyondSymlink(g.top, p) && (st.inIndex || st.untracked)
		c := GitChange{Path: p, Local: local, HeadSHA: heads[p], Mode: modes[p], Keep: keep}
		if !c.Keep && c.HeadSHA == "" {
			continue // added to the index, then removed: nothing at HEAD nor on disk
		}
		changes = append(changes, c)
	}
	sort.Slice(changes, func(i, j int) bool { return changes[i].Path < changes[j].Path })
	return changes, nil
}

// headBlobs returns the blob SHAs at HEAD of those of paths (relative to the
// top level) that HEAD has as a file or symlink. An unborn HEAD has none.
func (g *GitCheckout) headBlobs(paths []string) (map[string]string, error) {
	heads := map[string]string{}
	if len(paths) == 0 {
		return heads, nil
	}
	if _, err := g.git(g.top, "rev-parse", "--verify", "-q", "HEAD^{commit}"); err != nil {
		return heads, nil // no commit yet
	}
	want := map[string]bool{}
	for _, p := range paths {
		want[p] = true
	}
	// In chunks: a command line is bounded.
	for len(paths) > 0 {
		n := min(len(paths), 500)
		out, err := g.git(g.top, append([]string{"ls-tree", "-z", "--full-tree", "HEAD", "--"}, paths[:n]...)...)
		if err != nil {
			return nil, err
		}
		paths = paths[n:]
		for _, rec := range strings.Split(string(out), "\x00") {
			// MODE SP TYPE SP SHA TAB PATH
			meta, p, ok := strings.Cut(rec, "\t")
			f := strings.Fields(meta)
			if !ok || len(f) != 3 || !want[p] {
				continue
			}
			if f[1] == "blob" {
				heads[p] = f[2]
			}
		}
	}
	return heads, nil
}

// Files returns the Files git add would take under dir (relative to the
// current directory): tracked ones still on disk and untracked ones no
// ignore rule matches, as paths relative to the current directory, sorted.
func (g *GitCheckout) Files(dir string) ([]string, error) {
	if g.gogit != nil {
		return g.goGitFiles(dir)
	}
	out, err := g.git("", "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", dir)
	if err != nil {
		return nil, err
	}
	var files []string
	seen := map[string]bool{}
	for _, p := range strings.Split(string(out), "\x00") {
		if p == "" || seen[p] {
			continue
		}
		seen[p] = true
		info, err := os.Lstat(filepath.FromSlash(p))
		if err != nil || info.IsDir() || beyondSymlink(".", p) {
			continue // deleted, a submodule, or under a symbolic link
		}
		files = append(files, filepath.FromSlash(p))
	}
	sort.Strings(files)
	return files, nil
}

// Ignored reports whether git would refuse to add p (relative to the current
// directory) because an ignore rule matches it and it is not tracked.
func (g *GitCheckout) Ignored(p string) (bool, error) {
	if g.gogit != nil {
		rel, err := g.topRel(p)
		if err != nil {
			return false, err
		}
		info, err := os.Stat(p)
		return err == nil && g.gogit.ignoredRel(rel, info.IsDir()), nil
	}
	cmd := exec.CommandContext(g.ctx, "git", "check-ignore", "-q", "--", p) //nolint:gosec // G204: git check-ignore, the path after "--"
	cmd.Env = append(childEnv(g.e), "GIT_OPTIONAL_LOCKS=0")
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return true, nil
	case errors.As(err, &ee) && ee.ExitCode() == 1:
		return false, nil
	}
	return false, fmt.Errorf("git check-ignore %s: %w", p, err)
}

// childEnv is the environment of the git commands: the process's, less the
// credentials (as for --edit commands).
func childEnv(e *cmdutil.Env) []string {
	environ := e.Environ
	if environ == nil {
		environ = os.Environ
	}
	return secure.EditEnv(environ())
}

// topRel is p (relative to the current directory) relative to the top
// level, / separated.
func (g *GitCheckout) topRel(p string) (string, error) {
	rel, err := filepath.Rel(g.top, filepath.Join(g.cwd, p))
	if err != nil {
		return "", err
	}
	return filepath.ToSlash(rel), nil
}

// goGitFiles is files with go-git's matcher: every file under dir that is
// tracked or that no ignore rule matches (nor one of its directories).
func (g *GitCheckout) goGitFiles(dir string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.EqualFold(d.Name(), ".git") && p != dir {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		rel, err := g.topRel(p)
		if err != nil {
			return err
		}
		if !g.gogit.ignoredRel(rel, false) {
			files = append(files, filepath.Clean(p))
		}
		return nil
	})
	sort.Strings(files)
	return files, err
}
