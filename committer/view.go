package committer

import (
	"context"
	"errors"
	"net/http"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/ghcommitter/ghcommitter/committer/internal/changes"
	"github.com/ghcommitter/ghcommitter/committer/internal/ghgraphql"
	"github.com/ghcommitter/ghcommitter/committer/internal/rest"
)

// view is a tree as a change set sees it: a base tree on GitHub (read
// lazily, directory by directory) plus, in a queue's batch, the changes of
// the change sets before it that are not on GitHub yet.
type view struct {
	c    *Committer
	head string // the commit whose tree root is, for path lookups; "" when not known
	root string // base tree SHA; "" for an empty repository
	over map[string]overlay
	gone []string       // directories deleted by the overlay
	dirs map[string]int // directory -> live overlay entries under it
}

// overlay is one path written or deleted by an earlier change set.
type overlay struct {
	entry   treeEntry
	data    []byte // the content, when held in memory
	deleted bool
}

// effect is what a resolved change set does to one path, to layer the next
// change set of a batch on top.
type effect struct {
	path    string
	mode    Mode
	sha     string
	data    []byte
	deleted bool
	dir     bool // a deleted directory
}

func newView(c *Committer, root string) *view { return &view{c: c, root: root} }

// newViewAt is the view of the tree root of the commit head: what is at a
// changed path can then be looked up without reading the directories on
// the way (see prefetch).
func newViewAt(c *Committer, head, root string) *view {
	return &view{c: c, head: head, root: root}
}

func (v *view) underGone(path string) bool {
	for _, d := range v.gone {
		if path == d || strings.HasPrefix(path, d+"/") {
			return true
		}
	}
	return false
}

// get finds path; ok is false when it is absent.
func (v *view) get(ctx context.Context, path string) (treeEntry, bool, error) {
	o, hit := v.over[path]
	if hit && !o.deleted {
		return o.entry, true, nil
	}
	if v.dirs[path] > 0 {
		// A directory that the overlay writes into: the caller needs only
		// its type.
		if !hit && !v.underGone(path) {
			if e, ok, err := v.base(ctx, path); err != nil || ok && e.typ == "tree" {
				return e, ok, err
			}
		}
		return treeEntry{name: path, typ: "tree", mode: "040000"}, true, nil
	}
	if hit || v.underGone(path) {
		return treeEntry{}, false, nil
	}
	return v.base(ctx, path)
}

// base finds path in the base tree: from what is known of it (see
// prefetch and learnTree), else reading the directories from the deepest
// known one. A directory found may have no SHA (see known); baseTree has.
func (v *view) base(ctx context.Context, path string) (treeEntry, bool, error) {
	if v.root == "" {
		return treeEntry{}, false, nil
	}
	k, decided, from, rel := v.c.cache.knownAt(v.root, path)
	switch {
	case decided:
		return k.e, k.ok, nil
	case from != "":
		e, ok, err := v.c.lookup(ctx, from, rel)
		if rest.Status(err) != http.StatusNotFound {
			return e, ok, err
		}
		// A directory SHA learnt for this tree that GitHub does not have:
		// never trusted over the tree itself.
		v.c.o.logger.DebugContext(ctx, "a learnt directory is not on GitHub; reading from the root", "tree", short(from), "path", path)
	}
	return v.c.lookup(ctx, v.root, path)
}

// baseTree is base for a path whose listing is needed: a directory found
// has its SHA.
func (v *view) baseTree(ctx context.Context, path string) (treeEntry, bool, error) {
	e, ok, err := v.base(ctx, path)
	if err != nil || !ok || e.typ != "tree" || e.sha != "" {
		return e, ok, err
	}
	return v.c.lookup(ctx, v.root, path)
}

// content returns the content of a file entry found by get.
func (v *view) content(ctx context.Context, path string, e treeEntry) ([]byte, error) {
	if o, hit := v.over[path]; hit && o.data != nil {
		return o.data, nil
	}
	return v.c.readBlob(ctx, e.sha)
}

// list returns every file under the directory dir ("" = root), keyed by
// path relative to dir.
func (v *view) list(ctx context.Context, dir string) (map[string]treeEntry, error) {
	files, _, err := v.listUpTo(ctx, dir, true)
	return files, err
}

