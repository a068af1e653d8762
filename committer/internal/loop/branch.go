package loop

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/ghclient"
	"github.com/ghcommitter/ghcommitter/committer/internal/changes"
	"github.com/ghcommitter/ghcommitter/committer/internal/ghgraphql"
	"github.com/ghcommitter/ghcommitter/committer/internal/kind"
	"github.com/ghcommitter/ghcommitter/committer/internal/landing"
	"github.com/ghcommitter/ghcommitter/committer/internal/refs"
	"github.com/ghcommitter/ghcommitter/committer/internal/rest"
)

// Head reads the branch's head; a missing branch is created from the base
// of CreateFrom (Creating is then true) and an empty repository is
// bootstrapped (a dry run only checks that it could be).
func (d *Driver) Head(ctx context.Context, attempt int) (Head, error) {
	if attempt == 1 && d.cfg.Known != nil {
		if head, tree := d.cfg.Known(); head != "" {
			d.fromKnown = true
			return Head{Head: head, Tree: tree}, nil
		}
	}
	head, tree, age, err := d.cfg.Refs.ReadHeadAge(ctx, d.cfg.Branch)
	switch {
	case errors.Is(err, refs.ErrBranchMissing):
		if d.cfg.CreateFrom == "" {
			var re *refs.RedirectedError
			if errors.As(err, &re) {
				return Head{}, d.host.MissingBranch(re)
			}
			return Head{}, d.host.MissingBranch(err)
		}
		head, tree, err = d.cfg.Refs.ResolveBase(ctx, d.cfg.CreateFrom)
		if err != nil {
			return Head{}, d.host.Error(Failure{Err: err})
		}
		return Head{Head: head, Tree: tree, Creating: true}, nil
	case errors.Is(err, refs.ErrEmptyRepo) && d.cfg.DryRun:
		if err := d.host.PlanBootstrap(ctx, d.w.First()); err != nil {
			return Head{}, d.host.Error(Failure{Err: err})
		}
		return Head{}, nil
	case errors.Is(err, refs.ErrEmptyRepo):
		return d.bootstrap(ctx)
	case err != nil:
		return Head{}, d.host.Error(Failure{Err: err})
	}
	busy := age >= 0 && age < BusyHead && (d.cfg.Ours == nil || !d.cfg.Ours(head))
	return Head{Head: head, Tree: tree, Busy: busy}, nil
}

// bootstrap starts an empty repository with the first change set that can
// start it; one that cannot is taken out of a batch with its own error.
func (d *Driver) bootstrap(ctx context.Context) (Head, error) {
	for {
		u := d.w.First()
		if u == nil {
			return Head{Reread: true}, nil
		}
		boot, err := d.host.Bootstrap(ctx, u)
		var pe *kind.Cause
		if errors.As(err, &pe) && d.w.Drop(u, d.host.Error(Failure{Err: err})) {
			continue
		}
		if err != nil {
			var re *rest.Refused
			if errors.As(err, &re) {
				return Head{}, err
			}
			return Head{}, d.host.Error(Failure{Err: err})
		}
		return boot, nil
	}
}

// landTip lands the work at tip, a commit of ours whose ref write had no
// clear answer and that is found on the branch. On the REST fallback the
// tag was not created with the branch: it is created now, and when that
// fails the work fails as a move whose tag failed does (see refs.Refs.Move).
func (d *Driver) landTip(ctx context.Context, tip string, attempt int, created bool) {
	if d.untagged[tip] {
		delete(d.untagged, tip)
		if err := d.cfg.Refs.RESTTag(ctx, d.cfg.Tag, tip); err != nil {
			d.w.Fail(d.host.Error(Failure{Err: err, Head: tip, Attempts: attempt}))
			return
		}
	}
	d.landed(tip, attempt, created)
}

// landed reports the work landed at tip, its turn released first: a
// caller that exits as soon as it learns (a shard, a CI job) must not exit
// holding the turn, which would keep the other writers waiting until it
// expires (a Lease's duration).
func (d *Driver) landed(tip string, attempt int, created bool) {
	if d.held != nil {
		d.held.Release()
	}
	d.observe(Event{Kind: EventLanded, Attempt: attempt, Commit: tip, Changes: d.w.Size()})
	d.w.Land(tip, attempt, created)
}

// move creates or fast-forwards the branch to tip and acts on the outcome.
func (d *Driver) move(ctx context.Context, head, tip string, creating bool, attempt int, started time.Time) Outcome {
	if tip != head {
		d.ours[tip] = true
	}
	var mv refs.Move
	var err error
	if creating {
		mv, err = d.cfg.Refs.CreateTagged(ctx, d.cfg.Branch, tip, d.cfg.Tag)
	} else {
		mv, err = d.cfg.Refs.Move(ctx, d.cfg.Branch, head, tip, d.cfg.Tag)
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
	case mv.Missing && d.cfg.CreateFrom == "":
		return Fail(d.host.MissingBranch(err))
	case mv.Missing: // try again: the next attempt creates it
	case errors.As(err, &re):
		return d.refusedOr(err, attempt)
	case err != nil:
		return Fail(d.host.Error(Failure{Err: err, Head: head, Attempts: attempt}))
	case mv.Won:
		d.landed(tip, attempt, creating || d.created)
		return Outcome{Kind: Landed}
	}
	if d.cfg.Forget != nil {
		d.cfg.Forget()
	}
	d.lostRace(ctx, head, attempt, started)
	return Outcome{Kind: Lost}
}

