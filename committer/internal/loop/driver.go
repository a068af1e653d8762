package loop

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/ghclient"
	"github.com/ghcommitter/ghcommitter/committer/internal/kind"
	"github.com/ghcommitter/ghcommitter/committer/internal/rest"
)

// Driver runs the attempts of one commit or batch: read the head, build,
// move the branch or settle, back off. It alone holds the exactly-once
// checks, rate-limit waits, bootstrap and branch creation.
type Driver struct {
	cfg  Config
	host Host
	w    Work

	fromKnown bool            // this attempt built on Known's head, not one read
	ours      map[string]bool // commits we created as new tips
	unsettled []string        // tips whose ref write had no clear answer
	untagged  map[string]bool // unsettled tips moved by REST: the tag is created when one is found landed
	lastHead  string
	pending   []pendingWrite // one-write commits whose reply was lost
	created   bool           // a one-write engine created the branch first
	wait      time.Duration  // at least this long before the next attempt
	lost      time.Duration  // how long the last lost attempt took
	moves     int            // moves of the branch seen since the work first read it (see spread)
	yielded   time.Duration  // how long this attempt yielded (see Yield): not part of its duration
	// booked: what the attempt's requests waited in the transport before
	// its head was read (the pacer's hold on its writes): not part of its
	// duration.
	booked    time.Duration
	movedTo   string // the head a lost attempt saw the branch move to, when it read it (for spread)
	countFrom string // the head from which the next path query counts moves (see countMoves)
	// countedOne: the first move since countFrom is the one a race was lost to, counted already.
	countedOne bool
	// limited is the rate-limit refusal that ended the last attempt (nil
	// when it ended otherwise), and refusals counts such attempts: when
	// attempts run out, the work is ErrRateLimited, not a lost race.
	limited  *rest.Refused
	refusals int
	turns    *turnWriter // the work's turns: their waits add up to at most a minute
	held     *turn       // the running attempt's turn: landed releases it first
}

// New returns the driver of w.
func New(cfg Config, host Host, w Work) *Driver {
	return &Driver{cfg: cfg, host: host, w: w, ours: map[string]bool{}}
}

// Run makes the work's attempts until one lands or the work stops; the
// count of attempts is Count's, from each attempt's Outcome.
func (d *Driver) Run(ctx context.Context) {
	var at atomic.Int64 // the attempt the HTTP layer's waits are reported for
	ctx = d.observeWaits(ctx, &at)
	count := Count{Max: d.cfg.MaxAttempts}
	var last Kind // how the attempt before ended
	for {
		attempt := count.Attempt()
		at.Store(int64(attempt))
		// After a lost race, even one lost before any write (not counted),
		// the branch is busy: the next attempt is spread (see spread).
		if attempt > 1 || last == LostUnsent {
			if err := d.pause(ctx, attempt); err != nil {
				d.end(ctx, d.errAt(err, d.lastHead, attempt-1), attempt-1)
				return
			}
		}
		if !d.w.Prune(d.open()) {
			return
		}
		o := d.attempt(ctx, attempt)
		if d.fromKnown && o.Kind != Landed && o.Kind != Lost && o.Kind != Wait &&
			ctx.Err() == nil && len(d.unsettled) == 0 && len(d.pending) == 0 {
			// The head this process remembered, not read, may be gone
			// (the repository was made anew, or the branch reset and
			// its objects dropped: GitHub answers 404, or 422 for a
			// base_tree it does not have). Nothing of the attempt can
			// have landed: read the branch and try again, without
			// counting; what holds on the head read fails the same way.
			if d.cfg.Forget != nil {
				d.cfg.Forget()
			}
			o = Outcome{Kind: Stale}
		}
		d.fromKnown = false
		last = o.Kind
		next, err := count.After(o)
		switch {
		case errors.Is(err, ErrKeptChanging):
			d.end(ctx, d.errAt(err, d.lastHead, attempt), attempt)
			return
		case err != nil:
			d.end(ctx, err, attempt)
			return
		case next:
			continue
		case o.Kind == Landed:
			return
		}
		d.end(ctx, d.outOfAttempts(), d.cfg.MaxAttempts)
		return
	}
}

// outOfAttempts is the error of a work whose attempts all ended without
// landing: ErrRateLimited when GitHub's rate limit refused the last one,
// else ErrConflict (another writer moved the branch).
func (d *Driver) outOfAttempts() error {
	n := d.cfg.MaxAttempts
	if d.limited != nil {
		return d.rateLimited(n, fmt.Sprintf("GitHub's rate limit refused %d of %d attempts, the last one too", d.refusals, n))
	}
	msg := fmt.Sprintf("another writer moved the branch on each of %d attempts", n)
	if d.refusals > 0 {
		msg = fmt.Sprintf("another writer moved the branch on %d of %d attempts (GitHub's rate limit refused the others)", n-d.refusals, n)
	}
	return d.host.Error(Failure{Kind: kind.Conflict, Err: errors.New(msg), Head: d.lastHead, Attempts: n,
		Hint: "raise the attempt limit (WithRetries) or spread the writers out"})
}

