package input

import (
	"errors"
	"fmt"
	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/go-git/go-git/v5/storage/filesystem/dotgit"

	"github.com/ghcommitter/ghcommitter/committer"
)

// Without git on PATH, the checkout is read with go-git's plumbing: the
// index, HEAD's tree, and the ignore rules (.gitignore files at every
// level, .git/info/exclude, core.excludesFile or git's default
// ~/.config/git/ignore, read from the configuration git reads: see
// changed_config.go) through go-git's matcher. What git add -A would commit is
// every file on disk that is tracked (in the index) or that no rule ignores
// (nor a directory above it); the changes are where that differs from HEAD.

// goGitCheckout is a checkout read with go-git.
type goGitCheckout struct {
	store   *filesystem.Storage
	matcher gitignore.Matcher
	tracked map[string]string // the index: path → mode
	// fileMode is core.fileMode: when false, a file's executable bit is
	// its index entry's, as git add takes it.
	fileMode bool
}

// ignoreRules is what git ignores by, lowest priority first: the global
// excludes file, .git/info/exclude, then the .gitignore files; and
// core.fileMode.
func ignoreRules(getenv func(string) string, top, common, gitDir string) (gitignore.Matcher, bool, error) {
	cfg, err := loadGitConfig(getenv, common, gitDir)
	if err != nil {
		return nil, false, cmdutil.UsageErrorf("install git, or name the files to commit", "--changed without git on PATH: %v", err)
	}
	global, err := cfg.excludes(top)
	if err != nil {
		return nil, false, err
	}
	info, err := readPatternFile(filepath.Join(common, "info", "exclude"), nil)
	if err != nil {
		return nil, false, err
	}
	patterns, err := gitignore.ReadPatterns(osfs.New(top), nil)
	if err != nil {
		return nil, false, err
	}
	return gitignore.NewMatcher(append(append(global, info...), patterns...)), cfg.fileMode(), nil
}

// mode is the mode git add gives a file whose mode on disk is disk: with
// core.fileMode false, a regular file takes its index entry's mode
// (100644 when it has none).
func (g *goGitCheckout) mode(p, disk string) string {
	if g.fileMode || disk == "120000" {
		return disk
	}
	if m := g.tracked[p]; m == "100644" || m == "100755" {
		return m
	}
	return "100644"
}

// findDotGit walks up from dir to the work tree holding a .git directory or
// file; ok is false when there is none.
func findDotGit(dir string) (top string, dot billy.Filesystem, ok bool, err error) {
	for p := dir; ; p = filepath.Dir(p) {
		info, err := os.Lstat(filepath.Join(p, ".git"))
		switch {
		case err == nil && info.IsDir():
			return p, osfs.New(filepath.Join(p, ".git")), true, nil
		case err == nil:
			// A worktree's or submodule's "gitdir: PATH" file.
			b, err := os.ReadFile(filepath.Join(p, ".git"))
			if err != nil {
				return "", nil, false, err
			}
			gitdir, found := strings.CutPrefix(strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0]), "gitdir: ")
			if !found {
				return "", nil, false, fmt.Errorf("%s: .git file has no gitdir: line", p)
			}
			if !filepath.IsAbs(gitdir) {
				gitdir = filepath.Join(p, gitdir)
			}
			return p, osfs.New(gitdir), true, nil
		case !errors.Is(err, fs.ErrNotExist):
			return "", nil, false, err
		}
		if filepath.Dir(p) == p {
			return "", nil, false, nil
		}
	}
}

// openGoGit opens the work tree around dir; ok is false outside one.
// getenv is the environment git would see (HOME, XDG_CONFIG_HOME,
// GIT_CONFIG_GLOBAL and the like).
func openGoGit(dir string, getenv func(string) string) (*goGitCheckout, string, bool, error) {
	top, dot, ok, err := findDotGit(dir)
	if !ok || err != nil {
		return nil, "", ok, err
	}
	repoFS, common := billy.Filesystem(dot), dot.Root()
	if b, err := os.ReadFile(filepath.Join(dot.Root(), "commondir")); err == nil {
		common = strings.TrimSpace(string(b))
		if !filepath.IsAbs(common) {
			common = filepath.Join(dot.Root(), common)
		}
		repoFS = dotgit.NewRepositoryFilesystem(dot, osfs.New(common))
	}
	g := &goGitCheckout{store: filesystem.NewStorage(repoFS, cache.NewObjectLRUDefault()), tracked: map[string]string{}}
	if g.matcher, g.fileMode, err = ignoreRules(getenv, top, common, dot.Root()); err != nil {
		return nil, "", false, err
	}
	idx, err := g.store.Index()
	if err != nil {
		return nil, "", false, err
	}
	for _, e := range idx.Entries {
		if e.Stage != 0 {
			return nil, "", false, cmdutil.UsageErrorf("resolve the merge first, then commit", "--changed: %s has merge conflicts", e.Name)
		}
		g.tracked[e.Name] = fmt.Sprintf("%06o", uint32(e.Mode))
	}
	if top, err = filepath.EvalSymlinks(top); err != nil {
		return nil, "", false, err
	}
	return g, top, true, nil
}

