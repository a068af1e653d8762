package committer

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ghcommitter/ghcommitter/committer/internal/engine"
	"github.com/ghcommitter/ghcommitter/committer/internal/ghgraphql"
)

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
