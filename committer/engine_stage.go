package committer

import (
	"context"
	"errors"
	"fmt"

	"github.com/ghcommitter/ghcommitter/committer/internal/changes"
	"github.com/ghcommitter/ghcommitter/committer/internal/engine"
	"github.com/ghcommitter/ghcommitter/committer/internal/kind"
)

// stage resolves u on head's tree without writing anything (edit
// functions run here, on this head's content) and picks the engine that
// carries it (engine.Pick): with strict, cands[0] or its refusal, an
// ErrInvalid before any write; else the first of cands that can, and
// none (st.Engine nil: Git Data) when none can. A change set that changes
// nothing is named for eng. The Result is filled with the change set's
// Files and Changed.
// keep, when not nil, is given the resolution (made without writing) as
// soon as it is made, so that an attempt that goes on through Git Data
// builds on it instead of running the edit functions again.
func (c *Committer) stage(ctx context.Context, u *unit, eng engine.Engine, cands []engine.Writer, strict bool, head, tree string, keep func(*view, *resolved)) (*engine.Staged, *Result, error) {
	v := newViewAt(c, head, tree)
	r, err := c.resolve(ctx, v, u.p, true)
	if err != nil {
		return nil, nil, err
	}
	if keep != nil {
		keep(v, r)
	}
	var changed []FileChange
	for _, f := range r.changes {
		if f.Action != Unchanged {
			changed = append(changed, f)
		}
	}
	res := newResult(c, "", changed)
	st := &engine.Staged{Head: head}
	if err := c.stageFiles(ctx, v, u.p, r, st); err != nil {
		return nil, nil, err
	}
	if st.Empty() {
		st.Engine = eng // a no-op: named for the engine asked for
		return st, res, nil
	}
	w, err := engine.Pick(cands, strict, st)
	if err != nil {
		var pe *kind.Cause
		if !errors.As(err, &pe) {
			err = &kind.Cause{Kind: ErrInvalid, Err: err}
		}
		return nil, nil, err
	}
	if w != nil {
		st.Engine = w
	}
	return st, res, nil
}

// stageFiles lists r's effects as files to write and delete. What a
// one-write engine cannot carry at all is an error: a directory deleted or
// replaced, a mode other than 100644, a path whose entry on the head is not
// a plain file.
func (c *Committer) stageFiles(ctx context.Context, v *view, p *changes.Prepared, r *resolved, st *engine.Staged) error {
	deleted := map[string]bool{}
	for _, e := range r.Effects {
		if e.Deleted {
			deleted[e.Path] = true
		}
	}
	for _, e := range r.Effects {
		old, ok, err := v.Get(ctx, e.Path)
		if err != nil {
			return err
		}
		if ok && (old.Type != "blob" || Mode(old.Mode) != ModeFile) && !e.Deleted {
			return engine.OneWriteRefusal(e.Path, fmt.Sprintf("%s is a %s on the branch (mode %s); only the git-data engine can replace it", e.Path, kindOf(old), old.Mode))
		}
		if ok && e.Deleted && old.Type == "commit" {
			return engine.OneWriteRefusal(e.Path, e.Path+" is a submodule; only the git-data engine can delete it")
		}
		switch {
		case e.Deleted && e.Dir:
			return engine.OneWriteRefusal(e.Path, e.Path+" is a directory; only the git-data engine deletes a directory whole")
		case e.Deleted:
			st.Dels = append(st.Dels, engine.File{Path: e.Path, Old: old.SHA})
			continue
		case Mode(e.Mode) != ModeFile:
			return engine.OneWriteRefusal(e.Path, fmt.Sprintf("%s would have mode %s; GraphQL and the contents API write plain files (100644) only", e.Path, e.Mode))
		}
		if a := deletedAbove(deleted, e.Path); a != "" {
			return engine.OneWriteRefusal(e.Path, fmt.Sprintf("%s turns from a file into a directory; only the git-data engine carries that", a))
		}
		data := e.Data
		if data == nil {
			if data, err = p.Read(e.Path); err != nil {
				return &kind.Cause{Path: e.Path, Err: err}
			}
		}
		f := engine.File{Path: e.Path, Data: data}
		if ok {
			f.Old = old.SHA
		}
		st.Adds = append(st.Adds, f)
	}
	return nil
}

func deletedAbove(deleted map[string]bool, p string) string {
	for _, a := range changes.Ancestors(p) {
		if deleted[a] {
			return a
		}
	}
	return ""
}
