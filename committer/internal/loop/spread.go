package loop

import (
	"context"
	"math/rand/v2"
	"time"
)

// Writers that share nothing but GitHub (separate machines, separate
// clusters) learn of each other only through the branch: a lost race says
// that another writer landed, and the branch's head, read again, says
// whether others are still landing. After a lost race the work spreads its
// next attempt over a window that grows with the contention it has seen
// (Contention, the Backoff's input), then listens before it talks: it
// watches the branch with conditional reads of its ref (a 304 spends none
// of the primary rate limit) and starts only once the branch has been
// quiet for about one attempt's duration, waiting again while it moves.
// The attempt that follows looks at the branch again before each write
// (Contended), so a writer that starts with another loses a tree, not a
// ref update.

// Contention is what a work knows, before an attempt after a lost race,
// of the writers it races.
type Contention struct {
	// Attempt is the attempt about to be made: 2, 3, …; or 1, for the
	// first attempt on a busy branch, before its first write (see Yield).
	Attempt int
	// Lost is how long the last lost attempt took, from reading the head
	// to learning it lost; for Attempt 1, how long the attempt took so far.
	Lost time.Duration
	// Landed counts the moves of the branch the work has seen since it
	// first read it: one per lost race, and one per move seen while it
	// listened.
	Landed int
}

// maxListen bounds the reads of one wait: past them the attempt is made
// anyway (the compare-and-swap decides, as always).
const maxListen = 16

// contention is the work's Contention before attempt.
func (d *Driver) contention(attempt int) Contention {
	return Contention{Attempt: attempt, Lost: d.lost, Landed: d.moves}
}

// spread waits before attempt after a lost race. Time passes in slots of
// one lost attempt's duration (the time in which another writer's attempt
// lands); after each slot the branch's ref is read again. The Backoff's
// wait, for the contention seen, is counted only in quiet slots (the head
// did not move during the slot); a busy slot counts a move and freezes the
// count, so that writers that drew different waits start in different
// quiet slots instead of all at once when the branch goes quiet. The
// attempt starts after the wait is spent and at least one quiet slot.
func (d *Driver) spread(ctx context.Context, attempt int) error {
	d.moves++ // the race just lost
	slot := max(d.lost, time.Millisecond)
	seen := d.movedTo // the lost attempt's own look, when it made one
	d.movedTo = ""
	if seen == "" {
		tip, ok := d.cfg.Refs.Tip(ctx, d.cfg.Branch)
		if !ok {
			tip = d.lastHead
		}
		seen = tip
	}
	// A race lost before any write does not count as an attempt, but the
	// wait after it is a wait after a lost race: at least the second's.
	left := max(d.cfg.Backoff(d.contention(max(attempt, 2))), d.wait)
	d.wait = 0
	d.host.Debug(ctx, "backing off", "repo", d.cfg.Repo, "branch", d.cfg.Branch, "attempt", attempt, "wait", left, "slot", slot, "moves seen", d.moves)
	for range maxListen {
		// While much of the wait is left, listen every other slot: half
		// the reads, and a move still freezes the count within two.
		step := slot
		if left >= 3*slot {
			step = 2 * slot
		}
		// Each step is jittered a little, so that listeners do not
		// read in lockstep.
		if err := d.cfg.Sleep(ctx, step*7/8+time.Duration(rand.Int64N(int64(step/4)+1))); err != nil {
			return err
		}
		head, ok := d.cfg.Refs.Tip(ctx, d.cfg.Branch)
		if !ok {
			return nil // it cannot be told: the compare-and-swap decides
		}
		if head != seen {
			seen = head
			d.moves++ // busy: the wait is not counted down
			continue
		}
		if left -= step; left <= 0 {
			return nil
		}
	}
	return nil
}
