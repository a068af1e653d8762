package committer_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/ghclient"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

// TestSecondaryLimit429IsWaitedOut: GitHub answers a secondary rate limit
// with 403 or 429; go-github types only the 403. A 429 without Retry-After
// on a write must be waited out (at least a minute, as GitHub's docs ask)
// and the change set must still land, once.
func TestSecondaryLimit429IsWaitedOut(t *testing.T) {
	for _, route := range []string{rtUpdateRef, "POST /repos/{owner}/{repo}/git/commits"} {
		t.Run(route, func(t *testing.T) {
			ts := githubtest.NewServer(t)
			if err := ts.CreateRepo(owner, repo, true); err != nil {
				t.Fatal(err)
			}
			var mu sync.Mutex
			var waits []time.Duration
			record := func(ctx context.Context, d time.Duration) error {
				mu.Lock()
				waits = append(waits, d)
				mu.Unlock()
				return ctx.Err()
			}
			c, err := newWith(ts.Client, owner, repo, committer.WithBackoffSleep(record), committer.WithFastForwardRefUpdates())
			if err != nil {
				t.Fatal(err)
			}
			// Times 6 outlasts the transport's own retries of the
			// idempotent create-commit, so the commit loop sees the 429 too.
			ts.Inject(githubtest.Fault{Route: route, Times: 6, Status: http.StatusTooManyRequests,
				Body: `{"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits","status":"429"}`})
			res, err := c.Commit(context.Background(), "main", committer.NewChangeSet("limited").Put("a.txt", []byte("a\n")))
			if err != nil {
				t.Fatalf("a 429 secondary limit ended the commit instead of being waited out: %v", err)
			}
			if got := head(t, ts, "main"); got != res.Commit {
				t.Fatalf("reported %s, head is %s", res.Commit, got)
			}
			mu.Lock()
			defer mu.Unlock()
			longest := time.Duration(0)
			for _, w := range waits {
				longest = max(longest, w)
			}
			if longest < time.Minute {
				t.Fatalf("waits %v: a bare secondary limit must wait at least a minute", waits)
			}
			checkFastForwardOnly(t, ts)
		})
	}
}

// TestSecondaryLimitWaits: a Retry-After is honoured as sent (not rounded
// up to a minute), on every engine; without one the wait is the floor,
// which the client's ghclient.RateLimits.SecondaryWait sets.
func TestSecondaryLimitWaits(t *testing.T) {
	routes := map[committer.Engine]string{
		committer.EngineGitData:  rtUpdateRef,
		committer.EngineGraphQL:  "POST /graphql",
		committer.EngineContents: "PUT /repos/{owner}/{repo}/contents/{path...}",
	}
	for engine, route := range routes {
		for _, tc := range []struct {
			retryAfter int
			copts      []ghclient.Option
			want       time.Duration
		}{
			{3, nil, 3 * time.Second},
			{0, nil, time.Minute},
			{0, []ghclient.Option{ghclient.WithRateLimits(ghclient.RateLimits{SecondaryWait: 2 * time.Second})}, 2 * time.Second},
		} {
			t.Run(fmt.Sprintf("%s/retry-after=%d/floor=%v", engine, tc.retryAfter, tc.want), func(t *testing.T) {
				var mu sync.Mutex
				var waits []time.Duration
				record := func(ctx context.Context, d time.Duration) error {
					mu.Lock()
					waits = append(waits, d)
					mu.Unlock()
					return ctx.Err()
				}
				ts, c := setupClient(t, tc.copts, committer.WithBackoffSleep(record), restFor(engine))
				// The landing write's reply, not a query's before it.
				ts.Inject(githubtest.SecondaryLimitFault(githubtest.Fault{Route: routeOf(route), BodyContains: mutationOf(route), Times: 1}, http.StatusTooManyRequests, tc.retryAfter))
				res, err := c.Commit(context.Background(), "main", committer.NewChangeSet("w").Put("w.txt", []byte("w\n")), committer.WithEngine(engine))
				if err != nil {
					t.Fatal(err)
				}
				if head(t, ts, "main") != res.Commit {
					t.Fatalf("reported %s, head is %s", res.Commit, head(t, ts, "main"))
				}
				mu.Lock()
				defer mu.Unlock()
				if len(waits) == 0 || waits[0] != tc.want {
					t.Fatalf("waits %v, want the first to be %v", waits, tc.want)
				}
			})
		}
	}
}

