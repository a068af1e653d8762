package githubtest

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/limits"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/wire"
)

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
func (s *Server) rateLimit(w http.ResponseWriter, r *http.Request, route string, id identity) bool {
	now := s.now()
	res := rateResource(route)
	limit := s.lim.PrimaryLimit()
	used, reset, exhausted := s.lim.CountPrimary(id.token+"\x00"+res, now, route != routeRateLimit)
	setRateHeaders(w.Header(), limit, used, reset, res)
	if route == routeRateLimit || (!exhausted && used <= limit) {
		return true
	}
	msg := "API rate limit exceeded for user ID " + strconv.FormatInt(id.userID, 10) + "."
	if id.installation != 0 {
		msg = "API rate limit exceeded for installation ID " + strconv.FormatInt(id.installation, 10) + "."
	}
	status := s.lim.NotePrimary(id.token, clientOf(r), now, countsAsWrite(r, route))
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
	used, reset := s.lim.Uncount(id.token+"\x00"+res, now)
	setRateHeaders(h, s.lim.PrimaryLimit(), used, reset, res)
}

// ExhaustRateLimit makes every request (except GET /rate_limit) fail with
// the primary rate-limit 403 until Now() >= reset.
func (s *Server) ExhaustRateLimit(reset time.Time) {
	s.lim.ExhaustUntil(reset)
}

func (s *Server) handleRateLimit(w http.ResponseWriter, r *http.Request) {
	now := s.now()
	id := identOf(r)
	limit := s.lim.PrimaryLimit()
	used, reset, _ := s.lim.CountPrimary(id.token+"\x00core", now, false)
	gUsed, gReset := s.lim.Peek(id.token+"\x00graphql", now)
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
