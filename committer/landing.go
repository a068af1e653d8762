package committer

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ghcommitter/ghcommitter/committer/internal/ghgraphql"
)

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
