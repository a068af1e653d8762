package committer

import (
	"context"
	"errors"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/internal/kind"
	"github.com/ghcommitter/ghcommitter/committer/internal/loop"
	"github.com/ghcommitter/ghcommitter/committer/internal/refs"
	"github.com/ghcommitter/ghcommitter/committer/internal/rest"
)

// head reads the branch's head; a missing branch is created from the base
// of CreateBranchFrom (creating is then true) and an empty repository is
// bootstrapped.
func (d *driver) head(ctx context.Context, attempt int) (headRead, error) {
	if attempt == 1 && d.known != nil {
		if head, tree := d.known(); head != "" {
			d.fromKnown = true
			return headRead{head: head, tree: tree}, nil
		}
	}
	head, tree, err := d.c.refs.ReadHead(ctx, d.branch)
	switch {
	case errors.Is(err, refs.ErrBranchMissing):
		if d.co.createFrom == "" {
			var re *refs.RedirectedError
			if errors.As(err, &re) {
				return headRead{}, d.c.missingBranch(d.op, d.branch, re)
			}
			return headRead{}, d.c.missingBranch(d.op, d.branch, nil)
		}
		head, tree, err = d.c.refs.ResolveBase(ctx, d.co.createFrom)
		if err != nil {
			return headRead{}, d.c.fail(d.op, d.branch, nil, err)
		}
		return headRead{head: head, tree: tree, creating: true}, nil
	case errors.Is(err, refs.ErrEmptyRepo) && d.dryRun:
		if _, err := d.c.planBootstrap(ctx, d.w.first().p); err != nil {
			return headRead{}, d.c.fail(d.op, d.branch, nil, err)
		}
		return headRead{}, nil
	case errors.Is(err, refs.ErrEmptyRepo):
		return d.bootstrap(ctx)
	case err != nil:
		return headRead{}, d.c.fail(d.op, d.branch, nil, err)
	}
	return headRead{head: head, tree: tree}, nil
}

// bootstrap starts an empty repository with the first change set that can
// start it; one that cannot is taken out of a batch with its own error.
func (d *driver) bootstrap(ctx context.Context) (headRead, error) {
	for {
		u := d.w.first()
		if u == nil {
			return headRead{reread: true}, nil
		}
		boot, err := d.c.bootstrap(ctx, d.branch, u)
		var pe *kind.Cause
		if errors.As(err, &pe) && d.w.drop(u, d.c.fail(d.op, d.branch, nil, err)) {
			continue
		}
		if err != nil {
			var re *rest.Refused
			if errors.As(err, &re) {
				return headRead{}, err
			}
			return headRead{}, d.c.fail(d.op, d.branch, nil, err)
		}
		return boot, nil
	}
}

// landTip lands the work at tip, a commit of ours whose ref write had no
// clear answer and that is found on the branch. On the REST fallback the
// tag (Tag) was not created with the branch: it is created now, and when
// that fails the work fails as a move whose tag failed does (see refs.Refs.Move).
func (d *driver) landTip(ctx context.Context, tip string, attempt int, created bool) {
	if d.untagged[tip] {
		delete(d.untagged, tip)
		if err := d.c.refs.RESTTag(ctx, d.co.tag, tip); err != nil {
			e := d.c.fail(d.op, d.branch, nil, err)
			e.Head, e.Attempts = tip, attempt
			d.w.fail(e)
			return
		}
	}
	d.landed(tip, attempt, created)
}

func (d *driver) landed(tip string, attempt int, created bool) {
	d.observe(Event{Kind: EventLanded, Branch: d.branch, Attempt: attempt, Commit: tip, Changes: d.w.size()})
	d.w.land(tip, attempt, created)
}

// move creates or fast-forwards the branch to tip and acts on the outcome.
func (d *driver) move(ctx context.Context, head, tip string, creating bool, attempt int, started time.Time) loop.Outcome {
	if tip != head {
		d.ours[tip] = true
	}
	var mv refs.Move
	var err error
	if creating {
		mv, err = d.c.refs.CreateTagged(ctx, d.branch, tip, d.co.tag)
	} else {
		mv, err = d.c.refs.Move(ctx, d.branch, head, tip, d.co.tag)
	}
	if mv.Ambiguous && !mv.Won {
		d.unsettled = append(d.unsettled, tip)
		if mv.Untagged {
			if d.untagged == nil {
				d.untagged = map[string]bool{}
			}
			d.untagged[tip] = true
		}
	}
	var re *rest.Refused
	switch {
	case mv.Missing && d.co.createFrom == "":
		return loop.Fail(d.c.missingBranch(d.op, d.branch, err))
	case mv.Missing: // try again: the next attempt creates it
	case errors.As(err, &re):
		return d.refusedOr(err, attempt)
	case err != nil:
		e := d.c.fail(d.op, d.branch, nil, err)
		e.Head, e.Attempts = head, attempt
		return loop.Fail(e)
	case mv.Won:
		d.landed(tip, attempt, creating || d.created)
		return loop.Outcome{Kind: loop.Landed}
	}
	if d.forget != nil {
		d.forget()
	}
	d.lost = time.Since(started)
	d.observe(Event{Kind: EventLostRace, Branch: d.branch, Attempt: attempt, Head: head, Took: d.lost, Changes: d.w.size()})
	d.debug(ctx, "lost the race for the branch", "repo", d.c.Repository(), "branch", d.branch, "attempt", attempt, "head", head, "took", d.lost)
	return loop.Outcome{Kind: loop.Lost}
}

type contendedKey struct{}

// contendedContext marks the attempts of a work that lost a race: the
// branch is busy, so they read it again before their writes, and end
// before the landing write when it moved since it was read (built.moved):
// the compare-and-swap would lose, so the write would be spent for
// nothing. An uncontended commit sends no extra read; a GraphQL commit
// looks before its one write.
func contendedContext(ctx context.Context) context.Context {
	return context.WithValue(ctx, contendedKey{}, true)
}

func isContended(ctx context.Context) bool {
	v, _ := ctx.Value(contendedKey{}).(bool)
	return v
}
