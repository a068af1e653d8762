package committer_test

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/ghclient"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
	"github.com/ghcommitter/ghcommitter/internal/testseam"
)

// stepClock is a clock that moves only when slept on.
type stepClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *stepClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *stepClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d > 0 {
		c.t = c.t.Add(d)
	}
	return ctx.Err()
}

// sentAt logs each request's route with the clock's time as it is sent.
type sentAt struct {
	next  http.RoundTripper
	clock *stepClock
	mu    sync.Mutex
	at    []time.Time
	what  []string
}

func (s *sentAt) RoundTrip(req *http.Request) (*http.Response, error) {
	s.mu.Lock()
	s.at = append(s.at, s.clock.Now())
	s.what = append(s.what, req.Method+" "+req.URL.Path)
	s.mu.Unlock()
	return s.next.RoundTrip(req)
}

// TestAttemptWritesGoBackToBack: a stretched attempt is a lost attempt.
// Once the pacer's burst is spent, a Git Data commit's attempt waits for
// the pacer before it reads the head, and then sends its three writes
// (tree, commit, ref update) back to back, instead of reading at once and
// spreading its writes one pacer interval apart.
func TestAttemptWritesGoBackToBack(t *testing.T) {
	ts := githubtest.NewServer(t)
	if err := ts.CreateRepo(owner, repo, true); err != nil {
		t.Fatal(err)
	}
	seed(t, ts, map[string]string{"a": "a\n"})
	clock := &stepClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	log := &sentAt{next: ts.Client.Client().Transport, clock: clock}
	// One write a second after a burst of 3: exactly one commit's writes.
	hc, err := ghclient.Wrap(seamed(&http.Client{Transport: log}, testseam.Seams{Now: clock.Now, Sleep: clock.Sleep}), ts.Client.BaseURL.String(),
		ghclient.WithRateLimits(ghclient.RateLimits{Pacing: &ghclient.Pacing{PerMinute: 60, Burst: 3}}))
	if err != nil {
		t.Fatal(err)
	}
	c, err := committer.New(owner, repo, committer.WithHTTPClient(hc), committer.WithBackoffSleep(noSleep))
	if err != nil {
		t.Fatal(err)
	}
	for i, name := range []string{"b", "c"} {
		if _, err := c.Commit(context.Background(), "main", committer.NewChangeSet(name).Put(name, []byte(name+"\n"))); err != nil {
			t.Fatalf("commit %d: %v", i, err)
		}
	}
	if n := ts.CountWrites(); n != 6 {
		t.Fatalf("%d writes, want 3 a commit: %v", n, log.what)
	}
	// The second commit's requests: from its head read on.
	var second []int
	for i, w := range log.what {
		if w == "GET /repos/"+owner+"/"+repo+"/branches/main" {
			second = second[:0]
		}
		second = append(second, i)
	}
	t0 := log.at[0]
	first := log.at[second[0]]
	if want := t0.Add(3 * time.Second); !first.Equal(want) {
		t.Errorf("the second commit read its head at +%v, want +3s (when its 3 writes can go back to back): %v", first.Sub(t0), log.what)
	}
	for _, i := range second {
		if !log.at[i].Equal(first) {
			t.Errorf("%s went %v after the head read, want at once", log.what[i], log.at[i].Sub(first))
		}
	}
}
