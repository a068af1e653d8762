// Package limits is the fake GitHub's rate-limit accounting: the primary
// limit per token and resource, and the emergent secondary limits of
// githubtest.WithLimits.
package limits

import (
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
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

// Limiter is the rate-limit accounting of one Server: the secondary
// budgets per token (when On) and the primary counters. The zero value
// counts the default primary limit only.
type Limiter struct {
	On  bool
	cfg Limits
	mu  sync.Mutex
	rnd *rand.Rand
	tok map[string]*tokenLimits

	rate    map[string]*rateState // primary counters by token NUL resource
	exhaust time.Time             // ExhaustRateLimit's reset
}

// rateLimitPerHour is the default primary limit.
const rateLimitPerHour = 5000

type rateState struct {
	used  int
	reset time.Time
}

// Configure turns the limits on (WithLimits).
func (l *Limiter) Configure(c Limits) {
	if c.Scale <= 0 {
		c.Scale = 1
	}
	l.cfg = c
	l.On = true
	l.rnd = rand.New(rand.NewPCG(c.Seed, c.Seed^0x9e3779b97f4a7c15))
}

func (l *Limiter) state(token string) *tokenLimits {
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

func (l *Limiter) scale() float64 {
	if l.cfg.Scale <= 0 {
		return 1
	}
	return l.cfg.Scale
}

func (l *Limiter) window(d time.Duration) time.Duration {
	return time.Duration(float64(d) / l.scale())
}

// IsWrite reports whether method writes (not GET, HEAD or OPTIONS).
func IsWrite(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return false
	}
	return true
}

// IsGraphQLRoute reports whether a route is GitHub's GraphQL endpoint, whose
// requests draw on the GraphQL budgets instead of the REST ones.
func IsGraphQLRoute(route string) bool {
	return strings.HasSuffix(route, "/graphql")
}

// Enter counts a request in flight for token and returns how many are in
// flight including it, and a func that ends it.
func (l *Limiter) Enter(token, client string, write bool, now time.Time) (int, func()) {
	l.mu.Lock()
	t := l.state(token)
	t.inflight++
	n := t.inflight
	t.stats.Requests++
	if write {
		l.noteWrite(t, now, client)
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
func (l *Limiter) noteWrite(t *tokenLimits, now time.Time, client string) {
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

// Secondary checks the secondary limits for a request: over says it is
// over one, wait how long until it would fit.
func (l *Limiter) Secondary(token, method, route string, write bool, now time.Time, inflight int) (wait time.Duration, over bool) {
	if !l.On {
		return 0, false
	}
	l.mu.Lock()
	t := l.state(token)
	wait, over = l.check(t, method, route, write, now, inflight, false)
	l.mu.Unlock()
	return wait, over
}

// check admits a request (write: content-creating), charging its budgets, or says how long until it
// would fit. Caller holds l.mu.
func (l *Limiter) check(t *tokenLimits, method, route string, write bool, now time.Time, inflight int, mutation bool) (time.Duration, bool) {
	c := l.cfg
	if c.Concurrent > 0 && inflight > c.Concurrent {
		return l.window(time.Second), true
	}
	write = mutation || write
	cost, budget := 1, c.PointsPerMinute
	if IsWrite(method) && !IsGraphQLRoute(route) {
		cost = 5
	}
	if IsGraphQLRoute(route) {
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
	if IsGraphQLRoute(route) {
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
func (l *Limiter) draw() (status int, sendRetryAfter bool) {
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

// Limited draws a secondary-limit reply's status and, when it sends one,
// its retry-after in seconds (0 for none), and records it.
func (l *Limiter) Limited(token, client string, now time.Time, wait time.Duration, write bool) (status, retryAfter int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	status, withRA := l.draw()
	secs := max(1, int(math.Ceil(wait.Seconds())))
	l.noteLimited(l.state(token), now, client, write, false, withRA, secs)
	if !withRA {
		secs = 0
	}
	return status, secs
}

// noteLimited records a rate-limited reply. Caller holds l.mu.
func (l *Limiter) noteLimited(t *tokenLimits, now time.Time, client string, write, primary, withRA bool, secs int) {
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

// NoteInjected records a rate-limit reply that an injected fault sent.
func (l *Limiter) NoteInjected(token, client string, now func() time.Time, write bool, status int, body, retryAfter string) {
	if status != http.StatusForbidden && status != http.StatusTooManyRequests {
		return
	}
	secondary := strings.Contains(body, "secondary rate limit")
	primary := strings.Contains(body, "API rate limit exceeded")
	if !secondary && !primary {
		return
	}
	secs, _ := strconv.Atoi(retryAfter)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.noteLimited(l.state(token), now(), client, write, primary, retryAfter != "", secs)
}

// ChargeMutation counts a GraphQL request known to be a mutation as a
// content-creating write and charges the mutation's extra points; over
// says the token is over a limit, wait how long until it would fit.
func (l *Limiter) ChargeMutation(token, client, method string, now time.Time) (wait time.Duration, over bool) {
	route := "POST /graphql"
	l.mu.Lock()
	t := l.state(token)
	l.noteWrite(t, now, client)
	if l.On {
		wait, over = l.check(t, method, route, false, now, 0, true)
	}
	l.mu.Unlock()
	return wait, over
}

// NotePrimary records a primary-limit refusal and returns its status.
func (l *Limiter) NotePrimary(token, client string, now time.Time, write bool) int {
	status := http.StatusForbidden
	l.mu.Lock()
	if l.On {
		status, _ = l.draw()
	}
	l.noteLimited(l.state(token), now, client, write, true, false, 0)
	l.mu.Unlock()
	return status
}

// Stats returns the counters of one token.
func (l *Limiter) Stats(token string) LimitStats {
	l.mu.Lock()
	defer l.mu.Unlock()
	if t := l.tok[token]; t != nil {
		return t.stats
	}
	return LimitStats{}
}

// AllStats returns the counters of every token, keyed by tokenID.
func (l *Limiter) AllStats() map[string]LimitStats {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := map[string]LimitStats{}
	for tok, t := range l.tok {
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

// PrimaryLimit is the requests allowed per primary window.
func (l *Limiter) PrimaryLimit() int {
	if l.On && l.cfg.Primary > 0 {
		return l.cfg.Primary
	}
	return rateLimitPerHour
}

// primaryWindow is an hour, divided by the Limits' Scale.
func (l *Limiter) primaryWindow() time.Duration {
	if l.On {
		return l.window(time.Hour)
	}
	return time.Hour
}

// rateFor returns the primary counter of key (token NUL resource). Caller
// holds l.mu.
func (l *Limiter) rateFor(key string, now time.Time) *rateState {
	if l.rate == nil {
		l.rate = map[string]*rateState{}
	}
	st, ok := l.rate[key]
	if !ok || !now.Before(st.reset) {
		st = &rateState{reset: now.Add(l.primaryWindow()).Truncate(time.Second)}
		l.rate[key] = st
	}
	return st
}

// CountPrimary counts a request against the primary counter of key (when
// count) and returns the counter's use and reset, those of an exhausted
// limit while ExhaustRateLimit's window runs.
func (l *Limiter) CountPrimary(key string, now time.Time, count bool) (used int, reset time.Time, exhausted bool) {
	limit := l.PrimaryLimit()
	l.mu.Lock()
	defer l.mu.Unlock()
	st := l.rateFor(key, now)
	exhausted = now.Before(l.exhaust)
	if count && !exhausted {
		st.used++
	}
	used, reset = st.used, st.reset
	if exhausted {
		used, reset = limit, l.exhaust
	}
	return used, reset, exhausted
}

// Uncount gives back a request counted against key, unless the limit is
// exhausted, and returns the counter's use and reset.
func (l *Limiter) Uncount(key string, now time.Time) (used int, reset time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	st := l.rateFor(key, now)
	if st.used > 0 && !now.Before(l.exhaust) {
		st.used--
	}
	return st.used, st.reset
}

// Peek returns the use and reset of the primary counter of key, as
// counted (ExhaustRateLimit aside).
func (l *Limiter) Peek(key string, now time.Time) (used int, reset time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	st := l.rateFor(key, now)
	return st.used, st.reset
}

// ExhaustUntil makes the primary limit exhausted until reset.
func (l *Limiter) ExhaustUntil(reset time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.exhaust = reset
}
