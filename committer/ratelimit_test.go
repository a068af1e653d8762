package committer_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/ghcommitter/ghcommitter/committer"
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
			c, err := newWith(ts.Client, owner, repo, committer.WithSleep(record))
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
// which WithSecondaryLimitWait sets.
func TestSecondaryLimitWaits(t *testing.T) {
	routes := map[committer.Engine]string{
		committer.EngineGitData:  rtUpdateRef,
		committer.EngineGraphQL:  "POST /graphql",
		committer.EngineContents: "PUT /repos/{owner}/{repo}/contents/{path...}",
	}
	for engine, route := range routes {
		for _, tc := range []struct {
			retryAfter int
			opts       []committer.Option
			want       time.Duration
		}{
			{3, nil, 3 * time.Second},
			{0, nil, time.Minute},
			{0, []committer.Option{committer.WithSecondaryLimitWait(2 * time.Second)}, 2 * time.Second},
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
				ts, c := setup(t, append(tc.opts, committer.WithSleep(record))...)
				// The landing write's reply, not a query's before it.
				ts.Inject(githubtest.SecondaryLimitFault(githubtest.Fault{Route: route, BodyContains: mutationOf(route), Times: 1}, http.StatusTooManyRequests, tc.retryAfter))
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
