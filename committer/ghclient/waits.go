package ghclient

import (
	"context"
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
	if fn, _ := ctx.Value(waitNotifyKey{}).(func(Wait)); fn != nil {
		fn(w)
	}
}
