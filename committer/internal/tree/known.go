package tree

import (
	"github.com/ghcommitter/ghcommitter/committer/internal/changes"
	"github.com/ghcommitter/ghcommitter/committer/internal/object"
)

// known is what a tree has at one path, learnt without reading the
// directories on the way: from a GraphQL path lookup (see GitHub.prefetch)
// or from a tree this Committer created (see LearnTree). A directory's SHA
// may be unknown (""): it is known to be a directory, which is all a put
// under it needs.
type known struct {
	e  object.TreeEntry
	ok bool // false: absent
	// complete marks a directory every path under which is known: one not
	// recorded is absent (a directory this Committer created whole).
	complete bool
}

const maxKnownPaths = 1 << 16

// knownAt answers what the tree root has at p from what is known, without
// a request. decided reports whether it could; when it could not, from is
// the SHA of the deepest known directory above p and rel is p relative to
// it ("" and p when none is known).
func (c *Cache) knownAt(root, p string) (k known, decided bool, from, rel string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.knownAtLocked(root, p)
}

func (c *Cache) knownAtLocked(root, p string) (known, bool, string, string) {
	m := c.paths[root]
	if k, ok := m[p]; ok {
		return k, true, "", ""
	}
	for _, a := range changes.Ancestors(p) { // deepest first
		k, ok := m[a]
		switch {
		case !ok:
			continue
		case !k.ok || k.e.Type != object.TypeTree || k.complete:
			return known{}, true, "", "" // under an absent path, a file, or a complete directory
		case k.e.SHA != "":
			return known{}, false, k.e.SHA, p[len(a)+1:]
		}
	}
	return known{}, false, "", p
}

// putPath records what the tree root has at p. A directory of unknown SHA
// never replaces one whose SHA is known.
func (c *Cache) putPath(root, p string, k known) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.putPathLocked(root, p, k)
}

func (c *Cache) putPathLocked(root, p string, k known) {
	m := c.paths[root]
	if m == nil {
		if c.npaths >= maxKnownPaths {
			c.paths, c.npaths = map[string]map[string]known{}, 0
		}
		m = map[string]known{}
		c.paths[root] = m
	}
	old, had := m[p]
	if had && old.ok && k.ok && old.e.Type == k.e.Type && old.e.SHA != "" && k.e.SHA == "" {
		k.e.SHA = old.e.SHA // the same directory, its SHA known
	}
	if !had {
		c.npaths++
	}
	m[p] = k
}

// LearnTree records what the tree root, just created as base plus entries
// (which never overlap), has at their paths, so the next change set built
// on it (a Queue's, a bot's next commit) needs no lookup for them: what an
// entry writes, every directory above a written entry (complete when base
// had none there, or a complete one: then every path under it is known),
// and what base was known to have at every path no entry is at, under or
// above (the same in both trees). A deleted path is absent.
func (c *Cache) LearnTree(base, root string, entries []*object.TreeEntry) {
	if !object.IsSHA(root) || base == root {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	at, above := map[string]bool{}, map[string]bool{}
	for _, e := range entries {
		at[e.Path] = true
		for _, a := range changes.Ancestors(e.Path) {
			above[a] = true
		}
	}
	// New directories: complete when base had nothing there, or a
	// complete directory.
	newDir := map[string]bool{}
	for _, e := range entries {
		if e.Deletes() {
			continue
		}
		for _, a := range changes.Ancestors(e.Path) {
			if _, ok := newDir[a]; ok {
				continue
			}
			k, decided, _, _ := c.knownAtLocked(base, a)
			newDir[a] = base == "" || decided && (!k.ok || k.e.Type == object.TypeTree && k.complete)
		}
	}
	var keep []string
next:
	for p := range c.paths[base] {
		if at[p] || above[p] {
			continue // written, or a directory whose content changed
		}
		for _, a := range changes.Ancestors(p) {
			if at[a] {
				continue next // under a path an entry replaces
			}
		}
		keep = append(keep, p)
	}
	old := c.paths[base]
	for _, p := range keep {
		c.putPathLocked(root, p, old[p])
	}
	for _, e := range entries {
		p := e.Path
		switch {
		case e.Content != nil:
			c.putPathLocked(root, p, known{e: object.TreeEntry{Path: p, Mode: e.Mode, Type: object.TypeBlob, SHA: changes.BlobSHA([]byte(e.Inline()))}, ok: true})
		case e.SHA != "":
			c.putPathLocked(root, p, known{e: object.TreeEntry{Path: p, Mode: e.Mode, Type: e.Type, SHA: e.SHA}, ok: true})
		default:
			c.putPathLocked(root, p, known{})
		}
	}
	for a, complete := range newDir {
		c.putPathLocked(root, a, known{e: object.TreeEntry{Path: a, Mode: object.ModeDir, Type: object.TypeTree}, ok: true, complete: complete})
	}
}

// maxLearntListing bounds the listings learnListing records: a bigger one
// would crowd everything else out of the cache.
const maxLearntListing = maxKnownPaths / 4

// learnListing records a whole recursive listing of the directory dir ("" =
// the root; its tree is sha) of the tree root: every file and directory under it (paths
// relative to dir), each directory complete, so a sync's puts into it need
// no lookup of their own.
func (c *Cache) learnListing(root, dir, sha string, files, dirs map[string]object.TreeEntry) {
	if len(files)+len(dirs) > maxLearntListing {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	full := func(rel string) string {
		if dir == "" {
			return rel
		}
		return dir + "/" + rel
	}
	if dir != "" {
		c.putPathLocked(root, dir, known{e: object.TreeEntry{Path: dir, Mode: object.ModeDir, Type: object.TypeTree, SHA: sha}, ok: true, complete: true})
	}
	for rel, e := range dirs {
		c.putPathLocked(root, full(rel), known{e: object.TreeEntry{Path: full(rel), Mode: e.Mode, Type: object.TypeTree, SHA: e.SHA}, ok: true, complete: true})
	}
	for rel, e := range files {
		c.putPathLocked(root, full(rel), known{e: object.TreeEntry{Path: full(rel), Mode: e.Mode, Type: e.Type, SHA: e.SHA}, ok: true})
	}
}
