package loop

import (
	"context"
	"errors"
	"time"

	pubturns "github.com/ghcommitter/ghcommitter/committer/turns"
)

// DefaultMaxWait is how long a work waits for turns in all, over all its
// attempts, before it races without waiting: longer than an attempt takes,
// even paced at github.com's 80 writes a minute, so that a writer stuck in
// its turn (or a waiter never picked: a file lock is not fair) delays the
// others at most that long.
const DefaultMaxWait = time.Minute

// ErrWaitSpent is why a work races without waiting once its waits for
// turns, over all its attempts, add up to its longest wait.
var ErrWaitSpent = errors.New("waited for turns as long as a writer may: racing")

// turn is one attempt's turn at the branch, or none (the writer races).
type turn struct {
	held pubturns.Turn
	// Waited is how long the take waited; Granted is false when the
	// writer races instead (the wait ran out, ctx ended, or the turns
	// could not be had: Err says why). Queued: another writer held the
	// turn when the take began.
	Waited  time.Duration
	Granted bool
	Queued  bool
	Err     error
}

// Release ends the turn; it may be called more than once, and on a turn
// not granted.
func (t *turn) Release() {
	if t.held != nil {
		t.held.Release()
		t.held = nil
	}
}

// turnWriter is one work's turns over all of its attempts at a key: the
// waits of its takes add up to at most maxWait (DefaultMaxWait when
// 0), so a holder that never lets go delays a work once, not on every
// attempt. Once the wait is spent, take returns at once with
// ErrWaitSpent.
type turnWriter struct {
	turns   pubturns.Turns
	maxWait time.Duration
	waited  time.Duration
}

// Take waits for key's turn for what is left of the writer's wait.
func (w *turnWriter) Take(ctx context.Context, key pubturns.Key) *turn {
	limit := w.maxWait
	if limit <= 0 {
		limit = DefaultMaxWait
	}
	left := limit - w.waited
	if left <= 0 {
		return &turn{Err: ErrWaitSpent}
	}
	start := time.Now()
	tctx, cancel := context.WithTimeout(ctx, left)
	defer cancel()
	held, err := w.turns.Take(tctx, key)
	t := &turn{Waited: time.Since(start)}
	w.waited += t.Waited
	if err != nil && tctx.Err() != nil && ctx.Err() == nil {
		w.waited = limit // the wait ran out: whatever the clock says, it is spent
	}
	switch {
	case err != nil:
		if held != nil { // an implementation that returned both
			held.Release()
		}
		t.Err = err
	case held == nil:
		t.Err = errors.New("the turns granted no turn")
	default:
		t.held, t.Granted, t.Queued = held, true, held.Queued()
	}
	return t
}
