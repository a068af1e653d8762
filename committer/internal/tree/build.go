package tree

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/ghcommitter/ghcommitter/committer/internal/changes"
	"github.com/ghcommitter/ghcommitter/committer/internal/object"
)

// Subtree is a directory a change set writes whole, in place of what was at
// its path (a file becoming a directory, or a deleted directory with puts
// under it). It is created by its own tree request (see BuildSubtrees) and
// sent as one tree entry, so no entry of the main request is under another.
type Subtree struct {
	path    string
	entry   *object.TreeEntry   // the main request's entry; its SHA is set once built
	entries []*object.TreeEntry // paths relative to path
	puts    []put               // the puts behind entries
	keys    []string
}

// key identifies the subtree's content, to build it once across attempts.
func (st *Subtree) key() string {
	sort.Strings(st.keys)
	return strings.Join(st.keys, "\n")
}

// build turns the puts and deletions into non-overlapping tree entries, the
// per-path actions and the effects for the next change set of a batch.
func (rs *resolution) build(ctx context.Context) error {
	subs := map[string]*Subtree{}
	var order []string
	for _, pt := range rs.puts {
		top := rs.topDeleted(pt.path)
		switch {
		case top == "":
			e, ok, err := rs.checkPut(ctx, pt)
			if err != nil {
				return err
			}
			rs.write(pt, e, ok)
		case top == pt.path:
			// One entry replaces what is there, whatever it is.
			d := rs.dels[top]
			d.replaced = true
			if d.entry.Type == object.TypeBlob {
				rs.write(pt, d.entry, true)
				continue
			}
			if err := rs.deleteEffect(ctx, top, d, pt.path); err != nil {
				return err
			}
			rs.write(pt, object.TreeEntry{}, false)
		default:
			d := rs.dels[top]
			d.replaced = true
			st := subs[top]
			if st == nil {
				st = &Subtree{path: top, entry: &object.TreeEntry{Path: top, Mode: object.ModeDir, Type: object.TypeTree}}
				subs[top] = st
				order = append(order, top)
			}
			rel := strings.TrimPrefix(pt.path, top+"/")
			e := rs.entry(rel, pt)
			st.entries = append(st.entries, e)
			st.puts = append(st.puts, pt)
			st.keys = append(st.keys, pt.mode+" "+pt.src.SHA+" "+rel)
		}
	}
	for _, top := range order {
		if err := rs.replaceDir(ctx, subs[top]); err != nil {
			return err
		}
	}
	if err := rs.deletes(ctx); err != nil {
		return err
	}
	return rs.finish()
}

// topDeleted returns the highest path at or above p that the change set
// deletes, or "".
func (rs *resolution) topDeleted(p string) string {
	anc := changes.Ancestors(p)
	for i := len(anc) - 1; i >= 0; i-- {
		if rs.dels[anc[i]] != nil {
			return anc[i]
		}
	}
	if rs.dels[p] != nil {
		return p
	}
	return ""
}

// checkPut refuses a put that would go through a file or onto a directory
// or submodule, and returns what is at its path.
func (rs *resolution) checkPut(ctx context.Context, pt put) (object.TreeEntry, bool, error) {
	anc := changes.Ancestors(pt.path)
	for i := len(anc) - 1; i >= 0; i-- {
		a := anc[i]
		e, ok, err := rs.v.Get(ctx, a)
		if err != nil || !ok {
			return object.TreeEntry{}, false, err
		}
		if e.Type != object.TypeTree {
			return object.TreeEntry{}, false, replaceConflict(pt.path, a, "directory", "%q is a %s on the branch and a put cannot go through it", a, KindOf(e))
		}
	}
	e, ok, err := rs.v.Get(ctx, pt.path)
	if err != nil {
		return object.TreeEntry{}, false, err
	}
	if ok && e.Type != object.TypeBlob {
		return object.TreeEntry{}, false, replaceConflict(pt.path, pt.path, "file", "is a %s on the branch and a put cannot replace it", KindOf(e))
	}
	return e, ok, nil
}

// write sends pt unless old (what is at its path) already holds it.
func (rs *resolution) write(pt put, old object.TreeEntry, exists bool) {
	switch {
	case exists && old.SHA == pt.src.SHA && old.Mode == pt.mode:
		if rs.full {
			rs.set(pt.path, Unchanged, pt.idx)
		}
		return
	case exists:
		rs.set(pt.path, Modified, pt.idx)
	default:
		rs.set(pt.path, Added, pt.idx)
	}
	rs.r.Entries = append(rs.r.Entries, rs.entry(pt.path, pt))
	rs.putEffect(pt)
}

func (rs *resolution) putEffect(pt put) {
	eff := Effect{Path: pt.path, Mode: pt.mode, SHA: pt.src.SHA}
	if pt.src.InMemory() {
		eff.Data = pt.src.Data
	}
	rs.r.Effects = append(rs.r.Effects, eff)
}

