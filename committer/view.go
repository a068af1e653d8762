package committer

import (
	"context"
	"strings"
)

// view is a tree as a change set sees it: a base tree on GitHub (read
// lazily, directory by directory) plus, in a queue's batch, the changes of
// the change sets before it that are not on GitHub yet.
type view struct {
	c    *Committer
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

func (v *view) base(ctx context.Context, path string) (treeEntry, bool, error) {
	if v.root == "" {
		return treeEntry{}, false, nil
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
		e, ok, err := v.base(ctx, dir)
		if err != nil {
			return nil, false, err
		}
		if ok && e.typ == "tree" {
			sha = e.sha
		}
	}
	if sha != "" {
		if files, complete, err = v.c.listFilesUpTo(ctx, sha, walk); err != nil || !complete {
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
		for _, a := range ancestors(p) {
			v.dirs[a] += d
		}
	}
	v.over[p] = o
}
