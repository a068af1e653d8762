// Package localfs reads local files and directories for a change set:
// LoadDir and LoadFile, and the checks that keep a symlink, or a path through
// one, from leading outside the directory given or into a .git entry.
package localfs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ghcommitter/ghcommitter/committer/internal/object"
)

// MaxFileSize is the largest file that may be loaded: GitHub's blob limit.
const MaxFileSize = 100 << 20

// File is one local file as LoadDir reads it (committer.LocalFile).
type File struct {
	Path      string // slash-separated, relative to the directory
	Mode      string
	Data      []byte // content held in memory (symlink targets), or nil
	LocalPath string // the file on disk to stream, when Data is nil
	Size      int64
}

// Options says how LoadDir maps local files to repository files
// (committer.LoadOptions).
type Options struct {
	// NoFileMode stores every file as 100644: executable bits are dropped and
	// symlinks are followed (their target's content is stored).
	NoFileMode bool
}

// LoadDir lists the files under root for ChangeSet.Sync or for putting one
// by one. root may be a symlink to a directory. Executable files get mode
// 100755. Every symlink is resolved on disk, link by link, against root: one
// that leads outside root at any step (an absolute target, "..", or through
// another link such as "b -> ." then "x -> b/../secret") or through a .git
// entry is an error naming it, so a sync never publishes a file, or a link
// to one, that it was not given. Otherwise a symlink is kept as a symlink
// (mode 120000, its target as content), even when its target does not
// exist, as git does; with NoFileMode it is followed and its target's
// content stored. A ".git" directory or file (a submodule's or worktree's
// checkout), in any case, is skipped with everything under it. Files larger
// than MaxFileSize are refused. The result is sorted by path.
func LoadDir(root string, opts Options) ([]File, error) {
	realRoot, err := realDir(root)
	if err != nil {
		return nil, err
	}
	var files []File
	err = filepath.WalkDir(realRoot, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == realRoot {
			return nil
		}
		if asciiLower(d.Name()) == ".git" {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(realRoot, p)
		if err != nil {
			return err
		}
		f, err := loadFile(realRoot, p, filepath.ToSlash(rel), d, opts)
		if err != nil {
			return err
		}
		files = append(files, f)
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return files, nil
}

// realDir returns the absolute path of the directory root, its symlinks
// resolved.
func realDir(root string) (string, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", err
	}
	realRoot, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", err
	}
	info, err := os.Stat(realRoot)
	if err != nil {
		return "", err
	}
	if !info.IsDir() {
		return "", fmt.Errorf("%s: not a directory", root)
	}
	return realRoot, nil
}

// LoadFile reads one local file (not a directory) as LoadDir would, to be
// committed at repoPath. localPath is resolved on disk, symlink by symlink,
// against a root: the working directory when localPath is relative and
// inside it, else localPath's own directory. A path that leads outside that
// root on the way (a symlinked parent pointing elsewhere, "b/../x" through
// a link b) or through a ".git" entry is refused; pass the resolved path to
// mean it. A symlink at localPath itself is kept as a symlink unless
// opts.NoFileMode, and then only when its target, read from repoPath, stays
// inside the repository; with NoFileMode it is followed under the same rule.
func LoadFile(localPath, repoPath string, opts Options) (File, error) {
	info, err := os.Lstat(localPath)
	if err != nil {
		return File{}, err
	}
	if info.IsDir() {
		return File{}, fmt.Errorf("%s: is a directory, want a file", localPath)
	}
	if err := CheckNotInGit(localPath); err != nil {
		return File{}, err
	}
	link := info.Mode()&fs.ModeSymlink != 0
	dest, err := ResolveLocal(localPath, !link || opts.NoFileMode)
	if err != nil {
		return File{}, err
	}
	if link && !opts.NoFileMode {
		target, err := os.Readlink(localPath)
		if err != nil {
			return File{}, err
		}
		if escapes(repoPath, target) {
			return File{}, fmt.Errorf("%s: symlink to %q would point outside the repository from %s; copy the file in, or use NoFileMode", localPath, target, repoPath)
		}
		return File{Path: repoPath, Mode: object.ModeSymlink, Data: []byte(target), Size: int64(len(target))}, nil
	}
	if info, err = os.Stat(dest); err != nil {
		return File{}, fmt.Errorf("%s: %w", localPath, err)
	}
	return loadFile("", dest, repoPath, fs.FileInfoToDirEntry(info), opts)
}

// ResolveLocal resolves a local file path given by the caller (see
// LoadFile) and returns the file it names: with follow, the file a final
// symlink leads to; without, the path with its parents resolved.
func ResolveLocal(localPath string, follow bool) (string, error) {
	// The root and the components to walk from it, uncleaned: "b/../x"
	// means what the system makes of it, which depends on what b is.
	root, rel := ".", localPath
	if i := strings.LastIndexByte(localPath, filepath.Separator); i >= 0 {
		root, rel = localPath[:i+1], localPath[i+1:]
	}
	if wd, err := os.Getwd(); err == nil && !filepath.IsAbs(localPath) && !escapes("x", filepath.ToSlash(localPath)) {
		root, rel = wd, filepath.ToSlash(localPath)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", err
	}
	if realRoot, err = filepath.Abs(realRoot); err != nil {
		return "", err
	}
	last := ""
	if i := strings.LastIndexByte(rel, '/'); !follow && i >= 0 {
		rel, last = rel[:i], rel[i+1:]
	} else if !follow {
		rel, last = "", rel
	}
	dest, err := resolvePath(realRoot, rel)
	if err != nil {
		return "", fmt.Errorf("%s: %w; pass the resolved path if you mean it", localPath, err)
	}
	return filepath.Join(dest, last), nil
}

