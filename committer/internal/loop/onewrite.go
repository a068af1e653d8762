package loop

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/internal/changes"
	"github.com/ghcommitter/ghcommitter/committer/internal/engine"
	"github.com/ghcommitter/ghcommitter/committer/internal/ghgraphql"
	"github.com/ghcommitter/ghcommitter/committer/internal/kind"
	"github.com/ghcommitter/ghcommitter/committer/internal/object"
	"github.com/ghcommitter/ghcommitter/committer/internal/refs"
	"github.com/ghcommitter/ghcommitter/committer/internal/rest"
)

// pendingWrite is a one-write commit whose reply was lost: its SHA is
// unknown, so it is found by its Edit-Id trailer.
type pendingWrite struct {
	w      engine.Writer
	parent string // the head it was built on (GraphQL: expectedHeadOid)
	id     string // its own EditIDTrailer value
	st     *engine.Staged
}

// oneWrite makes one attempt through a one-write engine (GraphQL, the
// contents API). handled is false when the attempt is for Git Data after
// all (auto found that no one-write engine carries what the head makes of
// the change set).
func (d *Driver) oneWrite(ctx context.Context, head, tree string, creating bool, attempt int, started time.Time) (o Outcome, handled bool) {
	ow, ok := d.w.(OneWork)
	if !ok {
		return Fail(d.host.Error(Failure{Kind: kind.Invalid, Err: fmt.Errorf("the %s engine cannot carry this work", d.cfg.Engine.Name())})), true
	}
	// Resolved on the base's head first: every refusal that can be known
	// before a write (what the engine cannot carry, a failed
	// precondition, an edit's error) comes before the branch is created.
	look := &ghgraphql.RefLook{Branch: d.cfg.Branch, History: d.countFrom != ""}
	st, c, err := ow.StageOne(ghgraphql.WithRefLook(ctx, look), d.cfg.Cands, d.cfg.Strict, head, tree, attempt)
	d.countMoves(look)
	if err != nil && !d.cfg.Strict && engine.IsOneWriteError(err) {
		return Outcome{}, false
	}
	if err != nil {
		return d.refusedOr(err, attempt), true
	}
	if st == nil {
		return Outcome{Kind: Landed}, true // no caller left
	}
	if st.Engine == nil {
		return Outcome{}, false // Git Data creates the branch at its commit
	}
	if creating {
		// GraphQL and the contents API write only to a branch that exists:
		// create it at its base, which st was resolved on.
		mv, err := d.cfg.Refs.CreateRef(ctx, d.cfg.Branch, head)
		if err != nil && !mv.Won {
			return d.moveFailed(head, attempt, err, mv), true
		}
		if !mv.Won {
			return Outcome{Kind: Lost}, true // another writer created it: read it again
		}
		d.created = true
	}
	if st.Empty() {
		st.Finish(head, tree, "")
		d.landed(head, attempt, d.created)
		return Outcome{Kind: Landed}, true
	}
	// GraphQL's expectedHeadOid loses to any move of the branch: look
	// first. (A contents write is guarded by its file's blob SHA and
	// built on whatever the head is: a move elsewhere does not stop it.)
	w := st.Engine.(engine.Writer) // not empty: the one picked
	Yield(ctx)
	if w.Pinned() && !creating {
		if now, ok := d.lookBefore(ctx, look, head); ok && now != head {
			d.movedTo = now
			d.lostRace(ctx, head, attempt, started)
			return Outcome{Kind: LostUnsent}, true
		}
	}
	return d.sendOneWrite(ctx, w, c, st, attempt, started), true
}

// lookBefore is the branch's head just before a pinned write: when the
// attempt's path query, which read the branch alongside the paths (look),
// saw it moved from head already, that head, with no read of its own;
// else one conditional ref read. (An unmoved answer of the path query is
// not trusted in its place: the query is read before its paths are
// resolved, the edits run and the change staged, and a look that old lets
// writers that start together both write — measured at 64 writers: 1.9 to
// 2.25 writes per landed change instead of 1.6 to 1.7.) ok is false when it
// cannot be told.
func (d *Driver) lookBefore(ctx context.Context, look *ghgraphql.RefLook, head string) (string, bool) {
	if seen, _, _, looked := look.Head(); looked && object.IsSHA(seen) && seen != head {
		return seen, true
	}
	return d.cfg.Refs.Tip(ctx, d.cfg.Branch)
}

