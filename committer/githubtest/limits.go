package githubtest

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/limits"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/wire"
)

// Limits are the per-token rate limits a Server enforces when they are
// turned on with WithLimits. They emerge from load: every request is counted
// in sliding windows per token, and a request over a limit gets GitHub's
// 403 or 429 reply. Zero fields are not enforced.
//
// Measured or documented by GitHub (docs.github.com, "Rate limits for the
// REST API" and its secondary-rate-limit reusable; see
// testdata/github-api/BEHAVIOUR.md section 3): the counts (5,000 requests an
// hour; 80 content-creating requests a minute and 500 an hour; 900 points a
// minute per REST endpoint, a GET costing 1 point and a POST, PATCH, PUT or
// DELETE 5; 2,000 points a minute for GraphQL, a mutation costing 5; 100
// concurrent requests), the statuses (403 or 429), the bodies and
// documentation URLs, the X-RateLimit-* headers, that retry-after is
// sometimes present and sometimes not, and that a 304 does not count
// against the primary limit.
//
// Modelled guesses (GitHub does not say): every POST, PATCH, PUT and DELETE
// (and every GraphQL mutation) is content-creating; windows slide rather
// than reset on the minute; requests refused by a secondary limit consume no
// budget; the endpoint of the points budget is the route pattern (method and
// path template); retry-after, when sent, is the time until the window that
// refused the request has room again (at least 1 s); which of 403 or 429 is
// sent, and whether retry-after is, is drawn from a PRNG seeded with Seed.
//
// See the fields in committer/githubtest/internal/limits.
type Limits = limits.Limits

// RetryAfterMode says when a rate-limited reply carries a retry-after header.
type RetryAfterMode = limits.RetryAfterMode

const (
	// RetryAfterSometimes sends it on some replies and not others, drawn
	// from the Seed (as GitHub does: "may" include it).
	RetryAfterSometimes RetryAfterMode = limits.RetryAfterSometimes
	// RetryAfterAlways sends it on every secondary-limit reply.
	RetryAfterAlways RetryAfterMode = limits.RetryAfterAlways
	// RetryAfterNever never sends it.
	RetryAfterNever RetryAfterMode = limits.RetryAfterNever
)

// LimitStats counts what one token sent and what the rate limits answered.
type LimitStats = limits.LimitStats

// GitHubLimits are github.com's documented limits for one token.
var GitHubLimits = Limits{
	Primary: 5000, ContentPerMinute: 80, ContentPerHour: 500, PointsPerMinute: 900,
	GraphQLPointsPerMinute: 2000, Concurrent: 100, Scale: 1,
}

// WithLimits turns on emergent rate limits. The default enforces only the
// primary limit of 5,000 requests an hour per token, with no secondary
// limits (which tests can still inject with SecondaryRateLimit).
func WithLimits(l Limits) Option {
	return func(s *Server) { s.lim.Configure(l) }
}

// clientOf names the client of a request for WritesInOwnRetryAfter.
func clientOf(r *http.Request) string { return r.Header.Get("X-Githubtest-Client") }

// countsAsWrite reports whether a request is content-creating. The
// installation-token exchange is authenticated by a JWT, not a token.
func countsAsWrite(r *http.Request, route string) bool {
	if route == routeAccessToken || limits.IsGraphQLRoute(route) {
		return false
	}
	return limits.IsWrite(r.Method)
}

// enter counts a request in flight for token and returns how many are in
// flight including it, and a func that ends it.
func (s *Server) enter(r *http.Request, route string, id identity) (int, func()) {
	return s.lim.Enter(id.token, clientOf(r), countsAsWrite(r, route), s.now())
}

// secondaryLimit enforces the secondary limits; it writes the limited reply
// and returns false when the request is over one.
func (s *Server) secondaryLimit(w http.ResponseWriter, r *http.Request, route string, id identity, inflight int) bool {
	if !s.lim.On {
		return true
	}
	wait, over := s.lim.Secondary(id.token, r.Method, route, countsAsWrite(r, route), s.now(), inflight)
	if !over {
		return true
	}
	s.writeSecondary(w, r, id, wait, countsAsWrite(r, route))
	return false
}

// writeSecondary answers with GitHub's secondary-rate-limit reply.
func (s *Server) writeSecondary(w http.ResponseWriter, r *http.Request, id identity, wait time.Duration, write bool) {
	status, secs := s.lim.Limited(id.token, clientOf(r), s.now(), wait, write)
	if secs > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(secs))
	}
	wire.WriteError(w, r, status, msgSecondary, docSecondary)
}

// noteInjected records a rate-limit reply that an injected fault sent.
func (s *Server) noteInjected(r *http.Request, route string, id identity, f *Fault) {
	s.lim.NoteInjected(id.token, clientOf(r), s.now, countsAsWrite(r, route), f.Status, f.Body, f.Header.Get("Retry-After"))
}

// chargeMutation is the hook for the GraphQL handler: call it once the
// request is known to be a mutation. It counts the request as a
// content-creating write and charges the mutation's extra points; when the
// token is over a limit it writes the secondary-limit reply and returns
// false, and the handler must stop.
func (s *Server) chargeMutation(w http.ResponseWriter, r *http.Request) bool {
	id := identOf(r)
	wait, over := s.lim.ChargeMutation(id.token, clientOf(r), r.Method, s.now())
	if over {
		s.writeSecondary(w, r, id, wait, true)
	}
	return !over
}

// LimitStats returns the counters of one token ("" for requests without
// one).
func (s *Server) LimitStats(token string) LimitStats { return s.lim.Stats(token) }

// AllLimitStats returns the counters of every token, keyed by TokenID.
func (s *Server) AllLimitStats() map[string]LimitStats { return s.lim.AllStats() }

// TokenID names a token without revealing it: "none" for no token, else
// "tok-" and 8 hex digits of its FNV-1a hash.
func TokenID(token string) string { return limits.TokenID(token) }

// routeLimitStats serves AllLimitStats as JSON at GET /_githubtest/limits
// (not a GitHub route: for black-box tests and benchmarks).
const routeLimitStats = "GET /_githubtest/limits"

func (s *Server) handleLimitStats(w http.ResponseWriter, _ *http.Request) {
	b, _ := json.Marshal(s.AllLimitStats())
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	_, _ = w.Write(b)
}
