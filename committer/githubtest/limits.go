package githubtest

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/limits"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/rest"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/state"
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
func (s *Server) enter(r *http.Request, route string, id state.Identity) (int, func()) {
	return s.lim.Enter(id.Token, clientOf(r), countsAsWrite(r, route), s.now())
}

// secondaryLimit enforces the secondary limits; it writes the limited reply
// and returns false when the request is over one.
func (s *Server) secondaryLimit(w http.ResponseWriter, r *http.Request, route string, id state.Identity, inflight int) bool {
	if !s.lim.On {
		return true
	}
	wait, over := s.lim.Secondary(id.Token, r.Method, route, countsAsWrite(r, route), s.now(), inflight)
	if !over {
		return true
	}
	s.writeSecondary(w, r, id, wait, countsAsWrite(r, route))
	return false
}

// writeSecondary answers with GitHub's secondary-rate-limit reply.
func (s *Server) writeSecondary(w http.ResponseWriter, r *http.Request, id state.Identity, wait time.Duration, write bool) {
	status, secs := s.lim.Limited(id.Token, clientOf(r), s.now(), wait, write)
	if secs > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(secs))
	}
	wire.WriteError(w, r, status, msgSecondary, docSecondary)
}

// noteInjected records a rate-limit reply that an injected fault sent.
func (s *Server) noteInjected(r *http.Request, route string, id state.Identity, f *Fault) {
	s.lim.NoteInjected(id.Token, clientOf(r), s.now, countsAsWrite(r, route), f.Status, f.Body, f.Header.Get("Retry-After"))
}

