package githubtest

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/wire"
)

const rateLimitPerHour = 5000

type rateState struct {
	used  int
	reset time.Time
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
func (s *Server) authenticate(r *http.Request, route string) (identity, bool) {
	if route == routeAccessToken || route == routeInstall {
		return defaultIdentity(""), true // JWT, checked by the handler
	}
	tok := bearer(r)
	s.mu.Lock()
	it, isInst := s.tokens[tok]
	s.mu.Unlock()
	if isInst && tok != "" {
		if !s.now().Before(it.expires) {
			return identity{}, false
		}
		login := "fake-app-" + strconv.FormatInt(it.appID, 10) + "[bot]"
		return identity{token: tok, installation: it.installationID, login: login, name: login,
			email:  strconv.FormatInt(it.appID, 10) + "+" + login + "@users.noreply.github.com",
			userID: it.appID}, true
	}
	if s.token != "" && tok != s.token {
		return identity{}, false
	}
	return defaultIdentity(tok), true
}

// primaryLimit is the requests allowed per primary window.
func (s *Server) primaryLimit() int {
	if s.lim.on && s.lim.cfg.Primary > 0 {
		return s.lim.cfg.Primary
	}
	return rateLimitPerHour
}

// rateResource is the X-RateLimit-Resource a route draws on.
func rateResource(route string) string {
	if isGraphQLRoute(route) {
		return "graphql"
	}
	return "core"
}

// rateLimit counts the request and sets the X-RateLimit headers. It writes
// a 403 (or, with WithLimits, 403 or 429) and returns false when the primary
// limit is exhausted.
func (s *Server) rateLimit(w http.ResponseWriter, r *http.Request, route string, id identity) bool {
	now := s.now()
	res := rateResource(route)
	limit := s.primaryLimit()
	s.mu.Lock()
	st := s.rateFor(id.token+"\x00"+res, now)
	exhausted := now.Before(s.exhaust)
	if route != routeRateLimit && !exhausted {
		st.used++
	}
	used, reset := st.used, st.reset
	if exhausted {
		used, reset = limit, s.exhaust
	}
	s.mu.Unlock()
	setRateHeaders(w.Header(), limit, used, reset, res)
	if route == routeRateLimit || (!exhausted && used <= limit) {
		return true
	}
	msg := "API rate limit exceeded for user ID " + strconv.FormatInt(id.userID, 10) + "."
	if id.installation != 0 {
		msg = "API rate limit exceeded for installation ID " + strconv.FormatInt(id.installation, 10) + "."
	}
	status := http.StatusForbidden
	l := &s.lim
	l.mu.Lock()
	if l.on {
		status, _ = l.draw()
	}
	l.noteLimited(l.state(id.token), now, clientOf(r), countsAsWrite(r, route), true, false, 0)
	l.mu.Unlock()
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
func (s *Server) uncount(h http.Header, route string, id identity) {
	now := s.now()
	res := rateResource(route)
	s.mu.Lock()
	st := s.rateFor(id.token+"\x00"+res, now)
	if st.used > 0 && !now.Before(s.exhaust) {
		st.used--
	}
	used, reset := st.used, st.reset
	s.mu.Unlock()
	setRateHeaders(h, s.primaryLimit(), used, reset, res)
}

// rateFor returns the counter of a token and resource. Caller holds s.mu.
func (s *Server) rateFor(key string, now time.Time) *rateState {
	st, ok := s.rate[key]
	if !ok || !now.Before(st.reset) {
		st = &rateState{reset: now.Add(s.primaryWindow()).Truncate(time.Second)}
		s.rate[key] = st
	}
	return st
}

// primaryWindow is an hour, divided by the Limits' Scale.
func (s *Server) primaryWindow() time.Duration {
	if s.lim.on {
		return s.lim.window(time.Hour)
	}
	return time.Hour
}

// ExhaustRateLimit makes every request (except GET /rate_limit) fail with
// the primary rate-limit 403 until Now() >= reset.
func (s *Server) ExhaustRateLimit(reset time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.exhaust = reset
}

func (s *Server) handleRateLimit(w http.ResponseWriter, r *http.Request) {
	now := s.now()
	id := identOf(r)
	limit := s.primaryLimit()
	s.mu.Lock()
	st := s.rateFor(id.token+"\x00core", now)
	used, reset := st.used, st.reset
	if now.Before(s.exhaust) {
		used, reset = limit, s.exhaust
	}
	gq := s.rateFor(id.token+"\x00graphql", now)
	gUsed, gReset := gq.used, gq.reset
	s.mu.Unlock()
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
