// Package gitobj holds the fake's git objects: a repository's object store
// (blobs, trees, commits and annotated tags, encoded with go-git plumbing so
// every SHA is what git computes) and the tree builder that writes only the
// trees a change touches.
package gitobj

import (
	"io"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Store holds a repository's git objects, encoded with go-git so every
// SHA is what git computes. Its methods' callers hold the repo's mu.
type Store struct {
	Objects map[plumbing.Hash]plumbing.EncodedObject
	Trees   map[plumbing.Hash][]object.TreeEntry // decoded, sorted
	Commits map[plumbing.Hash]*object.Commit
	Tags    map[plumbing.Hash]*object.Tag // annotated tag objects (githubtest's routes_tags.go)
}

// PutBlob stores content as a blob. Caller holds mu for writing.
func (st *Store) PutBlob(content []byte) plumbing.Hash {
	h := plumbing.ComputeHash(plumbing.BlobObject, content)
	if _, ok := st.Objects[h]; ok {
		return h
	}
	o := &plumbing.MemoryObject{}
	o.SetType(plumbing.BlobObject)
	_, _ = o.Write(content)
	st.Objects[h] = o
	return h
}

// PutTree stores a tree; entries are sorted in git order first. Caller holds mu.
func (st *Store) PutTree(entries []object.TreeEntry) (plumbing.Hash, error) {
	sort.Sort(object.TreeEntrySorter(entries))
	o := &plumbing.MemoryObject{}
	t := &object.Tree{Entries: entries}
	if err := t.Encode(o); err != nil {
		return plumbing.ZeroHash, err
	}
	h := o.Hash()
	if _, ok := st.Objects[h]; !ok {
		st.Objects[h] = o
		st.Trees[h] = entries
	}
	return h, nil
}

// PutCommit stores a commit. Caller holds mu.
func (st *Store) PutCommit(c *object.Commit) plumbing.Hash {
	o := &plumbing.MemoryObject{}
	_ = c.Encode(o)
	h := o.Hash()
	c.Hash = h
	if _, ok := st.Objects[h]; !ok {
		st.Objects[h] = o
		st.Commits[h] = c
	}
	return h
}

// ObjType is the type of object h, or plumbing.InvalidObject.
func (st *Store) ObjType(h plumbing.Hash) plumbing.ObjectType {
	if o, ok := st.Objects[h]; ok {
		return o.Type()
	}
	return plumbing.InvalidObject
}

// Blob is the content of blob h.
func (st *Store) Blob(h plumbing.Hash) ([]byte, bool) {
	o, ok := st.Objects[h]
	if !ok || o.Type() != plumbing.BlobObject {
		return nil, false
	}
	rd, err := o.Reader()
	if err != nil {
		return nil, false
	}
	defer rd.Close()
	b, err := io.ReadAll(rd)
	return b, err == nil
}

// TreeOf is the tree of a commit, or a tree itself. Caller holds mu.
func (st *Store) TreeOf(h plumbing.Hash) (plumbing.Hash, bool) {
	if c, ok := st.Commits[h]; ok {
		return c.TreeHash, true
	}
	_, ok := st.Trees[h]
	return h, ok
}

// IsAncestor reports whether anc is reachable from desc (or equal). Caller holds mu.
func (st *Store) IsAncestor(anc, desc plumbing.Hash) bool {
	seen := map[plumbing.Hash]bool{}
	stack := []plumbing.Hash{desc}
	for len(stack) > 0 {
		h := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if h == anc {
			return true
		}
		if seen[h] {
			continue
		}
		seen[h] = true
		if c, ok := st.Commits[h]; ok {
			stack = append(stack, c.ParentHashes...)
		}
	}
	return false
}

// LookupPath finds the entry at path inside tree root. Caller holds mu.
func (st *Store) LookupPath(root plumbing.Hash, path string) (object.TreeEntry, bool) {
	if path == "" {
		return object.TreeEntry{Mode: filemode.Dir, Hash: root}, true
	}
	cur := root
	parts := strings.Split(path, "/")
	for i, p := range parts {
		entries, ok := st.Trees[cur]
		if !ok {
			return object.TreeEntry{}, false
		}
		e, ok := FindEntry(entries, p)
		if !ok {
			return object.TreeEntry{}, false
		}
		if i == len(parts)-1 {
			return e, true
		}
		if e.Mode != filemode.Dir {
			return object.TreeEntry{}, false
		}
		cur = e.Hash
	}
	return object.TreeEntry{}, false
}

// FindEntry finds the entry called name in a tree's entries.
func FindEntry(entries []object.TreeEntry, name string) (object.TreeEntry, bool) {
	for _, e := range entries {
		if e.Name == name {
			return e, true
		}
	}
	return object.TreeEntry{}, false
}

// WalkTree calls fn for every entry below root, depth first in tree order.
// fn returns false to stop. Caller holds mu.
func (st *Store) WalkTree(root plumbing.Hash, prefix string, fn func(path string, e object.TreeEntry) bool) bool {
	for _, e := range st.Trees[root] {
		p := e.Name
		if prefix != "" {
			p = prefix + "/" + e.Name
		}
		if !fn(p, e) {
			return false
		}
		if e.Mode == filemode.Dir && !st.WalkTree(e.Hash, p, fn) {
			return false
		}
	}
	return true
}

// ModeString is a mode as GitHub writes it ("100644", "040000", ...).
func ModeString(m filemode.FileMode) string {
	switch m {
	case filemode.Dir:
		return "040000"
	case filemode.Executable:
		return "100755"
	case filemode.Symlink:
		return "120000"
	case filemode.Submodule:
		return "160000"
	}
	return "100644"
}

// TypeOfMode is the object type an entry of mode m names.
func TypeOfMode(m filemode.FileMode) string {
	switch m {
	case filemode.Dir:
		return "tree"
	case filemode.Submodule:
		return "commit"
	}
	return "blob"
}
