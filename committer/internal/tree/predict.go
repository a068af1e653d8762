package tree

import (
	"crypto/sha1"
	"encoding/hex"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/ghcommitter/ghcommitter/committer/internal/changes"
	"github.com/ghcommitter/ghcommitter/committer/internal/object"
)

// PredictTrees works out the listing and SHA of every directory that the
// tree request of r will write on the tree root, from the listings resolve
// has read, and caches them by SHA: the next commit built on this one (by
// this Committer, or a queue) then reads none of them again. A tree's SHA
// is a function of its listing, so a cached listing is true whatever
// becomes of the commit. A directory whose old listing is not cached, or a
// subtree whose SHA comes out other than GitHub's, stops the prediction.
func (rv *Resolver) PredictTrees(root string, r *Resolved) {
	for _, st := range r.Subtrees {
		sha, ok := predict(rv.Cache, "", st.entries)
		if !ok || sha != st.entry.SHA {
			return
		}
	}
	predict(rv.Cache, root, r.Entries)
}

// predict applies entries (paths relative to the tree root, "" for an empty
// one) to the cached listings and caches every directory it writes. It
// returns the new root's SHA.
func predict(c *Cache, root string, entries []*object.TreeEntry) (string, bool) {
	pl := &planned{c: c, root: root, listings: map[string]dir{}}
	dirty := map[string]bool{"": true}
	for _, e := range entries {
		p := e.Path
		d, ok := pl.load(dirOf(p))
		if !ok {
			return "", false
		}
		name := path.Base(p)
		switch {
		case e.Deletes():
			delete(d, name)
		case e.Content != nil:
			d[name] = object.TreeEntry{Path: name, Mode: e.Mode, Type: object.TypeBlob, SHA: changes.BlobSHA([]byte(e.Inline()))}
		default:
			d[name] = object.TreeEntry{Path: name, Mode: e.Mode, Type: e.Type, SHA: e.SHA}
		}
		for _, a := range changes.Ancestors(p) {
			dirty[a] = true
		}
	}
	order := make([]string, 0, len(dirty))
	for p := range dirty {
		order = append(order, p)
	}
	// Deepest first, so a directory's SHA is known before its parent's.
	sort.Slice(order, func(i, j int) bool { return depth(order[i]) > depth(order[j]) })
	var rootSHA string
	for _, p := range order {
		d := pl.listings[p]
		sha := treeSHA(d)
		if d == nil || sha == "" {
			return "", false
		}
		if p == "" {
			rootSHA = sha
		} else if parent := pl.listings[dirOf(p)]; len(d) == 0 {
			delete(parent, path.Base(p))
		} else {
			parent[path.Base(p)] = object.TreeEntry{Path: path.Base(p), Mode: object.ModeDir, Type: object.TypeTree, SHA: sha}
		}
		if len(d) > 0 || p == "" {
			c.putDir(sha, d)
		}
	}
	return rootSHA, true
}

// planned holds the new listings of the directories a tree request writes,
// each copied from its cached old listing when first needed.
type planned struct {
	c        *Cache
	root     string
	listings map[string]dir
}

func (pl *planned) load(p string) (dir, bool) {
	if d, ok := pl.listings[p]; ok {
		return d, true
	}
	sha := pl.root
	if p != "" {
		parent, ok := pl.load(dirOf(p))
		if !ok {
			return nil, false
		}
		sha = ""
		if e, ok := parent[path.Base(p)]; ok && e.Type == object.TypeTree {
			sha = e.SHA
		}
	}
	d := dir{}
	if sha != "" {
		old, ok := pl.c.dir(sha)
		if !ok {
			return nil, false
		}
		for k, v := range old {
			d[k] = v
		}
	}
	pl.listings[p] = d
	return d, true
}

func dirOf(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}

func depth(p string) int {
	if p == "" {
		return 0
	}
	return strings.Count(p, "/") + 1
}

// treeSHA is the git object ID of a tree with the entries of d: entries
// sorted by name (a directory's as if it ended in "/"), each "mode name\0"
// and the 20-byte ID.
func treeSHA(d dir) string {
	names := make([]string, 0, len(d))
	key := func(n string) string {
		if d[n].Type == object.TypeTree {
			return n + "/"
		}
		return n
	}
	for n := range d {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return key(names[i]) < key(names[j]) })
	var body []byte
	for _, n := range names {
		e := d[n]
		mode := strings.TrimLeft(e.Mode, "0")
		id, err := hex.DecodeString(e.SHA)
		if err != nil || len(id) != sha1.Size {
			return ""
		}
		body = append(body, mode...)
		body = append(body, ' ')
		body = append(body, n...)
		body = append(body, 0)
		body = append(body, id...)
	}
	h := sha1.New()
	h.Write([]byte("tree " + strconv.Itoa(len(body)) + "\x00"))
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}