// TestLongRateLimitOnAWriteFailsAtOnce: a landing write refused with a
// Retry-After longer than the client waits (ghclient.RateLimits.MaxWait,
// 60 s by default) ends the commit at once as ErrRateLimited naming
// GitHub's wait, as the same reply on a read does: the commit loop never
// sleeps an hour by itself. Shorter waits are still waited out. The same on
// every engine, and the wait is an observer event either way.
func TestLongRateLimitOnAWriteFailsAtOnce(t *testing.T) {
	routes := map[committer.Engine]string{
		committer.EngineGitData:  routeUpdateRefs,
		committer.EngineGraphQL:  "POST /graphql",
		committer.EngineContents: "PUT /repos/{owner}/{repo}/contents/{path...}",
	}
	for engine, route := range routes {
		t.Run(engine.String(), func(t *testing.T) {
			var mu sync.Mutex
			var waits []time.Duration
			record := func(ctx context.Context, d time.Duration) error {
				mu.Lock()
				waits = append(waits, d)
				mu.Unlock()
				return ctx.Err()
			}
			var events []committer.Event
			obs := func(e committer.Event) {
				mu.Lock()
				events = append(events, e)
				mu.Unlock()
			}
			ts, c := setup(t, committer.WithBackoffSleep(record), committer.WithObserver(obs))
			before := head(t, ts, "main")
			// The landing write's reply, not the path lookup's before it.
			ts.Inject(githubtest.SecondaryLimitFault(githubtest.Fault{Route: routeOf(route), BodyContains: mutationOf(route), Times: 1}, http.StatusTooManyRequests, 3600))
			_, err := c.Commit(context.Background(), "main", committer.NewChangeSet("w").Put("w.txt", []byte("w\n")), committer.WithEngine(engine))
			if !errors.Is(err, committer.ErrRateLimited) {
				t.Fatalf("err = %v, want ErrRateLimited at once", err)
			}
			var ce *committer.Error
			if !errors.As(err, &ce) || ce.RetryAfter != time.Hour {
				t.Fatalf("RetryAfter = %v, want GitHub's hour (%v)", ce.RetryAfter, err)
			}
			mu.Lock()
			defer mu.Unlock()
			for _, w := range waits {
				if w >= time.Minute {
					t.Fatalf("the commit loop slept %v (waits %v): a wait beyond the client's maximum must fail at once", w, waits)
				}
			}
			if got := head(t, ts, "main"); got != before {
				t.Fatalf("the branch moved to %s", got)
			}
			seen := false
			for _, e := range events {
				seen = seen || e.Kind == committer.EventRateLimitWait && e.Wait == time.Hour
			}
			if !seen {
				t.Errorf("no EventRateLimitWait naming the hour among %v", events)
			}
		})
	}
}

// TestHTTPLayerWaitsAreEvents: the waits the HTTP layer makes a commit's
// requests do — the write pacer, a rate-limit window the gate holds a
// request back for — reach the committer's observer as events of that
// commit, with their attempt, whatever layer waits.
func TestHTTPLayerWaitsAreEvents(t *testing.T) {
	ts := githubtest.NewServer(t)
	if err := ts.CreateRepo(owner, repo, true); err != nil {
		t.Fatal(err)
	}
	// One write a minute, no burst: the second write of the attempt waits
	// for the pacer. Sleeps are skipped.
	hc, err := ghclient.Wrap(fast(ts.Client.Client()), ts.Client.BaseURL.String(), ghclient.WithRateLimits(ghclient.RateLimits{Pacing: &ghclient.Pacing{PerMinute: 1, Burst: 1}}))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var events []committer.Event
	c, err := committer.New(owner, repo, committer.WithHTTPClient(hc), committer.WithBackoffSleep(noSleep),
		committer.WithObserver(func(e committer.Event) {
			mu.Lock()
			events = append(events, e)
			mu.Unlock()
		}))
	if err != nil {
		t.Fatal(err)
	}
	// A 2-second Retry-After on the create-tree: the transport's gate
	// holds the retry back for it, well under the client's maximum.
	ts.TooManyRequests("POST /repos/{owner}/{repo}/git/trees", 2, 1)
	if _, err := c.Commit(context.Background(), "main", committer.NewChangeSet("w").Put("w.txt", []byte("w\n"))); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	var paced, limited bool
	for _, e := range events {
		switch {
		case e.Kind == committer.EventWritePaced && e.Wait > 0 && e.Attempt == 1 && e.Branch == "main":
			paced = true
		case e.Kind == committer.EventRateLimitWait && e.Wait > time.Second && e.Wait <= 2*time.Second && e.Attempt == 1:
			limited = true
		}
	}
	if !paced || !limited {
		t.Fatalf("events %v: want a write-pacer wait (%v) and the gate's rate-limit wait (%v) of attempt 1", events, paced, limited)
	}
}