// headFiles is HEAD's tree as path → blob SHA (files and symlinks); empty
// for an unborn HEAD.
func (g *goGitCheckout) headFiles() (map[string]string, error) {
	files := map[string]string{}
	ref, err := g.store.Reference(plumbing.HEAD)
	if err != nil {
		return files, nil
	}
	if ref.Type() == plumbing.SymbolicReference {
		if ref, err = g.store.Reference(ref.Target()); err != nil {
			return files, nil // unborn
		}
	}
	c, err := object.GetCommit(g.store, ref.Hash())
	if err != nil {
		return nil, err
	}
	tree, err := c.Tree()
	if err != nil {
		return nil, err
	}
	err = tree.Files().ForEach(func(f *object.File) error {
		files[f.Name] = f.Hash.String()
		return nil
	})
	return files, err
}

// ignoredRel reports whether p (relative to the top level) is untracked and
// ignored: an ignore rule matches it or a directory above it.
func (g *goGitCheckout) ignoredRel(p string, isDir bool) bool {
	if _, ok := g.tracked[p]; ok {
		return false
	}
	parts := strings.Split(p, "/")
	for i := 1; i <= len(parts); i++ {
		if g.matcher.Match(parts[:i], i < len(parts) || isDir) {
			return true
		}
	}
	return false
}

// changes is gitCheckout.changes with go-git: the paths under the
// pathspecs where what git add -A would commit differs from HEAD.
func (g *goGitCheckout) changes(top, cwd string, specs []string) ([]GitChange, error) {
	var pre []string
	for _, s := range specs {
		rel, err := filepath.Rel(top, filepath.Join(cwd, s))
		if err != nil {
			return nil, err
		}
		if rel = filepath.ToSlash(rel); rel == "." {
			rel = ""
		}
		pre = append(pre, rel)
	}
	inSpecs := func(p string) bool {
		for _, s := range pre {
			if s == "" || p == s || strings.HasPrefix(p, s+"/") {
				return true
			}
		}
		return false
	}
	head, err := g.headFiles()
	if err != nil {
		return nil, err
	}
	modes := map[string]string{} // HEAD's modes, to see mode changes
	if len(head) > 0 {
		if err := g.headModes(modes); err != nil {
			return nil, err
		}
	}
	want := map[string]bool{}
	var changes []GitChange
	add := func(p, headSHA, mode string, keep bool) error {
		local, err := filepath.Rel(cwd, filepath.Join(top, filepath.FromSlash(p)))
		if err != nil {
			return err
		}
		changes = append(changes, GitChange{Path: p, Local: local, HeadSHA: headSHA, Mode: mode, Keep: keep})
		return nil
	}
	err = filepath.WalkDir(top, func(abs string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if abs == top {
			return nil
		}
		rel, err := filepath.Rel(top, abs)
		if err != nil {
			return err
		}
		p := filepath.ToSlash(rel)
		if strings.EqualFold(d.Name(), ".git") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if _, err := os.Lstat(filepath.Join(abs, ".git")); err == nil {
				return filepath.SkipDir // a submodule or nested repository
			}
			return nil
		}
		if !inSpecs(p) || g.ignoredRel(p, false) {
			return nil
		}
		want[p] = true
		sha, mode, err := worktreeBlob(abs, d)
		if err != nil {
			return err
		}
		if mode = g.mode(p, mode); head[p] == sha && modes[p] == mode {
			return nil
		}
		return add(p, head[p], mode, true)
	})
	if err != nil {
		return nil, err
	}
	for p, sha := range head {
		if inSpecs(p) && !want[p] {
			if err := add(p, sha, "", false); err != nil {
				return nil, err
			}
		}
	}
	sort.Slice(changes, func(i, j int) bool { return changes[i].Path < changes[j].Path })
	return changes, nil
}

// headModes fills modes with HEAD's file modes.
func (g *goGitCheckout) headModes(modes map[string]string) error {
	ref, err := g.store.Reference(plumbing.HEAD)
	if err != nil {
		return nil
	}
	if ref.Type() == plumbing.SymbolicReference {
		if ref, err = g.store.Reference(ref.Target()); err != nil {
			return nil
		}
	}
	c, err := object.GetCommit(g.store, ref.Hash())
	if err != nil {
		return err
	}
	tree, err := c.Tree()
	if err != nil {
		return err
	}
	w := object.NewTreeWalker(tree, true, nil)
	defer w.Close()
	for {
		name, e, err := w.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		modes[name] = fmt.Sprintf("%06o", uint32(e.Mode))
	}
}

// worktreeBlob is a work-tree file's blob SHA and mode as git add would
// store them.
func worktreeBlob(abs string, d fs.DirEntry) (sha, mode string, err error) {
	info, err := d.Info()
	if err != nil {
		return "", "", err
	}
	if info.Mode()&fs.ModeSymlink != 0 {
		target, err := os.Readlink(abs)
		if err != nil {
			return "", "", err
		}
		return committer.BlobSHA([]byte(filepath.ToSlash(target))), "120000", nil
	}
	mode = "100644"
	if info.Mode()&0o111 != 0 {
		mode = "100755"
	}
	sha, err = LocalBlobSHA(committer.LocalFile{LocalPath: abs, Size: info.Size()})
	return sha, mode, err
}
