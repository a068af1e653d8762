package tree

import (
	"bytes"
	"context"
	"fmt"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ghcommitter/ghcommitter/committer/internal/changes"
	"github.com/ghcommitter/ghcommitter/committer/internal/kind"
	"github.com/ghcommitter/ghcommitter/committer/internal/lfs"
	"github.com/ghcommitter/ghcommitter/committer/internal/object"
)

// Action says what a commit does to one path.
type Action string

// The actions a commit can take on a path (committer.Action's values).
const (
	Added     Action = "added"
	Modified  Action = "modified"
	Deleted   Action = "deleted"
	Unchanged Action = "unchanged"
)

// Change is one path's part in a commit.
type Change struct {
	Path   string
	Action Action
}

// Resolved is a change set resolved against one head tree: the entries of
// the create-tree request and the blobs to upload first.
type Resolved struct {
	Entries  []*object.TreeEntry
	Uploads  []*changes.Source
	Changes  []Change
	Effects  []Effect
	Subtrees []*Subtree   // built, and their entries' SHAs set, before Entries are sent
	LFS      []lfs.Upload // Git LFS objects of the pointers in Entries, uploaded first (see Finish)
}

// Resolver resolves change sets against the trees of one repository.
type Resolver struct {
	Cache       *Cache // listings by SHA (see PredictTrees), blobs known uploaded, subtrees built
	Writer      Writer // creates the subtrees and their blobs (see BuildSubtrees)
	InlineLimit int64  // the size up to which text content is sent inline
	MaxFileSize int    // the largest blob an edit may make
	// RunEdit, when set, runs each edit function's call (which recovers
	// a panic, see CallEdit) and returns its result: a batch runs it on
	// a goroutine of its own, to stop waiting for it. Nil calls it here.
	RunEdit func(call func() ([]byte, error)) ([]byte, error)
	// LFS, when set, routes the paths .gitattributes marks filter=lfs
	// through Git LFS (see routeLFS); nil commits their bytes as they are.
	LFS LFS
}

// preconditionError is the cause of an kind.Conflict from a failed
// precondition.
type preconditionError struct {
	want string // "absent" or a blob SHA
	got  string // "absent", a blob SHA, or "a directory"
}

func (e *preconditionError) Error() string {
	if e.want == "absent" || strings.HasPrefix(e.want, "one of ") {
		return fmt.Sprintf("precondition failed: expected %s, found %s", e.want, e.got)
	}
	return fmt.Sprintf("precondition failed: expected blob %s, found %s", e.want, e.got)
}

// editError is the cause of a failed edit function.
type editError struct {
	err error
}

func (e *editError) Error() string { return fmt.Sprintf("edit function failed: %v", e.err) }
func (e *editError) Unwrap() error { return e.err }

// conflictError is the cause of an kind.Conflict from a put that the branch's
// content does not allow.
type conflictError struct{ msg string }

func (e *conflictError) Error() string { return e.msg }

func conflict(path, format string, args ...any) error {
	return &kind.Cause{Path: path, Kind: kind.Conflict, Err: &conflictError{fmt.Sprintf(format, args...)}}
}

// replaceConflict is the kind.Conflict for a put through a file or onto a
// directory at blocker: its hint says how to replace what is there.
func replaceConflict(path, blocker, with, format string, args ...any) error {
	return &kind.Cause{Path: path, Kind: kind.Conflict, Err: &conflictError{fmt.Sprintf(format, args...)},
		Hint: fmt.Sprintf("nothing was committed; to replace %q with a %s, Delete(%q) and Put in one change set", blocker, with, blocker)}
}

// put is one file a change set writes, from a put, an edit or a sync.
type put struct {
	path string
	mode string
	src  *changes.Source
	idx  int // the operation it comes from: ops first, then syncs
}

// deletion is a path a change set deletes that exists on the head.
type deletion struct {
	entry    object.TreeEntry
	replaced bool // puts at or under it take its place
	idx      int
}

// resolution is the state of resolving one change set.
type resolution struct {
	rv      *Resolver
	v       *View
	full    bool
	r       *Resolved
	puts    []put
	dels    map[string]*deletion
	actions map[string]Action
	rank    map[string]int // path -> the operation its action comes from
}

// set records what happens to p, listed with the operation idx.
func (rs *resolution) set(p string, a Action, idx int) {
	rs.actions[p] = a
	rs.rank[p] = idx
}

