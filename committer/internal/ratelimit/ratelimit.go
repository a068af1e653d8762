// Package ratelimit reads GitHub's rate-limit replies, once for every
// client of the module: the REST transport (committer/ghclient), the
// GraphQL client (committer/internal/ghgraphql) and the commit loop
// (committer) ask it whether a reply is a primary or a secondary limit and
// how long it tells the client to wait. It holds no state and does no I/O:
// callers hand it a reply's status, headers and the "message" and
// "documentation_url" of its JSON body.
//
// GitHub's guidance, which the callers follow: honour Retry-After; if
// x-ratelimit-remaining is 0, wait until x-ratelimit-reset; after a
// secondary limit that names neither, wait at least a minute
// (BareSecondaryWait). See
// https://docs.github.com/rest/using-the-rest-api/best-practices-for-using-the-rest-api#handle-rate-limit-errors-appropriately
package ratelimit

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// BareSecondaryWait is the least wait after a secondary limit whose reply
// names no Retry-After ("wait for at least one minute before retrying").
// It is the default of ghclient.RateLimits.SecondaryWait, from which every
// layer takes it.
const BareSecondaryWait = time.Minute

// ResetMargin is what a wait until x-ratelimit-reset adds: the header
// has whole seconds and clocks differ a little.
const ResetMargin = time.Second

// RetryAfter parses the Retry-After header: delay-seconds, or an HTTP date
// (a date in the past, or a negative number, is a wait of 0). ok is false
// when the header is absent or unreadable.
func RetryAfter(h http.Header, now time.Time) (wait time.Duration, ok bool) {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseInt(v, 10, 64); err == nil {
		return time.Duration(max(s, 0)) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// Reset parses x-ratelimit-reset (UTC epoch seconds). ok is false when it
// is absent or unreadable.
func Reset(h http.Header) (time.Time, bool) {
	s, err := strconv.ParseInt(strings.TrimSpace(h.Get("X-Ratelimit-Reset")), 10, 64)
	if err != nil || s <= 0 {
		return time.Time{}, false
	}
	return time.Unix(s, 0), true
}

// Spent reports x-ratelimit-remaining: 0 (the next request would be
// refused, whatever this reply's status).
func Spent(h http.Header) bool { return strings.TrimSpace(h.Get("X-Ratelimit-Remaining")) == "0" }

// IsPrimary reports a primary rate limit: a 403 or 429 with
// x-ratelimit-remaining: 0, as go-github classifies it.
func IsPrimary(status int, h http.Header) bool {
	return (status == http.StatusForbidden || status == http.StatusTooManyRequests) && Spent(h)
}

// IsSecondary reports a secondary rate limit: a 429 that is not a primary
// limit, or a 403 that is not a primary limit and whose body says so
// (documentation_url naming secondary-rate-limits or abuse-rate-limit, or
// a message about a "secondary rate limit") or that carries Retry-After
// (GitHub sends it only with rate limits). Matching is case-insensitive.
func IsSecondary(status int, h http.Header, message, documentationURL string) bool {
	if status != http.StatusForbidden && status != http.StatusTooManyRequests || IsPrimary(status, h) {
		return false
	}
	if status == http.StatusTooManyRequests || h.Get("Retry-After") != "" {
		return true
	}
	doc := strings.ToLower(documentationURL)
	return strings.Contains(doc, "secondary-rate-limits") || strings.Contains(doc, "abuse-rate-limit") ||
		strings.Contains(strings.ToLower(message), "secondary rate limit")
}

// Wait is the wait a reply dictates: its Retry-After; else, when
// x-ratelimit-remaining is 0, the time until x-ratelimit-reset (without
// ResetMargin). ok is false when the reply dictates nothing (a bare
// secondary limit: wait BareSecondaryWait, or the caller's setting).
func Wait(h http.Header, now time.Time) (time.Duration, bool) {
	if d, ok := RetryAfter(h, now); ok {
		return d, true
	}
	if Spent(h) {
		if reset, ok := Reset(h); ok {
			return max(reset.Sub(now), 0), true
		}
	}
	return 0, false
}
