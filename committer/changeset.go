package committer

import (
	"errors"
	"io"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/internal/changes"
	"github.com/ghcommitter/ghcommitter/committer/internal/localfs"
	"github.com/ghcommitter/ghcommitter/committer/internal/object"
)

// MaxFileSize is the largest file a change set may write: GitHub's blob
// limit. Larger files are refused before anything is uploaded.
const MaxFileSize = 100 << 20

var _ [MaxFileSize - changes.MaxFileSize]struct{} // the same limit
var _ [changes.MaxFileSize - MaxFileSize]struct{}

// EditFunc computes a file's new content from its current content at the head
// being built on. exists is false (and old nil) when the file is absent. It is
// called again on every attempt, so it must be a pure function of its input:
// do not count calls or read state that the commit itself changes. Returning
// an error aborts the commit; nothing is written.
type EditFunc func(old []byte, exists bool) (updated []byte, err error)

// Signature names an author or committer. A zero Date means "now" on GitHub.
type Signature struct {
	Name  string
	Email string
	Date  time.Time
}

// ChangeSet is one commit's worth of changes: a message, optional author and
// committer, and any mix of puts, deletes, edits, directory syncs and
// preconditions. Build it with NewChangeSet and the chainable methods; it is
// validated as a whole when committed, before any request is sent.
// A ChangeSet must not be modified while a commit of it is in progress.
type ChangeSet struct {
	Message string
	// Author and Committer are optional. When nil none is sent, and GitHub
	// uses the authenticated identity; commits made with a GitHub App
	// installation token are then signed by GitHub and shown as Verified.
	Author    *Signature
	Committer *Signature
	// OmitEditID leaves out the EditIDTrailer that a change set with edit
	// functions or preconditions otherwise gets. Only safe when no two writers can commit
	// the same message at the same time. The default adds it.
	OmitEditID bool

	set   changes.Set // ops and preconditions; syncs are read when committed
	syncs []syncDir
}

type syncDir struct {
	dir   string
	files []LocalFile
}

// NewChangeSet returns an empty change set with the given commit message.
func NewChangeSet(message string) *ChangeSet {
	return &ChangeSet{Message: message}
}

// Put writes a regular file (mode 100644) with the given content.
func (cs *ChangeSet) Put(path string, content []byte) *ChangeSet {
	return cs.PutMode(path, content, ModeFile)
}

// PutMode writes a file with the given content and mode (ModeFile,
// ModeExecutable, or ModeSymlink with the link target as content).
func (cs *ChangeSet) PutMode(path string, content []byte, mode Mode) *ChangeSet {
	cs.set.Ops = append(cs.set.Ops, changes.Op{Kind: changes.OpPut, Path: path, Mode: string(mode), Src: changes.BytesSource(content)})
	return cs
}

// Symlink writes a symbolic link at path pointing to target.
func (cs *ChangeSet) Symlink(path, target string) *ChangeSet {
	return cs.PutMode(path, []byte(target), ModeSymlink)
}

// PutReader writes a file of the given size whose content open yields. open
// may be called more than once (to hash, then to upload; again if an upload
// is retried) and must yield the same bytes each time. Content is streamed:
// a large file is never held in memory whole.
func (cs *ChangeSet) PutReader(path string, mode Mode, size int64, open func() (io.ReadCloser, error)) *ChangeSet {
	cs.set.Ops = append(cs.set.Ops, changes.Op{Kind: changes.OpPut, Path: path, Mode: string(mode), Src: changes.OpenSource(open, size)})
	return cs
}

// PutLocalFile writes the content of the local file at localPath, streamed
// as by PutReader. The file is read when the commit runs; a missing file is
// reported then, before any request is sent.
func (cs *ChangeSet) PutLocalFile(path, localPath string, mode Mode) *ChangeSet {
	cs.set.Ops = append(cs.set.Ops, changes.Op{Kind: changes.OpPut, Path: path, Mode: string(mode), Src: changes.LocalSource(localPath)})
	return cs
}

// Delete removes the file at path, or the directory at path with everything
// under it. Deleting a path that does not exist is not an error: the result
// is the same branch content either way.
func (cs *ChangeSet) Delete(path string) *ChangeSet {
	cs.set.Ops = append(cs.set.Ops, changes.Op{Kind: changes.OpDelete, Path: path})
	return cs
}

