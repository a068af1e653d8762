package tree

import (
	"context"
	"strings"

	"github.com/ghcommitter/ghcommitter/committer/internal/changes"
	"github.com/ghcommitter/ghcommitter/committer/internal/object"
)

// View is a tree as a change set sees it: a base tree in the Store (read
// lazily) plus, in a queue's batch, the changes of the change sets before
// it that are not in the store yet.
type View struct {
	store Store
	at    Tree
	known map[string]Stat // answers of the base tree, from Prefetch
	over  map[string]overlay
	gone  []string       // directories deleted by the overlay
	dirs  map[string]int // directory -> live overlay entries under it
}

// overlay is one path written or deleted by an earlier change set.
type overlay struct {
	entry   object.TreeEntry
	data    []byte // the content, when held in memory
	deleted bool
}

// Effect is what a resolved change set does to one path, to layer the next
// change set of a batch on top.
type Effect struct {
	Path    string
	Mode    string
	SHA     string
	Data    []byte // the content, when held in memory
	Deleted bool
	Dir     bool // a deleted directory
}

// NewView is the view of the tree at in store.
func NewView(store Store, at Tree) *View { return &View{store: store, at: at} }

// Root is the SHA of the view's base tree ("" for an empty repository).
func (v *View) Root() string { return v.at.Root }

// Overlaid reports whether the view holds changes not in its base tree.
func (v *View) Overlaid() bool { return len(v.over) > 0 }

func (v *View) underGone(path string) bool {
	for _, d := range v.gone {
		if path == d || strings.HasPrefix(path, d+"/") {
			return true
		}
	}
	return false
}

// Get finds path; ok is false when it is absent.
func (v *View) Get(ctx context.Context, path string) (object.TreeEntry, bool, error) {
	o, hit := v.over[path]
	if hit && !o.deleted {
		return o.entry, true, nil
	}
	if v.dirs[path] > 0 {
		// A directory that the overlay writes into: the caller needs only
		// its type.
		if !hit && !v.underGone(path) {
			if e, ok, err := v.base(ctx, path); err != nil || ok && e.Type == object.TypeTree {
				return e, ok, err
			}
		}
		return object.TreeEntry{Path: path, Type: object.TypeTree, Mode: object.ModeDir}, true, nil
	}
	if hit || v.underGone(path) {
		return object.TreeEntry{}, false, nil
	}
	return v.base(ctx, path)
}

// base finds path in the base tree: from the answers of Prefetch, else
// asking the store. A directory found may have no SHA.
func (v *View) base(ctx context.Context, path string) (object.TreeEntry, bool, error) {
	if v.at.Root == "" {
		return object.TreeEntry{}, false, nil
	}
	if st, ok := v.known[path]; ok {
		return st.Entry, st.Kind != Absent, nil
	}
	got, err := v.store.Lookup(ctx, v.at, []string{path}, false)
	if err != nil {
		return object.TreeEntry{}, false, err
	}
	return got[0].Entry, got[0].Kind != Absent, nil
}

// Prefetch asks the store about paths and the directories above them in
// one cheap Lookup (see Store), so that resolving a change set that
// touches them reads no directory on the way where the store can help it;
// the answers are kept. The files at texts (a change set's edits) are
// asked for with their content where the store can bring it in the same
// request (see WithTexts).
func (v *View) Prefetch(ctx context.Context, paths, texts []string) error {
	seen := map[string]bool{"": true}
	var ask []string
	for _, p := range paths {
		for _, q := range append([]string{p}, changes.Ancestors(p)...) {
			if _, had := v.known[q]; !seen[q] && !had {
				seen[q] = true
				ask = append(ask, q)
			}
		}
	}
	if v.at.Root == "" || len(ask) == 0 {
		return nil
	}
	paths = ask
	if len(texts) > 0 {
		ctx = WithTexts(ctx, texts)
	}
	got, err := v.store.Lookup(ctx, v.at, paths, true)
	if err != nil {
		return err
	}
	if v.known == nil {
		v.known = map[string]Stat{}
	}
	for i, st := range got {
		if st.Kind != Unknown {
			v.known[paths[i]] = st
		}
	}
	return nil
}

// Content returns the content of a file entry found by Get.
func (v *View) Content(ctx context.Context, path string, e object.TreeEntry) ([]byte, error) {
	if o, hit := v.over[path]; hit && o.data != nil {
		return o.data, nil
	}
	return v.store.Blob(ctx, e.SHA)
}

// list returns every file under the directory dir ("" = root), keyed by
// path relative to dir.
func (v *View) list(ctx context.Context, dir string) (map[string]object.TreeEntry, error) {
	files, _, err := v.listUpTo(ctx, dir, true)
	return files, err
}

// listUpTo is list; without walk, a directory too big for the store to
// list in one request gives complete == false.
func (v *View) listUpTo(ctx context.Context, dir string, walk bool) (files map[string]object.TreeEntry, complete bool, err error) {
	files = map[string]object.TreeEntry{}
	if v.at.Root != "" && (dir == "" || !v.underGone(dir)) {
		if files, complete, err = v.store.List(ctx, v.at, dir, walk); err != nil || !complete {
			return nil, complete, err
		}
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

// Apply layers the effects of a resolved change set on the view, in order:
// a deleted directory drops what the overlay held under it.
func (v *View) Apply(effects []Effect) {
	if v.over == nil {
		v.over, v.dirs = map[string]overlay{}, map[string]int{}
	}
	for _, e := range effects {
		if e.Dir {
			v.gone = append(v.gone, e.Path)
			for p := range v.over {
				if strings.HasPrefix(p, e.Path+"/") {
					v.set(p, overlay{deleted: true})
					delete(v.over, p)
				}
			}
		}
		v.set(e.Path, overlay{
			entry:   object.TreeEntry{Path: e.Path, Mode: e.Mode, Type: object.TypeBlob, SHA: e.SHA},
			data:    e.Data,
			deleted: e.Deleted,
		})
	}
}

// set records o at p, keeping the count of live entries under each
// directory.
func (v *View) set(p string, o overlay) {
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
