package committer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path"
	"sort"
	"unicode/utf8"

	"github.com/google/go-github/v66/github"
)

// Action says what a commit does to one path.
type Action string

// The actions a commit can take on a path.
const (
	Added     Action = "added"
	Modified  Action = "modified"
	Deleted   Action = "deleted"
	Unchanged Action = "unchanged"
	// Written: the path was written without reading what was there (a put
	// of small text, which costs no extra request); it is added or modified
	// unless its content was already there.
	Written Action = "written"
)

// FileChange is one path's part in a commit.
type FileChange struct {
	Path   string `json:"path"`
	Action Action `json:"action"`
}

// maxInlineTotal bounds the inline content of one create-tree request:
// GitHub is known to fail requests of a few megabytes.
const maxInlineTotal = 1 << 20

// resolved is a change set resolved against one head tree: the entries of
// the create-tree request and the blobs to upload first.
type resolved struct {
	entries []*github.TreeEntry
	uploads []*source
	changes []FileChange
	effects []effect
}

// preconditionError is the cause of an ErrConflict from a failed
// precondition.
type preconditionError struct {
	want string // "absent" or a blob SHA
	got  string // "absent", a blob SHA, or "a directory"
}

func (e *preconditionError) Error() string {
	if e.want == "absent" {
		return fmt.Sprintf("precondition failed: expected absent, found %s", e.got)
	}
	return fmt.Sprintf("precondition failed: expected blob %s, found %s", e.want, e.got)
}

// editError is the cause of a failed edit function.
type editError struct {
	err error
}

func (e *editError) Error() string { return fmt.Sprintf("edit function failed: %v", e.err) }
func (e *editError) Unwrap() error { return e.err }

// pathError attaches the path an error is about.
type pathError struct {
	path string
	kind error
	err  error
}

func (e *pathError) Error() string { return e.err.Error() }
func (e *pathError) Unwrap() error { return e.err }

// resolve builds the tree entries that apply p to the tree root ("" for a
// repository with no commits). It reads only the directories on the paths
// that deletes, edits, preconditions, syncs and blob uploads need; with full
// set it also reads those of small puts, to tell added from modified from
// unchanged (for a dry run).
func (c *Committer) resolve(ctx context.Context, v *view, p *prepared, full bool) (*resolved, error) {
	r := &resolved{}
	get := func(p string) (treeEntry, bool, error) { return v.get(ctx, p) }
	for _, pre := range p.pres {
		e, ok, err := get(pre.path)
		if err != nil {
			return nil, err
		}
		got := "absent"
		switch {
		case ok && e.typ == "tree":
			got = "a directory"
		case ok:
			got = "blob " + e.sha
		}
		if pre.absent && ok || !pre.absent && (!ok || e.typ == "tree" || e.sha != pre.sha) {
			want := "absent"
			if !pre.absent {
				want = pre.sha
			}
			return nil, &pathError{path: pre.path, kind: ErrConflict, err: &preconditionError{want: want, got: got}}
		}
	}
	var inline int64
	for _, o := range p.ops {
		switch o.kind {
		case opPut:
			if err := c.resolvePut(ctx, r, get, o.path, o.mode, o.src, full, &inline); err != nil {
				return nil, err
			}
		case opDelete:
			e, ok, err := get(o.path)
			if err != nil {
				return nil, err
			}
			if !ok {
				if full {
					r.changes = append(r.changes, FileChange{o.path, Unchanged})
				}
				continue
			}
			r.entries = append(r.entries, &github.TreeEntry{Path: github.String(o.path), Mode: github.String(e.mode), Type: github.String(e.typ)})
			r.changes = append(r.changes, FileChange{o.path, Deleted})
			r.effects = append(r.effects, effect{path: o.path, deleted: true, dir: e.typ == "tree"})
		case opEdit:
			if err := c.resolveEdit(ctx, r, v, o, &inline); err != nil {
				return nil, err
			}
		}
	}
	for _, s := range p.syncs {
		if err := c.resolveSync(ctx, r, v, s, &inline); err != nil {
			return nil, err
		}
	}
	return r, nil
}

type getter func(path string) (treeEntry, bool, error)

