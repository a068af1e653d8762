package committer

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/internal/engine"
	"github.com/ghcommitter/ghcommitter/committer/internal/ghgraphql"
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

// Settling: a landing write whose reply was lost (a ref update, a one-write
// commit) is never sent again blindly. The next attempt first looks for it
// on the branch (settled, settledOneWrite); a work that stops with one
// still open reads the branch once more (end), and fails with
// ErrUnknownOutcome only when that cannot tell.

// settled lands the work when head is, or descends from, a commit of ours
// whose ref write had no clear answer: a change set never lands twice.
// Unsettled commits are checked first, before anything is built.
func (d *driver) settled(ctx context.Context, head string, attempt int) bool {
	if d.ours[head] {
		d.landTip(ctx, head, attempt, false)
		return true
	}
	for _, tip := range d.unsettled {
		in, err := d.c.refs.LandedIn(ctx, head, tip)
		if err != nil {
			e := d.c.fail(d.op, d.branch, ErrUnknownOutcome, fmt.Errorf("an earlier ref update had no answer, and whether it landed cannot be told: %w", err))
			e.Head, e.Attempts = head, attempt
			e.Hint = "read the branch before retrying"
			d.w.fail(e)
			return true
		}
		if in {
			d.debug(ctx, "our earlier commit landed", "commit", tip, "head", head)
			d.landTip(ctx, tip, attempt, false)
			return true
		}
	}
	return false
}

// open reports whether a landing write of the work was sent and its outcome
// is still open: nobody may leave then, as their change may yet land.
func (d *driver) open() bool { return len(d.unsettled) > 0 || len(d.pending) > 0 }

// end finishes the work, which cannot go on, with err. When a landing write
// it sent is still open, err (a cancelled context, a failed later attempt)
// would be a false "not landed": the branch is read once more, and the
// work lands if one of its writes did, fails with err when none can land
// any more (a ref update whose commit the branch moved past; a GraphQL
// commit pinned to a head the branch has left), and with ErrUnknownOutcome
// otherwise.
func (d *driver) end(ctx context.Context, err error, attempt int) {
	var pe *Error
	if errors.As(err, &pe) && errors.Is(err, ErrProtected) {
		d.c.explainProtected(ctx, d.branch, pe)
	}
	if !d.open() || errors.Is(err, ErrUnknownOutcome) {
		d.w.fail(err)
		return
	}
	rctx, cancel := d.c.settleContext(ctx)
	defer cancel()
	head, _, herr := d.c.refs.ReadHead(rctx, d.branch)
	if herr != nil {
		d.unknownEnd(err, "a landing write", fmt.Errorf("reading the branch: %w", herr), head, attempt)
		return
	}
	var open []string
	for _, tip := range d.unsettled {
		in, lerr := d.c.refs.LandedIn(rctx, head, tip)
		if lerr == nil && in {
			d.landTip(rctx, tip, attempt, d.created)
			return
		}
		// Not on the branch: the update can still land only while the
		// branch is at one of the commit's ancestors (a fast-forward).
		could, cerr := d.c.refs.LandedIn(rctx, tip, head)
		if lerr != nil || cerr != nil || could {
			open = append(open, "the ref update to "+short(tip))
		}
	}
	for _, p := range d.pending {
		commit, o, serr := p.w.Settle(rctx, d.c.engineEnv(), d.branch, p.parent, p.id)
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
		d.w.fail(err)
		return
	}
	d.unknownEnd(err, strings.Join(open, " and "), errors.New("it is not on the branch yet, and it may still land"), head, attempt)
}

// unknownEnd fails the work with ErrUnknownOutcome: what was sent, and may
// have landed or still land, after the work stopped for cause.
func (d *driver) unknownEnd(cause error, what string, why error, head string, attempt int) {
	// cause is not wrapped: errors.Is(err, context.Canceled) must not
	// pass for a write that may have landed.
	e := d.c.fail(d.op, d.branch, ErrUnknownOutcome, fmt.Errorf("%s was sent and whether it landed cannot be told (%v): stopped by: %v", what, why, cause)) //nolint:errorlint // see above
	e.Head, e.Attempts = head, attempt
	e.Hint = "check the branch for the commit (its " + EditIDTrailer + " trailer, when it has one) before retrying: it may have landed"
	d.w.fail(e)
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

// explainProtected names the rule that refused e's write and gives the
// way through. A read that fails leaves e as it is.
func (c *Committer) explainProtected(ctx context.Context, branch string, e *Error) {
	if e == nil || !errors.Is(e.Kind, ErrProtected) || e.Rule != "" {
		return
	}
	said := strings.ToLower(e.Error())
	var named []string
	for _, m := range ruleMessages {
		if strings.Contains(said, m.says) && !contains(named, m.typ) {
			named = append(named, m.typ)
		}
	}
	rctx, cancel := c.settleContext(ctx)
	defer cancel()
	active := c.branchRuleTypes(rctx, branch)
	rule := ""
	for _, t := range named {
		if contains(active, t) {
			rule = t
			break
		}
	}
	switch {
	case rule == "" && len(active) > 0 && len(named) == 0:
		rule = active[0]
	case rule == "" && len(named) > 0:
		rule = named[0] // classic branch protection: its own message says it
	}
	if rule == "" && c.branchProtected(rctx, branch) {
		rule = "branch_protection"
	}
	e.Rule = rule
	if h, ok := ruleHints[rule]; ok {
		e.Hint = h
	}
}

// branchRuleTypes lists the types of the rules active on branch (GET
// rules/branches/{branch}), nil when they cannot be read. See
// https://docs.github.com/rest/repos/rules#get-rules-for-a-branch.
func (c *Committer) branchRuleTypes(ctx context.Context, branch string) []string {
	types, err := c.rest.BranchRuleTypes(ctx, branch)
	if err != nil {
		return nil
	}
	return types
}

// branchProtected reports GET branches/{branch}'s protected (classic
// protection or rules).
func (c *Committer) branchProtected(ctx context.Context, branch string) bool {
	protected, err := c.rest.BranchProtected(ctx, branch)
	return err == nil && protected
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