func (d *Driver) sendOneWrite(ctx context.Context, eng engine.Writer, c *OneCommit, st *engine.Staged, attempt int, started time.Time) Outcome {
	ec := engine.Commit{Branch: d.cfg.Branch, Message: c.Message, Author: c.Author, Committer: c.Committer}
	w, err := eng.Write(ctx, d.cfg.Env, ec, st)
	if w.Ambiguous {
		d.pending = append(d.pending, pendingWrite{w: eng, parent: st.Head, id: c.EditID, st: st})
		// With the caller gone, the driver's end settles it, once.
		if ctx.Err() == nil && d.settledOneWrite(ctx, st.Head, attempt) {
			return Outcome{Kind: Landed}
		}
		w.Lost = true
	}
	switch {
	case err != nil:
		return d.refusedOr(err, attempt)
	case w.Lost:
		d.lostRace(ctx, st.Head, attempt, started)
		return Outcome{Kind: Lost}
	}
	st.Finish(w.Commit, w.Tree, w.Parent)
	d.landed(w.Commit, attempt, d.created)
	return Outcome{Kind: Landed}
}

func (d *Driver) moveFailed(head string, attempt int, err error, mv refs.Move) Outcome {
	if mv.Ambiguous {
		// The branch is created at its base, not at a commit of ours: the
		// next attempt reads whether it exists and goes on either way.
		return Outcome{Kind: Lost}
	}
	var re *rest.Refused
	if errors.As(err, &re) {
		return d.refusedOr(err, attempt)
	}
	return Fail(d.host.Error(Failure{Err: err, Head: head, Attempts: attempt}))
}

// settledOneWrite lands the work when a one-write commit of ours whose
// reply was lost is on the branch (found by its Edit-Id trailer), before
// anything is built again; when that cannot be told, the work fails with
// ErrUnknownOutcome. head is the head just read.
func (d *Driver) settledOneWrite(ctx context.Context, head string, attempt int) bool {
	if len(d.pending) == 0 {
		return false
	}
	keep := d.pending[:0]
	for _, p := range d.pending {
		commit, o, err := p.w.Settle(ctx, d.cfg.Env, d.cfg.Branch, p.parent, p.id)
		switch {
		case err != nil || o == ghgraphql.Unknown:
			if err == nil {
				err = fmt.Errorf("no commit within %d of the head says whether it landed", engine.MaxSettleCommits)
			}
			d.w.Fail(d.host.Error(Failure{Kind: kind.UnknownOutcome,
				Err:  fmt.Errorf("an earlier %s write had no answer, and whether it landed cannot be told: %w", p.w.Name(), err),
				Head: head, Attempts: attempt,
				Hint: "look on the branch for a commit whose message ends with the trailer " + changes.EditIDTrailer + ": " + p.id + " before retrying"}))
			return true
		case o == ghgraphql.Landed:
			d.landOneWrite(ctx, p, commit, attempt)
			return true
		}
		// Not landed. A GraphQL commit pinned to a head that is no longer
		// the branch's can never land; a contents write might still, so it
		// is searched for again on the next attempt.
		if !p.w.Pinned() || head == p.parent {
			keep = append(keep, p)
		}
	}
	d.pending = keep
	return false
}

// landOneWrite finishes the work with the commit found by its trailer.
func (d *Driver) landOneWrite(ctx context.Context, p pendingWrite, commit string, attempt int) {
	parents, _, err := d.cfg.Refs.Parents(ctx, commit)
	var tree string
	if err == nil {
		_, tree, err = d.cfg.Refs.CommitTree(ctx, commit)
	}
	if err != nil {
		d.w.Fail(d.host.Error(Failure{Kind: kind.UnknownOutcome, Err: fmt.Errorf("commit %s landed, but reading it failed: %w", kind.Short(commit), err)}))
		return
	}
	parent := p.parent
	if len(parents) > 0 {
		parent = parents[0]
	}
	p.st.Finish(commit, tree, parent)
	d.landed(commit, attempt, d.created)
}