// rateLimited is the ErrRateLimited of a work whose last attempt (of
// attempts) GitHub's rate limit refused, asking to wait d.wait.
func (d *Driver) rateLimited(attempts int, msg string) error {
	cause := d.limited.Err
	if inner := d.host.Cause(cause); inner != nil {
		cause = inner // a read's error, already an error of this work
	}
	wait := d.wait
	if wait >= time.Second {
		wait = wait.Round(time.Second)
	}
	return d.host.Error(Failure{Kind: kind.RateLimited, Err: fmt.Errorf("%s: %w", msg, cause), Head: d.lastHead, Attempts: attempts,
		RetryAfter: d.wait, SetRetryAfter: true,
		Hint: fmt.Sprintf("nothing was committed; wait %s before trying again, and spread the writers out", wait)})
}

// pause waits before attempt: after a lost race, as spread says; after a
// rate limit's refusal, as long as it asked.
func (d *Driver) pause(ctx context.Context, attempt int) error {
	if d.limited == nil && d.lost > 0 {
		return d.spread(ctx, attempt)
	}
	wait := max(d.cfg.Backoff(d.contention(attempt)), d.wait)
	d.wait = 0
	d.host.Debug(ctx, "backing off", "repo", d.cfg.Repo, "branch", d.cfg.Branch, "attempt", attempt, "wait", wait)
	return d.cfg.Sleep(ctx, wait)
}

// watchful marks ctx as a contended attempt's (see contended) after a
// lost race, or on a busy branch, where the attempt first yields (see
// Yield).
func (d *Driver) watchful(ctx context.Context, hr Head, turn *turn, started time.Time) context.Context {
	switch {
	case d.lost > 0:
		return contended(ctx, nil) // a race was lost: look before writing
	case hr.Busy && !(turn.Granted && turn.Queued):
		// The branch is busy: look before writing, after a yield. (Not
		// when this attempt waited for its turn: the fresh head is then
		// most likely a writer's of this machine, which took its turn
		// first; the turns keep this machine's writers apart.)
		return contended(ctx, func(ctx context.Context) {
			d.yielded = max(d.cfg.Backoff(Contention{Attempt: 1, Lost: d.took(started), Writes: d.attemptWrites()}), 0)
			_ = d.cfg.Sleep(ctx, d.yielded)
		})
	}
	return ctx
}

// attempt makes one attempt.
func (d *Driver) attempt(ctx context.Context, attempt int) Outcome {
	d.observe(Event{Kind: EventAttempt, Attempt: attempt, Changes: d.w.Size()})
	d.limited, d.yielded, d.booked = nil, 0, 0
	turn := d.takeTurn(ctx)
	d.held = turn
	defer func() { turn.Release(); d.held = nil }()
	started := time.Now()
	// A stretched attempt is a lost attempt: the pacer's wait for the
	// attempt's writes comes before it reads the head, and they then go
	// back to back.
	ctx, release := ghclient.ReserveWrites(ctx, d.attemptWrites())
	defer release()
	var held ghclient.Tally // the waits of the head read, the booking's among them
	hr, err := d.Head(ghclient.WithTally(ctx, &held), attempt)
	d.booked = held.Waited()
	switch {
	case err != nil:
		return d.refusedOr(err, attempt)
	case hr.Reread:
		return Outcome{Kind: Reread}
	}
	head, tree, creating := hr.Head, hr.Tree, hr.Creating
	if d.settled(ctx, head, attempt) || d.settledOneWrite(ctx, head, attempt) {
		return Outcome{Kind: Landed}
	}
	if d.cfg.ExpectHead != "" && head != d.cfg.ExpectHead {
		return Fail(d.host.Error(Failure{Kind: kind.Conflict, Err: fmt.Errorf("head is %s, expected %s", kind.Short(head), kind.Short(d.cfg.ExpectHead)), Head: head}))
	}
	d.lastHead = head
	ctx = d.watchful(ctx, hr, turn, started)
	if len(d.cfg.Cands) > 0 {
		if o, handled := d.oneWrite(ctx, head, tree, creating, attempt, started); handled {
			return o
		}
		creating = creating && !d.created
	}
	b, err := d.w.Build(ctx, head, tree, attempt)
	switch {
	case err != nil:
		return d.refusedOr(err, attempt)
	case b.Moved:
		d.movedTo = b.Head
		d.lostRace(ctx, head, attempt, started)
		if b.Unsent {
			return Outcome{Kind: LostUnsent}
		}
		return Outcome{Kind: Lost}
	case b.Gone:
		return Outcome{Kind: Landed}
	case b.Tip == head && !creating:
		d.landed(b.Tip, attempt, d.created)
		return Outcome{Kind: Landed}
	}
	return d.move(ctx, head, b.Tip, creating, attempt, started)
}

