package ghclient

import (
	"context"
	"sync/atomic"
	"time"
)

// WaitKind says what held a request back.
type WaitKind int

const (
	// WaitRateLimit means a rate-limit window of the request's credential (a
	// reply's Retry-After or reset, or the least wait after a bare
	// secondary limit) was not over yet.
	WaitRateLimit WaitKind = iota + 1
	// WaitPacer means the write pacer spaced this credential's writes
	// (RateLimits.Pacing).
	WaitPacer
)

func (k WaitKind) String() string {
	switch k {
	case WaitRateLimit:
		return "rate limit"
	case WaitPacer:
		return "write pacer"
	}
	return "unknown"
}

// Wait is one wait of a request, before it is sent, that the transport
// chose: see WithWaitNotify.
type Wait struct {
	Kind      WaitKind
	Secondary bool          // WaitRateLimit: a secondary limit's window
	Method    string        // the request's method
	Route     string        // its path, relative to the API's base URL
	Duration  time.Duration // how long it waits
}

type waitNotifyKey struct{}

// WithWaitNotify returns a context whose requests report, through fn and
// before they start, each wait the transport makes them do: a rate-limit
// window (the limit gate owns every such wait, also those of writes a
// caller retries) or the write pacer. fn runs on the request's goroutine
// and must not block. A wait longer than RateLimits.MaxWait is no wait:
// the request fails at once with a *RateLimitError.
func WithWaitNotify(ctx context.Context, fn func(Wait)) context.Context {
	return context.WithValue(ctx, waitNotifyKey{}, fn)
}

func notifyWait(ctx context.Context, w Wait) {
	ts, _ := ctx.Value(tallyKey{}).([]*Tally)
	for _, t := range ts {
		t.waited.Add(int64(w.Duration))
	}
	if fn, _ := ctx.Value(waitNotifyKey{}).(func(Wait)); fn != nil {
		fn(w)
	}
}

// Tally counts the requests sent on a context that carries it (WithTally):
// each one sent to GitHub, a retry too, and of them the writes (as GitHub
// counts them for its secondary limits: see Pacing); and the time they were
// held back before being sent (the waits WithWaitNotify reports). Its
// methods are safe for concurrent use.
type Tally struct {
	requests, writes, waited atomic.Int64
}

// Waited is the sum of the waits the transport made the requests do before
// sending them: rate-limit windows and the write pacer (see Wait). Waits
// of requests sent concurrently add up, so it can exceed the wall time.
func (t *Tally) Waited() time.Duration { return time.Duration(t.waited.Load()) }

// Requests is how many requests were sent, writes included.
func (t *Tally) Requests() int { return int(t.requests.Load()) }

// Writes is how many of them were writes.
func (t *Tally) Writes() int { return int(t.writes.Load()) }

type tallyKey struct{}

// WithTally returns a context whose requests are counted in t, and in
// every Tally ctx already counts in.
func WithTally(ctx context.Context, t *Tally) context.Context {
	outer, _ := ctx.Value(tallyKey{}).([]*Tally)
	return context.WithValue(ctx, tallyKey{}, append(outer[:len(outer):len(outer)], t))
}

// countSent counts a request about to be sent in ctx's tallies; write
// tells whether it is a write (asked only when there is a tally).
func countSent(ctx context.Context, write func() bool) {
	ts, _ := ctx.Value(tallyKey{}).([]*Tally)
	if len(ts) == 0 {
		return
	}
	w := write()
	for _, t := range ts {
		t.requests.Add(1)
		if w {
			t.writes.Add(1)
		}
	}
}
