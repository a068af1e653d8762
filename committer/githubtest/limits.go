package githubtest

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

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
type Limits struct {
	// Primary is the number of requests a token may make per PrimaryWindow
	// (X-RateLimit-Limit). 0 keeps the fake's default accounting (5,000 an
	// hour).
	Primary int
	// ContentPerMinute and ContentPerHour cap content-creating requests.
	ContentPerMinute, ContentPerHour int
	// PointsPerMinute caps the points a token spends on one REST endpoint
	// in a minute (GET 1, other methods 5).
	PointsPerMinute int
	// GraphQLPointsPerMinute caps the points a token spends on the GraphQL
	// endpoint in a minute (query 1, mutation 5).
	GraphQLPointsPerMinute int
	// Concurrent caps the requests a token has in flight at once.
	Concurrent int
	// Scale makes every window Scale times shorter (a minute becomes
	// 60/Scale seconds); the counts stay. 0 means 1. What the fake tells is
	// real time: retry-after is the real wait rounded up to whole seconds
	// (at least 1), x-ratelimit-reset the real epoch second of the scaled
	// reset, so a client honours both as sent.
	Scale float64
	// Seed seeds the choice of 403 or 429 and of sending retry-after.
	Seed uint64
	// RetryAfter says when limited replies carry retry-after.
	RetryAfter RetryAfterMode
}

// RetryAfterMode says when a rate-limited reply carries a retry-after header.
type RetryAfterMode int

const (
	// RetryAfterSometimes sends it on some replies and not others, drawn
	// from the Seed (as GitHub does: "may" include it).
	RetryAfterSometimes RetryAfterMode = iota
	// RetryAfterAlways sends it on every secondary-limit reply.
	RetryAfterAlways
	// RetryAfterNever never sends it.
	RetryAfterNever
)

// GitHubLimits are github.com's documented limits for one token.
var GitHubLimits = Limits{
	Primary: 5000, ContentPerMinute: 80, ContentPerHour: 500, PointsPerMinute: 900,
	GraphQLPointsPerMinute: 2000, Concurrent: 100, Scale: 1,
}

// WithLimits turns on emergent rate limits. The default enforces only the
// primary limit of 5,000 requests an hour per token, with no secondary
// limits (which tests can still inject with SecondaryRateLimit).
func WithLimits(l Limits) Option {
	return func(s *Server) {
		if l.Scale <= 0 {
			l.Scale = 1
		}
		s.lim.cfg = l
		s.lim.on = true
		s.lim.rnd = rand.New(rand.NewPCG(l.Seed, l.Seed^0x9e3779b97f4a7c15))
	}
}

// LimitStats counts what one token sent and what the rate limits answered.
type LimitStats struct {
	Requests int // requests authenticated with the token
	Writes   int // of which content-creating (POST, PATCH, PUT, DELETE, GraphQL mutations)
	// Limited counts requests answered 403/429 by a rate limit (emergent or
	// injected); WritesLimited the writes among them.
	Limited, WritesLimited int
	// Primary and Secondary split Limited by kind.
	Primary, Secondary int
	// WritesInRetryAfter counts writes received while a retry-after this
	// server had told the same token had not run out yet.
	WritesInRetryAfter int
	// WritesInOwnRetryAfter counts those of them sent by the client the
	// retry-after was told to, as named by the X-Githubtest-Client request
	// header (processes sharing a token cannot see each other's windows).
	// Without the header every request is one client.
	WritesInOwnRetryAfter int
	// WritesAfterBare counts writes received within one minute (scaled) of
	// a secondary-limit reply without retry-after, the least GitHub asks a
	// client to wait then.
	WritesAfterBare int
}

type tokenLimits struct {
	stats     LimitStats
	inflight  int
	content   []time.Time            // content-creating requests admitted, oldest first
	points    map[string][]pointMark // per endpoint
	toldUntil time.Time              // end of the last retry-after told
	toldTo    map[string]time.Time   // the same, per X-Githubtest-Client
	bareUntil time.Time              // one minute after the last bare secondary reply
}

type pointMark struct {
	at     time.Time
	points int
}

type limiter struct {
	on  bool
	cfg Limits
	mu  sync.Mutex
	rnd *rand.Rand
	tok map[string]*tokenLimits
}

// clientOf names the client of a request for WritesInOwnRetryAfter.
func clientOf(r *http.Request) string { return r.Header.Get("X-Githubtest-Client") }

func (l *limiter) state(token string) *tokenLimits {
	if l.tok == nil {
		l.tok = map[string]*tokenLimits{}
	}
	t := l.tok[token]
	if t == nil {
		t = &tokenLimits{points: map[string][]pointMark{}, toldTo: map[string]time.Time{}}
		l.tok[token] = t
	}
	return t
}

func (l *limiter) scale() float64 {
	if l.cfg.Scale <= 0 {
		return 1
	}
	return l.cfg.Scale
}

func (l *limiter) window(d time.Duration) time.Duration {
	return time.Duration(float64(d) / l.scale())
}

func isWrite(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return false
	}
	return true
}

