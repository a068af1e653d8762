package ghclient

import (
	"slices"
	"time"
)

// Booking the machine's budget. The processes of one machine share the
// credential's write budget through its record (machine.go); each write
// is admitted on its own (admit). An attempt's writes are booked there
// too, before its first request, like the process's own pacer's slots
// (ReserveWrites): otherwise each write of the attempt waits for the
// budget in turn, up to a minute, while the branch moves under it, and
// the processes that found room at once all go and hold each other's
// writes back. Measured: 64 processes of one machine, racing once their
// minute of turns was over, spent the hour's 500 writes in six minutes
// and landed little.

// roomAt is when the machine's record of the credential's writes leaves
// room for n more (at most a window's count), as admitAt decides for one:
// the write n-1 places before the one that would fill a window must have
// left it. It records nothing.
func (s *shared) roomAt(clock func() time.Time, p paceConfig, n int) (now, at time.Time) {
	now, at, _ = s.room(clock, p, n, false)
	return now, at
}

// bookRoom is roomAt, and records the n writes at now when there is room
// (booked); unbook takes back those no write took.
func (s *shared) bookRoom(clock func() time.Time, p paceConfig, n int) (now, at time.Time, booked bool) {
	return s.room(clock, p, n, true)
}

func (s *shared) room(clock func() time.Time, p paceConfig, n int, book bool) (now, at time.Time, booked bool) {
	if s.file == nil {
		now = clock()
		return now, now, false
	}
	s.begin()
	defer func() { s.end(booked) }()
	now = clock()
	at = now
	if !s.filed {
		return now, at, false
	}
	for _, w := range []struct {
		n int
		d time.Duration
	}{{p.perMinute, p.minute}, {p.perHour, p.hour}} {
		if w.n <= 0 {
			continue
		}
		if k := len(s.machineSent) - (w.n - min(n, w.n)) - 1; k >= 0 {
			if t := s.machineSent[k].Add(w.d + w.d/machineSlack); t.After(at) {
				at = t
			}
		}
	}
	if book && !at.After(now) {
		for range n {
			s.machineSent = append(s.machineSent, now) // in order: now is read under the lock
		}
		booked = true
	}
	return now, at, booked
}

// unbook takes back writes booked at the given times that no write took.
func (s *shared) unbook(at []time.Time) {
	if s.file == nil || len(at) == 0 {
		return
	}
	s.begin()
	defer s.end(s.filed)
	if !s.filed {
		return
	}
	for _, t := range at {
		for i := len(s.machineSent) - 1; i >= 0; i-- {
			if s.machineSent[i].Equal(t) {
				s.machineSent = slices.Delete(s.machineSent, i, i+1)
				break
			}
		}
	}
}
