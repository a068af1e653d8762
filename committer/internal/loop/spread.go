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
// (Contention, the Backoff's input), and listens while it waits: it watches
// the branch with conditional reads (a 304 spends none of the primary rate
// limit), and an engine whose attempt sends several writes starts only
// once the branch has been quiet for about one attempt's duration (see
// spread). The attempt that follows looks at the branch again before each
// write (Contended), so a writer that starts with another loses a read or
// a tree, not a ref update.

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
// lands); the branch's ref is read again after each step of the wait, and
// the Backoff's wait, for the contention seen, is counted down
// by the time that passed. How a busy step (the head moved during it)
// counts depends on what a collision costs, the writes of one attempt:
//
//   - One write (GraphQL, contents, auto): a busy step counts in full and
//     the attempt may start right after it. Such an attempt looks at the
//     branch just before its one write (see Contended), so starting behind
//     another writer costs a read, not a write; waiting for quiet would
//     leave the branch idle a slot per landing. The steps grow with what
//     is left of the wait (half of it, at least a slot): a few reads per
//     wait, not one per slot, and none after the last step, which ends
//     the wait whatever it would hear.
//   - Several writes (Git Data's tree, commit and ref): a busy step counts
//     a 1/writes part of its time, and the attempt starts only after a
//     quiet step, so that writers that drew different waits start in
//     different quiet slots instead of all at once when the branch goes
//     quiet; while much of the wait is left it listens every other slot.
//
// The attempt that follows reads the head itself, after the pacer's wait
// for its writes, so that they go back to back on a fresh head.
func (d *Driver) spread(ctx context.Context, attempt int) error {
	d.moves++ // the race just lost
	slot := max(d.lost, time.Millisecond)
	writes := time.Duration(max(d.attemptWrites(), 1))
	seen := d.movedTo // the lost attempt's own look, when it made one
	d.movedTo = ""
	// Unknown: the race was lost at the write itself, so the head moved
	// from the one the attempt read; the wait's first read learns where
	// to (a one-write engine counts that step in full either way, so it
	// needs no read of its own to start from).
	unknown := seen == "" && writes == 1
	if seen == "" && !unknown {
		tip, ok := d.cfg.Refs.Tip(ctx, d.cfg.Branch)
		if !ok {
			tip = d.lastHead
		}
		seen = tip
	}
	// A race lost before any write is not an attempt; its wait is the second's.
	left := max(d.cfg.Backoff(d.contention(max(attempt, 2))), d.wait)
	d.wait = 0
	d.host.Debug(ctx, "backing off", "repo", d.cfg.Repo, "branch", d.cfg.Branch, "attempt", attempt, "wait", left, "slot", slot, "moves seen", d.moves)
	for range maxListen {
		step := slot
		switch {
		case writes == 1:
			step = max(slot, left/2)
		case left >= 3*slot:
			step = 2 * slot
		}
		// Jittered a little, so that listeners do not read in lockstep.
		if err := d.cfg.Sleep(ctx, step*7/8+time.Duration(rand.Int64N(int64(step/4)+1))); err != nil {
			return err
		}
		if writes == 1 && left <= step {
			// Spent whatever a read would hear: the attempt reads the
			// head after the pacer's wait (ghclient.ReserveWrites).
			return nil
		}
		head, ok := d.cfg.Refs.Tip(ctx, d.cfg.Branch)
		if !ok {
			return nil // it cannot be told: the compare-and-swap decides
		}
		if unknown {
			unknown, seen = false, head // the move lost to, counted above
		}
		if head != seen {
			seen = head
			d.moves++
			if left -= step / writes; left <= 0 && writes == 1 {
				return nil
			}
			continue
		}
		if left -= step; left <= 0 {
			return nil
		}
	}
	return nil
}
