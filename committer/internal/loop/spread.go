package loop

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/internal/ghgraphql"
)

// Writers that share nothing but GitHub (separate machines, separate
// clusters) learn of each other only through the branch: a lost race says
// that another writer landed, and the branch's head, read again, says
// whether others are still landing. After a lost race the work spreads its
// next attempt over a window that grows with the contention it has seen
// (Contention, the Backoff's input). An engine whose attempt sends several
// writes listens while it waits: it watches the branch with conditional
// reads (a 304 spends none of the primary rate limit) and starts only once
// the branch has been quiet for about one attempt's duration; a one-write
// engine listens once, just before its write (see spread). The attempt
// that follows looks at the branch again before its first write and
// alongside the others (Contended), so a writer that starts with another
// loses a read or a tree, seldom a ref update.

// Contention is what a work knows, before an attempt after a lost race,
// of the writers it races.
type Contention struct {
	// Attempt is the attempt about to be made: 2, 3, …; or 1, for the
	// first attempt on a busy branch, before its first write (see Yield).
	Attempt int
	// Lost is how long the last lost attempt took, from reading the head
	// to learning it lost, less the time its requests waited in the
	// transport (Driver.took); for Attempt 1, how long it took so far.
	Lost time.Duration
	// Landed counts the moves of the branch the work has seen since it
	// first read it: one per lost race, one per move heard while it
	// listened (engines of several writes; see spread), and half of those
	// a one-write engine's next path query listed (see countMoves).
	Landed int
	// Writes is how many writes the attempt sends (Engine.Writes): what
	// two writers that start it together can lose, up to all but one of
	// them; 0 when it sends none (a dry run).
	Writes int
}

// maxListen bounds the reads of one wait: past them the attempt is made
// anyway (the compare-and-swap decides, as always).
const maxListen = 16

// contention is the work's Contention before attempt.
func (d *Driver) contention(attempt int) Contention {
	return Contention{Attempt: attempt, Lost: d.lost, Landed: d.moves, Writes: d.attemptWrites()}
}

// spread waits before attempt after a lost race, the Backoff's wait for
// the contention seen. How it waits depends on what a collision costs, the
// writes of one attempt:
//
//   - One write (GraphQL, contents, auto): see waitOneWrite. Its attempt
//     reads the head and looks at the branch again just before its one
//     write (see Contended), so starting behind another writer costs the
//     attempt's reads, not a write.
//   - Several writes (Git Data's tree, commit and ref): it listens. Time
//     passes in slots of one lost attempt's duration (the time in which
//     another writer's attempt lands); the branch's ref is read after each
//     step, and the wait is counted down by the time that passed, a busy
//     step (the head moved during it) by a 1/writes part of it. The
//     attempt starts only after a quiet step, so that writers that drew
//     different waits start in different quiet slots instead of all at
//     once when the branch goes quiet. It reads every slot (every other
//     slot while much of the wait was left heard a landing later: 16
//     writers on separate machines landed in 8.8 to 10.1 s, against 8.0
//     to 9.8 s reading every slot). Each move heard counts as contention,
//     and four quiet slots in a row end the wait (quietStart).
//
// Either way the wait covers the pacer's hold on the next attempt's
// writes (Config.PacerWait) and listens at its end, not before it. The
// attempt that follows reads the head itself, so that its writes go back
// to back on a fresh head.
func (d *Driver) spread(ctx context.Context, attempt int) error {
	d.moves++ // the race just lost
	slot := max(d.lost, time.Millisecond)
	writes := time.Duration(max(d.attemptWrites(), 1))
	seen := d.movedTo // the lost attempt's own look, when it made one
	d.movedTo = ""
	// A race lost before any write is not an attempt; its wait is the second's.
	left := max(d.cfg.Backoff(d.contention(max(attempt, 2))), d.wait)
	d.wait = 0
	// The pacer would hold the attempt back before its head read anyway:
	// the wait covers that instead of coming on top of it, and its end,
	// where it listens, is right before the head read.
	paced := d.pacerWait(int(writes))
	left = max(left, paced)
	d.host.Debug(ctx, "backing off", "repo", d.cfg.Repo, "branch", d.cfg.Branch, "attempt", attempt, "wait", left, "slot", slot, "moves seen", d.moves, "paced", paced)
	if writes == 1 {
		// The next attempt's path query counts the moves since.
		d.countFrom, d.countedOne = seen, false
		if seen == "" {
			d.countFrom, d.countedOne = d.lastHead, true
		}
		return d.waitOneWrite(ctx, left, slot, seen, paced)
	}
	return d.listen(ctx, left, slot, writes, seen, paced)
}

