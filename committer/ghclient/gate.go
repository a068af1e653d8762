package ghclient

import (
	"context"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/internal/ratelimit"
)

// limitLayer holds every request of a credential back while GitHub has
// told that credential to wait (the gate), and spaces its writes (the
// pacer). Both work on the process-wide state of the request's key, so
// every client using the credential obeys a window any of them saw. It sits
// below the retry layer: each attempt passes through it.
type limitLayer struct {
	next http.RoundTripper
	o    *options
	api  apiRoot
	key  keyer
	// machine is the directory of the machine's shared rate-limit state
	// (machine.go), "" when the process keeps it alone.
	machine string
}

func (t *limitLayer) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	rel := t.api.rel(req.URL)
	st := sharedFor(t.key(req), t.machine, t.o.limitScale)
	// Whether req is a write peeks a GraphQL body: once, for the pacer
	// and the tallies both.
	write := sync.OnceValue(func() bool { return isWrite(req, rel) })
	if p := t.o.pace(); p.on() {
		r := reservationOf(ctx)
		if r != nil {
			if err := t.book(ctx, r, st, p, req.Method, rel); err != nil {
				closeBody(req)
				return nil, err
			}
		}
		if write() {
			if r == nil || !r.take(st, t.o.now()) {
				if err := t.pace(ctx, st, p, req.Method, rel); err != nil {
					closeBody(req)
					return nil, err
				}
			}
			sent, booked := time.Time{}, false
			if r != nil {
				sent, booked = r.takeMachine(st)
			}
			if !booked {
				var err error
				if sent, err = t.admit(ctx, st, p, req.Method, rel); err != nil {
					closeBody(req)
					return nil, err
				}
			}
			defer func() { st.answered(sent, t.o.now()) }()
		}
	}
	res := resourceOf(rel)
	if err := t.waitGate(ctx, st, res, req.Method, rel); err != nil {
		closeBody(req)
		return nil, err
	}
	countSent(ctx, write)
	resp, err := t.next.RoundTrip(req)
	if resp != nil {
		st.observe(resp, t.o.now(), res, t.o.secondaryFloor())
		if p := t.o.pace(); p.on() && isSecondaryRateLimit(resp) {
			st.cut(t.o.now(), p.minute, minShare) // others spend the budget too
		}
		dropSecondaryReset(resp)
	}
	return resp, err
}

// dropSecondaryReset removes x-ratelimit-reset from a secondary rate
// limit that names no Retry-After while the primary limit is not spent.
// That header is the primary window's end (up to an hour away), and
// GitHub's guidance for such a reply is to wait at least a minute; but
// go-github (v66) reads it as the secondary window's end and refuses
// every request of its client, without sending it, until then. The gate
// above already holds the credential back for the floor (observe).
func dropSecondaryReset(resp *http.Response) {
	if resp.Header.Get("Retry-After") == "" && !isPrimaryRateLimit(resp) && isSecondaryRateLimit(resp) {
		resp.Header.Del("X-Ratelimit-Reset")
	}
}

// waitGate waits until the credential's windows for res are over. A window
// ending later than RateLimits.MaxWait fails at once with a
// *RateLimitError, without sending anything.
func (t *limitLayer) waitGate(ctx context.Context, st *shared, res, method, rel string) error {
	var waited time.Time
	for range 3 { // a window may grow while we wait; never loop for ever
		now := t.o.now()
		until, secondary := st.blockedUntil(res)
		if !until.After(now) || !until.After(waited) {
			return nil
		}
		wait := until.Sub(now)
		if wait > t.o.maxRateWait {
			return &RateLimitError{Reset: until, Wait: wait, MaxWait: t.o.maxRateWait, Secondary: secondary, Method: method, Path: rel}
		}
		t.log(ctx, "github request held back by a rate-limit window", method, rel, wait)
		notifyWait(ctx, Wait{Kind: WaitRateLimit, Secondary: secondary, Method: method, Route: rel, Duration: wait})
		if err := t.o.sleep(ctx, wait); err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		waited = until
	}
	return nil
}

// pace reserves the write's slot and waits for it.
func (t *limitLayer) pace(ctx context.Context, st *shared, p paceConfig, method, rel string) error {
	now := t.o.now()
	wait := st.reserve(now, p).Sub(now)
	if wait <= 0 {
		return nil
	}
	t.log(ctx, "github write paced", method, rel, wait)
	notifyWait(ctx, Wait{Kind: WaitPacer, Method: method, Route: rel, Duration: wait})
	if err := t.o.sleep(ctx, wait); err != nil {
		return err
	}
	return ctx.Err()
}