// Edit replaces the file at path with fn applied to its current content, read
// from the head being built on, on every attempt. A file that does not exist
// is created (fn sees exists == false) with mode 100644; an existing file
// keeps its mode. A symbolic link is not followed: editing a path that is
// one on the branch fails with ErrInvalid, naming its target, and fn is not
// called (edit the target by its own path).
func (cs *ChangeSet) Edit(path string, fn EditFunc) *ChangeSet {
	cs.set.Ops = append(cs.set.Ops, changes.Op{Kind: changes.OpEdit, Path: path, Edit: fn})
	return cs
}

// ExpectAbsent makes the commit fail with ErrConflict, committing nothing,
// unless path is absent on the head it builds on.
func (cs *ChangeSet) ExpectAbsent(path string) *ChangeSet {
	cs.set.Pres = append(cs.set.Pres, changes.Precondition{Path: path, Absent: true})
	return cs
}

// ExpectBlob makes the commit fail with ErrConflict, committing nothing,
// unless the file at path still has the blob SHA sha on the head it builds
// on. Use it for optimistic locking: read a file, then write it back only if
// nobody changed it meanwhile.
func (cs *ChangeSet) ExpectBlob(path, sha string) *ChangeSet {
	cs.set.Pres = append(cs.set.Pres, changes.Precondition{Path: path, SHA: sha})
	return cs
}

// ExpectOneOf makes the commit fail with ErrConflict, committing nothing,
// unless path on the head it builds on is in one of the given states: a
// blob SHA, or "" for absent (a directory is none of them). Use it where a
// change may already be there: a file guarded by the blob it was read at
// and by the blob it is being set to commits, or no-ops, either way, and
// only a third writer's content is a conflict.
func (cs *ChangeSet) ExpectOneOf(path string, states ...string) *ChangeSet {
	cs.set.Pres = append(cs.set.Pres, changes.Precondition{Path: path, AnyOf: append([]string{}, states...)})
	return cs
}

// Sync makes the repository directory dir mirror files: files absent from
// the directory are added, files that differ (by blob SHA or mode) are
// updated, and files in the directory but not in files are deleted. Only
// differing content is uploaded. Paths in files are relative to dir.
// LoadDir builds files from a local directory.
//
// Only "." means the repository root. "", "/" and "./" are ErrInvalid,
// before any request: a sync onto the root deletes every other file on the
// branch, and those are what a path built from an empty variable looks
// like (dir, "/"+dir, "./"+dir), so the root must be asked for by that one
// name. A trailing "/" on a named directory is dropped ("deploy/" is
// "deploy").
func (cs *ChangeSet) Sync(dir string, files []LocalFile) *ChangeSet {
	cs.syncs = append(cs.syncs, syncDir{dir: dir, files: files})
	return cs
}

// Len reports the number of operations (puts, deletes, edits, syncs and
// preconditions) in the change set.
func (cs *ChangeSet) Len() int {
	return cs.set.Len() + len(cs.syncs)
}

// prepare validates cs as a whole and hashes its content, before any
// request (changes.Prepare). Errors are *kind.Cause (kind ErrInvalid) or
// plain causes.
func prepare(cs *ChangeSet, lfs bool) (*changes.Prepared, error) {
	if cs == nil {
		return nil, errors.New("change set must not be nil")
	}
	set := cs.set
	set.LFS = lfs
	for _, s := range cs.syncs {
		set.Syncs = append(set.Syncs, changes.SyncDir{Dir: s.dir, Files: toLocalFS(s.files)})
	}
	return changes.Prepare(cs.Message, signature(cs.Author), signature(cs.Committer), &set)
}

func signature(s *Signature) *object.Signature {
	if s == nil {
		return nil
	}
	o := object.Signature(*s)
	return &o
}

// Action says what a commit does to one path.
type Action string

// The actions a commit can take on a path.
const (
	Added     Action = "added"
	Modified  Action = "modified"
	Deleted   Action = "deleted"
	Unchanged Action = "unchanged"
)

// FileChange is one path's part in a commit.
type FileChange struct {
	Path   string `json:"path"`
	Action Action `json:"action"`
}

// Mode is a git file mode as GitHub's tree API spells it.
type Mode string

// The file modes a change set may write.
const (
	ModeFile       Mode = "100644" // a regular file
	ModeExecutable Mode = "100755" // an executable file
	ModeSymlink    Mode = "120000" // a symbolic link; the content is the target
)

// Valid reports whether m is a mode a change set may write.
func (m Mode) Valid() bool {
	return changes.ValidMode(string(m))
}

