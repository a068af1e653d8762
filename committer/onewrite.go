package committer

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/internal/changes"
	"github.com/ghcommitter/ghcommitter/committer/internal/engine"
	"github.com/ghcommitter/ghcommitter/committer/internal/kind"
	"github.com/ghcommitter/ghcommitter/committer/internal/loop"
	"github.com/ghcommitter/ghcommitter/committer/internal/refs"
	"github.com/ghcommitter/ghcommitter/committer/internal/rest"
)

// pendingWrite is a one-write commit whose reply was lost: its SHA is
// unknown, so it is found by the unit's Edit-Id trailer.
type pendingWrite struct {
	w      engine.Writer
	parent string // the head it was built on (GraphQL: expectedHeadOid)
	id     string // its own EditIDTrailer value (the unit's editID)
	st     *engine.Staged
}

// oneWork is a work that can land through a one-write engine: a single
// change set, or a squashed batch through GraphQL.
type oneWork interface {
	// stageOne resolves the work on head without writing (edit functions
	// run here) and returns what to send and the unit whose message and
	// identity the commit carries. Errors are the whole work's.
	// cands and strict are the driver's (engine.Choose); st.Engine is the
	// one-write engine picked, or nil when the attempt goes on through Git
	// Data.
	stageOne(ctx context.Context, cands []engine.Writer, strict bool, head, tree string, attempt int) (st *engine.Staged, u *unit, err error)
}

// oneWrite makes one attempt through a one-write engine (GraphQL, the
// contents API). handled is false when the attempt is for Git Data after
// all (auto found that no one-write engine carries what the head makes of
// the change set).
func (d *driver) oneWrite(ctx context.Context, head, tree string, creating bool, attempt int, started time.Time) (o loop.Outcome, handled bool) {
	ow, ok := d.w.(oneWork)
	if !ok {
		return loop.Fail(d.c.fail(d.op, d.branch, ErrInvalid, fmt.Errorf("the %s engine cannot carry this work", d.co.engine))), true
	}
	// Resolved on the base's head first: every refusal that can be known
	// before a write (what the engine cannot carry, a failed
	// precondition, an edit's error) comes before the branch is created.
	st, u, err := ow.stageOne(ctx, d.cands, d.strict, head, tree, attempt)
	if err != nil && !d.strict && engine.IsOneWriteError(err) {
		return loop.Outcome{}, false
	}
	if err != nil {
		return d.refusedOr(err, attempt), true
	}
	if st == nil {
		return loop.Outcome{Kind: loop.Landed}, true // no caller left
	}
	if st.Engine == nil {
		return loop.Outcome{}, false // Git Data creates the branch at its commit
	}
	if creating {
		// GraphQL and the contents API write only to a branch that exists:
		// create it at its base, which st was resolved on.
		mv, err := d.c.refs.CreateRef(ctx, d.branch, head)
		if err != nil && !mv.Won {
			return d.moveFailed(head, attempt, err, mv)
		}
		if !mv.Won {
			return loop.Outcome{Kind: loop.Lost}, true // another writer created it: read it again
		}
		d.created = true
	}
	if st.Empty() {
		st.Finish(head, tree, "")
		d.landed(head, attempt, d.created)
		return loop.Outcome{Kind: loop.Landed}, true
	}
	// GraphQL's expectedHeadOid loses to any move of the branch: look
	// first. (A contents write is guarded by its file's blob SHA and
	// built on whatever the head is: a move elsewhere does not stop it.)
	w := st.Engine.(engine.Writer) // not empty: the one picked
	if w.Pinned() && !creating && d.c.refs.Moved(ctx, d.branch, head) {
		d.lostRace(ctx, head, attempt, started)
		return loop.Outcome{Kind: loop.LostUnsent}, true
	}
	return d.sendOneWrite(ctx, w, u, st, attempt, started), true
}

func (d *driver) sendOneWrite(ctx context.Context, eng engine.Writer, u *unit, st *engine.Staged, attempt int, started time.Time) loop.Outcome {
	c := engine.Commit{Branch: d.branch, Message: u.message, Author: toAuthor(u.cs.Author), Committer: toAuthor(u.cs.Committer)}
	w, err := eng.Write(ctx, d.c.engineEnv(), c, st)
	if w.Ambiguous {
		d.pending = append(d.pending, pendingWrite{w: eng, parent: st.Head, id: u.editID, st: st})
		// With the caller gone, the driver's end settles it, once.
		if ctx.Err() == nil && d.settledOneWrite(ctx, st.Head, attempt) {
			return loop.Outcome{Kind: loop.Landed}
		}
		w.Lost = true
	}
	switch {
	case err != nil:
		return d.refusedOr(err, attempt)
	case w.Lost:
		d.lostRace(ctx, st.Head, attempt, started)
		return loop.Outcome{Kind: loop.Lost}
	}
	st.Finish(w.Commit, w.Tree, w.Parent)
	d.landed(w.Commit, attempt, d.created)
	return loop.Outcome{Kind: loop.Landed}
}

func (d *driver) moveFailed(head string, attempt int, err error, mv refs.Move) (loop.Outcome, bool) {
	if mv.Ambiguous {
		// The branch is created at its base, not at a commit of ours: the
		// next attempt reads whether it exists and goes on either way.
		return loop.Outcome{Kind: loop.Lost}, true
	}
	var re *rest.Refused
	if errors.As(err, &re) {
		return d.refusedOr(err, attempt), true
	}
	e := d.c.fail(d.op, d.branch, nil, err)
	e.Head, e.Attempts = head, attempt
	return loop.Fail(e), true
}

func (d *driver) lostRace(ctx context.Context, head string, attempt int, started time.Time) {
	d.lost = time.Since(started)
	d.observe(Event{Kind: EventLostRace, Branch: d.branch, Attempt: attempt, Head: head, Took: d.lost, Changes: d.w.size()})
	d.debug(ctx, "lost the race for the branch", "repo", d.c.Repository(), "branch", d.branch, "attempt", attempt, "head", head, "took", d.lost)
}

// change is what the engines' static refusal looks at of u under co.
func (c *Committer) change(u *unit, co commitOptions) engine.Change {
	return engine.Change{
		P: u.p, Tag: co.tag.Name != "", OmitEditID: u.cs.OmitEditID, Signed: c.o.signer != nil,
		Identity: u.cs.Author != nil || u.cs.Committer != nil, ExpectHead: co.expectHead != "",
	}
}

// candidates lists the one-write engines an attempt at u may use, best
// first, from what is known before any request; strict: co's engine is
// one of them, which refuses what it cannot carry (engine.Choose).
func (c *Committer) candidates(u *unit, co commitOptions) ([]engine.Writer, bool) {
	return engine.Choose(co.engine.impl(), c.change(u, co))
}

// engineGate refuses, before any request, a change set the chosen engine
// cannot carry, and gives the engines that may write in one write the
// Edit-Id trailer they settle a lost reply by: the change set's own, even
// when its message already holds one.
func (c *Committer) engineGate(op, branch string, u *unit, co commitOptions) error {
	if err := co.engine.impl().Refuse(c.change(u, co)); err != nil {
		return c.fail(op, branch, ErrInvalid, err)
	}
	if engine.SettlesByEditID(co.engine.impl()) && !u.cs.OmitEditID && u.editID == "" {
		u.editID = changes.NewEditID()
		u.message = changes.WithEditID(u.message, u.editID)
	}
	return nil
}

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
