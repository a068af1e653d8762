// Package object is the git object model the stages share: tree entries as
// GitHub lists them and as a create-tree request sends them, and the
// identity of commit authors. It sends nothing; the REST adapter
// (internal/rest) turns it into GitHub's wire types.
package object

import "time"

// Entry modes and types, as git and GitHub's tree API name them.
const (
	ModeFile       = "100644"
	ModeExecutable = "100755"
	ModeSymlink    = "120000"
	ModeDir        = "040000"
	ModeSubmodule  = "160000"

	TypeBlob   = "blob"
	TypeTree   = "tree"
	TypeCommit = "commit"
)

// TreeEntry is one entry of a tree. In a listing SHA is set; in a
// create-tree request an entry carries a SHA (a blob or tree that exists),
// its Content inline (a text blob GitHub creates), or neither (the path is
// deleted).
type TreeEntry struct {
	Path    string
	Mode    string
	Type    string
	SHA     string
	Content *string
}

// Deletes reports whether the entry, in a create-tree request, deletes its
// path.
func (e *TreeEntry) Deletes() bool { return e.SHA == "" && e.Content == nil }

// Tree is a tree as GitHub returns it: its SHA and entries, and whether a
// recursive listing was truncated.
type Tree struct {
	SHA       string
	Entries   []TreeEntry
	Truncated bool
}

// Signature is a commit's author or committer; a zero Date means "now".
type Signature struct {
	Name  string
	Email string
	Date  time.Time
}

// Commit is a commit as read back: its tree, parents and message.
type Commit struct {
	SHA     string
	Tree    string
	Parents []string
	Message string
}

// Inline is the entry's inline content, "" when it has none.
func (e *TreeEntry) Inline() string {
	if e.Content == nil {
		return ""
	}
	return *e.Content
}

// IsSHA reports whether s is an object name: 40 lowercase hex digits.
func IsSHA(s string) bool {
	if len(s) != 40 {
		return false
	}
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f') {
			return false
		}
	}
	return true
}
