package committer_test

import (
	"context"
	"net/http"
	"slices"
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
	ts := reserveRepo(t)
	clock := &stepClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	log := &sentAt{next: ts.Client.Client().Transport, clock: clock}
	// One write a second after a burst of 3: exactly one commit's writes.
	hc := pacedClient(t, ts, seamed(&http.Client{Transport: log}, testseam.Seams{Now: clock.Now, Sleep: clock.Sleep}), 60, 3)
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

// TestLostAttemptExcludesTransportWaits: the spread after a lost race is
// measured in slots of the lost attempt's duration (Contention.Lost), the
// time in which another writer could move the branch under it. The
// pacer's wait for the attempt's writes is not part of it: a slot
// stretched by a 1.5 s pacer wait made a writer of 16 on separate machines
// back off 8 s. Here the pacer holds the attempt back 3 s on the clock
// (and 50 ms of real time); the attempt then loses its race.
func TestLostAttemptExcludesTransportWaits(t *testing.T) {
	ts := reserveRepo(t)
	clock := &stepClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	const held = 50 * time.Millisecond
	sleep := func(ctx context.Context, d time.Duration) error {
		time.Sleep(held)
		return clock.Sleep(ctx, d)
	}
	c, lostOf := recordLost(t, pacedClient(t, ts, seamed(ts.Client.Client(), testseam.Seams{Now: clock.Now, Sleep: sleep}), 60, 3))
	// The first commit spends the burst: the second's attempt waits.
	if _, err := c.Commit(context.Background(), "main", committer.NewChangeSet("b").Put("b", []byte("b\n"))); err != nil {
		t.Fatal(err)
	}
	loseRefUpdateOnce(t, ts)
	res, err := c.Commit(context.Background(), "main", committer.NewChangeSet("c").Put("c", []byte("c\n")))
	if err != nil || res.Attempts != 2 {
		t.Fatalf("%v, %d attempts; want 2", err, res.Attempts)
	}
	if lost := lostOf(); len(lost) != 1 || lost[0] >= held {
		t.Errorf("the backoff was asked with lost attempts of %v, want one shorter than the %v the pacer's wait really took", lost, held)
	}
}

// TestSpreadCoversThePacersWait: after a lost race the pacer would hold
// the next attempt back before its head read (its writes go back to back);
// the wait of the spread covers that wait instead of coming before it, so
// the branch it listens to is the one the attempt then reads, and the
// two waits do not add up (at github.com's pacing they did: a writer of
// 16 on separate machines slept its spread, then 3.4 s for the pacer).
func TestSpreadCoversThePacersWait(t *testing.T) {
	ts := reserveRepo(t)
	clock := &stepClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	hc := pacedClient(t, ts, seamed(ts.Client.Client(), testseam.Seams{Now: clock.Now, Sleep: clock.Sleep}), 60, 3)
	var mu sync.Mutex
	var paced []committer.Event
	var spread time.Duration
	c, err := committer.New(owner, repo, committer.WithHTTPClient(hc),
		committer.WithBackoffSleep(func(ctx context.Context, d time.Duration) error {
			mu.Lock()
			spread += d
			mu.Unlock()
			return clock.Sleep(ctx, d)
		}),
		committer.WithRetries(0, func(committer.Contention) time.Duration { return 0 }),
		committer.WithObserver(func(e committer.Event) {
			if e.Kind == committer.EventWritePaced {
				mu.Lock()
				paced = append(paced, e)
				mu.Unlock()
			}
		}))
	if err != nil {
		t.Fatal(err)
	}
	loseRefUpdateOnce(t, ts)
	res, err := c.Commit(context.Background(), "main", committer.NewChangeSet("c").Put("c", []byte("c\n")))
	if err != nil || res.Attempts != 2 {
		t.Fatalf("%v, %d attempts; want 2", err, res.Attempts)
	}
	mu.Lock()
	defer mu.Unlock()
	// The burst of 3 went to the first attempt (the pacer's next slot 3 s
	// on); the lost race halved the share: a write every 2 s, a burst of 1.
	// Booked right away, the second attempt's 3 writes would have gone 7 s
	// on (slots at 3, 5 and 7 s, sent together at the last); 4 s of that
	// is the spacing of 3 writes at a burst of 1, which a booking waits
	// however idle the pacer was. The spread covers the other 3 s.
	for _, e := range paced {
		if e.Attempt == 2 && e.Wait > 4*time.Second+100*time.Millisecond {
			t.Errorf("the second attempt's writes were held %v by the pacer after the spread's %v, want the 4 s of spacing only", e.Wait, spread)
		}
	}
	if spread < 2500*time.Millisecond || spread > 4*time.Second {
		t.Errorf("the spread waited %v, want the pacer's wait (seconds) covered", spread)
	}
}

// TestLostAttemptCountsWaitsAfterItsRead: a wait after the attempt read
// the head is part of its duration (Contention.Lost): the attempt is
// stretched, and the branch can move under it meanwhile. Here the pacer
// (a burst of 1, one write every 100 ms, on the real clock) holds the
// attempt's commit and ref update 100 ms each after its read.
func TestLostAttemptCountsWaitsAfterItsRead(t *testing.T) {
	ts := reserveRepo(t)
	c, lostOf := recordLost(t, pacedClient(t, ts, ts.Client.Client(), 600, 1))
	loseRefUpdateOnce(t, ts)
	res, err := c.Commit(context.Background(), "main", committer.NewChangeSet("c").Put("c", []byte("c\n")))
	if err != nil || res.Attempts != 2 {
		t.Fatalf("%v, %d attempts; want 2", err, res.Attempts)
	}
	if lost := lostOf(); len(lost) != 1 || lost[0] < 150*time.Millisecond {
		t.Errorf("the backoff was asked with lost attempts of %v, want one of at least the 200 ms its writes were held after its read", lost)
	}
}

// reserveRepo is a fake with the repository, its main branch seeded.
func reserveRepo(t *testing.T) *githubtest.TestServer {
	t.Helper()
	ts := githubtest.NewServer(t)
	if err := ts.CreateRepo(owner, repo, true); err != nil {
		t.Fatal(err)
	}
	seed(t, ts, map[string]string{"a": "a\n"})
	return ts
}

// loseRefUpdateOnce moves main just before the next ref update lands: that
// attempt loses its race.
func loseRefUpdateOnce(t *testing.T, ts *githubtest.TestServer) {
	t.Helper()
	ts.Inject(githubtest.Fault{Route: routeGraphQL, BodyContains: githubtest.MutationUpdateRefs, Times: 1, Before: func(*http.Request) {
		if _, err := ts.Seed(owner, repo, "main", "other", githubtest.File{Path: "o", Content: []byte("o\n")}); err != nil {
			t.Error(err)
		}
	}})
}

// pacedClient is client, for ts's API, with a write pacer of perMinute
// writes a minute after a burst of burst.
func pacedClient(t *testing.T, ts *githubtest.TestServer, client *http.Client, perMinute, burst int) *http.Client {
	t.Helper()
	hc, err := ghclient.Wrap(client, ts.Client.BaseURL.String(),
		ghclient.WithRateLimits(ghclient.RateLimits{Pacing: &ghclient.Pacing{PerMinute: perMinute, Burst: burst}}))
	if err != nil {
		t.Fatal(err)
	}
	return hc
}

// recordLost is a committer through hc whose backoff waits nothing and
// records each Contention.Lost it is asked with (lostOf returns them).
func recordLost(t *testing.T, hc *http.Client) (c *committer.Committer, lostOf func() []time.Duration) {
	t.Helper()
	var mu sync.Mutex
	var lost []time.Duration
	c, err := committer.New(owner, repo, committer.WithHTTPClient(hc), committer.WithBackoffSleep(noSleep),
		committer.WithRetries(0, func(ct committer.Contention) time.Duration {
			mu.Lock()
			defer mu.Unlock()
			lost = append(lost, ct.Lost)
			return 0
		}))
	if err != nil {
		t.Fatal(err)
	}
	return c, func() []time.Duration {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(lost)
	}
}
