package ghclient

import (
	"context"
	"fmt"
	"testing"

	"github.com/ghcommitter/ghcommitter/committer/githubtest"
	"github.com/google/go-github/v66/github"
)

// underLimits starts the fake with GitHub's emergent limits on clock and
// returns a client with opts on the same clock.
func underLimits(t *testing.T, clock *fakeClock, limits githubtest.Limits, opts ...Option) (*githubtest.TestServer, *github.Client) {
	t.Helper()
	return fakeOn(t, clock, []githubtest.Option{githubtest.WithLimits(limits)}, opts...)
}

// TestOneProcessNeverProvokesASecondaryLimit writes 600 blobs (more than
// GitHub's hourly budget) against the fake at github.com's limits, on a
// fake clock: with the default pacer no request is refused; without it the
// same run provokes secondary limits, and the gate still never writes
// inside a window the fake told.
func TestOneProcessNeverProvokesASecondaryLimit(t *testing.T) {
	for _, tc := range []struct {
		name    string
		opts    []Option
		limited bool
	}{
		{"default pacing", nil, false},
		{"pacing off", []Option{WithRateLimits(RateLimits{Pacing: &Pacing{}, MaxWait: 2 * 3600e9}), WithMaxRetries(20)}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := newFakeClock()
			ts, gh := underLimits(t, clock, githubtest.GitHubLimits, tc.opts...)
			t0 := clock.Now()
			for i := range 600 {
				if i%50 == 0 {
					if _, _, err := gh.Git.GetRef(context.Background(), "o", "r", "heads/main"); err != nil {
						t.Fatalf("read %d: %v", i, err)
					}
				}
				_, _, err := gh.Git.CreateBlob(context.Background(), "o", "r", &github.Blob{Content: github.String(fmt.Sprint(i)), Encoding: github.String("utf-8")})
				if err != nil {
					t.Fatalf("write %d: %v", i, err)
				}
			}
			st := ts.LimitStats(fakeToken)
			t.Logf("600 writes in %v of fake time: %+v", clock.Now().Sub(t0), st)
			if st.WritesInRetryAfter != 0 || st.WritesAfterBare != 0 {
				t.Fatalf("wrote inside a window the fake told: %+v", st)
			}
			if tc.limited != (st.Secondary > 0) || st.Primary != 0 {
				t.Fatalf("limited %v, want %v: %+v", st.Secondary > 0, tc.limited, st)
			}
		})
	}
}

// TestHeadReadsCostNoQuota: reading an unchanged head again is a
// conditional request the fake answers 304, which does not count against
// the primary limit.
func TestHeadReadsCostNoQuota(t *testing.T) {
	clock := newFakeClock()
	ts, gh := underLimits(t, clock, githubtest.GitHubLimits)
	ctx := context.Background()
	var used []string
	for range 5 {
		ref, resp, err := gh.Git.GetRef(ctx, "o", "r", "heads/main")
		if err != nil || ref.GetObject().GetSHA() == "" {
			t.Fatalf("ref %v err %v", ref, err)
		}
		used = append(used, resp.Header.Get("X-Ratelimit-Used"))
	}
	for _, u := range used[1:] {
		if u != used[0] {
			t.Fatalf("X-RateLimit-Used went %v: the unchanged head cost quota", used)
		}
	}
	if st := ts.LimitStats(fakeToken); st.Requests != 5 {
		t.Fatalf("requests %d", st.Requests)
	}
}
