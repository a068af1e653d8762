// Package changes is the change-set model and its pure stages: what a
// committer.ChangeSet records (operations, preconditions, directory syncs),
// their validation (paths, branch and repository names, messages,
// signatures, git's .git and HFS/NTFS rules) and their preparation (every
// put's blob SHA computed, the paths claimed once) before any request. It
// sends nothing; modes are git's mode strings (object.ModeFile, ...).
package changes

import (
	"io"
	"os"

	"github.com/ghcommitter/ghcommitter/committer/internal/localfs"
)

// MaxFileSize is the largest file a change set may write: GitHub's blob limit.
const MaxFileSize = localfs.MaxFileSize

// Set is what a change set records, in the order it was given.
type Set struct {
	Ops   []Op
	Pres  []Precondition
	Syncs []SyncDir
	// LFS is set when paths .gitattributes routes through Git LFS become
	// pointers: content may then be up to lfs.MaxObjectSize (the 100 MB
	// blob limit is checked per path once the head's attributes are known).
	LFS bool
}

// Len is the number of operations, preconditions and syncs in s.
func (s *Set) Len() int { return len(s.Ops) + len(s.Pres) + len(s.Syncs) }

// Kind is what an Op does.
type Kind int

// The kinds of Op.
const (
	OpPut Kind = iota
	OpDelete
	OpEdit
)

// String names the kind: "put", "delete" or "edit".
func (k Kind) String() string {
	return [...]string{"put", "delete", "edit"}[k]
}

// Op is one put, delete or edit of a path.
type Op struct {
	Kind Kind
	Path string
	Mode string                                        // OpPut
	Src  *Source                                       // OpPut
	Edit func(old []byte, exists bool) ([]byte, error) // OpEdit
}

// Precondition is a state a path must be in on the head built on.
type Precondition struct {
	Path   string
	Absent bool
	SHA    string
	// AnyOf, when set, lists the states accepted instead: blob SHAs, and
	// "" for absent (ExpectOneOf).
	AnyOf []string
}

// SyncDir is a directory synced to mirror Files.
type SyncDir struct {
	Dir   string
	Files []localfs.File
}

// Source is where a put's bytes come from: memory, a local file, or a reader.
type Source struct {
	Data  []byte
	local string
	open  func() (io.ReadCloser, error)
	Size  int64 // -1 until known

	SHA string // computed once, before the first request
	// OID256 is the content's SHA-256 (its Git LFS object ID), computed
	// when a path's attributes first route it through LFS.
	OID256 string
}

// BytesSource is content held in memory.
func BytesSource(b []byte) *Source {
	return &Source{Data: b, Size: int64(len(b))}
}

// OpenSource is content of the given size that open yields, streamed.
func OpenSource(open func() (io.ReadCloser, error), size int64) *Source {
	return &Source{open: open, Size: size}
}

// LocalSource is the content of the local file at path, read when prepared.
func LocalSource(path string) *Source {
	return &Source{local: path, Size: -1}
}

// FileSource is the content of a local file as LoadDir lists it.
func FileSource(f localfs.File) *Source {
	if f.Data != nil || f.LocalPath == "" {
		return BytesSource(f.Data)
	}
	return &Source{local: f.LocalPath, Size: f.Size}
}

// Reader opens the content.
func (s *Source) Reader() (io.ReadCloser, error) {
	switch {
	case s.Data != nil || (s.open == nil && s.local == ""):
		return io.NopCloser(&byteReader{b: s.Data}), nil
	case s.local != "":
		return os.Open(s.local)
	default:
		return s.open()
	}
}

// InMemory reports whether the content is held in memory.
func (s *Source) InMemory() bool { return s.open == nil && s.local == "" }

type byteReader struct {
	b []byte
	i int
}

func (r *byteReader) Read(p []byte) (int, error) {
	if r.i >= len(r.b) {
		return 0, io.EOF
	}
	n := copy(p, r.b[r.i:])
	r.i += n
	return n, nil
}
