package committer

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptrace"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/internal/ghgraphql"
)

// A landing write is the one request that makes a commit visible: the Git
// Data ref update or branch creation, the GraphQL mutation, the contents
// write, an empty repository's first commit. Once GitHub has it, GitHub may
// apply it whatever the client does, so cancelling the caller's context
// must not turn it into "not landed". Every landing write is sent through
// landing: not yet sent when the context ends, it is not sent (proven not
// landed); already sent, it keeps going for the grace period
// (WithLandingGrace) and its reply decides; after that, the outcome is
// settled by reading the branch.

// errGraceOver cancels a landing write whose reply did not come within the
// grace period after the caller's context ended.
var errGraceOver = errors.New("no reply within the landing grace period after the context ended")

// landing is the context one landing write is sent on.
type landing struct {
	caller context.Context
	ctx    context.Context // the write's: detached from caller's cancel
	sent   atomic.Bool     // request headers went out: GitHub may have it
	stop   func()
}

// startLanding returns the context to send one landing write on; call
// done when its reply (or error) is in.
func (c *Committer) startLanding(ctx context.Context) *landing {
	l := &landing{caller: ctx}
	wctx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	l.ctx = httptrace.WithClientTrace(wctx, &httptrace.ClientTrace{
		// Conservative: once headers are written, the request may reach
		// GitHub in full, so it counts as sent.
		WroteHeaders: func() { l.sent.Store(true) },
	})
	if ctx.Err() != nil {
		// Ended already: nothing is sent (AfterFunc would run too late to
		// stop a request that starts at once).
		cancel(context.Cause(ctx))
	}
	var mu sync.Mutex
	var grace *time.Timer
	stopWatch := context.AfterFunc(ctx, func() {
		if !l.sent.Load() {
			cancel(context.Cause(ctx))
			return
		}
		mu.Lock()
		grace = time.AfterFunc(c.o.landingGrace, func() { cancel(errGraceOver) })
		mu.Unlock()
	})
	l.stop = func() {
		stopWatch()
		mu.Lock()
		if grace != nil {
			grace.Stop()
		}
		mu.Unlock()
		cancel(nil)
	}
	return l
}

// done ends the write; err is its error, returned as it is or, when the
// grace period ran out, as errGraceOver (a write that may yet land is no
// context.Canceled).
func (l *landing) done(err error) error {
	l.stop()
	if err == nil || !errors.Is(context.Cause(l.ctx), errGraceOver) {
		return err
	}
	var nr *ghgraphql.NoReplyError
	if errors.As(err, &nr) {
		return &ghgraphql.NoReplyError{Op: nr.Op, Mutation: nr.Mutation, Err: fmt.Errorf("%w: %v", errGraceOver, nr.Err)} //nolint:errorlint // the context's error is not wrapped (see above)
	}
	return fmt.Errorf("%w: %v", errGraceOver, err) //nolint:errorlint // the context's error is not wrapped (see above)
}

// unsent reports whether the caller's context ended before the write could
// have been sent: GitHub never had it, so it did not land.
func (l *landing) unsent() bool { return l.caller.Err() != nil && !l.sent.Load() }

// notSent is the error of a landing write the caller's context stopped
// before it was sent.
func (l *landing) notSent(what string) error {
	return &unsentError{err: fmt.Errorf("%s: not sent: %w", what, l.caller.Err())}
}

// unsentError is a landing write that was never sent: proven not landed.
type unsentError struct{ err error }

func (e *unsentError) Error() string { return e.err.Error() }
func (e *unsentError) Unwrap() error { return e.err }

// settleContext is the context of the reads that settle a landing write's
// outcome: they outlive the caller's cancel, for 30 seconds, or for half
// the landing grace period (at least half a second) once the caller's
// context has ended: a signalled process must still report before it is
// killed, so after a cancel the outcome is settled once, by the driver's
// end, not after each write.
func (c *Committer) settleContext(ctx context.Context) (context.Context, context.CancelFunc) {
	bound := 30 * time.Second
	if ctx.Err() != nil {
		bound = max(c.o.landingGrace/2, 500*time.Millisecond)
	}
	return context.WithTimeout(context.WithoutCancel(ctx), bound)
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
	head, _, herr := d.c.readHead(rctx, d.branch)
	if herr != nil {
		d.unknownEnd(err, "a landing write", fmt.Errorf("reading the branch: %w", herr), head, attempt)
		return
	}
	var open []string
	for _, tip := range d.unsettled {
		in, lerr := d.c.landedIn(rctx, head, tip)
		if lerr == nil && in {
			d.landed(tip, attempt, d.created)
			return
		}
		// Not on the branch: the update can still land only while the
		// branch is at one of the commit's ancestors (a fast-forward).
		could, cerr := d.c.landedIn(rctx, tip, head)
		if lerr != nil || cerr != nil || could {
			open = append(open, "the ref update to "+short(tip))
		}
	}
	for _, p := range d.pending {
		commit, o, serr := d.c.settleOneWrite(rctx, d.branch, p.engine, p.parent, p.id)
		switch {
		case serr == nil && o == ghgraphql.Landed:
			d.landOneWrite(rctx, p, commit, attempt)
			return
		case serr == nil && o == ghgraphql.NotLanded && p.engine == EngineGraphQL && !strings.EqualFold(head, p.parent):
			// Pinned to a head the branch has left: it can never land.
		default:
			open = append(open, "the "+p.engine.String()+" write")
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