// BlobSHA returns the git object ID of a blob holding data: the hex SHA-1 of
// "blob <len>\x00" followed by data, exactly as `git hash-object` computes it.
func BlobSHA(data []byte) string {
	return changes.BlobSHA(data)
}

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

// ValidatePath reports whether p may be written in a repository: relative,
// clean, slash-separated, valid UTF-8, without a NUL, an empty segment, a "."
// or ".." segment, and without a segment that git's verify_path refuses with
// core.protectHFS and core.protectNTFS on: ".git" in any case, with HFS+
// ignorable code points (U+200C "zero width non-joiner" and the like)
// inside it, or with NTFS's trailing dots and spaces (".git.", ".git ") or
// short name ("git~1"), also after a backslash. Every other character git
// keeps in a tree is allowed, URL syntax ("#", "?", "%") and control
// characters included: requests escape the path wherever it goes into a
// URL. The error names the rule that p breaks.
func ValidatePath(p string) error {
	return changes.ValidatePath(p)
}

// ValidateBranch reports whether name is a valid branch name: it refuses
// every name `git check-ref-format --branch` refuses (HEAD, a leading "-",
// ".." , "@{", control characters, a ".lock" or "." ending, ...), and also
// "@", names starting with "refs/" (give the short name) and invalid UTF-8.
func ValidateBranch(name string) error {
	return changes.ValidateBranch(name)
}

// ValidateRepo reports whether owner and name can name a GitHub repository.
func ValidateRepo(owner, name string) error {
	return changes.ValidateRepo(owner, name)
}

// ParseRepo splits "OWNER/NAME" and validates both parts.
func ParseRepo(s string) (owner, name string, err error) {
	return changes.ParseRepo(s)
}

// EditIDTrailer is the git trailer that makes the commit of a change set
// with edit functions or preconditions unique.
//
// Two writers that run the same edit on the same head, with the same
// message, in the same second, would otherwise create byte-identical commits
// — one git object. The second writer's ref update would then "succeed"
// without moving the branch, and its edit (say, an increment) would be lost
// while both report success. A random trailer keeps their commits distinct,
// so the second update is refused as not a fast-forward and its edit re-runs
// on the new head (or its precondition is checked again, and fails, instead
// of two writers both "creating" the same absent file). Set ChangeSet.OmitEditID to leave it out when every
// writer's message is unique anyway.
//
// The one-write engines (GraphQL, the contents API) give every commit one,
// and settle a write whose reply was lost by it. The trailer is always this
// change set's own, fresh and random, appended as the message's last line
// and the same over all its attempts; an Edit-Id the message already holds
// (copied from an earlier commit, or given as a trailer) stays in the
// message and is never taken for it, so a copied message cannot make one
// writer take another's commit for its own.
const EditIDTrailer = "Ghcommitter-Edit-Id"

// The same trailer as the one internal/changes writes (a compile error
// otherwise: the map would have the key false twice).
var _ = map[bool]struct{}{false: {}, EditIDTrailer == changes.EditIDTrailer: {}}

// ValidateMessage reports whether msg can be a commit message: not blank,
// valid UTF-8 (GitHub would turn invalid bytes into U+FFFD) and without a
// NUL byte (git fsck rejects a commit holding one).
func ValidateMessage(msg string) error {
	return changes.ValidateMessage(msg)
}

// Validate reports whether s makes an author or committer line that git
// fsck accepts: a name that is not blank, an email with an "@", neither
// holding "<", ">", a newline or a NUL (git would read "A <b@c> <d@e>" as a
// name ending at the first "<"), both valid UTF-8, and a date, when set,
// between 1970 and 9999.
func (s Signature) Validate() error {
	return changes.ValidateSignature(object.Signature(s))
}

// Plan is what a change set would do to a branch, computed without writing
// anything: a dry run.
type Plan struct {
	Repository string       `json:"repository"`
	Branch     string       `json:"branch"`
	Head       string       `json:"head"` // the head it was resolved against; "" for an empty repository
	Files      []FileChange `json:"files"`
	// NewBranch is true when the branch does not exist and would be created
	// from the CreateBranchFrom base.
	NewBranch bool `json:"new_branch,omitempty"`
}

// Changes reports whether the plan changes anything.
func (p *Plan) Changes() bool {
	for _, f := range p.Files {
		if f.Action != Unchanged {
			return true
		}
	}
	return p.NewBranch
}
