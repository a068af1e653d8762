// Package tree resolves prepared change sets (internal/changes) against
// git trees and works out the tree requests that apply them: what is at
// each changed path, the refusals of a put through a file or onto a
// directory, syncs, no-op detection, the directories written whole, and
// the SHAs of the trees a request makes. It reads trees through a Store
// and writes through a Writer. The GitHub store (github.go) is the part
// that sends requests; MemStore holds a repository in memory, for tests
// without HTTP.
package tree

import (
	"context"

	"github.com/ghcommitter/ghcommitter/committer/internal/changes"
	"github.com/ghcommitter/ghcommitter/committer/internal/kind"
	"github.com/ghcommitter/ghcommitter/committer/internal/object"
)

// Tree names one tree of the repository.
type Tree struct {
	Commit string // the commit whose tree Root is; "" when not known
	Root   string // the tree's SHA; "" for an empty repository
}

// Kind is what a path of a tree holds.
type Kind int

// The kinds of a Stat.
const (
	Unknown   Kind = iota // not answered by a cheap Lookup
	Absent                // nothing there, or a file above it
	File                  // a blob: a file, an executable or a symlink
	Dir                   // a directory; its SHA may be unknown ("")
	Submodule             // a commit entry (mode 160000)
)

// Stat is what a tree has at one path: its Kind and, unless Absent or
// Unknown, its entry (Mode, Type, SHA).
type Stat struct {
	Kind  Kind
	Entry object.TreeEntry
}

// Store is the trees of one repository, as the tree logic reads them.
type Store interface {
	// Lookup reports what the tree at has at each of paths, in order, in
	// one call. With cheap, the store answers only what it can without
	// reading directories one by one (the GitHub store: what it knows, and
	// one GraphQL query for the rest) and reports the rest Unknown;
	// otherwise it answers every path.
	Lookup(ctx context.Context, at Tree, paths []string, cheap bool) ([]Stat, error)
	// List returns every file (blob or submodule) under the directory dir
	// of at ("" = the root), recursively, by path relative to dir; none
	// when dir is not a directory. Without walk, a directory too big to
	// list in one request gives complete == false.
	List(ctx context.Context, at Tree, dir string, walk bool) (files map[string]object.TreeEntry, complete bool, err error)
	// Blob returns the content of the blob sha.
	Blob(ctx context.Context, sha string) ([]byte, error)
}

// Writer creates what a resolution needs before its tree request: the
// blobs it cannot send inline, and the directories it writes whole.
type Writer interface {
	// Upload creates the blobs of srcs not known to exist yet.
	Upload(ctx context.Context, srcs []*changes.Source) error
	// CreateTree creates the tree base ("" for none) plus entries.
	CreateTree(ctx context.Context, base string, entries []*object.TreeEntry) (*object.Tree, error)
}

// statOf is the Stat of an entry found (ok) or not.
func statOf(e object.TreeEntry, ok bool) Stat {
	switch {
	case !ok:
		return Stat{Kind: Absent}
	case e.Type == object.TypeTree:
		return Stat{Kind: Dir, Entry: e}
	case e.Type == object.TypeCommit:
		return Stat{Kind: Submodule, Entry: e}
	}
	return Stat{Kind: File, Entry: e}
}

// KindOf names what e is, for messages: directory, submodule, symlink or
// file.
func KindOf(e object.TreeEntry) string {
	switch {
	case e.Type == object.TypeTree:
		return "directory"
	case e.Type == object.TypeCommit:
		return "submodule"
	case e.Mode == object.ModeSymlink:
		return "symlink"
	}
	return "file"
}

func short(sha string) string { return kind.Short(sha) }
