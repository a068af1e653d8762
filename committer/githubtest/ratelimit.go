package githubtest

import (
	"net/http"
	"strconv"
	"strings"
	"time"
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

// rateLimit counts the request and sets the X-RateLimit headers. It writes
// a 403 and returns false when the primary limit is exhausted.
func (s *Server) rateLimit(w http.ResponseWriter, r *http.Request, route string, id identity) bool {
	now := s.now()
	s.mu.Lock()
	st := s.rateFor(id.token, now)
	exhausted := now.Before(s.exhaust)
	if route != routeRateLimit && !exhausted {
		st.used++
	}
	used, reset := st.used, st.reset
	if exhausted {
		used, reset = rateLimitPerHour, s.exhaust
	}
	s.mu.Unlock()
	remaining := max(rateLimitPerHour-used, 0)
	h := w.Header()
	h.Set("X-RateLimit-Limit", strconv.Itoa(rateLimitPerHour))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(remaining))
	h.Set("X-RateLimit-Used", strconv.Itoa(used))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(reset.Unix(), 10))
	h.Set("X-RateLimit-Resource", "core")
	if route == routeRateLimit || (!exhausted && used <= rateLimitPerHour) {
		return true
	}
	msg := "API rate limit exceeded for user ID " + strconv.FormatInt(id.userID, 10) + "."
	if id.installation != 0 {
		msg = "API rate limit exceeded for installation ID " + strconv.FormatInt(id.installation, 10) + "."
	}
	writeError(w, r, http.StatusForbidden, msg, docPrimary)
	return false
}

// rateFor returns the counter of a token. Caller holds s.mu.
func (s *Server) rateFor(token string, now time.Time) *rateState {
	st, ok := s.rate[token]
	if !ok || !now.Before(st.reset) {
		st = &rateState{reset: now.Add(time.Hour).Truncate(time.Second)}
		s.rate[token] = st
	}
	return st
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
	s.mu.Lock()
	st := s.rateFor(id.token, now)
	used, reset := st.used, st.reset
	if now.Before(s.exhaust) {
		used, reset = rateLimitPerHour, s.exhaust
	}
	s.mu.Unlock()
	core := obj{"limit": rateLimitPerHour, "used": used, "remaining": max(rateLimitPerHour-used, 0),
		"reset": reset.Unix(), "resource": "core"}
	other := func(limit int, name string) obj {
		return obj{"limit": limit, "used": 0, "remaining": limit, "reset": now.Add(time.Hour).Unix(), "resource": name}
	}
	writeJSON(w, r, http.StatusOK, obj{
		"resources": obj{"core": core, "search": other(30, "search"), "graphql": other(5000, "graphql"),
			"integration_manifest": other(5000, "integration_manifest"), "code_search": other(10, "code_search")},
		"rate": core,
	})
}