// admit waits until the machine's record of the credential's writes leaves
// room for this one (machine.go), and records it.
func (t *limitLayer) admit(ctx context.Context, st *shared, p paceConfig, method, rel string) (time.Time, error) {
	for {
		now, at := st.admitAt(t.o.now, p)
		if !at.After(now) {
			return now, nil
		}
		wait := at.Sub(now)
		t.log(ctx, "github write held to the token's budget, which other processes of this machine spent", method, rel, wait)
		notifyWait(ctx, Wait{Kind: WaitPacer, Method: method, Route: rel, Duration: wait})
		if err := t.o.sleep(ctx, wait); err != nil {
			return time.Time{}, err
		}
		if err := ctx.Err(); err != nil {
			return time.Time{}, err
		}
	}
}

// book books a ReserveWrites reservation on its first request and waits
// until its writes can go back to back: for the process's pacer, then for
// the machine's record of the credential's writes (machine.go), whose
// budget the machine's other processes spend too — else each write of the
// attempt would wait for it in turn (admit), up to a minute each, and the
// stretched attempt lose its race.
func (t *limitLayer) book(ctx context.Context, r *reservation, st *shared, p paceConfig, method, rel string) error {
	now := t.o.now()
	wait, n := r.book(st, p, now)
	r.mu.Lock()
	r.minute, r.now = p.minute, t.o.now
	r.mu.Unlock()
	if wait > 0 {
		t.log(ctx, "github writes reserved: waiting to send them back to back", method, rel, wait)
		notifyWait(ctx, Wait{Kind: WaitPacer, Method: method, Route: rel, Duration: wait})
		if err := t.o.sleep(ctx, wait); err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	for n > 0 {
		now, at, booked := st.bookRoom(t.o.now, p, n)
		if booked {
			r.mu.Lock()
			r.machine = slices.Repeat([]time.Time{now}, n)
			r.mu.Unlock()
		}
		if !at.After(now) {
			return nil
		}
		t.log(ctx, "github writes reserved: waiting for the token's budget, which other processes of this machine spent", method, rel, at.Sub(now))
		notifyWait(ctx, Wait{Kind: WaitPacer, Method: method, Route: rel, Duration: at.Sub(now)})
		if err := t.o.sleep(ctx, at.Sub(now)); err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return nil
}

func (t *limitLayer) log(ctx context.Context, msg, method, rel string, wait time.Duration) {
	if t.o.logger == nil {
		return
	}
	t.o.logger.LogAttrs(ctx, slog.LevelDebug, msg,
		slog.String("method", method), slog.String("route", rel), slog.Duration("wait", wait))
}

// blockedUntil is when the credential may send a request for res again,
// and whether a secondary limit is what holds it.
func (s *shared) blockedUntil(res string) (time.Time, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.peek()
	p := s.primaryUntil[res]
	if s.secondaryUntil.After(p) {
		return s.secondaryUntil, true
	}
	return p, false
}

// observe opens a window from a reply, following GitHub's guidance: honour
// Retry-After; else, when x-ratelimit-remaining is 0, wait until
// x-ratelimit-reset; else, after a secondary limit, wait floor (a minute
// unless scaled). A successful reply with x-ratelimit-remaining: 0 opens
// the primary window too: the next request would be refused.
func (s *shared) observe(resp *http.Response, now time.Time, res string, floor time.Duration) {
	if ratelimit.Spent(resp.Header) {
		if reset, ok := rateReset(resp); ok {
			if r := strings.ToLower(resp.Header.Get("X-Ratelimit-Resource")); r != "" {
				res = r
			}
			s.begin()
			until := reset.Add(resetMargin)
			later := until.After(s.primaryUntil[res])
			if later {
				s.primaryUntil[res] = until
			}
			s.end(later)
		}
	}
	if !isSecondaryRateLimit(resp) {
		return
	}
	until := now.Add(floor)
	if d, ok := retryAfter(resp, now); ok {
		until = now.Add(d)
	}
	s.begin()
	later := until.After(s.secondaryUntil)
	if later {
		s.secondaryUntil = until
	}
	s.end(later)
}

// resourceOf names the primary rate limit a request counts against.
func resourceOf(rel string) string {
	switch {
	case rel == "/graphql" || strings.HasSuffix(rel, "/api/graphql"): // github.com, GHES
		return "graphql"
	case strings.HasPrefix(rel, "/search/"):
		return "search"
	}
	return "core"
}

func closeBody(req *http.Request) {
	if req.Body != nil {
		_ = req.Body.Close()
	}
}
