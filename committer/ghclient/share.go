package ghclient

import (
	"context"
	"math"
	"net/http"
	"slices"
	"time"
)

// The pacer hears the others. A process's pacer spends GitHub's write
// budget (80 a minute, 500 an hour per credential) as if it were alone;
// writers on other machines that share the token spend the same budget,
// and nothing tells a process about them but what GitHub answers. Two
// answers say that others are there: a secondary rate limit, and a lost
// race for a branch (LostRace, from the commit loop). A secondary limit
// halves the process's share of the budget — the pacer's rate and its
// burst (multiplicative decrease) — down to a sixteenth; a lost race cuts
// it to three quarters only: it says that others write, not that the
// budget runs out. Cut deeper on lost races alone, the pacer held back the
// very writers that had lost, at github.com's own pacing: a sixteenth (5
// writes a minute) made 16 writers on separate machines wait up to a
// minute, longer than clone + rebase + push; a half (a burst of 4, a write
// every 1.5 s) still held each of their later attempts 2.4 to 3.9 s (16
// writers landed in 8.6 to 12.2 s; 5.7 to 7.5 s at three quarters, and
// GitHub's limits scaled 60× refused none of the writes of 16 or 64
// writers either way). The share grows back by an eighth of the whole for
// every minute without such a sign (additive increase). No write ever goes
// out inside a window the process was told: the share only ever slows the
// pacer down.

// minShare is the least share of the write budget a pacer keeps;
// minShareLost, the least a lost race alone brings it to.
const (
	minShare     = 1.0 / 16
	minShareLost = 3.0 / 4
)

// shareLocked is the pacer's share of the write budget at now, given the
// pacer's minute (scaled by testseam.Seams.LimitScale). Caller holds s.mu.
func (s *shared) shareLocked(now time.Time, minute time.Duration) float64 {
	if s.share == 0 || minute <= 0 {
		return 1
	}
	f := s.share + float64(now.Sub(s.shareAt))/float64(minute)/8
	if f >= 1 {
		s.share = 0
		return 1
	}
	return f
}

// cut halves the pacer's share of the write budget at now, but not below
// floor (minShare or minShareLost); a share already below floor stays.
func (s *shared) cut(now time.Time, minute time.Duration, floor float64) {
	s.mu.Lock() // the pacer is the process's own: no machine state
	defer s.mu.Unlock()
	cur := s.shareLocked(now, minute)
	s.share = min(cur, max(cur/2, floor))
	s.shareAt = now
}

// LostRace tells the pacer that paces ctx's writes (a ReserveWrites
// context whose first request was sent) that another writer moved the
// branch first: others spend the credential's budget too, so the pacer's
// share of it is cut to three quarters (see the package's "pacer hears
// the others").
// Without such a context, or with pacing off, it does nothing.
func LostRace(ctx context.Context) {
	r := reservationOf(ctx)
	if r == nil {
		return
	}
	r.mu.Lock()
	st, minute, now := r.st, r.minute, r.now
	r.mu.Unlock()
	if st != nil && now != nil {
		st.cut(now(), minute, minShareLost)
	}
}

// WritesWithin says how many writes the pacer of hc's credential would
// let go out from now until d from now (d in GitHub's time: shortened as
// the client's windows are by its limit scale), after the writes already
// booked; ok is false when hc is not a client of this package or its
// pacing is off. It books nothing. The hourly cap is not counted: it is
// the answer of the pacer's steady rate and burst (and its share of the
// budget: see the package's "pacer hears the others").
func WritesWithin(hc *http.Client, d time.Duration) (n int, ok bool) {
	l, p, st, ok := pacerOf(hc)
	if !ok {
		return 0, false
	}
	now := l.o.now()
	horizon := now.Add(time.Duration(float64(d) * float64(p.minute) / float64(time.Minute)))
	st.mu.Lock()
	defer st.mu.Unlock()
	interval, burst := st.gcraLocked(now, p)
	if interval <= 0 {
		return 0, false
	}
	// GCRA (see reserveLocked): the k-th next write goes out at
	// max(now, T + (k-burst+1)·interval), T the later of now and the
	// theoretical arrival time.
	t := later(st.tat, now)
	k := math.Floor(float64(horizon.Sub(t))/float64(interval)) + float64(burst)
	return int(max(k, 0)), true
}

// WritesWait says how long a caller may wait before a ReserveWrites(ctx,
// n) of hc's credential without its writes going out any later: a booking
// made now would hold its first request back until n writes (at most the
// pacer's burst) could go back to back, after the writes already booked;
// waiting first covers that hold but for the spacing that a burst smaller
// than n needs however long the pacer was idle (its share of the budget
// cut: see the package's "pacer hears the others"), which the booking
// still waits. ok is false when hc is not a client of this package or its
// pacing is off. It books nothing. The commit loop makes the wait it
// spreads its attempts by after a lost race cover it, instead of waiting
// the pacer's hold on top.
func WritesWait(hc *http.Client, n int) (wait time.Duration, ok bool) {
	l, p, st, ok := pacerOf(hc)
	if !ok || n < 1 {
		return 0, false
	}
	n = min(n, max(p.burst, 1))
	wait = st.bookWait(l.o.now(), p, n)
	// Then the machine's record, which the booking waits for too.
	if now, at := st.roomAt(l.o.now, p, n); at.After(now) {
		wait = max(wait, at.Sub(now))
	}
	return wait, true
}

// bookWait is WritesWait's answer for the process's own pacer at now.
func (s *shared) bookWait(now time.Time, p paceConfig, n int) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	// Book on the pacer's state, then put it back as it was.
	tat, sent := s.tat, slices.Clone(s.sent)
	var last time.Time
	for range n {
		last = s.reserveLocked(now, p)
	}
	s.tat, s.sent = tat, sent
	interval, burst := s.gcraLocked(now, p)
	return max(last.Sub(now)-time.Duration(max(n-burst, 0))*interval, 0)
}

// pacerOf is hc's layers, pacing and the state its credential's writes
// are paced on; ok is false when hc is not a client of this package or
// its pacing (per minute) is off.
func pacerOf(hc *http.Client) (l *layered, p paceConfig, st *shared, ok bool) {
	if hc == nil {
		return nil, p, nil, false
	}
	if l, ok = hc.Transport.(*layered); !ok {
		return nil, p, nil, false
	}
	if p = l.o.pace(); p.perMinute <= 0 {
		return nil, p, nil, false
	}
	return l, p, sharedFor(l.key(&http.Request{Header: http.Header{}}), l.o.machineDir(l.base), l.o.limitScale), true
}
