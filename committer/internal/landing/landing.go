// Package landing sends the one write that makes a commit visible (a
// "landing write") so that cancelling the caller's context cannot turn it
// into a false "not landed", and gives the reads that settle its outcome
// a context that outlives the cancel, briefly.
package landing

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptrace"
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

// Landing is the context one landing write is sent on.
type Landing struct {
	Ctx    context.Context // the write's: detached from the caller's cancel
	caller context.Context
	sent   atomic.Bool // request headers went out: GitHub may have it
	stop   func()
}

// Start returns the context to send one landing write on, which stays
// alive for grace after ctx ends once the write was sent; call Done when
// its reply (or error) is in.
func Start(ctx context.Context, grace time.Duration) *Landing {
	l := &Landing{caller: ctx}
	wctx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	l.Ctx = httptrace.WithClientTrace(wctx, &httptrace.ClientTrace{
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
	var timer *time.Timer
	stopWatch := context.AfterFunc(ctx, func() {
		if !l.sent.Load() {
			cancel(context.Cause(ctx))
			return
		}
		mu.Lock()
		timer = time.AfterFunc(grace, func() { cancel(errGraceOver) })
		mu.Unlock()
	})
	l.stop = func() {
		stopWatch()
		mu.Lock()
		if timer != nil {
			timer.Stop()
		}
		mu.Unlock()
		cancel(nil)
	}
	return l
}

// Done ends the write; err is its error, returned as it is or, when the
// grace period ran out, as errGraceOver (a write that may yet land is no
// context.Canceled).
func (l *Landing) Done(err error) error {
	l.stop()
	if err == nil || !errors.Is(context.Cause(l.Ctx), errGraceOver) {
		return err
	}
	var nr *ghgraphql.NoReplyError
	if errors.As(err, &nr) {
		return &ghgraphql.NoReplyError{Op: nr.Op, Mutation: nr.Mutation, Err: fmt.Errorf("%w: %v", errGraceOver, nr.Err)} //nolint:errorlint // the context's error is not wrapped (see above)
	}
	return fmt.Errorf("%w: %v", errGraceOver, err) //nolint:errorlint // the context's error is not wrapped (see above)
}

// Unsent reports whether the caller's context ended before the write could
// have been sent: GitHub never had it, so it did not land.
func (l *Landing) Unsent() bool { return l.caller.Err() != nil && !l.sent.Load() }

// NotSent is the error of a landing write the caller's context stopped
// before it was sent.
func (l *Landing) NotSent(what string) error {
	return &UnsentError{Err: fmt.Errorf("%s: not sent: %w", what, l.caller.Err())}
}

// UnsentError is a landing write that was never sent: proven not landed.
type UnsentError struct{ Err error }

func (e *UnsentError) Error() string { return e.Err.Error() }
func (e *UnsentError) Unwrap() error { return e.Err }

// SettleContext is the context of the reads that settle a landing write's
// outcome: they outlive the caller's cancel, for 30 seconds, or for half
// the landing grace period (at least half a second) once the caller's
// context has ended: a signalled process must still report before it is
// killed, so after a cancel the outcome is settled once, by the driver's
// end, not after each write.
func SettleContext(ctx context.Context, grace time.Duration) (context.Context, context.CancelFunc) {
	bound := 30 * time.Second
	if ctx.Err() != nil {
		bound = max(grace/2, 500*time.Millisecond)
	}
	return context.WithTimeout(context.WithoutCancel(ctx), bound)
}
