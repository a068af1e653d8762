package committer

import (
	"github.com/ghcommitter/ghcommitter/committer/internal/localfs"
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
func LoadDir(root string, opts LoadOptions) ([]LocalFile, error) {
	files, err := localfs.LoadDir(root, localfs.Options(opts))
	if err != nil {
		return nil, err
	}
	out := make([]LocalFile, len(files))
	for i, f := range files {
		out[i] = fromLocalFS(f)
	}
	return out, nil
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
func LoadFile(localPath, repoPath string, opts LoadOptions) (LocalFile, error) {
	f, err := localfs.LoadFile(localPath, repoPath, localfs.Options(opts))
	if err != nil {
		return LocalFile{}, err
	}
	return fromLocalFS(f), nil
}

func fromLocalFS(f localfs.File) LocalFile {
	return LocalFile{Path: f.Path, Mode: Mode(f.Mode), Data: f.Data, LocalPath: f.LocalPath, Size: f.Size}
}

// toLocalFS is the files of a Sync as the change set records them.
func toLocalFS(files []LocalFile) []localfs.File {
	out := make([]localfs.File, len(files))
	for i, f := range files {
		out[i] = localfs.File{Path: f.Path, Mode: string(f.Mode), Data: f.Data, LocalPath: f.LocalPath, Size: f.Size}
	}
	return out
}
