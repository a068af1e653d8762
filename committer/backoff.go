package committer

import (
	"math/rand/v2"
	"time"
)

// Backoff returns how long to wait, after a lost race for the branch,
// before the next attempt, given what the commit has seen of the writers
// it races; and, with Attempt 1, how long the first attempt on a busy
// branch waits before its first write. How the wait is counted while the
// branch moves depends on the engine (see WithRetries).
type Backoff func(Contention) time.Duration

// Contention is what a commit knows, before an attempt after a lost race,
// of the writers it races.
type Contention struct {
	// Attempt is the attempt about to be made: 2, 3, …; or 1, for the
	// first attempt on a busy branch (its head was committed by another
	// writer within the last 10 seconds), just before its first write.
	Attempt int
	// Lost: how long the last lost attempt took from reading the head to
	// learning it lost, less its waits for the pacer; for Attempt 1, so far.
	Lost time.Duration
	// Landed counts the moves of the branch the commit has seen since it
	// first read it: each lost race, each move Git Data heard while it
	// listened, half of those a one-write engine's next lookup listed.
	Landed int
	// Writes is how many writes the attempt sends (see WithEngine): what
	// two writers that start it together can lose; 0 in a dry run.
	Writes int
}

// ExponentialBackoff waits a random duration between 0 and
// min(ceiling, base·2^(attempt-2)) before attempt ("full jitter"), so
// writers that collided spread out instead of colliding again.
func ExponentialBackoff(base, ceiling time.Duration) Backoff {
	return func(c Contention) time.Duration {
		if c.Attempt < 2 || base <= 0 {
			return 0
		}
		ceil := base
		for i := 2; i < c.Attempt && ceil < ceiling; i++ {
			ceil *= 2
		}
		return jitter(min(ceil, ceiling))
	}
}

// AdaptiveBackoff spreads the next attempt over a window that grows with
// the contention seen: a random duration between 0 and
// min(ceiling, k·slot·(1+Landed)·2^(Attempt-2)), where the slot is the
// duration of the attempt that lost (at least floor) and k is 2 for an
// attempt of one write, 4 for one of several (Writes) — on average one
// slot (two) for each move of the branch seen, doubled for each race lost
// at a write. Writers collide for as long as an attempt takes, so that is
// the unit to spread them by, whether requests take 25ms (a local fake) or
// a second (GitHub under load); the more moves of the branch a writer has
// seen, the more writers it shares it with; and the more writes an
// attempt sends, the more two writers that start together lose. (Measured
// on separate machines, GitHub's limits scaled 60×: for one write, k of 1
// let the last of 16 writers land sooner, 1.1 times as late as 47ea148's
// instead of 1.4, but spread 64 too little: 1.81 to 1.89 writes and 16.3
// reads per landed change, against 1.4 to 1.5 and 12; for Git Data's
// three writes, k of 2 spent 4.2 to 4.4 writes per landed change at 16
// writers, 4 spent 4.0 to 4.1 with the last writer 0.5 s later, and 6 no
// fewer than 4 and 1.2 s later.) Before the first write of a first attempt on a busy branch
// (Attempt 1) it waits a random part of four times what the attempt took
// so far, so that writers that started together (a matrix's jobs) stop
// being in lockstep. Measured in BENCHMARKS.md (writers on separate
// machines).
func AdaptiveBackoff(floor, ceiling time.Duration) Backoff {
	return func(c Contention) time.Duration {
		switch {
		case c.Attempt == 1:
			return jitter(min(ceiling, 4*c.Lost))
		case c.Attempt < 2:
			return 0
		}
		k := time.Duration(2)
		if c.Writes > 1 {
			k = 4
		}
		w := k * max(floor, c.Lost) * time.Duration(1+max(c.Landed, 0))
		for i := 2; i < c.Attempt && w < ceiling; i++ {
			w *= 2
		}
		return jitter(min(ceiling, w))
	}
}

// jitter is a random duration between 0 and ceil ("full jitter").
func jitter(ceil time.Duration) time.Duration {
	if ceil <= 0 {
		return 0
	}
	return time.Duration(rand.Int64N(int64(ceil) + 1))
}
