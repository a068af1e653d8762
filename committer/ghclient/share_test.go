package ghclient

import (
	"context"
	"net/http"
	"testing"
	"time"
)

// A sign of other writers halves the pacer's share of the budget (rate and
// burst), down to a sixteenth; it grows back by an eighth a minute.
func TestShareCutAndRecovered(t *testing.T) {
	resetRegistry()
	s := sharedFor("share-test", "", 1)
	p := paceConfig{perMinute: 80, burst: 8, minute: time.Minute}
	t0 := time.Unix(1_800_000_000, 0)
	s.cut(t0, p.minute, minShare)
	// Half: a burst of 4, then one every 1.5s.
	var got []time.Duration
	for range 6 {
		got = append(got, s.reserve(t0, p).Sub(t0))
	}
	want := []time.Duration{0, 0, 0, 0, 1500 * time.Millisecond, 3 * time.Second}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("slots after one cut: %v, want %v", got, want)
		}
	}
	for range 10 {
		s.cut(t0, p.minute, minShare)
	}
	s.mu.Lock()
	floor := s.shareLocked(t0, p.minute)
	later := s.shareLocked(t0.Add(4*time.Minute), p.minute)
	whole := s.shareLocked(t0.Add(8*time.Minute), p.minute)
	s.mu.Unlock()
	if floor != minShare || later != minShare+0.5 || whole != 1 {
		t.Fatalf("share: %v after many cuts (want %v), %v four minutes on (want %v), %v eight minutes on (want 1)", floor, minShare, later, minShare+0.5, whole)
	}
}

// A lost race reported on an attempt's context (LostRace) slows the
// pacer of that context's client. Alone, after a burst and a reservation
// given back, the time the reservation waited has earned three writes at
// once; once told, the same three writes are spaced (three quarters of the
// rate and of the burst).
func TestLostRaceSlowsThePacer(t *testing.T) {
	spread := map[bool]time.Duration{}
	for _, lost := range []bool{false, true} {
		resetRegistry()
		clock := newFakeClock()
		ghs, log := paceSetup(t, clock, 1)
		gh := ghs[0]
		writeBlobs(t, ghs, 8) // the burst
		ctx, release := ReserveWrites(context.Background(), 3)
		if _, _, err := gh.Git.GetRef(ctx, "o", "r", "heads/main"); err != nil {
			t.Fatal(err)
		}
		if lost {
			LostRace(ctx)
		}
		release()
		writeBlobs(t, ghs, 3)
		at := log.get("POST /repos/o/r/git/blobs " + fakeToken)[8:]
		if len(at) != 3 {
			t.Fatalf("%d writes", len(at))
		}
		spread[lost] = at[2].Sub(at[0])
	}
	if spread[false] != 0 || spread[true] < 750*time.Millisecond {
		t.Errorf("three writes spread over %v alone (want 0) and %v after a lost race (want at least 750ms)", spread[false], spread[true])
	}
	LostRace(context.Background()) // no reservation: nothing to slow
}

// A secondary rate limit's answer halves the pacer's share too: after it,
// the writes of the same client go further apart than without it.
func TestSecondaryLimitSlowsThePacer(t *testing.T) {
	spread := map[bool]time.Duration{}
	for _, limited := range []bool{false, true} {
		resetRegistry()
		clock := newFakeClock()
		fake, ghs, log := paceFake(t, clock, 1)
		writeBlobs(t, ghs, 8) // the burst
		if limited {
			fake.SecondaryRateLimit("POST /repos/{owner}/{repo}/git/blobs", 1, 1)
		}
		writeBlobs(t, ghs, 4)
		at := log.get("POST /repos/o/r/git/blobs " + fakeToken)
		last := at[len(at)-3:]
		spread[limited] = last[2].Sub(last[0])
	}
	if spread[true] <= spread[false] {
		t.Errorf("the last writes spread over %v after a secondary limit, %v without: want more after it", spread[true], spread[false])
	}
}

// TestWritesWithinIsWhatThePacerSends: WritesWithin(d) is exactly how many
// writes the pacer would book before d from now — the n-th goes out by
// then and the next does not — idle, after a burst, at a cut share, and at
// a limit scale.
func TestWritesWithinIsWhatThePacerSends(t *testing.T) {
	defer resetRegistry()
	for _, tc := range []struct {
		name  string
		scale float64
		sent  int  // writes booked before asking
		cut   bool // a lost race halved the pacer's share
	}{
		{"idle", 1, 0, false},
		{"after a burst", 1, 10, false},
		{"far behind", 1, 40, false},
		{"cut share", 1, 3, true},
		{"scaled", 60, 12, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resetRegistry()
			clock := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
			opts := []Option{WithToken("tok"), WithBaseURL("http://127.0.0.1:1/"), withNow(clock.Now),
				WithRateLimits(RateLimits{Pacing: &Pacing{PerMinute: 60, Burst: 8}})}
			if tc.scale != 1 {
				opts = append(opts, withLimitScale(tc.scale))
			}
			hc, err := NewHTTPClient(context.Background(), opts...)
			if err != nil {
				t.Fatal(err)
			}
			l := hc.Transport.(*layered)
			p := l.o.pace()
			st := sharedFor(l.key(&http.Request{Header: http.Header{}}), l.o.machineDir(l.base), l.o.limitScale)
			now := clock.Now()
			for range tc.sent {
				st.reserve(now, p)
			}
			if tc.cut {
				st.cut(now, p.minute, minShareLost)
			}
			const d = 15 * time.Second
			n, ok := WritesWithin(hc, d)
			if !ok {
				t.Fatal("pacing is on, WritesWithin says it is not")
			}
			horizon := now.Add(time.Duration(float64(d) / tc.scale))
			for i := range n + 1 {
				slot := st.reserve(now, p)
				if i < n && slot.After(horizon) {
					t.Fatalf("write %d of the %d said to go within %v goes at +%v", i+1, n, d, slot.Sub(now))
				}
				if i == n && !slot.After(horizon) {
					t.Fatalf("write %d goes at +%v, within %v: WritesWithin said %d", i+1, slot.Sub(now), d, n)
				}
			}
		})
	}
	off, err := NewHTTPClient(context.Background(), WithToken("tok"), WithRateLimits(RateLimits{Pacing: &Pacing{}}))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := WritesWithin(off, time.Second); ok {
		t.Error("pacing off: WritesWithin answered")
	}
	if _, ok := WritesWithin(&http.Client{}, time.Second); ok {
		t.Error("a client of another package: WritesWithin answered")
	}
}

// Lost races alone cut the share once, to three quarters, and no further:
// they say that others write, not that the budget runs out. A secondary
// limit cuts on down to a sixteenth, and a lost race then does not raise
// it.
func TestLostRacesCutToThreeQuartersOnly(t *testing.T) {
	resetRegistry()
	s := sharedFor("share-lost-test", "", 1)
	p := paceConfig{perMinute: 80, burst: 8, minute: time.Minute}
	t0 := time.Unix(1_800_000_000, 0)
	share := func() float64 {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.shareLocked(t0, p.minute)
	}
	for range 5 {
		s.cut(t0, p.minute, minShareLost)
	}
	if got := share(); got != 0.75 {
		t.Fatalf("share after five lost races: %v, want 0.75", got)
	}
	for range 5 {
		s.cut(t0, p.minute, minShare)
	}
	s.cut(t0, p.minute, minShareLost)
	if got := share(); got != minShare {
		t.Fatalf("share after secondary limits and a lost race: %v, want %v", got, minShare)
	}
}