// Resolve builds the tree entries that apply the change set ch to the tree root ("" for a
// repository with no commits). It reads only the directories on the paths
// the change set touches (cached by SHA), a recursive listing of each
// directory it deletes or syncs, and the blobs that edits need. A put never
// goes through a file or onto a directory silently: unless a Delete of that
// path (or a sync) takes it away, it is an kind.Conflict. The entries never
// overlap (no entry is at or under another), so their order cannot change
// the tree GitHub builds: a path replaced by a directory is sent as one tree
// entry, built first (see BuildSubtrees). full is a dry run: it lists
// unchanged paths too, and sends no request that writes; otherwise the
// subtrees are created before Resolve returns (see Finish).
func (rv *Resolver) Resolve(ctx context.Context, v *View, ch *changes.Prepared, full bool) (*Resolved, error) {
	rs := &resolution{rv: rv, v: v, full: full, r: &Resolved{}, dels: map[string]*deletion{}, actions: map[string]Action{}, rank: map[string]int{}}
	if err := v.Prefetch(ctx, ch.Lookups(), ch.Texts()); err != nil {
		return nil, err
	}
	if err := rs.checkPreconditions(ctx, ch.Pres); err != nil {
		return nil, err
	}
	for i, o := range ch.Ops {
		var err error
		switch o.Kind {
		case changes.OpPut:
			rs.puts = append(rs.puts, put{path: o.Path, mode: o.Mode, src: o.Src, idx: i})
		case changes.OpDelete:
			err = rs.addDelete(ctx, o.Path, i)
		case changes.OpEdit:
			err = rs.resolveEdit(ctx, o, i)
		}
		if err != nil {
			return nil, err
		}
	}
	for j, s := range ch.Syncs {
		if err := rs.resolveSync(ctx, s, len(ch.Ops)+j); err != nil {
			return nil, err
		}
	}
	if err := rs.routeLFS(ctx); err != nil {
		return nil, err
	}
	if err := rs.build(ctx); err != nil {
		return nil, err
	}
	if !full {
		if err := rv.Finish(ctx, v, rs.r); err != nil {
			return nil, err
		}
	}
	return rs.r, nil
}

// Finish makes r ready to send: its Git LFS objects stored (StoreLFS), its
// subtrees created (see BuildSubtrees) and, on a view with no overlay, the
// trees it makes predicted (see PredictTrees).
func (rv *Resolver) Finish(ctx context.Context, v *View, r *Resolved) error {
	if err := rv.StoreLFS(ctx, r); err != nil {
		return err
	}
	if err := rv.BuildSubtrees(ctx, r); err != nil {
		return err
	}
	if !v.Overlaid() {
		rv.PredictTrees(v.Root(), r)
	}
	return nil
}

// oneOf says the states of an ExpectOneOf.
func oneOf(states []string) string {
	var s []string
	for _, st := range states {
		if st == "" {
			st = "absent"
		}
		s = append(s, st)
	}
	return "one of " + strings.Join(s, ", ")
}

func (rs *resolution) checkPreconditions(ctx context.Context, pres []changes.Precondition) error {
	for _, pre := range pres {
		e, ok, err := rs.v.Get(ctx, pre.Path)
		if err != nil {
			return err
		}
		got := "absent"
		switch {
		case ok && e.Type == object.TypeTree:
			got = "a directory"
		case ok:
			got = "blob " + e.SHA
		}
		if pre.AnyOf != nil {
			state := ""
			if ok {
				state = e.SHA
			}
			if ok && e.Type == object.TypeTree || !slices.Contains(pre.AnyOf, state) {
				return &kind.Cause{Path: pre.Path, Kind: kind.Conflict, Err: &preconditionError{want: oneOf(pre.AnyOf), got: got}}
			}
			continue
		}
		if pre.Absent && ok || !pre.Absent && (!ok || e.Type == object.TypeTree || e.SHA != pre.SHA) {
			want := "absent"
			if !pre.Absent {
				want = pre.SHA
			}
			return &kind.Cause{Path: pre.Path, Kind: kind.Conflict, Err: &preconditionError{want: want, got: got}}
		}
	}
	return nil
}

func (rs *resolution) addDelete(ctx context.Context, p string, idx int) error {
	e, ok, err := rs.v.Get(ctx, p)
	if err != nil {
		return err
	}
	if !ok {
		if rs.full {
			rs.set(p, Unchanged, idx)
		}
		return nil
	}
	rs.dels[p] = &deletion{entry: e, idx: idx}
	return nil
}