// chargeMutation is the hook for the GraphQL handler: call it once the
// request is known to be a mutation. It counts the request as a
// content-creating write and charges the mutation's extra points; when the
// token is over a limit it writes the secondary-limit reply and returns
// false, and the handler must stop.
func (s *Server) chargeMutation(w http.ResponseWriter, r *http.Request) bool {
	id := wire.IdentOf(r)
	wait, over := s.lim.ChargeMutation(id.Token, clientOf(r), r.Method, s.now())
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

const (
	routeRateLimit   = "GET /rate_limit"
	routeAccessToken = "POST /app/installations/{installation_id}/access_tokens"
	routeInstall     = "GET /repos/{owner}/{repo}/installation"
)

// bearer returns the credential of the Authorization header.
func bearer(r *http.Request) string {
	a := r.Header.Get("Authorization")
	for _, p := range []string{"token ", "Token ", "Bearer ", "bearer "} {
		if strings.HasPrefix(a, p) {
			return strings.TrimSpace(a[len(p):])
		}
	}
	return ""
}

// authenticate checks the credentials of a request.
func (s *Server) authenticate(r *http.Request, route string) (state.Identity, bool) {
	if route == routeAccessToken || route == routeInstall {
		return wire.DefaultIdentity(""), true // JWT, checked by the handler
	}
	tok := bearer(r)
	s.mu.Lock()
	it, isInst := s.tokens[tok]
	s.mu.Unlock()
	if isInst && tok != "" {
		if !s.now().Before(it.expires) {
			return state.Identity{}, false
		}
		login := "fake-app-" + strconv.FormatInt(it.appID, 10) + "[bot]"
		return state.Identity{Token: tok, Installation: it.installationID, Login: login, Name: login,
			Email:  strconv.FormatInt(it.appID, 10) + "+" + login + "@users.noreply.github.com",
			UserID: it.appID}, true
	}
	if s.token != "" && tok != s.token {
		return state.Identity{}, false
	}
	return wire.DefaultIdentity(tok), true
}

// rateResource is the X-RateLimit-Resource a route draws on.
func rateResource(route string) string {
	if limits.IsGraphQLRoute(route) {
		return "graphql"
	}
	return "core"
}

// rateLimit counts the request and sets the X-RateLimit headers. It writes
// a 403 (or, with WithLimits, 403 or 429) and returns false when the primary
// limit is exhausted.
func (s *Server) rateLimit(w http.ResponseWriter, r *http.Request, route string, id state.Identity) bool {
	now := s.now()
	res := rateResource(route)
	limit := s.lim.PrimaryLimit()
	used, reset, exhausted := s.lim.CountPrimary(id.Token+"\x00"+res, now, route != routeRateLimit)
	setRateHeaders(w.Header(), limit, used, reset, res)
	if route == routeRateLimit || (!exhausted && used <= limit) {
		return true
	}
	msg := "API rate limit exceeded for user ID " + strconv.FormatInt(id.UserID, 10) + "."
	if id.Installation != 0 {
		msg = "API rate limit exceeded for installation ID " + strconv.FormatInt(id.Installation, 10) + "."
	}
	status := s.lim.NotePrimary(id.Token, clientOf(r), now, countsAsWrite(r, route))
	wire.WriteError(w, r, status, msg, docPrimary)
	return false
}

func setRateHeaders(h http.Header, limit, used int, reset time.Time, res string) {
	h.Set("X-RateLimit-Limit", strconv.Itoa(limit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(max(limit-used, 0)))
	h.Set("X-RateLimit-Used", strconv.Itoa(used))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(reset.Unix(), 10))
	h.Set("X-RateLimit-Resource", res)
}

// uncount gives back the primary-limit request a 304 reply took ("Making a
// conditional request does not count against your primary rate limit if a
// 304 response is returned") and rewrites the headers.
func (s *Server) uncount(h http.Header, route string, id state.Identity) {
	now := s.now()
	res := rateResource(route)
	used, reset := s.lim.Uncount(id.Token+"\x00"+res, now)
	setRateHeaders(h, s.lim.PrimaryLimit(), used, reset, res)
}

// ExhaustRateLimit makes every request (except GET /rate_limit) fail with
// the primary rate-limit 403 until Now() >= reset.
func (s *Server) ExhaustRateLimit(reset time.Time) {
	s.lim.ExhaustUntil(reset)
}

func (s *Server) handleRateLimit(w http.ResponseWriter, r *http.Request) {
	now := s.now()
	id := wire.IdentOf(r)
	limit := s.lim.PrimaryLimit()
	used, reset, _ := s.lim.CountPrimary(id.Token+"\x00core", now, false)
	gUsed, gReset := s.lim.Peek(id.Token+"\x00graphql", now)
	core := obj{"limit": limit, "used": used, "remaining": max(limit-used, 0),
		"reset": reset.Unix(), "resource": "core"}
	other := func(limit int, name string) obj {
		return obj{"limit": limit, "used": 0, "remaining": limit, "reset": now.Add(time.Hour).Unix(), "resource": name}
	}
	wire.WriteJSON(w, r, http.StatusOK, obj{
		"resources": obj{"core": core, "search": other(30, "search"),
			"graphql": obj{"limit": limit, "used": gUsed, "remaining": max(limit-gUsed, 0),
				"reset": gReset.Unix(), "resource": "graphql"},
			"integration_manifest": other(5000, "integration_manifest"), "code_search": other(10, "code_search")},
		"rate": core,
	})
}

// Defaults of WithTreeTimeout and WithTreeEntryTimeout.
//
// GitHub's create-tree timeout grows with the content sent inline: users
// measured payloads above about 2.5 MB (200-250 files with inline content)
// answered with this 422 or a 502, and chunks under 2.5 MB all going
// through (codesandbox/codesandbox-client#8614, 2024); other reports by file
// count (ir-engine PR #647: "~200 or more files";
// qoomon/actions--create-commit#90, which then chunked at 100) all sent
// content inline. So the fake counts inline content and inline entries:
// DefaultTreeTimeoutBytes bytes of content (decoded, as GitHub stores it)
// and DefaultTreeTimeoutEntries entries with a content field.
//
// A cap on every entry, those carrying only a SHA (or a null SHA, a delete)
// included, stays as a modelled guess: no report measures a tree request of
// SHA-only entries timing out, but GitHub still has to write every path
// into the trees above it. DefaultTreeTimeoutAllEntries is about 0.6 MB of
// such entries.
const (
	DefaultTreeTimeoutEntries    = 250
	DefaultTreeTimeoutBytes      = 2_500_000
	DefaultTreeTimeoutAllEntries = 5000
)

var defaultTreeLimits = rest.TreeLimits{InlineEntries: DefaultTreeTimeoutEntries, InlineBytes: DefaultTreeTimeoutBytes, Entries: DefaultTreeTimeoutAllEntries}

// WithTreeTimeout sets when POST git/trees answers GitHub's timeout 422 for
// its inline content: when more than entries tree entries carry a content
// field, or their contents add up to more than bytes bytes. 0 turns that
// measure off. The defaults are DefaultTreeTimeoutEntries and
// DefaultTreeTimeoutBytes. Entries that carry only a SHA are capped by
// WithTreeEntryTimeout.
func WithTreeTimeout(entries int, bytes int64) Option {
	return func(s *Server) {
		s.treeMax.InlineEntries = max(entries, 0)
		s.treeMax.InlineBytes = max(bytes, 0)
	}
}

// WithTreeEntryTimeout sets how many entries of any kind (inline content,
// a SHA, or a null SHA) a POST git/trees may carry before it answers
// GitHub's timeout 422; 0 never. The default is
// DefaultTreeTimeoutAllEntries.
func WithTreeEntryTimeout(entries int) Option {
	return func(s *Server) { s.treeMax.Entries = max(entries, 0) }
}