// took is how long the running attempt has taken since started, less the
// time it yielded and the time its requests were held back in the
// transport before it read the head (the pacer's hold on its writes,
// booked with ReserveWrites; a rate-limit window): the time in which
// another writer could move the branch under it, which the spread after a
// lost race is measured in. A slot stretched by a 1.5 s hold of the pacer
// made a 16-writer wait 8 s long. A wait after the head read is part of
// it: the attempt is stretched, and a machine whose write budget its
// other processes spent (machine.go) holds each write of an attempt up to
// a minute — left out, 64 processes of one machine raced on slots of a
// second and spent the hour's 500 writes in six minutes.
func (d *Driver) took(started time.Time) time.Duration {
	return max(time.Since(started)-d.yielded-d.booked, time.Millisecond)
}

// attemptWrites is how many writes an attempt sends when nothing is
// uploaded (the engine's Writes): one through a one-write engine; else a
// tree and a commit per commit built, and the ref update. None in a dry
// run.
func (d *Driver) attemptWrites() int {
	switch {
	case d.cfg.DryRun:
		return 0
	case len(d.cfg.Cands) > 0:
		return d.cfg.Cands[0].Writes(d.w.Size(), d.cfg.Squash)
	}
	return d.cfg.Engine.Writes(d.w.Size(), d.cfg.Squash)
}

// refusedOr turns a rate-limit refusal into a wait before the next attempt
// and any other error into the work's error.
func (d *Driver) refusedOr(err error, attempt int) Outcome {
	var re *rest.Refused
	if !errors.As(err, &re) {
		// A secondary limit on a read or an object write, once the
		// transport's own retries ran out: wait it out like one on the ref.
		_ = errors.As(rest.Refusal("", err), &re)
	}
	if re != nil {
		d.wait = re.Wait
		if re.Bare {
			d.wait = max(d.wait, d.cfg.SecondaryFloor)
		}
		d.limited = re
		d.refusals++
		d.observe(Event{Kind: EventRateLimitWait, Attempt: attempt, Wait: d.wait})
		d.host.Debug(context.Background(), "write refused by a rate limit", "repo", d.cfg.Repo, "branch", d.cfg.Branch, "wait", d.wait)
		if most := d.cfg.MaxLimitWait; d.wait > most {
			// The transport fails a read with such a wait at once; so
			// does the commit loop, instead of sleeping it out.
			return Fail(d.rateLimited(attempt, fmt.Sprintf("GitHub's rate limit asks to wait %s, longer than the %s this client waits (ghclient.RateLimits.MaxWait)", d.wait.Round(time.Second), most)))
		}
		return Outcome{Kind: Wait}
	}
	if d.host.Owns(err) {
		return Fail(err)
	}
	return Fail(d.errAt(err, d.lastHead, attempt))
}

// observe reports e, on the work's branch, to the work's observers.
func (d *Driver) observe(e Event) {
	e.Branch = d.cfg.Branch
	d.host.Observe(e)
}

func (d *Driver) errAt(err error, head string, attempts int) error {
	return d.host.Error(Failure{Err: err, Head: head, Attempts: attempts})
}

// observeWaits returns ctx carrying a hook through which the HTTP layer
// reports each wait it makes a request of this work do (a rate-limit
// window, the write pacer) as an Event, with the attempt *at is at.
func (d *Driver) observeWaits(ctx context.Context, at *atomic.Int64) context.Context {
	if !d.host.ObservesWaits() {
		return ctx
	}
	changes := d.w.Size()
	return ghclient.WithWaitNotify(ctx, func(w ghclient.Wait) {
		k := EventRateLimitWait
		if w.Kind == ghclient.WaitPacer {
			k = EventWritePaced
		}
		d.observe(Event{Kind: k, Attempt: int(at.Load()), Wait: w.Duration, Changes: changes})
	})
}

// takeTurn waits until no other writer that shares the turns is in an
// attempt at the branch (see committer.WithTurns); the waits of all the
// attempts of one commit or batch add up to at most a minute. A dry run
// takes no turn.
func (d *Driver) takeTurn(ctx context.Context) *turn {
	if d.cfg.DryRun || d.cfg.Turns == nil {
		return &turn{}
	}
	if d.turns == nil {
		d.turns = &turnWriter{turns: d.cfg.Turns, maxWait: d.cfg.TurnWait}
	}
	t := d.turns.Take(ctx, d.cfg.TurnKey)
	switch {
	case !t.Granted:
		d.host.Debug(ctx, "racing without a turn", "repo", d.cfg.Repo, "branch", d.cfg.Branch, "waited", t.Waited, "error", t.Err)
	case t.Waited > time.Millisecond:
		d.host.Debug(ctx, "waited for a turn", "repo", d.cfg.Repo, "branch", d.cfg.Branch, "waited", t.Waited)
	}
	return t
}
