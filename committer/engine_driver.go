package committer

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/internal/engine"
	"github.com/ghcommitter/ghcommitter/committer/internal/ghgraphql"
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

// settledOneWrite lands the work when a one-write commit of ours whose
// reply was lost is on the branch (found by its Edit-Id trailer), before
// anything is built again; when that cannot be told, the work fails with
// ErrUnknownOutcome. head is the head just read.
func (d *driver) settledOneWrite(ctx context.Context, head string, attempt int) bool {
	if len(d.pending) == 0 {
		return false
	}
	keep := d.pending[:0]
	for _, p := range d.pending {
		commit, o, err := p.w.Settle(ctx, d.c.engineEnv(), d.branch, p.parent, p.id)
		switch {
		case err != nil || o == ghgraphql.Unknown:
			if err == nil {
				err = fmt.Errorf("no commit within %d of the head says whether it landed", engine.MaxSettleCommits)
			}
			e := d.c.fail(d.op, d.branch, ErrUnknownOutcome, fmt.Errorf("an earlier %s write had no answer, and whether it landed cannot be told: %w", p.w.Name(), err))
			e.Head, e.Attempts = head, attempt
			e.Hint = "look on the branch for a commit whose message ends with the trailer " + EditIDTrailer + ": " + p.id + " before retrying"
			d.w.fail(e)
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
func (d *driver) landOneWrite(ctx context.Context, p pendingWrite, commit string, attempt int) {
	parents, _, err := d.c.refs.Parents(ctx, commit)
	var tree string
	if err == nil {
		_, tree, err = d.c.refs.CommitTree(ctx, commit)
	}
	if err != nil {
		d.w.fail(d.c.fail(d.op, d.branch, ErrUnknownOutcome, fmt.Errorf("commit %s landed, but reading it failed: %w", short(commit), err)))
		return
	}
	parent := p.parent
	if len(parents) > 0 {
		parent = parents[0]
	}
	p.st.Finish(commit, tree, parent)
	d.landed(commit, attempt, d.created)
}
