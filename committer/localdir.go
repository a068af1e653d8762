package committer

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// LocalFile is one file of a local directory, as LoadDir reads it, for
// ChangeSet.Sync.
type LocalFile struct {
	Path      string // slash-separated, relative to the directory
	Mode      Mode
	Data      []byte // content held in memory (symlink targets), or nil
	LocalPath string // the file on disk to stream, when Data is nil
	Size      int64
}

// LoadOptions says how LoadDir maps local files to repository files.
type LoadOptions struct {
	// NoFileMode stores every file as 100644: executable bits are dropped and
	// symlinks are followed (their target's content is stored).
	NoFileMode bool
}

// LoadDir lists the files under root for ChangeSet.Sync or for putting one
// by one. Executable files get mode 100755. A symlink is kept as a symlink
// (mode 120000, its target as content) when its target stays inside root; a
// symlink that points outside root (absolute, or escaping through "..") is an
// error naming it, so a sync never publishes a link to files it was not
// given. ".git" directories are skipped. Files larger than MaxFileSize are
// refused. The result is sorted by path.
func LoadDir(root string, opts LoadOptions) ([]LocalFile, error) {
	info, err := os.Stat(root)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("%s: not a directory", root)
	}
	var files []LocalFile
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" && p != root {
				return filepath.SkipDir
			}
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		f, err := loadFile(root, p, filepath.ToSlash(rel), d, opts)
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

// LoadFile reads one local file (not a directory) as LoadDir would, to be
// committed at repoPath. A symlink is kept when opts allow; its target is not
// checked, since no tree is given.
func LoadFile(localPath, repoPath string, opts LoadOptions) (LocalFile, error) {
	info, err := os.Lstat(localPath)
	if err != nil {
		return LocalFile{}, err
	}
	if info.IsDir() {
		return LocalFile{}, fmt.Errorf("%s: is a directory, want a file", localPath)
	}
	return loadFile("", localPath, repoPath, fs.FileInfoToDirEntry(info), opts)
}

func loadFile(root, p, rel string, d fs.DirEntry, opts LoadOptions) (LocalFile, error) {
	info, err := d.Info()
	if err != nil {
		return LocalFile{}, err
	}
	if info.Mode()&fs.ModeSymlink != 0 {
		target, err := os.Readlink(p)
		if err != nil {
			return LocalFile{}, err
		}
		if root != "" && escapes(rel, target) {
			return LocalFile{}, fmt.Errorf("%s: symlink to %q points outside %s; copy the file in, or remove the link", p, target, root)
		}
		if !opts.NoFileMode {
			return LocalFile{Path: rel, Mode: ModeSymlink, Data: []byte(target), Size: int64(len(target))}, nil
		}
		info, err = os.Stat(p)
		if err != nil {
			return LocalFile{}, fmt.Errorf("%s: following symlink: %w", p, err)
		}
		if info.IsDir() {
			return LocalFile{}, fmt.Errorf("%s: symlink to a directory cannot be stored as a file", p)
		}
	}
	if !info.Mode().IsRegular() && info.Mode()&fs.ModeSymlink == 0 {
		return LocalFile{}, fmt.Errorf("%s: not a regular file", p)
	}
	if info.Size() > MaxFileSize {
		return LocalFile{}, fmt.Errorf("%s: %d bytes is over GitHub's 100 MB file limit", p, info.Size())
	}
	mode := ModeFile
	if !opts.NoFileMode && info.Mode()&0o111 != 0 {
		mode = ModeExecutable
	}
	return LocalFile{Path: rel, Mode: mode, LocalPath: p, Size: info.Size()}, nil
}

// escapes reports whether a symlink at rel (slash path inside the tree) with
// the given target resolves outside the tree.
func escapes(rel, target string) bool {
	if filepath.IsAbs(target) || strings.HasPrefix(target, "/") {
		return true
	}
	joined := path.Join(path.Dir(rel), filepath.ToSlash(target))
	return joined == ".." || strings.HasPrefix(joined, "../")
}

func (f LocalFile) source() *source {
	if f.Data != nil || f.LocalPath == "" {
		return bytesSource(f.Data)
	}
	return &source{local: f.LocalPath, size: f.Size}
}
