package tree

import (
	"context"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/ghcommitter/ghcommitter/committer/internal/changes"
	"github.com/ghcommitter/ghcommitter/committer/internal/object"
)

// MemStore is a Store and a Writer that holds a repository's trees and
// blobs in memory, with git's object IDs: the tree logic runs against it
// without HTTP.
type MemStore struct {
	mu    sync.Mutex
	trees map[string]dir
	blobs map[string][]byte
	// Lookups counts the calls of Lookup, and Looked the paths they asked.
	Lookups, Looked int
}

// MemFile is one file of a tree written with MemStore.Write: its content
// and mode ("" = 100644). A submodule (mode 160000) has the commit SHA as
// content.
type MemFile struct {
	Content []byte
	Mode    string
}

// NewMemStore returns an empty store.
func NewMemStore() *MemStore {
	return &MemStore{trees: map[string]dir{}, blobs: map[string][]byte{}}
}

// Write stores a tree holding files (by "/"-separated path) and returns
// its SHA.
func (m *MemStore) Write(files map[string]MemFile) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	leaves := map[string]object.TreeEntry{}
	for p, f := range files {
		e := object.TreeEntry{Path: p, Mode: f.Mode, Type: object.TypeBlob}
		switch {
		case f.Mode == object.ModeSubmodule:
			e.Type, e.SHA = object.TypeCommit, string(f.Content)
		default:
			if e.Mode == "" {
				e.Mode = object.ModeFile
			}
			e.SHA = changes.BlobSHA(f.Content)
			m.blobs[e.SHA] = f.Content
		}
		leaves[p] = e
	}
	return m.writeLeaves(leaves)
}

// CacheListings puts the listing of every tree m holds into c, as reading
// them over REST would (see PredictTrees).
func (m *MemStore) CacheListings(c *Cache) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for sha, d := range m.trees {
		c.putDir(sha, d)
	}
}

// Lookup answers every path in one call (see Store).
func (m *MemStore) Lookup(_ context.Context, at Tree, paths []string, _ bool) ([]Stat, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.Lookups++
	m.Looked += len(paths)
	out := make([]Stat, len(paths))
	for i, p := range paths {
		e, ok, err := m.find(at.Root, p)
		if err != nil {
			return nil, err
		}
		out[i] = statOf(e, ok)
	}
	return out, nil
}

func (m *MemStore) find(root, p string) (object.TreeEntry, bool, error) {
	cur := root
	segs := strings.Split(p, "/")
	for i, seg := range segs {
		d, ok := m.trees[cur]
		if !ok {
			return object.TreeEntry{}, false, fmt.Errorf("tree %s not found", short(cur))
		}
		e, ok := d[seg]
		switch {
		case !ok:
			return object.TreeEntry{}, false, nil
		case i == len(segs)-1:
			return e, true, nil
		case e.Type != object.TypeTree:
			return object.TreeEntry{}, false, nil
		}
		cur = e.SHA
	}
	return object.TreeEntry{}, false, nil
}

// List lists every file under dir (see Store); it is never truncated.
func (m *MemStore) List(_ context.Context, at Tree, dir string, _ bool) (map[string]object.TreeEntry, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	sha := at.Root
	if dir != "" {
		e, ok, err := m.find(at.Root, dir)
		if err != nil {
			return nil, false, err
		}
		sha = ""
		if ok && e.Type == object.TypeTree {
			sha = e.SHA
		}
	}
	files := map[string]object.TreeEntry{}
	if sha != "" {
		m.flatten(sha, "", files)
	}
	return files, true, nil
}

// flatten adds every entry under the tree sha that is not a tree to out,
// by prefix plus its path.
func (m *MemStore) flatten(sha, prefix string, out map[string]object.TreeEntry) {
	for name, e := range m.trees[sha] {
		e.Path = prefix + name
		if e.Type == object.TypeTree {
			m.flatten(e.SHA, e.Path+"/", out)
			continue
		}
		out[e.Path] = e
	}
}

