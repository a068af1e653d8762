package ratelimit

import (
	"net/http"
	"strconv"
	"testing"
	"time"
)

func hdr(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Set(kv[i], kv[i+1])
	}
	return h
}

// Bodies as GitHub sends them (../shared/github-api/examples/real-error-bodies.json).
const (
	secondaryMsg = "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."
	secondaryDoc = "https://docs.github.com/en/free-pro-team@latest/rest/overview/resources-in-the-rest-api#secondary-rate-limits"
	abuseDoc     = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#abuse-rate-limits"
	primaryMsg   = "API rate limit exceeded for installation ID 12770951."
)

func TestClassify(t *testing.T) {
	reset := strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10)
	for _, tc := range []struct {
		name               string
		status             int
		h                  http.Header
		msg, doc           string
		primary, secondary bool
	}{
		{"secondary 403", 403, nil, secondaryMsg, secondaryDoc, false, true},
		{"secondary 403, doc only", 403, nil, "", secondaryDoc, false, true},
		{"secondary 403, message only", 403, nil, "You have exceeded a Secondary Rate Limit", "", false, true},
		{"abuse doc url", 403, nil, "", abuseDoc, false, true},
		{"403 with Retry-After", 403, hdr("Retry-After", "30"), "", "", false, true},
		{"bare 429", 429, nil, "", "", false, true},
		{"primary 403", 403, hdr("X-Ratelimit-Remaining", "0", "X-Ratelimit-Reset", reset), primaryMsg, "", true, false},
		{"primary 429", 429, hdr("X-Ratelimit-Remaining", "0"), "", "", true, false},
		{"primary wins over a secondary body", 403, hdr("X-Ratelimit-Remaining", "0"), secondaryMsg, secondaryDoc, true, false},
		{"forbidden", 403, hdr("X-Ratelimit-Remaining", "4000"), "Resource not accessible by integration", "https://docs.github.com/rest", false, false},
		{"200 spent is no refusal", 200, hdr("X-Ratelimit-Remaining", "0"), "", "", false, false},
		{"502", 502, hdr("Retry-After", "5"), "", "", false, false},
	} {
		h := tc.h
		if h == nil {
			h = http.Header{}
		}
		if got := IsPrimary(tc.status, h); got != tc.primary {
			t.Errorf("%s: IsPrimary = %v, want %v", tc.name, got, tc.primary)
		}
		if got := IsSecondary(tc.status, h, tc.msg, tc.doc); got != tc.secondary {
			t.Errorf("%s: IsSecondary = %v, want %v", tc.name, got, tc.secondary)
		}
	}
}

func TestWaits(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	at := func(d time.Duration) string { return strconv.FormatInt(now.Add(d).Unix(), 10) }
	for _, tc := range []struct {
		name string
		h    http.Header
		want time.Duration
		ok   bool
	}{
		{"seconds", hdr("Retry-After", "7"), 7 * time.Second, true},
		{"seconds with spaces", hdr("Retry-After", " 60 "), time.Minute, true},
		{"zero", hdr("Retry-After", "0"), 0, true},
		{"negative", hdr("Retry-After", "-5"), 0, true},
		{"http date", hdr("Retry-After", now.Add(90*time.Second).Format(http.TimeFormat)), 90 * time.Second, true},
		{"date in the past", hdr("Retry-After", now.Add(-time.Hour).Format(http.TimeFormat)), 0, true},
		{"garbage", hdr("Retry-After", "soon"), 0, false},
		{"Retry-After wins over reset", hdr("Retry-After", "3", "X-Ratelimit-Remaining", "0", "X-Ratelimit-Reset", at(time.Hour)), 3 * time.Second, true},
		{"reset when spent", hdr("X-Ratelimit-Remaining", "0", "X-Ratelimit-Reset", at(30*time.Second)), 30 * time.Second, true},
		{"reset in the past", hdr("X-Ratelimit-Remaining", "0", "X-Ratelimit-Reset", at(-time.Minute)), 0, true},
		{"reset ignored when not spent", hdr("X-Ratelimit-Remaining", "12", "X-Ratelimit-Reset", at(time.Hour)), 0, false},
		{"bare", http.Header{}, 0, false},
	} {
		got, ok := Wait(tc.h, now)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: Wait = %v, %v; want %v, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
	if _, ok := Reset(hdr("X-Ratelimit-Reset", "x")); ok {
		t.Error("unreadable reset accepted")
	}
}