func (rs *resolution) resolveEdit(ctx context.Context, o changes.Op, idx int) error {
	e, ok, err := rs.v.Get(ctx, o.Path)
	if err != nil {
		return err
	}
	var old []byte
	mode := object.ModeFile
	if ok {
		if e.Type != object.TypeBlob {
			return &kind.Cause{Path: o.Path, Kind: kind.Invalid, Err: fmt.Errorf("cannot edit: it is a %s on the branch, not a file", e.Type)}
		}
		if old, err = rs.v.Content(ctx, o.Path, e); err != nil {
			return err
		}
		if e.Mode == object.ModeSymlink {
			// An edit names the file it changes: a link's target may be
			// repointed by another writer between attempts, so following
			// it would edit whichever file it names at landing time.
			return &kind.Cause{Path: o.Path, Kind: kind.Invalid, Err: fmt.Errorf("cannot edit: it is a symbolic link to %q on the branch; edit the file it points to by its own path", old)}
		}
		old = bytes.Clone(old)
		mode = e.Mode
		if old, err = rs.lfsContent(ctx, o.Path, old); err != nil {
			return err
		}
	}
	updated, err := rs.rv.runEdit(o.Path, o.Edit, old, ok)
	if err != nil {
		return &kind.Cause{Path: o.Path, Err: &editError{err: err}}
	}
	if ok && bytes.Equal(updated, old) {
		if rs.full {
			rs.set(o.Path, Unchanged, idx)
		}
		return nil
	}
	if len(updated) > rs.rv.MaxEditSize() {
		return &kind.Cause{Path: o.Path, Kind: kind.Invalid, Err: editSizeError(len(updated), rs.rv.MaxEditSize() > rs.rv.MaxFileSize)}
	}
	src := changes.BytesSource(updated)
	src.SHA = changes.BlobSHA(updated)
	rs.puts = append(rs.puts, put{path: o.Path, mode: mode, src: src, idx: idx})
	return nil
}

// resolveSync turns a sync into puts and deletions. Submodule entries
// (mode 160000) are kept, and local files at or under one are left out, as
// `git add -A` leaves out a submodule's checkout. A remote directory where a
// local file is becomes one deletion, so the file replaces it whole.
func (rs *resolution) resolveSync(ctx context.Context, s changes.PreparedSync, idx int) error {
	if s.Dir != "" {
		e, ok, err := rs.v.Get(ctx, s.Dir)
		if err != nil {
			return err
		}
		if ok && e.Type != object.TypeTree {
			return &kind.Cause{Path: s.Dir, Kind: kind.Invalid, Err: fmt.Errorf("cannot sync: it is a %s on the branch, not a directory", KindOf(e))}
		}
	}
	remote, err := rs.v.list(ctx, s.Dir)
	if err != nil {
		return err
	}
	local := map[string]bool{}
	for _, f := range s.Files {
		if underSubmodule(remote, f.Rel) {
			continue
		}
		local[f.Rel] = true
		rs.puts = append(rs.puts, put{path: path.Join(s.Dir, f.Rel), mode: f.Mode, src: f.Src, idx: idx})
	}
	for rel, e := range remote {
		if e.Type == object.TypeCommit {
			if a := ancestorIn(local, rel); a != "" {
				return conflict(path.Join(s.Dir, a), "the local file would replace a directory holding the submodule %q, which sync keeps; Delete the submodule first", path.Join(s.Dir, rel))
			}
			continue
		}
		if local[rel] {
			continue
		}
		if a := ancestorIn(local, rel); a != "" {
			// A local file replaces the remote directory a.
			if err := rs.addDelete(ctx, path.Join(s.Dir, a), idx); err != nil {
				return err
			}
			continue
		}
		rs.dels[path.Join(s.Dir, rel)] = &deletion{entry: e, idx: idx}
	}
	return nil
}

// underSubmodule reports whether rel is at or under a submodule in files.
func underSubmodule(files map[string]object.TreeEntry, rel string) bool {
	if e, ok := files[rel]; ok && e.Type == object.TypeCommit {
		return true
	}
	for _, a := range changes.Ancestors(rel) {
		if e, ok := files[a]; ok && e.Type == object.TypeCommit {
			return true
		}
	}
	return false
}

// ancestorIn returns the ancestor of p that set holds, or "".
func ancestorIn(set map[string]bool, p string) string {
	for _, a := range changes.Ancestors(p) {
		if set[a] {
			return a
		}
	}
	return ""
}

// isText reports whether data can travel inline as a JSON string and come
// back byte for byte: valid UTF-8 without NUL bytes.
func isText(data []byte) bool {
	return utf8.Valid(data) && bytes.IndexByte(data, 0) < 0
}