// CheckNotInGit refuses a local file whose path, or the path its symlinks
// resolve to, goes through a ".git" entry: a repository's own files (its
// config may hold credentials) are never published.
func CheckNotInGit(localPath string) error {
	paths := []string{localPath}
	if resolved, err := filepath.EvalSymlinks(localPath); err == nil {
		paths = append(paths, resolved)
	}
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return err
		}
		for _, seg := range strings.Split(filepath.ToSlash(abs), "/") {
			if asciiLower(seg) == ".git" {
				return fmt.Errorf("%s: is inside a .git directory (%s); a repository's own files are never committed", localPath, abs)
			}
		}
	}
	return nil
}

func loadFile(root, p, rel string, d fs.DirEntry, opts Options) (File, error) {
	info, err := d.Info()
	if err != nil {
		return File{}, err
	}
	if info.Mode()&fs.ModeSymlink != 0 {
		target, err := os.Readlink(p)
		if err != nil {
			return File{}, err
		}
		dest := ""
		if root != "" {
			if dest, err = checkLink(root, rel, target); err != nil {
				return File{}, err
			}
		}
		if !opts.NoFileMode {
			return File{Path: rel, Mode: object.ModeSymlink, Data: []byte(target), Size: int64(len(target))}, nil
		}
		if dest == "" {
			dest = p
		}
		info, err = os.Stat(dest)
		if err != nil {
			return File{}, fmt.Errorf("%s: following symlink: %w", p, err)
		}
		if info.IsDir() {
			return File{}, fmt.Errorf("%s: symlink to a directory cannot be stored as a file", p)
		}
		p = dest
	}
	if !info.Mode().IsRegular() {
		return File{}, fmt.Errorf("%s: not a regular file", p)
	}
	if info.Size() > MaxFileSize {
		return File{}, fmt.Errorf("%s: %d bytes is over GitHub's 100 MB file limit", p, info.Size())
	}
	mode := object.ModeFile
	if !opts.NoFileMode && info.Mode()&0o111 != 0 {
		mode = object.ModeExecutable
	}
	return File{Path: rel, Mode: mode, LocalPath: p, Size: info.Size()}, nil
}

// checkLink refuses the symlink at rel (inside the real directory root)
// with the given target when its text escapes the tree or when, resolved
// on disk, it leaves root or goes through a .git entry. It returns where
// the link leads.
func checkLink(root, rel, target string) (string, error) {
	p := filepath.Join(root, filepath.FromSlash(rel))
	if escapes(rel, target) {
		return "", fmt.Errorf("%s: symlink to %q points outside %s; copy the file in, or remove the link", p, target, root)
	}
	dest, err := resolvePath(root, rel)
	if err != nil {
		return "", fmt.Errorf("%s: symlink to %q: %w; copy the file in, or remove the link", p, target, err)
	}
	return dest, nil
}

// maxLinkHops bounds the symlinks followed to resolve one, as the kernel's
// ELOOP does.
const maxLinkHops = 40

// resolvePath follows rel (a slash path) from the directory root on disk,
// one path component at a time, resolving every symlink on the way, and
// returns where it leads. It fails when any step leaves root, goes through
// a component named .git (in any case), or loops. A component that does not
// exist ends the walk on disk; the rest is resolved lexically, under the
// same rules.
func resolvePath(root, rel string) (string, error) {
	cur := root
	todo := strings.Split(rel, "/")
	hops, onDisk := 0, true
	for len(todo) > 0 {
		c := todo[0]
		todo = todo[1:]
		switch {
		case c == "" || c == ".":
			continue
		case c == "..":
			if cur == root {
				return "", fmt.Errorf("leads outside %s", root)
			}
			cur = filepath.Dir(cur)
			continue
		case asciiLower(c) == ".git":
			return "", errors.New("leads through a .git entry, which is never committed")
		}
		next := filepath.Join(cur, c)
		if !onDisk {
			cur = next
			continue
		}
		fi, err := os.Lstat(next)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			onDisk = err == nil
			cur = next
			continue
		}
		if hops++; hops > maxLinkHops {
			return "", errors.New("too many levels of symbolic links")
		}
		t, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(t) {
			r, err := filepath.Rel(root, filepath.Clean(t))
			if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
				return "", fmt.Errorf("leads outside %s (through %s -> %s)", root, next, t)
			}
			cur, t = root, r
		}
		todo = append(strings.Split(filepath.ToSlash(t), "/"), todo...)
	}
	return cur, nil
}

// escapes reports whether a symlink at rel (slash path inside the tree) with
// the given target text leads outside the tree, read lexically.
func escapes(rel, target string) bool {
	if filepath.IsAbs(target) || strings.HasPrefix(target, "/") {
		return true
	}
	joined := path.Join(path.Dir(rel), filepath.ToSlash(target))
	return joined == ".." || strings.HasPrefix(joined, "../")
}

// asciiLower lowers ASCII letters only, as git's case-insensitive checks do.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