// isGraphQLRoute reports whether a route is GitHub's GraphQL endpoint, whose
// requests draw on the GraphQL budgets instead of the REST ones.
func isGraphQLRoute(route string) bool {
	return strings.HasSuffix(route, "/graphql")
}

// countsAsWrite reports whether a request is content-creating. The
// installation-token exchange is authenticated by a JWT, not a token.
func countsAsWrite(r *http.Request, route string) bool {
	if route == routeAccessToken || isGraphQLRoute(route) {
		return false
	}
	return isWrite(r.Method)
}

// enter counts a request in flight for token and returns how many are in
// flight including it, and a func that ends it.
func (s *Server) enter(r *http.Request, route string, id identity) (int, func()) {
	l := &s.lim
	now := s.now()
	write := countsAsWrite(r, route)
	l.mu.Lock()
	t := l.state(id.token)
	t.inflight++
	n := t.inflight
	t.stats.Requests++
	if write {
		l.noteWrite(t, now, clientOf(r))
	}
	l.mu.Unlock()
	return n, func() {
		l.mu.Lock()
		t.inflight--
		l.mu.Unlock()
	}
}

// noteWrite counts a write and whether it came inside a told window. Caller
// holds l.mu.
func (l *limiter) noteWrite(t *tokenLimits, now time.Time, client string) {
	t.stats.Writes++
	if now.Before(t.toldUntil) {
		t.stats.WritesInRetryAfter++
	}
	if now.Before(t.toldTo[client]) {
		t.stats.WritesInOwnRetryAfter++
	}
	if now.Before(t.bareUntil) {
		t.stats.WritesAfterBare++
	}
}

// secondaryLimit enforces the secondary limits; it writes the limited reply
// and returns false when the request is over one.
func (s *Server) secondaryLimit(w http.ResponseWriter, r *http.Request, route string, id identity, inflight int) bool {
	l := &s.lim
	if !l.on {
		return true
	}
	now := s.now()
	l.mu.Lock()
	t := l.state(id.token)
	wait, over := l.check(t, r, route, now, inflight, false)
	l.mu.Unlock()
	if !over {
		return true
	}
	s.writeSecondary(w, r, id, wait, countsAsWrite(r, route))
	return false
}

// check admits a request, charging its budgets, or says how long until it
// would fit. Caller holds l.mu.
func (l *limiter) check(t *tokenLimits, r *http.Request, route string, now time.Time, inflight int, mutation bool) (time.Duration, bool) {
	c := l.cfg
	if c.Concurrent > 0 && inflight > c.Concurrent {
		return l.window(time.Second), true
	}
	write := mutation || countsAsWrite(r, route)
	cost, budget := 1, c.PointsPerMinute
	if isWrite(r.Method) && !isGraphQLRoute(route) {
		cost = 5
	}
	if isGraphQLRoute(route) {
		budget = c.GraphQLPointsPerMinute
		if mutation {
			cost = 4 // the request itself was charged 1 already
		}
	}
	var waits []time.Duration
	if write {
		t.content = prune(t.content, now.Add(-l.window(time.Hour)))
		waits = append(waits, windowWait(t.content, now, c.ContentPerMinute, l.window(time.Minute)),
			windowWait(t.content, now, c.ContentPerHour, l.window(time.Hour)))
	}
	key := route
	if isGraphQLRoute(route) {
		key = "graphql"
	}
	marks := prunePoints(t.points[key], now.Add(-l.window(time.Minute)))
	t.points[key] = marks
	waits = append(waits, pointsWait(marks, now, budget, cost, l.window(time.Minute)))
	wait := time.Duration(0)
	for _, w := range waits {
		wait = max(wait, w)
	}
	if wait > 0 {
		return wait, true
	}
	if write {
		t.content = append(t.content, now)
	}
	t.points[key] = append(marks, pointMark{at: now, points: cost})
	return 0, false
}

// windowWait is how long until one more event fits in a window of size win
// holding at most limit events (times, oldest first). 0 when it fits.
func windowWait(times []time.Time, now time.Time, limit int, win time.Duration) time.Duration {
	if limit <= 0 {
		return 0
	}
	start := now.Add(-win)
	i := 0
	for i < len(times) && !times[i].After(start) {
		i++
	}
	in := times[i:]
	if len(in) < limit {
		return 0
	}
	return in[len(in)-limit].Add(win).Sub(now)
}

func pointsWait(marks []pointMark, now time.Time, budget, cost int, win time.Duration) time.Duration {
	if budget <= 0 {
		return 0
	}
	used := 0
	for _, m := range marks {
		used += m.points
	}
	for i := 0; used+cost > budget && i < len(marks); i++ {
		used -= marks[i].points
		if used+cost <= budget {
			return marks[i].at.Add(win).Sub(now)
		}
	}
	if used+cost > budget {
		return win // more than the whole budget: never fits; say a window
	}
	return 0
}

func prune(times []time.Time, before time.Time) []time.Time {
	i := 0
	for i < len(times) && !times[i].After(before) {
		i++
	}
	return times[i:]
}

