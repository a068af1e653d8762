package committer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/ghclient"
	"github.com/ghcommitter/ghcommitter/committer/internal/engine"
	"github.com/ghcommitter/ghcommitter/committer/internal/loop"
	"github.com/ghcommitter/ghcommitter/committer/internal/rest"
	"github.com/ghcommitter/ghcommitter/committer/internal/turns"
)

// work is what one run of the attempt driver lands: one change set
// (Commit) or a batch of them (Queue).
type work interface {
	// prune finishes the callers that gave up and reports whether any is
	// left. With settling set, an earlier ref update of this work is still
	// unsettled, so nobody may leave: their change may yet land.
	prune(settling bool) bool
	// first returns the first change set still to land.
	first() *unit
	// size is the number of change sets still to land.
	size() int
	// drop finishes u alone with err, when the work can go on without it
	// (a batch); it reports false when err must end the whole work.
	drop(u *unit, err *Error) bool
	// build resolves the work on head's tree and creates its trees and
	// commits. It returns the new tip (head itself when nothing changes),
	// or that no caller is left, or that the branch moved first.
	build(ctx context.Context, head, tree string, attempt int) (built, error)
	// land hands out the results: tip, which build returned, is on the
	// branch (or is its unchanged head).
	land(tip string, attempt int, created bool)
	// fail finishes every caller left with err.
	fail(err error)
}

// built is what work.build made of one attempt.
type built struct {
	tip, tree string // the new tip (head itself when nothing changes) and its tree
	gone      bool   // no caller is left
	// moved: the branch moved since it was read, seen before the
	// landing write, which would lose and is not sent (see
	// contendedContext); unsent: before any write of the attempt.
	moved, unsent bool
}

// driver runs the attempts of one commit or batch: read the head, build,
// move the branch or settle, back off. It alone holds the exactly-once
// checks, rate-limit waits, bootstrap and branch creation.
type driver struct {
	c      *Committer
	op     string
	branch string
	co     commitOptions
	w      work
	// known returns a head this process made and the tree it has, to
	// skip reading the branch on the first attempt (a Queue's last batch).
	known func() (head, tree string)
	// forget drops that head after a lost race.
	forget func()
	// dryRun: only read (Plan); an empty repository is not bootstrapped.
	dryRun bool
	// watchers are the committers whose observers see the work's events
	// (a batch's callers); nil: c's alone.
	watchers func() []*Committer

	fromKnown bool            // this attempt built on known's head, not one read
	ours      map[string]bool // commits we created as new tips
	unsettled []string        // tips whose ref write had no clear answer
	untagged  map[string]bool // unsettled tips moved by REST: the tag is created when one is found landed
	lastHead  string
	pending   []pendingWrite  // one-write commits whose reply was lost
	cands     []engine.Writer // the one-write engines an attempt may use (engine.Choose)
	strict    bool            // cands is the chosen engine alone, which refuses what it cannot carry
	created   bool            // a one-write engine created the branch first
	wait      time.Duration   // at least this long before the next attempt
	lost      time.Duration   // how long the last lost attempt took
	// limited is the rate-limit refusal that ended the last attempt (nil
	// when it ended otherwise), and refusals counts such attempts: when
	// attempts run out, the work is ErrRateLimited, not a lost race.
	limited  *rest.Refused
	refusals int
	turns    *turns.Writer // the work's turns: their waits add up to at most a minute
}

// run makes the work's attempts until one lands or the work stops; the
// count of attempts is loop.Count's, from each attempt's loop.Outcome.
func (d *driver) run(ctx context.Context) {
	d.ours = map[string]bool{}
	var at atomic.Int64 // the attempt the HTTP layer's waits are reported for
	ctx = d.observeWaits(ctx, &at)
	count := loop.Count{Max: d.c.o.maxAttempts}
	for {
		attempt := count.Attempt()
		at.Store(int64(attempt))
		if attempt > 1 {
			if err := d.pause(ctx, attempt); err != nil {
				d.end(ctx, d.errAt(err, d.lastHead, attempt-1), attempt-1)
				return
			}
		}
		if !d.w.prune(d.open()) {
			return
		}
		o := d.attempt(ctx, attempt)
		if d.fromKnown && o.Kind != loop.Landed && o.Kind != loop.Lost && o.Kind != loop.Wait &&
			ctx.Err() == nil && len(d.unsettled) == 0 && len(d.pending) == 0 {
			// The head this process remembered, not read, may be gone
			// (the repository was made anew, or the branch reset and
			// its objects dropped: GitHub answers 404, or 422 for a
			// base_tree it does not have). Nothing of the attempt can
			// have landed: read the branch and try again, without
			// counting; what holds on the head read fails the same way.
			d.forget()
			o = loop.Outcome{Kind: loop.Stale}
		}
		d.fromKnown = false
		next, err := count.After(o)
		switch {
		case errors.Is(err, loop.ErrKeptChanging):
			d.end(ctx, d.errAt(err, d.lastHead, attempt), attempt)
			return
		case err != nil:
			d.end(ctx, err, attempt)
			return
		case next:
			continue
		case o.Kind == loop.Landed:
			return
		}
		d.end(ctx, d.outOfAttempts(), d.c.o.maxAttempts)
		return
	}
}

