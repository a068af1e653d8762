package committer_test

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

// A Git Data attempt after a lost race looks at the branch before its
// first write with its path lookup (the query reads the branch's head
// too), not with a read of its own between the lookup and the tree: the
// ref reads it makes go out alongside its writes, and none is answered
// before its tree is sent. Scripted: attempt 1 loses at its ref update;
// from attempt 2's path lookup on, every ref read is held until the tree
// arrives (a read the tree waits for would wait out the hold).
func TestGitDataLooksWithItsPathLookup(t *testing.T) {
	const lookup = "query Paths("
	for _, queue := range []bool{false, true} {
		name := "commit"
		if queue {
			name = "queue"
		}
		t.Run(name, func(t *testing.T) {
			sleepOpt, _ := recordSleeps()
			ts, c := setup(t, sleepOpt, committer.WithRetries(0, func(committer.Contention) time.Duration { return 0 }))
			seed(t, ts, map[string]string{"log": "start\n"})
			ts.Inject(githubtest.Fault{Route: routeGraphQL, BodyContains: githubtest.MutationUpdateRefs, Times: 1, Before: func(*http.Request) {
				if _, err := ts.Seed(owner, repo, "main", "other writer", githubtest.File{Path: "o", Content: []byte("o\n")}); err != nil {
					t.Error(err)
				}
			}})
			var (
				mu         sync.Mutex
				armed      bool
				early, all int // ref reads answered before the tree arrived; all after the lookup
			)
			treeSent := make(chan struct{})
			ts.Inject(githubtest.Fault{Route: routeGraphQL, BodyContains: lookup, Skip: 1, Times: 1, Before: func(*http.Request) {
				mu.Lock()
				armed = true
				mu.Unlock()
			}})
			ts.Inject(githubtest.Fault{Route: routeTrees, Skip: 1, Times: 1, Before: func(*http.Request) { close(treeSent) }})
			ts.Inject(githubtest.Fault{Route: rtGetRef, Before: func(*http.Request) {
				mu.Lock()
				on := armed
				if on {
					all++
				}
				mu.Unlock()
				if !on {
					return // the wait's reads, before attempt 2
				}
				select {
				case <-treeSent:
				case <-time.After(5 * time.Second):
					mu.Lock()
					early++
					mu.Unlock()
				}
			}})
			cs := committer.NewChangeSet("append").Edit("log", appendLine("x"))
			res, err := commitVia(t, c, queue, cs, committer.EngineGitData)
			if err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			if early != 0 || all != 2 {
				t.Errorf("attempt 2: %d ref reads, %d of them answered before its tree was sent; want 2 (alongside the tree and the commit) and none: %v", all, early, routes(ts))
			}
			if res.Attempts != 2 || ts.CountWrites() != 6 {
				t.Errorf("%d attempts, %d writes; want 2 and 6", res.Attempts, ts.CountWrites())
			}
			if got := readFile(t, ts, "main", "log"); got != "start\nx\n" || readFile(t, ts, "main", "o") != "o\n" {
				t.Errorf("log = %q", got)
			}
			checkFastForwardOnly(t, ts)
		})
	}
}

// commitVia commits cs to main with engine: through c.Commit, or through a
// Queue (a batch, which builds and looks the same way).
func commitVia(t *testing.T, c *committer.Committer, queue bool, cs *committer.ChangeSet, engine committer.Engine) (*committer.Result, error) {
	t.Helper()
	if !queue {
		return c.Commit(context.Background(), "main", cs, committer.WithEngine(engine))
	}
	q, err := committer.NewQueue(c, "main", committer.WithEngine(engine))
	if err != nil {
		t.Fatal(err)
	}
	return q.Commit(context.Background(), cs)
}
