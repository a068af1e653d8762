package ghclient

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-github/v66/github"
)

// TestReserveWritesBackToBack: once the burst is spent, an attempt of a
// head read and 3 writes without a reservation is stretched over 2.25 s
// (the writes 750ms apart); with ReserveWrites(3) the wait comes before
// the read and the 3 writes then go at once, right after it. The
// reservation still keeps the pacer's budget: the next write waits as long
// as it would have after 3 paced writes. A Tally on the context sums the
// waits either way.
func TestReserveWritesBackToBack(t *testing.T) {
	for _, reserve := range []bool{false, true} {
		resetRegistry()
		clock := newFakeClock()
		ghs, log := paceSetup(t, clock, 1)
		gh := ghs[0]
		writeBlobs(t, ghs, 8) // the burst
		t0 := clock.Now()
		// WritesWait foretells the reservation's wait, and books nothing.
		for range 2 {
			if w, ok := WritesWait(gh.Client(), 3); !ok || w != 3*750*time.Millisecond {
				t.Fatalf("WritesWait(3) = %v, %v; want 2.25s", w, ok)
			}
		}
		var tally Tally
		ctx := WithTally(context.Background(), &tally)
		release := func() {}
		if reserve {
			ctx, release = ReserveWrites(ctx, 3)
		}
		if _, _, err := gh.Git.GetRef(ctx, "o", "r", "heads/main"); err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			if _, _, err := gh.Git.CreateBlob(ctx, "o", "r", &github.Blob{Content: github.String("x"), Encoding: github.String("utf-8")}); err != nil {
				t.Fatalf("write %d: %v", i, err)
			}
		}
		release()
		read := log.get("GET /repos/o/r/git/ref/heads/main " + fakeToken)
		at := log.get("POST /repos/o/r/git/blobs " + fakeToken)[8:]
		if len(read) != 1 || len(at) != 3 {
			t.Fatalf("reserve %v: %d reads, %d writes", reserve, len(read), len(at))
		}
		if reserve {
			if want := t0.Add(3 * 750 * time.Millisecond); !read[0].Equal(want) {
				t.Errorf("reserved: the read went at +%v, want +2.25s (when the 3 writes can go back to back)", read[0].Sub(t0))
			}
			for i, a := range at {
				if !a.Equal(read[0]) {
					t.Errorf("reserved: write %d went +%v after the read, want at once", i, a.Sub(read[0]))
				}
			}
		} else {
			if !read[0].Equal(t0) {
				t.Errorf("unreserved: the read waited %v", read[0].Sub(t0))
			}
			if d := at[2].Sub(at[0]); d != 1500*time.Millisecond {
				t.Errorf("unreserved: the 3 writes spread over %v, want 1.5s (paced 750ms apart)", d)
			}
		}
		// The clock moves only in the transport's waits: the tally's
		// Waited is all the time the 4 requests took.
		if w := tally.Waited(); w != at[2].Sub(t0) || tally.Requests() != 4 || tally.Writes() != 3 {
			t.Errorf("reserve %v: tally %d requests, %d writes, waited %v; want 4, 3, %v", reserve, tally.Requests(), tally.Writes(), w, at[2].Sub(t0))
		}
		writeBlobs(t, ghs, 1)
		next := log.get("POST /repos/o/r/git/blobs " + fakeToken)[11]
		if d := next.Sub(at[2]); d != 750*time.Millisecond {
			t.Errorf("reserve %v: the next write went %v after the last, want 750ms", reserve, d)
		}
	}
}

// TestReserveWritesReleased: slots booked and not taken (an attempt that
// stopped before its writes) are given back: the next write goes when it
// would have without the reservation. Taken ones are not.
func TestReserveWritesReleased(t *testing.T) {
	resetRegistry()
	clock := newFakeClock()
	ghs, log := paceSetup(t, clock, 1)
	gh := ghs[0]
	writeBlobs(t, ghs, 8)
	t0 := clock.Now()
	ctx, release := ReserveWrites(context.Background(), 3)
	if _, _, err := gh.Git.GetRef(ctx, "o", "r", "heads/main"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := gh.Git.CreateBlob(ctx, "o", "r", &github.Blob{Content: github.String("x"), Encoding: github.String("utf-8")}); err != nil {
		t.Fatal(err)
	}
	release() // two slots unused
	release() // twice is harmless
	writeBlobs(t, ghs, 1)
	at := log.get("POST /repos/o/r/git/blobs " + fakeToken)[8:]
	if len(at) != 2 {
		t.Fatalf("%d writes", len(at))
	}
	// The reservation waited until +2.25s, when 3 writes could go.
	if got := at[0].Sub(t0); got != 2250*time.Millisecond {
		t.Fatalf("the reserved write went at +%v, want +2.25s", got)
	}
	// Given back, the two unused slots leave the next write free to go
	// at once (kept, they would hold it back another 750ms).
	if d := at[1].Sub(at[0]); d != 0 {
		t.Errorf("after the release the next write waited %v, want none", d)
	}
}
