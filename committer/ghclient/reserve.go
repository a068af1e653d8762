package ghclient

import (
	"context"
	"slices"
	"sync"
	"time"
)

// A stretched attempt is a lost attempt: when the pacer spaces the writes
// of one commit attempt (tree, commit, ref update) over seconds, another
// writer moves the branch in between and every write of the attempt is
// spent for nothing. ReserveWrites lets the caller book an attempt's
// writes up front, so that the pacer's wait comes before the attempt's
// first request (before it reads the head) and its writes then go back to
// back.

// ReserveWrites returns a context whose first request through a client of
// this package books n write slots of its credential's pacer at once. That
// request waits until all n writes could be sent back to back (the wait is
// reported as a WaitPacer, see WithWaitNotify), whatever it is: a read of
// the head that the writes depend on, typically. The next n writes of the
// context then take the booked slots without waiting again; any write past
// them is paced as usual. release gives back the slots not taken (an
// attempt that stopped before its writes), so that they do not hold later
// writes back; it must be called once the context's requests are done.
//
// n is capped at the pacer's burst: more writes than that cannot go back to
// back. With n < 1, pacing off or no request made, ReserveWrites does
// nothing.
func ReserveWrites(ctx context.Context, n int) (_ context.Context, release func()) {
	if n < 1 {
		return ctx, func() {}
	}
	r := &reservation{n: n}
	return context.WithValue(ctx, reservationKey{}, r), r.release
}

type reservationKey struct{}

func reservationOf(ctx context.Context) *reservation {
	r, _ := ctx.Value(reservationKey{}).(*reservation)
	return r
}

// reservation is one ReserveWrites: booked on its first request.
type reservation struct {
	mu       sync.Mutex
	n        int
	booked   bool
	st       *shared
	interval time.Duration // the pacer's spacing when booked (GCRA)
	slots    []time.Time   // booked, not yet taken
	machine  []time.Time   // booked in the machine's record (machinebook.go), not yet taken
	// minute and now are the pacer's, for LostRace.
	minute time.Duration
	now    func() time.Time
}

// book books the reservation's slots on st, once, and returns how long
// the request must wait for them and how many it booked (0: booked
// before).
func (r *reservation) book(st *shared, p paceConfig, now time.Time) (time.Duration, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.booked {
		return 0, 0
	}
	r.booked = true
	n := r.n
	if p.perMinute > 0 {
		n = min(n, max(p.burst, 1))
	}
	r.st = st
	if p.perMinute > 0 {
		r.interval = p.minute / time.Duration(p.perMinute)
	}
	r.slots = st.reserveN(now, p, n)
	return r.slots[len(r.slots)-1].Sub(now), n
}

// take takes a booked slot for a write sent at now; false when none is
// left (the write is paced as usual).
func (r *reservation) take(st *shared, now time.Time) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.booked || r.st != st || len(r.slots) == 0 {
		return false
	}
	slot := r.slots[0]
	r.slots = r.slots[1:]
	st.retime(slot, now, r.interval)
	return true
}

// takeMachine takes a write booked in the machine's record, and says when
// it was booked there; false when none is left (the write is admitted as
// usual).
func (r *reservation) takeMachine(st *shared) (time.Time, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.st != st || len(r.machine) == 0 {
		return time.Time{}, false
	}
	at := r.machine[0]
	r.machine = r.machine[1:]
	return at, true
}

func (r *reservation) release() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.st != nil && len(r.slots) > 0 {
		r.st.unreserve(r.slots, r.interval)
	}
	if r.st != nil && len(r.machine) > 0 {
		r.st.unbook(r.machine)
	}
	r.slots, r.machine = nil, nil
}

// reserveN books n writes at once: it returns their slots, all at the
// time the last of them may be sent, so that the n writes can go back to
// back from then on.
func (s *shared) reserveN(now time.Time, p paceConfig, n int) []time.Time {
	s.mu.Lock() // the pacer is the process's own: no machine state
	defer s.mu.Unlock()
	slots := make([]time.Time, n)
	for i := range slots {
		slots[i] = s.reserveLocked(now, p)
	}
	last := slots[n-1]
	for i := range slots {
		s.retimeLocked(slots[i], last)
		slots[i] = last
	}
	return slots
}

// retime records that the write booked at slot went out at sent (later:
// the attempt read before it wrote), so that the hard caps count it when
// it was sent; the GCRA's arrival time follows a late write.
func (s *shared) retime(slot, sent time.Time, interval time.Duration) {
	if !sent.After(slot) {
		return
	}
	s.mu.Lock() // the pacer is the process's own: no machine state
	defer s.mu.Unlock()
	s.retimeLocked(slot, sent)
	if interval > 0 {
		s.tat = later(s.tat, sent.Add(interval))
	}
}

func (s *shared) retimeLocked(slot, at time.Time) {
	if i := s.lastIndex(slot); i >= 0 {
		s.sent[i] = at
		slices.SortStableFunc(s.sent, func(a, b time.Time) int { return a.Compare(b) })
	}
}

// unreserve gives back booked slots that no write took.
func (s *shared) unreserve(slots []time.Time, interval time.Duration) {
	s.mu.Lock() // the pacer is the process's own: no machine state
	defer s.mu.Unlock()
	for _, slot := range slots {
		if i := s.lastIndex(slot); i >= 0 {
			s.sent = slices.Delete(s.sent, i, i+1)
		}
		if interval > 0 {
			s.tat = s.tat.Add(-interval)
		}
	}
}

// lastIndex is the index of the latest entry of s.sent at t, or -1 (the
// entry may have been pruned).
func (s *shared) lastIndex(t time.Time) int {
	for i := len(s.sent) - 1; i >= 0; i-- {
		if s.sent[i].Equal(t) {
			return i
		}
		if s.sent[i].Before(t) {
			break
		}
	}
	return -1
}