func (c *Committer) resolvePut(ctx context.Context, r *resolved, get getter, p string, mode Mode, src *source, full bool, inline *int64) error {
	canInline := src.inMemory() && src.size > 0 && src.size <= c.o.inlineLimit &&
		*inline+src.size <= maxInlineTotal && isText(src.data)
	action := Written
	if full || !canInline {
		e, ok, err := get(p)
		if err != nil {
			return err
		}
		switch {
		case ok && e.typ == "blob" && e.sha == src.sha && e.mode == string(mode):
			if full {
				r.changes = append(r.changes, FileChange{p, Unchanged})
			}
			return nil
		case ok:
			action = Modified
		default:
			action = Added
		}
	}
	entry := &github.TreeEntry{Path: github.String(p), Mode: github.String(string(mode)), Type: github.String("blob")}
	if canInline {
		entry.Content = github.String(string(src.data))
		*inline += src.size
	} else {
		entry.SHA = github.String(src.sha)
		if !c.cache.isUploaded(src.sha) {
			r.uploads = append(r.uploads, src)
		}
	}
	r.entries = append(r.entries, entry)
	r.changes = append(r.changes, FileChange{p, action})
	eff := effect{path: p, mode: mode, sha: src.sha}
	if src.inMemory() {
		eff.data = src.data
	}
	r.effects = append(r.effects, eff)
	return nil
}

func (c *Committer) resolveEdit(ctx context.Context, r *resolved, v *view, o op, inline *int64) error {
	e, ok, err := v.get(ctx, o.path)
	if err != nil {
		return err
	}
	var old []byte
	mode := ModeFile
	if ok {
		if e.typ != "blob" {
			return &pathError{path: o.path, kind: ErrInvalid, err: fmt.Errorf("cannot edit: it is a %s on the branch, not a file", e.typ)}
		}
		if old, err = v.content(ctx, o.path, e); err != nil {
			return err
		}
		old = bytes.Clone(old)
		mode = Mode(e.mode)
	}
	updated, err := o.edit(old, ok)
	if err != nil {
		return &pathError{path: o.path, err: &editError{err: err}}
	}
	if ok && bytes.Equal(updated, old) {
		return nil
	}
	if len(updated) > MaxFileSize {
		return &pathError{path: o.path, kind: ErrInvalid, err: fmt.Errorf("edit result of %d bytes is over GitHub's 100 MB file limit", len(updated))}
	}
	src := bytesSource(updated)
	src.sha = BlobSHA(updated)
	before := len(r.changes)
	if err := c.resolvePut(ctx, r, func(string) (treeEntry, bool, error) { return e, ok, nil }, o.path, mode, src, true, inline); err != nil {
		return err
	}
	if len(r.changes) > before {
		if ok {
			r.changes[before].Action = Modified
		} else {
			r.changes[before].Action = Added
		}
	}
	return nil
}

func (c *Committer) resolveSync(ctx context.Context, r *resolved, v *view, s preparedSync, inline *int64) error {
	if s.dir != "" {
		e, ok, err := v.get(ctx, s.dir)
		if err != nil {
			return err
		}
		if ok && e.typ != "tree" {
			return &pathError{path: s.dir, kind: ErrInvalid, err: errors.New("cannot sync: it is a file on the branch, not a directory")}
		}
	}
	remote, err := v.list(ctx, s.dir)
	if err != nil {
		return err
	}
	local := map[string]bool{}
	for _, f := range s.files {
		local[f.rel] = true
		full := path.Join(s.dir, f.rel)
		e, ok := remote[f.rel]
		if err := c.resolvePut(ctx, r, func(string) (treeEntry, bool, error) { return e, ok, nil }, full, f.mode, f.src, true, inline); err != nil {
			return err
		}
	}
	var gone []string
	for rel := range remote {
		if !local[rel] {
			gone = append(gone, rel)
		}
	}
	sort.Strings(gone)
	for _, rel := range gone {
		e := remote[rel]
		full := path.Join(s.dir, rel)
		r.entries = append(r.entries, &github.TreeEntry{Path: github.String(full), Mode: github.String(e.mode), Type: github.String(e.typ)})
		r.changes = append(r.changes, FileChange{full, Deleted})
		r.effects = append(r.effects, effect{path: full, deleted: true})
	}
	return nil
}

// isText reports whether data can travel inline as a JSON string and come
// back byte for byte: valid UTF-8 without NUL bytes.
func isText(data []byte) bool {
	return utf8.Valid(data) && bytes.IndexByte(data, 0) < 0
}