// listen is the wait, left, of an engine of several writes (see spread)
// after an attempt of duration slot that saw the branch at seen ("" when
// it lost at the ref update, which does not say where the branch went).
func (d *Driver) listen(ctx context.Context, left, slot, writes time.Duration, seen string, paced time.Duration) error {
	if seen == "" {
		// Lost at the ref update: the head moved from the one the attempt
		// read, to one the wait listens from.
		tip, ok := d.cfg.Refs.Tip(ctx, d.cfg.Branch)
		if !ok {
			tip = d.lastHead
		}
		seen = tip
	}
	if deaf := paced - quietStart*slot; deaf > 0 {
		// The pacer's part of the wait, but its last quiet slots: no
		// listen can end it early.
		if err := d.cfg.Sleep(ctx, deaf); err != nil {
			return err
		}
		left -= deaf
	}
	var quiet time.Duration // since the branch last moved, as heard
	for range maxListen {
		step := slot
		// Jittered a little, so that listeners do not read in lockstep.
		if err := d.cfg.Sleep(ctx, step*7/8+time.Duration(rand.Int64N(int64(step/4)+1))); err != nil {
			return err
		}
		head, ok := d.cfg.Refs.Tip(ctx, d.cfg.Branch)
		if !ok {
			return nil // it cannot be told: the compare-and-swap decides
		}
		if head != seen {
			seen, quiet = head, 0
			d.moves++
			left -= step / writes
			continue
		}
		quiet += step
		if left -= step; left <= 0 || quiet >= quietStart*slot {
			d.host.Debug(ctx, "listened: attempting now", "repo", d.cfg.Repo, "branch", d.cfg.Branch, "left", left, "quiet", quiet, "moves seen", d.moves)
			return nil
		}
	}
	return nil
}

// pacerWait is how long the write pacer would now hold an attempt of n
// writes back (Config.PacerWait).
func (d *Driver) pacerWait(n int) time.Duration {
	if d.cfg.PacerWait == nil {
		return 0
	}
	return max(d.cfg.PacerWait(n), 0)
}

// quietStart is how many slots of a quiet branch end a wait early: its
// other writers have landed or thinned out, and the rest of a wait drawn
// for the contention of before would leave the branch idle.
const quietStart = 4

// waitOneWrite is a one-write engine's wait, left, after an attempt of
// duration slot. Reads while waiting would only count moves, which the
// next attempt's path query counts at no cost (see countMoves), and they
// cost more than they save (measured at 64 writers on separate machines:
// 12 to 13 reads per landed change with a read every half of the wait
// left, 9.5 to 10 with none, and 1.2 to 1.3 writes per landed change
// either way). So it listens only in a wait over eight slots, every four
// slots, up to oneWriteListens times: a branch that has not moved since
// it last saw it starts the attempt at once — its other writers have
// landed or thinned out, and the rest of a wait drawn for the contention
// of before would leave the branch idle (it was the last writers' landing
// time: a writer that had seen 14 moves lost its last race and drew 2.8 s,
// with the branch quiet throughout). Else it sleeps the wait through. A
// race lost at the write does not say where the branch went: one read
// learns it first. The first listen comes no earlier than the pacer's
// hold on the attempt's write (paced) would end.
func (d *Driver) waitOneWrite(ctx context.Context, left, slot time.Duration, seen string, paced time.Duration) error {
	first := max(quietStart*slot, paced) // no listen ends the pacer's part
	if left <= first+quietStart*slot {
		// A listen would save less than its quiet slots: not worth a read.
		return d.cfg.Sleep(ctx, left)
	}
	if seen == "" {
		tip, ok := d.cfg.Refs.Tip(ctx, d.cfg.Branch)
		if !ok {
			return d.cfg.Sleep(ctx, left)
		}
		seen = tip
	}
	for i := 0; ; i++ {
		if err := d.cfg.Sleep(ctx, first); err != nil {
			return err
		}
		left -= first
		head, ok := d.cfg.Refs.Tip(ctx, d.cfg.Branch)
		if ok && head == seen {
			d.host.Debug(ctx, "the branch went quiet: attempting now", "repo", d.cfg.Repo, "branch", d.cfg.Branch)
			return nil
		}
		if !ok || i+1 >= oneWriteListens || left <= 2*quietStart*slot {
			return d.cfg.Sleep(ctx, left)
		}
		seen, first = head, quietStart*slot
	}
}

// oneWriteListens bounds the listens of a one-write engine's wait.
// Measured at 16 writers on separate machines (GitHub's limits scaled 60×):
// one listen left the branch idle for the rest of a wait whose listen had
// heard one last move (the last writers landed 3.8 to 5.7 s after the
// start); three, 3.7 to 4.6 s, at 9.4 reads per landed change at 64
// writers instead of 8.8; sixteen did no better, and spent more writes.
const oneWriteListens = 3

// countMoves adds to the moves seen (Contention.Landed) those of the
// branch since the head the work last knew of before its wait (see
// spread), as the attempt's path query saw them (look lists the head's
// latest commits), at no request of their own. They count half: the moves
// of a wait say how busy the branch was, not how many writers are left
// (those that landed are gone), and in full they made the last writers'
// windows too wide (measured at 16 writers on separate machines: the last
// landed 1.2 to 1.8 times as late as 47ea148's instead of 0.9 to 1.4);
// without them, 64 writers that start at once spread too little once
// their attempts are quick (up to 1.7 writes and 17 reads per landed
// change instead of 1.2 to 1.3 and 11 to 12).
func (d *Driver) countMoves(look *ghgraphql.RefLook) {
	from, one := d.countFrom, d.countedOne
	d.countFrom = ""
	if from == "" {
		return
	}
	n, ok := look.Since(from)
	if !ok && n == 0 {
		return // no look was made
	}
	if one {
		n-- // the move the race was lost to, counted already
	}
	d.moves += max(n, 0) / 2
}
