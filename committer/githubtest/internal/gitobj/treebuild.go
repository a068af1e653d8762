package gitobj

import (
	"errors"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// ErrPathNotFound is TreeBuilder.Del's error for a path the tree does not hold.
var ErrPathNotFound = errors.New("path not found")

// TreeBuilder edits a tree of an object store in memory and writes only
// the changed trees, bottom-up, once. Caller holds the repo's mu for
// writing.
type TreeBuilder struct {
	st   *Store
	root *tnode
}

type tnode struct {
	base    plumbing.Hash
	entries map[string]*tentry // nil until loaded
	dirty   bool
}

type tentry struct {
	mode  filemode.FileMode
	hash  plumbing.Hash
	child *tnode // directories, once descended into
}

// NewTreeBuilder edits the tree base of st (a zero base: an empty tree).
func NewTreeBuilder(st *Store, base plumbing.Hash) *TreeBuilder {
	root := &tnode{base: base}
	if base.IsZero() {
		root.entries = map[string]*tentry{}
		root.dirty = true
	}
	return &TreeBuilder{st: st, root: root}
}

func (b *TreeBuilder) load(n *tnode) {
	if n.entries != nil {
		return
	}
	src := b.st.Trees[n.base]
	n.entries = make(map[string]*tentry, len(src))
	for _, e := range src {
		n.entries[e.Name] = &tentry{mode: e.Mode, hash: e.Hash}
	}
}

func (b *TreeBuilder) childOf(e *tentry) *tnode {
	if e.child == nil {
		e.child = &tnode{base: e.hash}
	}
	return e.child
}

// Set puts an entry at path, creating intermediate trees.
func (b *TreeBuilder) Set(path string, mode filemode.FileMode, h plumbing.Hash) {
	parts := strings.Split(path, "/")
	n := b.root
	for _, p := range parts[:len(parts)-1] {
		b.load(n)
		n.dirty = true
		e, ok := n.entries[p]
		if !ok || e.mode != filemode.Dir {
			e = &tentry{mode: filemode.Dir, child: &tnode{entries: map[string]*tentry{}, dirty: true}}
			n.entries[p] = e
		}
		n = b.childOf(e)
	}
	b.load(n)
	n.dirty = true
	n.entries[parts[len(parts)-1]] = &tentry{mode: mode, hash: h}
}

// Del removes the file or directory at path.
func (b *TreeBuilder) Del(path string) error {
	parts := strings.Split(path, "/")
	n := b.root
	for _, p := range parts[:len(parts)-1] {
		b.load(n)
		e, ok := n.entries[p]
		if !ok || e.mode != filemode.Dir {
			return ErrPathNotFound
		}
		n.dirty = true
		n = b.childOf(e)
	}
	b.load(n)
	last := parts[len(parts)-1]
	if _, ok := n.entries[last]; !ok {
		return ErrPathNotFound
	}
	delete(n.entries, last)
	n.dirty = true
	return nil
}

// Write stores every changed tree and returns the root tree's hash.
func (b *TreeBuilder) Write() (plumbing.Hash, error) {
	return b.writeNode(b.root)
}

func (b *TreeBuilder) writeNode(n *tnode) (plumbing.Hash, error) {
	h, _, err := b.writeTree(n)
	return h, err
}

// writeTree writes n and its dirty subtrees, and reports whether n came out
// empty: git has no empty directories, so an emptied directory is dropped
// from its parent, which may in turn come out empty.
func (b *TreeBuilder) writeTree(n *tnode) (plumbing.Hash, bool, error) {
	if !n.dirty {
		return n.base, false, nil
	}
	entries := make([]object.TreeEntry, 0, len(n.entries))
	for name, e := range n.entries {
		if e.child != nil && e.child.dirty {
			h, empty, err := b.writeTree(e.child)
			if err != nil {
				return plumbing.ZeroHash, false, err
			}
			if empty {
				continue
			}
			e.hash = h
		}
		entries = append(entries, object.TreeEntry{Name: name, Mode: e.mode, Hash: e.hash})
	}
	h, err := b.st.PutTree(entries)
	return h, len(entries) == 0, err
}

// ValidPath reports whether p is a clean relative path.
func ValidPath(p string) bool {
	if p == "" || strings.HasPrefix(p, "/") || strings.HasSuffix(p, "/") || strings.IndexByte(p, 0) >= 0 {
		return false
	}
	for _, s := range strings.Split(p, "/") {
		if s == "" || s == "." || s == ".." || strings.EqualFold(s, ".git") {
			return false
		}
	}
	return true
}