func (d *Driver) lostRace(ctx context.Context, head string, attempt int, started time.Time) {
	d.lost = d.took(started)
	ghclient.LostRace(ctx) // others share the budget: the pacer slows down
	d.observe(Event{Kind: EventLostRace, Attempt: attempt, Head: head, Took: d.lost, Changes: d.w.Size()})
	d.host.Debug(ctx, "lost the race for the branch", "repo", d.cfg.Repo, "branch", d.cfg.Branch, "attempt", attempt, "head", head, "took", d.lost)
}

// Settling: a landing write whose reply was lost (a ref update, a one-write
// commit) is never sent again blindly. The next attempt first looks for it
// on the branch (settled, settledOneWrite); a work that stops with one
// still open reads the branch once more (end), and fails with
// ErrUnknownOutcome only when that cannot tell.

// settled lands the work when head is, or descends from, a commit of ours
// whose ref write had no clear answer: a change set never lands twice.
// Unsettled commits are checked first, before anything is built.
func (d *Driver) settled(ctx context.Context, head string, attempt int) bool {
	if d.ours[head] {
		d.landTip(ctx, head, attempt, false)
		return true
	}
	for _, tip := range d.unsettled {
		in, err := d.cfg.Refs.LandedIn(ctx, head, tip)
		if err != nil {
			d.w.Fail(d.host.Error(Failure{Kind: kind.UnknownOutcome, Err: fmt.Errorf("an earlier ref update had no answer, and whether it landed cannot be told: %w", err),
				Head: head, Attempts: attempt, Hint: "read the branch before retrying"}))
			return true
		}
		if in {
			d.host.Debug(ctx, "our earlier commit landed", "commit", tip, "head", head)
			d.landTip(ctx, tip, attempt, false)
			return true
		}
	}
	return false
}

// open reports whether a landing write of the work was sent and its outcome
// is still open: nobody may leave then, as their change may yet land.
func (d *Driver) open() bool { return len(d.unsettled) > 0 || len(d.pending) > 0 }

// end finishes the work, which cannot go on, with err. When a landing write
// it sent is still open, err (a cancelled context, a failed later attempt)
// would be a false "not landed": the branch is read once more, and the
// work lands if one of its writes did, fails with err when none can land
// any more (a ref update whose commit the branch moved past; a GraphQL
// commit pinned to a head the branch has left), and with ErrUnknownOutcome
// otherwise.
func (d *Driver) end(ctx context.Context, err error, attempt int) {
	if d.host.Owns(err) && errors.Is(err, kind.Protected) {
		d.host.ExplainProtected(ctx, err)
	}
	if !d.open() || errors.Is(err, kind.UnknownOutcome) {
		d.w.Fail(err)
		return
	}
	rctx, cancel := landing.SettleContext(ctx, d.cfg.Env.LandingGrace)
	defer cancel()
	head, _, herr := d.cfg.Refs.ReadHead(rctx, d.cfg.Branch)
	if herr != nil {
		d.unknownEnd(err, "a landing write", fmt.Errorf("reading the branch: %w", herr), head, attempt)
		return
	}
	var open []string
	for _, tip := range d.unsettled {
		in, lerr := d.cfg.Refs.LandedIn(rctx, head, tip)
		if lerr == nil && in {
			d.landTip(rctx, tip, attempt, d.created)
			return
		}
		// Not on the branch: the update can still land only while the
		// branch is at one of the commit's ancestors (a fast-forward).
		could, cerr := d.cfg.Refs.LandedIn(rctx, tip, head)
		if lerr != nil || cerr != nil || could {
			open = append(open, "the ref update to "+kind.Short(tip))
		}
	}
	for _, p := range d.pending {
		commit, o, serr := p.w.Settle(rctx, d.cfg.Env, d.cfg.Branch, p.parent, p.id)
		switch {
		case serr == nil && o == ghgraphql.Landed:
			d.landOneWrite(rctx, p, commit, attempt)
			return
		case serr == nil && o == ghgraphql.NotLanded && p.w.Pinned() && !strings.EqualFold(head, p.parent):
			// Pinned to a head the branch has left: it can never land.
		default:
			open = append(open, "the "+p.w.Name()+" write")
		}
	}
	if len(open) == 0 {
		d.w.Fail(err)
		return
	}
	d.unknownEnd(err, strings.Join(open, " and "), errors.New("it is not on the branch yet, and it may still land"), head, attempt)
}

// unknownEnd fails the work with ErrUnknownOutcome: what was sent, and may
// have landed or still land, after the work stopped for cause.
func (d *Driver) unknownEnd(cause error, what string, why error, head string, attempt int) {
	// cause is not wrapped: errors.Is(err, context.Canceled) must not
	// pass for a write that may have landed.
	d.w.Fail(d.host.Error(Failure{Kind: kind.UnknownOutcome,
		Err:  fmt.Errorf("%s was sent and whether it landed cannot be told (%v): stopped by: %v", what, why, cause), //nolint:errorlint // see above
		Head: head, Attempts: attempt,
		Hint: "check the branch for the commit (its " + changes.EditIDTrailer + " trailer, when it has one) before retrying: it may have landed"}))
}
