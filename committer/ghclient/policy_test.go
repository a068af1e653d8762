package ghclient

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

func response(status int, header http.Header, body string) *http.Response {
	if header == nil {
		header = http.Header{}
	}
	return &http.Response{StatusCode: status, Header: header, Body: io.NopCloser(strings.NewReader(body))}
}

func TestCheckRetry(t *testing.T) {
	ctx := context.Background()
	reset := strconv.FormatInt(time.Now().Add(time.Minute).Unix(), 10)
	for _, tc := range []struct {
		name string
		resp *http.Response
		err  error
		want bool
	}{
		{"200", response(200, nil, `{}`), nil, false},
		{"404", response(404, nil, `{"message":"Not Found"}`), nil, false},
		{"422", response(422, nil, `{"message":"Update is not a fast forward"}`), nil, false},
		{"409", response(409, nil, `{"message":"Git Repository is empty."}`), nil, false},
		{"500", response(500, nil, ``), nil, true},
		{"502", response(502, nil, ``), nil, true},
		{"503", response(503, nil, ``), nil, true},
		{"501", response(501, nil, ``), nil, false},
		{"429", response(429, nil, ``), nil, true},
		{"403 forbidden", response(403, nil, `{"message":"Resource not accessible by integration"}`), nil, false},
		{"403 secondary", response(403, nil, secondaryBody), nil, true},
		{"403 secondary new url", response(403, nil, secondaryBodyNew), nil, true},
		{"403 secondary by message", response(403, nil, `{"message":"You have exceeded a secondary rate limit"}`), nil, true},
		{"403 primary", response(403, http.Header{"X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {reset}}, primaryBody), nil, true},
		{"connection reset", nil, errors.New("read: connection reset by peer"), true},
		{"canceled", nil, context.Canceled, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := CheckRetry(ctx, tc.resp, tc.err)
			if got != tc.want {
				t.Fatalf("CheckRetry = %v, want %v", got, tc.want)
			}
		})
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if ok, err := CheckRetry(cctx, response(502, nil, ``), nil); ok || !errors.Is(err, context.Canceled) {
		t.Fatalf("done ctx: %v %v", ok, err)
	}
}

func TestCheckRetryRestoresBody(t *testing.T) {
	big := secondaryBody + strings.Repeat(" ", 3*maxBodyPeek)
	resp := response(403, nil, big)
	if ok, _ := CheckRetry(context.Background(), resp, nil); !ok {
		t.Fatal("secondary limit not retried")
	}
	// A second look (Backoff) must see it too.
	if !isSecondaryRateLimit(resp) {
		t.Fatal("second peek failed")
	}
	got, err := io.ReadAll(resp.Body)
	if err != nil || !bytes.Equal(got, []byte(big)) {
		t.Fatalf("body not restored: %d bytes, err %v", len(got), err)
	}
}

func TestBackoff(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	minWait, maxWait := 200*time.Millisecond, 10*time.Second
	t.Run("retry-after", func(t *testing.T) {
		d := backoffAt(now, minWait, maxWait, 0, response(503, http.Header{"Retry-After": {"7"}}, ``), time.Second)
		if d != 7*time.Second {
			t.Fatal(d)
		}
	})
	t.Run("retry-after date", func(t *testing.T) {
		h := http.Header{"Retry-After": {now.Add(90 * time.Second).Format(http.TimeFormat)}}
		if d := backoffAt(now, minWait, maxWait, 0, response(503, h, ``), time.Second); d != 90*time.Second {
			t.Fatal(d)
		}
	})
	t.Run("primary reset", func(t *testing.T) {
		h := http.Header{"X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {strconv.FormatInt(now.Add(30*time.Second).Unix(), 10)}}
		if d := backoffAt(now, minWait, maxWait, 0, response(403, h, primaryBody), time.Second); d != 30*time.Second+resetMargin {
			t.Fatal(d)
		}
	})
	t.Run("primary reset in the past", func(t *testing.T) {
		h := http.Header{"X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {strconv.FormatInt(now.Add(-time.Hour).Unix(), 10)}}
		if d := backoffAt(now, minWait, maxWait, 0, response(403, h, primaryBody), time.Second); d != resetMargin {
			t.Fatal(d)
		}
	})
	t.Run("reset ignored when not limited", func(t *testing.T) {
		h := http.Header{"X-Ratelimit-Remaining": {"10"}, "X-Ratelimit-Reset": {strconv.FormatInt(now.Add(time.Hour).Unix(), 10)}}
		if d := backoffAt(now, minWait, maxWait, 0, response(502, h, ``), time.Second); d > minWait {
			t.Fatal(d)
		}
	})
	t.Run("secondary with reset waits the floor", func(t *testing.T) {
		// x-ratelimit-reset on a secondary limit (remaining above 0) is the
		// primary window's: GitHub says to wait at least a minute instead.
		h := http.Header{"X-Ratelimit-Remaining": {"4000"}, "X-Ratelimit-Reset": {strconv.FormatInt(now.Add(50*time.Minute).Unix(), 10)}}
		if d := backoffAt(now, minWait, maxWait, 0, response(403, h, secondaryBody), time.Minute); d != time.Minute {
			t.Fatal(d)
		}
	})
	t.Run("bare 429 is a secondary limit", func(t *testing.T) {
		if d := Backoff(minWait, maxWait, 0, response(429, nil, ``)); d != time.Minute {
			t.Fatal(d)
		}
	})
	t.Run("secondary floor", func(t *testing.T) {
		for i := 0; i < 50; i++ {
			if d := backoffAt(now, minWait, maxWait, 0, response(403, nil, secondaryBody), time.Second); d < time.Second {
				t.Fatal(d)
			}
		}
	})
	t.Run("full jitter bounds", func(t *testing.T) {
		for attempt := 0; attempt < 12; attempt++ {
			ceil := minWait << attempt
			if ceil > maxWait {
				ceil = maxWait
			}
			for i := 0; i < 50; i++ {
				d := Backoff(minWait, maxWait, attempt, nil)
				if d < 0 || d > ceil {
					t.Fatalf("attempt %d: %v outside [0, %v]", attempt, d, ceil)
				}
			}
		}
	})
}

func TestRetryableRequest(t *testing.T) {
	for _, tc := range []struct {
		method, path string
		want         bool
	}{
		{"GET", "/repos/o/r/branches/main", true},
		{"HEAD", "/repos/o/r", true},
		{"POST", "/repos/o/r/git/blobs", true},
		{"POST", "/repos/o/r/git/trees", true},
		{"POST", "/repos/o/r/git/commits", true},
		{"POST", "/app/installations/42/access_tokens", true},
		{"POST", "/repos/o/r/git/refs", false},
		{"POST", "/repos/o/r/git/tags", false},
		{"POST", "/repos/o/r/pulls", false},
		{"PATCH", "/repos/o/r/git/refs/heads/main", false},
		{"DELETE", "/repos/o/r/git/refs/heads/main", false},
		{"PUT", "/repos/o/r/contents/a", false},
		{"DELETE", "/repos/o/r/contents/a", false},
		{"POST", "/repos/o/r/git/trees/extra", false},
	} {
		if got := retryableRequest(tc.method, tc.path); got != tc.want {
			t.Errorf("%s %s: %v, want %v", tc.method, tc.path, got, tc.want)
		}
	}
}