func prunePoints(marks []pointMark, before time.Time) []pointMark {
	i := 0
	for i < len(marks) && !marks[i].at.After(before) {
		i++
	}
	return marks[i:]
}

// draw picks the status and whether to send retry-after. Caller holds l.mu.
func (l *limiter) draw() (status int, sendRetryAfter bool) {
	status = http.StatusForbidden
	if l.rnd == nil {
		return status, l.cfg.RetryAfter != RetryAfterNever
	}
	if l.rnd.IntN(2) == 1 {
		status = http.StatusTooManyRequests
	}
	switch l.cfg.RetryAfter {
	case RetryAfterAlways:
		return status, true
	case RetryAfterNever:
		return status, false
	}
	return status, l.rnd.IntN(2) == 1
}

// writeSecondary answers with GitHub's secondary-rate-limit reply.
func (s *Server) writeSecondary(w http.ResponseWriter, r *http.Request, id identity, wait time.Duration, write bool) {
	l := &s.lim
	now := s.now()
	l.mu.Lock()
	status, withRA := l.draw()
	secs := max(1, int(math.Ceil(wait.Seconds())))
	if withRA {
		w.Header().Set("Retry-After", strconv.Itoa(secs))
	}
	l.noteLimited(l.state(id.token), now, clientOf(r), write, false, withRA, secs)
	l.mu.Unlock()
	wire.WriteError(w, r, status, msgSecondary, docSecondary)
}

// noteLimited records a rate-limited reply. Caller holds l.mu.
func (l *limiter) noteLimited(t *tokenLimits, now time.Time, client string, write, primary, withRA bool, secs int) {
	t.stats.Limited++
	if write {
		t.stats.WritesLimited++
	}
	if primary {
		t.stats.Primary++
		return
	}
	t.stats.Secondary++
	if withRA {
		until := now.Add(time.Duration(secs) * time.Second)
		if until.After(t.toldUntil) {
			t.toldUntil = until
		}
		if until.After(t.toldTo[client]) {
			t.toldTo[client] = until
		}
		return
	}
	if until := now.Add(l.window(time.Minute)); until.After(t.bareUntil) {
		t.bareUntil = until
	}
}

// noteInjected records a rate-limit reply that an injected fault sent.
func (s *Server) noteInjected(r *http.Request, route string, id identity, f *Fault) {
	if f.Status != http.StatusForbidden && f.Status != http.StatusTooManyRequests {
		return
	}
	secondary := strings.Contains(f.Body, "secondary rate limit")
	primary := strings.Contains(f.Body, "API rate limit exceeded")
	if !secondary && !primary {
		return
	}
	ra := f.Header.Get("Retry-After")
	secs, _ := strconv.Atoi(ra)
	l := &s.lim
	l.mu.Lock()
	defer l.mu.Unlock()
	l.noteLimited(l.state(id.token), s.now(), clientOf(r), countsAsWrite(r, route), primary, ra != "", secs)
}

// chargeMutation is the hook for the GraphQL handler: call it once the
// request is known to be a mutation. It counts the request as a
// content-creating write and charges the mutation's extra points; when the
// token is over a limit it writes the secondary-limit reply and returns
// false, and the handler must stop.
func (s *Server) chargeMutation(w http.ResponseWriter, r *http.Request) bool {
	l := &s.lim
	id := identOf(r)
	now := s.now()
	route := "POST /graphql"
	l.mu.Lock()
	t := l.state(id.token)
	l.noteWrite(t, now, clientOf(r))
	wait, over := time.Duration(0), false
	if l.on {
		wait, over = l.check(t, r, route, now, 0, true)
	}
	l.mu.Unlock()
	if over {
		s.writeSecondary(w, r, id, wait, true)
	}
	return !over
}

// LimitStats returns the counters of one token ("" for requests without
// one).
func (s *Server) LimitStats(token string) LimitStats {
	s.lim.mu.Lock()
	defer s.lim.mu.Unlock()
	if t := s.lim.tok[token]; t != nil {
		return t.stats
	}
	return LimitStats{}
}

// AllLimitStats returns the counters of every token, keyed by TokenID.
func (s *Server) AllLimitStats() map[string]LimitStats {
	s.lim.mu.Lock()
	defer s.lim.mu.Unlock()
	out := map[string]LimitStats{}
	for tok, t := range s.lim.tok {
		out[TokenID(tok)] = t.stats
	}
	return out
}

// TokenID names a token without revealing it: "none" for no token, else
// "tok-" and 8 hex digits of its FNV-1a hash.
func TokenID(token string) string {
	if token == "" {
		return "none"
	}
	h := uint32(2166136261)
	for i := 0; i < len(token); i++ {
		h = (h ^ uint32(token[i])) * 16777619
	}
	return fmt.Sprintf("tok-%08x", h)
}

// routeLimitStats serves AllLimitStats as JSON at GET /_githubtest/limits
// (not a GitHub route: for black-box tests and benchmarks).
const routeLimitStats = "GET /_githubtest/limits"

func (s *Server) handleLimitStats(w http.ResponseWriter, _ *http.Request) {
	b, _ := json.Marshal(s.AllLimitStats())
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	_, _ = w.Write(b)
}