// outOfAttempts is the error of a work whose attempts all ended without
// landing: ErrRateLimited when GitHub's rate limit refused the last one,
// else ErrConflict (another writer moved the branch).
func (d *driver) outOfAttempts() *Error {
	n := d.c.o.maxAttempts
	if d.limited != nil {
		return d.rateLimited(n, fmt.Sprintf("GitHub's rate limit refused %d of %d attempts, the last one too", d.refusals, n))
	}
	msg := fmt.Sprintf("another writer moved the branch on each of %d attempts", n)
	if d.refusals > 0 {
		msg = fmt.Sprintf("another writer moved the branch on %d of %d attempts (GitHub's rate limit refused the others)", n-d.refusals, n)
	}
	e := d.c.fail(d.op, d.branch, ErrConflict, errors.New(msg))
	e.Head, e.Attempts = d.lastHead, n
	e.Hint = "raise the attempt limit (WithRetries) or spread the writers out"
	return e
}

// rateLimited is the ErrRateLimited of a work whose last attempt (of
// attempts) GitHub's rate limit refused, asking to wait d.wait.
func (d *driver) rateLimited(attempts int, msg string) *Error {
	cause := d.limited.Err
	if ce := (*Error)(nil); errors.As(cause, &ce) && ce.Err != nil {
		cause = ce.Err // a read's error, already an *Error of this work
	}
	e := d.c.fail(d.op, d.branch, ErrRateLimited, fmt.Errorf("%s: %w", msg, cause))
	e.Head, e.Attempts, e.RetryAfter = d.lastHead, attempts, d.wait
	wait := d.wait
	if wait >= time.Second {
		wait = wait.Round(time.Second)
	}
	e.Hint = fmt.Sprintf("nothing was committed; wait %s before trying again, and spread the writers out", wait)
	return e
}

func (d *driver) pause(ctx context.Context, attempt int) error {
	wait := max(d.c.o.backoff(attempt, d.lost), d.wait)
	d.wait = 0
	d.debug(ctx, "backing off", "repo", d.c.Repository(), "branch", d.branch, "attempt", attempt, "wait", wait)
	return d.c.o.sleep(ctx, wait)
}

// attempt makes one attempt.
func (d *driver) attempt(ctx context.Context, attempt int) loop.Outcome {
	d.observe(Event{Kind: EventAttempt, Branch: d.branch, Attempt: attempt, Changes: d.w.size()})
	d.limited = nil
	turn := d.takeTurn(ctx)
	defer turn.Release()
	started := time.Now()
	// A stretched attempt is a lost attempt: the pacer's wait for the
	// attempt's writes comes before it reads the head, and they then go
	// back to back.
	ctx, release := ghclient.ReserveWrites(ctx, d.attemptWrites())
	defer release()
	hr, err := d.head(ctx, attempt)
	switch {
	case err != nil:
		return d.refusedOr(err, attempt)
	case hr.reread:
		return loop.Outcome{Kind: loop.Reread}
	}
	head, tree, creating := hr.head, hr.tree, hr.creating
	if d.settled(ctx, head, attempt) || d.settledOneWrite(ctx, head, attempt) {
		return loop.Outcome{Kind: loop.Landed}
	}
	if d.co.expectHead != "" && head != d.co.expectHead {
		e := d.c.fail(d.op, d.branch, ErrConflict, fmt.Errorf("head is %s, expected %s", short(head), short(d.co.expectHead)))
		e.Head = head
		return loop.Fail(e)
	}
	d.lastHead = head
	if d.lost > 0 {
		ctx = contendedContext(ctx) // a race was lost: look before writing (contendedContext)
	}
	if len(d.cands) > 0 {
		if o, handled := d.oneWrite(ctx, head, tree, creating, attempt, started); handled {
			return o
		}
		creating = creating && !d.created
	}
	b, err := d.w.build(ctx, head, tree, attempt)
	switch {
	case err != nil:
		return d.refusedOr(err, attempt)
	case b.moved:
		d.lostRace(ctx, head, attempt, started)
		if b.unsent {
			return loop.Outcome{Kind: loop.LostUnsent}
		}
		return loop.Outcome{Kind: loop.Lost}
	case b.gone:
		return loop.Outcome{Kind: loop.Landed}
	case b.tip == head && !creating:
		d.landed(b.tip, attempt, d.created)
		return loop.Outcome{Kind: loop.Landed}
	}
	return d.move(ctx, head, b.tip, creating, attempt, started)
}