// Blob returns the blob sha.
func (m *MemStore) Blob(_ context.Context, sha string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.blobs[sha]
	if !ok {
		return nil, fmt.Errorf("blob %s not found", short(sha))
	}
	return b, nil
}

// Upload stores the blobs of srcs, checking their SHAs.
func (m *MemStore) Upload(_ context.Context, srcs []*changes.Source) error {
	for _, s := range srcs {
		data := s.Data
		if !s.InMemory() {
			r, err := s.Reader()
			if err != nil {
				return err
			}
			data, err = io.ReadAll(r)
			r.Close()
			if err != nil {
				return err
			}
		}
		if got := changes.BlobSHA(data); got != s.SHA {
			return fmt.Errorf("upload blob: content hashes to %s, not %s", short(got), short(s.SHA))
		}
		m.mu.Lock()
		m.blobs[s.SHA] = data
		m.mu.Unlock()
	}
	return nil
}

// CreateTree creates base plus entries as GitHub's tree API does: later
// entries win, an entry replaces what is at and under its path, a deleting
// entry removes it, and a blob given by SHA must exist.
func (m *MemStore) CreateTree(_ context.Context, base string, entries []*object.TreeEntry) (*object.Tree, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	leaves := map[string]object.TreeEntry{}
	if base != "" {
		if _, ok := m.trees[base]; !ok {
			return nil, fmt.Errorf("base tree %s not found", short(base))
		}
		m.flatten(base, "", leaves)
	}
	for _, e := range entries {
		p := e.Path
		for q := range leaves {
			if q == p || strings.HasPrefix(q, p+"/") {
				delete(leaves, q)
			}
		}
		for _, a := range changes.Ancestors(p) {
			delete(leaves, a) // a file on the way becomes a directory
		}
		switch {
		case e.Deletes():
		case e.Content != nil:
			sha := changes.BlobSHA([]byte(*e.Content))
			m.blobs[sha] = []byte(*e.Content)
			leaves[p] = object.TreeEntry{Path: p, Mode: e.Mode, Type: object.TypeBlob, SHA: sha}
		case e.Type == object.TypeTree:
			if _, ok := m.trees[e.SHA]; !ok {
				return nil, fmt.Errorf("tree %s not found", short(e.SHA))
			}
			m.flatten(e.SHA, p+"/", leaves)
		case e.Type == object.TypeBlob && m.blobs[e.SHA] == nil:
			return nil, fmt.Errorf("blob %s not found", short(e.SHA))
		default:
			leaves[p] = object.TreeEntry{Path: p, Mode: e.Mode, Type: e.Type, SHA: e.SHA}
		}
	}
	sha := m.writeLeaves(leaves)
	t := &object.Tree{SHA: sha}
	for _, e := range m.trees[sha] {
		t.Entries = append(t.Entries, e)
	}
	sort.Slice(t.Entries, func(i, j int) bool { return t.Entries[i].Path < t.Entries[j].Path })
	return t, nil
}

// writeLeaves stores the trees holding leaves (by full path) and returns
// the root's SHA.
func (m *MemStore) writeLeaves(leaves map[string]object.TreeEntry) string {
	dirs := map[string]dir{"": {}}
	for p := range leaves {
		for _, a := range changes.Ancestors(p) {
			if dirs[a] == nil {
				dirs[a] = dir{}
			}
		}
	}
	for p, e := range leaves {
		e.Path = path.Base(p)
		dirs[dirOf(p)][e.Path] = e
	}
	order := make([]string, 0, len(dirs))
	for p := range dirs {
		order = append(order, p)
	}
	sort.Slice(order, func(i, j int) bool { return depth(order[i]) > depth(order[j]) })
	var root string
	for _, p := range order {
		sha := treeSHA(dirs[p])
		m.trees[sha] = dirs[p]
		if p == "" {
			root = sha
			continue
		}
		name := path.Base(p)
		dirs[dirOf(p)][name] = object.TreeEntry{Path: name, Mode: object.ModeDir, Type: object.TypeTree, SHA: sha}
	}
	return root
}
