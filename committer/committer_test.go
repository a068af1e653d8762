package committer_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/ghclient"
)

// recordURL is a transport that records the URL of each request and fails
// it, without any network.
type recordURL struct{ urls []string }

func (r *recordURL) RoundTrip(req *http.Request) (*http.Response, error) {
	r.urls = append(r.urls, req.URL.String())
	return nil, errors.New("no network in this test")
}

func TestNewBaseURL(t *testing.T) {
	for _, tc := range []struct{ base, want string }{
		{"", "https://api.github.com/repos/acme/mono"},
		{"https://api.github.com", "https://api.github.com/repos/acme/mono"},
		{"https://ghe.example.com", "https://ghe.example.com/api/v3/repos/acme/mono"},
		{"https://ghe.example.com/api/v3/", "https://ghe.example.com/api/v3/repos/acme/mono"},
		{"http://127.0.0.1:8080/", "http://127.0.0.1:8080/repos/acme/mono"},
	} {
		rec := &recordURL{}
		hc := &http.Client{Transport: rec}
		if tc.base != "" {
			var err error
			if hc, err = ghclient.Wrap(hc, tc.base); err != nil {
				t.Fatalf("%s: %v", tc.base, err)
			}
		}
		c, err := committer.New(owner, repo, committer.WithHTTPClient(hc))
		if err != nil {
			t.Fatalf("%s: %v", tc.base, err)
		}
		_, _ = c.DefaultBranch(ghclient.WithoutRetries(context.Background()))
		if len(rec.urls) == 0 || rec.urls[0] != tc.want {
			t.Errorf("base %q: requested %v, want %s", tc.base, rec.urls, tc.want)
		}
	}
	for _, bad := range []string{"ftp://x/", "https://user:pw@x/", "https://x/?q=1", "not a url"} {
		if _, err := ghclient.Wrap(&http.Client{}, bad); err == nil {
			t.Errorf("base URL %q accepted", bad)
		}
	}
}

func TestDefaultBranch(t *testing.T) {
	_, c := setup(t)
	b, err := c.DefaultBranch(context.Background())
	if err != nil || b != "main" {
		t.Fatalf("DefaultBranch = %q, %v", b, err)
	}
}

// AdaptiveBackoff draws uniformly from 0 to 2·slot·(1+Landed)·2^(Attempt-2):
// on average one slot per move seen, doubled per race lost at a write,
// never past the ceiling; a first attempt's yield is up to four times what
// it took so far.
func TestAdaptiveBackoffWindow(t *testing.T) {
	b := committer.AdaptiveBackoff(50*time.Millisecond, 10*time.Second)
	for _, tc := range []struct {
		c    committer.Contention
		want time.Duration // the window's end
	}{
		{committer.Contention{Attempt: 2, Lost: 100 * time.Millisecond, Landed: 3}, 800 * time.Millisecond},
		{committer.Contention{Attempt: 3, Lost: 100 * time.Millisecond, Landed: 1}, 800 * time.Millisecond},
		{committer.Contention{Attempt: 2, Lost: time.Millisecond, Landed: 0}, 100 * time.Millisecond}, // the floor
		{committer.Contention{Attempt: 9, Lost: time.Second, Landed: 20}, 10 * time.Second},           // the ceiling
		{committer.Contention{Attempt: 1, Lost: 100 * time.Millisecond}, 400 * time.Millisecond},
		// An attempt of several writes (Git Data's tree, commit and ref
		// update) spreads twice as wide; one of one write as above.
		{committer.Contention{Attempt: 2, Lost: 100 * time.Millisecond, Landed: 3, Writes: 3}, 1600 * time.Millisecond},
		{committer.Contention{Attempt: 3, Lost: 100 * time.Millisecond, Landed: 1, Writes: 2}, 1600 * time.Millisecond},
		{committer.Contention{Attempt: 2, Lost: 100 * time.Millisecond, Landed: 3, Writes: 1}, 800 * time.Millisecond},
		{committer.Contention{Attempt: 1, Lost: 100 * time.Millisecond, Writes: 3}, 400 * time.Millisecond},
	} {
		const n = 4000
		var sum, most time.Duration
		for range n {
			d := b(tc.c)
			if d < 0 || d > tc.want {
				t.Fatalf("%+v: %v, outside [0, %v]", tc.c, d, tc.want)
			}
			sum += d
			most = max(most, d)
		}
		// Uniform on [0, want]: the mean of 4,000 draws is within 3% of
		// want of want/2 (6.5 standard deviations), and the largest draw
		// past 9/10 of want (odds 10^-183 against).
		if mean := sum / n; mean < tc.want*47/100 || mean > tc.want*53/100 || most < tc.want*9/10 {
			t.Errorf("%+v: mean %v, largest %v; want about %v and near %v", tc.c, mean, most, tc.want/2, tc.want)
		}
	}
	if d := b(committer.Contention{Attempt: 0}); d != 0 {
		t.Errorf("no attempt yet: %v, want 0", d)
	}
}