// attemptWrites is how many writes an attempt sends when nothing is
// uploaded (the engine's Writes): one through a one-write engine; else a
// tree and a commit per commit built, and the ref update. None in a dry
// run.
func (d *driver) attemptWrites() int {
	switch {
	case d.dryRun:
		return 0
	case len(d.cands) > 0:
		return d.cands[0].Writes(d.w.size(), d.co.squash)
	}
	return d.co.engine.impl().Writes(d.w.size(), d.co.squash)
}

// refusedOr turns a rate-limit refusal into a wait before the next attempt
// and any other error into the work's error.
func (d *driver) refusedOr(err error, attempt int) loop.Outcome {
	var re *rest.Refused
	if !errors.As(err, &re) {
		// A secondary limit on a read or an object write, once the
		// transport's own retries ran out: wait it out like one on the ref.
		_ = errors.As(rest.Refusal("", err), &re)
	}
	if re != nil {
		d.wait = re.Wait
		if re.Bare {
			d.wait = max(d.wait, d.c.o.secondaryFloor)
		}
		d.limited = re
		d.refusals++
		d.observe(Event{Kind: EventRateLimitWait, Branch: d.branch, Attempt: attempt, Wait: d.wait})
		d.debug(context.Background(), "write refused by a rate limit", "repo", d.c.Repository(), "branch", d.branch, "wait", d.wait)
		if most := d.c.o.maxLimitWait; d.wait > most {
			// The transport fails a read with such a wait at once; so
			// does the commit loop, instead of sleeping it out.
			return loop.Fail(d.rateLimited(attempt, fmt.Sprintf("GitHub's rate limit asks to wait %s, longer than the %s this client waits (ghclient.RateLimits.MaxWait)", d.wait.Round(time.Second), most)))
		}
		return loop.Outcome{Kind: loop.Wait}
	}
	var e *Error
	if errors.As(err, &e) {
		return loop.Fail(err)
	}
	return loop.Fail(d.errAt(err, d.lastHead, attempt))
}

// observe reports e to the observers of every caller of the work.
func (d *driver) observe(e Event) {
	if d.watchers == nil {
		d.c.observe(e)
		return
	}
	for _, c := range d.watchers() {
		c.observe(e)
	}
}

// debug logs msg to the logger of every caller of the work (each logger
// once).
func (d *driver) debug(ctx context.Context, msg string, args ...any) {
	if d.watchers == nil {
		d.c.o.logger.DebugContext(ctx, msg, args...)
		return
	}
	seen := map[*slog.Logger]bool{}
	for _, c := range d.watchers() {
		if l := c.o.logger; !seen[l] {
			seen[l] = true
			l.DebugContext(ctx, msg, args...)
		}
	}
}

func (d *driver) errAt(err error, head string, attempts int) *Error {
	e := d.c.fail(d.op, d.branch, nil, err)
	e.Head, e.Attempts = head, attempts
	return e
}

// observeWaits returns ctx carrying a hook through which the HTTP layer
// reports each wait it makes a request of this work do (a rate-limit
// window, the write pacer) as an Event, with the attempt *at is at.
func (d *driver) observeWaits(ctx context.Context, at *atomic.Int64) context.Context {
	if d.c.o.observer == nil && d.watchers == nil {
		return ctx
	}
	changes := d.w.size()
	return ghclient.WithWaitNotify(ctx, func(w ghclient.Wait) {
		kind := EventRateLimitWait
		if w.Kind == ghclient.WaitPacer {
			kind = EventWritePaced
		}
		d.observe(Event{Kind: kind, Branch: d.branch, Attempt: int(at.Load()), Wait: w.Duration, Changes: changes})
	})
}

// takeTurn waits until no other writer of the machine is in an attempt at
// the branch (see WithTurnDir); the waits of all the attempts of one
// commit or batch add up to at most a minute. A dry run takes no turn.
func (d *driver) takeTurn(ctx context.Context) *turns.Turn {
	if d.dryRun || d.c.o.noTurns {
		return &turns.Turn{}
	}
	if d.turns == nil {
		d.turns = &turns.Writer{Turns: turns.Turns{Dir: d.c.o.turnDir, MaxWait: d.c.o.turnWait}}
	}
	t := d.turns.Take(ctx, d.c.turnKey(d.branch))
	switch {
	case !t.Granted:
		d.debug(ctx, "racing without a turn", "repo", d.c.Repository(), "branch", d.branch, "waited", t.Waited, "error", t.Err)
	case t.Waited > time.Millisecond:
		d.debug(ctx, "waited for a turn", "repo", d.c.Repository(), "branch", d.branch, "waited", t.Waited)
	}
	return t
}

// turnKey names branch of the repository for the machine's turns: the
// API, the repository (GitHub's names are case-insensitive) and the
// branch, and the coordinator registry (tests' "other processes").
func (c *Committer) turnKey(branch string) string {
	return strings.Join([]string{c.api, strings.ToLower(c.Repository()), branch, c.o.process}, "\x00")
}