// entry is the tree entry writing pt at p: inline content for text up to
// the inline limit, however much of it the change set holds (the tree
// requests are chunked by bytes: see Chunks), else a blob SHA (uploaded
// first unless known to exist).
func (rs *resolution) entry(p string, pt put) *object.TreeEntry {
	src := pt.src
	e := &object.TreeEntry{Path: p, Mode: pt.mode, Type: object.TypeBlob}
	if src.InMemory() && src.Size > 0 && src.Size <= rs.rv.InlineLimit && isText(src.Data) {
		content := string(src.Data)
		e.Content = &content
		return e
	}
	e.SHA = src.SHA
	if !rs.rv.Cache.IsUploaded(src.SHA) {
		rs.r.Uploads = append(rs.r.Uploads, src)
	}
	return e
}

// deleteEffect records that the deletion d at p goes: every file under it
// (or the file itself) is deleted, except keep, which a put writes again.
func (rs *resolution) deleteEffect(ctx context.Context, p string, d *deletion, keep string) error {
	rs.r.Effects = append(rs.r.Effects, Effect{Path: p, Deleted: true, Dir: d.entry.Type == object.TypeTree})
	if d.entry.Type != object.TypeTree {
		if p != keep {
			rs.set(p, Deleted, d.idx)
		}
		return nil
	}
	// Listing every file costs one request; a directory too big for one
	// is reported by its own path rather than walked for a report.
	files, complete, err := rs.v.listUpTo(ctx, p, false)
	if err != nil {
		return err
	}
	if !complete {
		rs.set(p, Deleted, d.idx)
		return nil
	}
	for rel := range files {
		if full := path.Join(p, rel); full != keep {
			rs.set(full, Deleted, d.idx)
		}
	}
	return nil
}

// replaceDir sends the subtree st in place of what was at its path, and
// works out each path's action against what was there.
func (rs *resolution) replaceDir(ctx context.Context, st *Subtree) error {
	d := rs.dels[st.path]
	var old map[string]object.TreeEntry
	if d.entry.Type == object.TypeTree {
		var err error
		if old, err = rs.v.list(ctx, st.path); err != nil {
			return err
		}
	}
	if err := rs.deleteEffect(ctx, st.path, d, ""); err != nil {
		return err
	}
	for i, e := range st.entries {
		rel := e.Path
		full := path.Join(st.path, rel)
		pt := st.puts[i]
		o, ok := old[rel]
		switch {
		case ok && o.SHA == pt.src.SHA && o.Mode == pt.mode:
			if rs.full {
				rs.set(full, Unchanged, pt.idx)
			} else {
				delete(rs.actions, full)
			}
		case ok:
			rs.set(full, Modified, pt.idx)
		default:
			rs.set(full, Added, pt.idx)
		}
		rs.putEffect(pt)
	}
	rs.r.Entries = append(rs.r.Entries, st.entry)
	rs.r.Subtrees = append(rs.r.Subtrees, st)
	return nil
}

// deletes sends the deletions that no put replaces.
func (rs *resolution) deletes(ctx context.Context) error {
	paths := make([]string, 0, len(rs.dels))
	for p, d := range rs.dels {
		if !d.replaced {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	for _, p := range paths {
		d := rs.dels[p]
		rs.r.Entries = append(rs.r.Entries, &object.TreeEntry{Path: p, Mode: d.entry.Mode, Type: d.entry.Type})
		if err := rs.deleteEffect(ctx, p, d, ""); err != nil {
			return err
		}
	}
	return nil
}

// finish lists the actions in the order of the operations they come from
// (ops first, then syncs), by path within one, and checks that no entry is at or under
// another: the one shape whose result would depend on the entries' order.
func (rs *resolution) finish() error {
	for p, a := range rs.actions {
		rs.r.Changes = append(rs.r.Changes, Change{Path: p, Action: a})
	}
	sort.Slice(rs.r.Changes, func(i, j int) bool {
		a, b := rs.r.Changes[i].Path, rs.r.Changes[j].Path
		if rs.rank[a] != rs.rank[b] {
			return rs.rank[a] < rs.rank[b]
		}
		return a < b
	})
	sent := map[string]bool{}
	for _, e := range rs.r.Entries {
		sent[e.Path] = true
	}
	for _, e := range rs.r.Entries {
		for _, a := range changes.Ancestors(e.Path) {
			if sent[a] {
				return fmt.Errorf("committer: internal error: tree entries %q and %q overlap", a, e.Path)
			}
		}
	}
	if len(sent) != len(rs.r.Entries) {
		return errors.New("committer: internal error: two tree entries for one path")
	}
	return nil
}

// EntriesOverlap reports whether an entry of one resolved change set is at,
// under or above an entry of another. Each change set's own entries never
// overlap, but a batch that sends several change sets' entries in one tree
// request (a squash, or tree k built as base plus the entries of 1..k)
// gets a tree that depends on the entries' order when they do: such a
// batch must build its trees one change set at a time, each on the last.
func EntriesOverlap(rs []*Resolved) bool {
	owner := map[string]int{} // path -> change set
	under := map[string]int{} // ancestor of an entry -> change set
	for i, r := range rs {
		for _, e := range r.Entries {
			p := e.Path
			if j, ok := owner[p]; ok && j != i {
				return true
			}
			if j, ok := under[p]; ok && j != i {
				return true
			}
			for _, a := range changes.Ancestors(p) {
				if j, ok := owner[a]; ok && j != i {
					return true
				}
			}
		}
		for _, e := range r.Entries {
			owner[e.Path] = i
			for _, a := range changes.Ancestors(e.Path) {
				under[a] = i
			}
		}
	}
	return false
}
