package ghclient

import (
	"context"
	"time"
)

// The pacer hears the others. A process's pacer spends GitHub's write
// budget (80 a minute, 500 an hour per credential) as if it were alone;
// writers on other machines that share the token spend the same budget,
// and nothing tells a process about them but what GitHub answers. Two
// answers say that others are there: a secondary rate limit, and a lost
// race for a branch (LostRace, from the commit loop). Each cuts the
// process's share of the budget in half — the pacer's rate and its burst
// — down to a sixteenth (multiplicative decrease); the share grows back by
// an eighth of the whole for every minute without such a sign (additive
// increase). No write ever goes out inside a window the process was told:
// the share only ever slows the pacer down.

// minShare is the least share of the write budget a pacer keeps.
const minShare = 1.0 / 16

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

// cut halves the pacer's share of the write budget at now.
func (s *shared) cut(now time.Time, minute time.Duration) {
	s.mu.Lock() // the pacer is the process's own: no machine state
	defer s.mu.Unlock()
	s.share = max(s.shareLocked(now, minute)/2, minShare)
	s.shareAt = now
}

// LostRace tells the pacer that paces ctx's writes (a ReserveWrites
// context whose first request was sent) that another writer moved the
// branch first: others spend the credential's budget too, so the pacer's
// share of it is cut in half (see the package's "pacer hears the others").
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
		st.cut(now(), minute)
	}
}