// listUpTo is list; without walk, a directory too big for GitHub to list in
// one request gives complete == false (see listFilesUpTo).
func (v *view) listUpTo(ctx context.Context, dir string, walk bool) (files map[string]treeEntry, complete bool, err error) {
	files = map[string]treeEntry{}
	var sha string
	if dir == "" {
		sha = v.root
	} else if !v.underGone(dir) {
		e, ok, err := v.baseTree(ctx, dir)
		if err != nil {
			return nil, false, err
		}
		if ok && e.typ == "tree" {
			sha = e.sha
		}
	}
	if sha != "" {
		var dirs map[string]treeEntry
		if files, dirs, complete, err = v.c.listFilesUpTo(ctx, sha, walk); err != nil || !complete {
			return nil, complete, err
		}
		v.c.cache.learnListing(v.root, dir, sha, files, dirs)
	}
	prefix := dir + "/"
	if dir == "" {
		prefix = ""
	}
	for rel := range files {
		if v.underGone(prefix + rel) {
			delete(files, rel)
		}
	}
	for p, o := range v.over {
		if !strings.HasPrefix(p, prefix) {
			continue
		}
		rel := strings.TrimPrefix(p, prefix)
		if o.deleted {
			delete(files, rel)
		} else {
			files[rel] = o.entry
		}
	}
	return files, true, nil
}

// apply layers the effects of a resolved change set on the view, in order:
// a deleted directory drops what the overlay held under it.
func (v *view) apply(effects []effect) {
	if v.over == nil {
		v.over, v.dirs = map[string]overlay{}, map[string]int{}
	}
	for _, e := range effects {
		if e.dir {
			v.gone = append(v.gone, e.path)
			for p := range v.over {
				if strings.HasPrefix(p, e.path+"/") {
					v.set(p, overlay{deleted: true})
					delete(v.over, p)
				}
			}
		}
		v.set(e.path, overlay{
			entry:   treeEntry{name: e.path, mode: string(e.mode), typ: "blob", sha: e.sha},
			data:    e.data,
			deleted: e.deleted,
		})
	}
}

// set records o at p, keeping the count of live entries under each
// directory.
func (v *view) set(p string, o overlay) {
	was := v.over[p]
	live := func(x overlay, ok bool) bool { return ok && !x.deleted }
	_, had := v.over[p]
	d := 0
	switch {
	case live(was, had) && o.deleted:
		d = -1
	case !live(was, had) && !o.deleted:
		d = 1
	}
	if d != 0 {
		for _, a := range changes.Ancestors(p) {
			v.dirs[a] += d
		}
	}
	v.over[p] = o
}

// prefetch learns what the base tree has at paths and at every directory
// above them, in one GraphQL query (Commit.file(path:) per path: see
// ghgraphql.Paths) rather than reading each directory on the way, so
// resolving a change set costs the same under a directory of 20,000
// entries as under one of 10. Paths already known, or found in directories
// already read, are not asked for. Without the head commit, or when the
// query fails (GraphQL unavailable, rate-limited, refused), nothing is
// learnt and base reads the directories over REST as before.
func (v *view) prefetch(ctx context.Context, paths []string) error {
	c := v.c
	if v.root == "" || v.head == "" || c.gql == nil || c.noPathQueries.Load() {
		return nil
	}
	want := map[string]bool{}
	for _, p := range paths {
		if p == "" {
			continue
		}
		want[p] = true
		for _, a := range changes.Ancestors(p) {
			want[a] = true
		}
	}
	var ask []string
	for p := range want {
		if _, decided, _, _ := c.cache.knownAt(v.root, p); decided || c.cachedLookup(v.root, p) || !utf8.ValidString(p) {
			continue
		}
		ask = append(ask, p)
	}
	if len(ask) == 0 {
		return nil
	}
	sort.Strings(ask)
	got, id, err := c.gql.Paths(ctx, c.owner, c.repo, v.head, ask)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var he *ghgraphql.HTTPError
		if errors.As(err, &he) && (he.Status == http.StatusNotFound || he.Status == http.StatusGone || he.Status == http.StatusNotImplemented) {
			c.noPathQueries.Store(true) // no GraphQL endpoint here: REST from now on
		}
		c.o.logger.DebugContext(ctx, "path lookup failed; reading directories instead", "paths", len(ask), "error", err)
		return nil
	}
	c.refs.KnowRepositoryID(id) // the strict ref update's (internal/refs): no GET /repos for it
	for _, p := range ask {
		e, ok := got[p]
		c.cache.putPath(v.root, p, known{e: treeEntry{name: p, mode: e.Mode, typ: e.Type, sha: e.OID}, ok: ok})
	}
	return nil
}

// prefetchJobs is prefetch for every change set of a batch at once, so a
// batch costs one lookup however many change sets it holds.
func (v *view) prefetchJobs(ctx context.Context, jobs []*job) error {
	var paths []string
	for _, j := range jobs {
		paths = append(paths, j.u.p.Lookups()...)
	}
	return v.prefetch(ctx, paths)
}
