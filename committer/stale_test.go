package committer_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

// An attempt after a lost race (the branch is busy) whose branch moved
// again after its head was read sends none of the writes that would be
// lost: moved before its first write, it sends none; moved while its tree
// is created, it sends no commit (nor the ref update). The change lands on the
// next attempt, once; an attempt that sent nothing is not counted. (An
// uncontended Git Data commit reads nothing more.)
func TestMovedBranchSpendsNoWrites(t *testing.T) {
	other := func(ts *githubtest.TestServer, name string) func(*http.Request) {
		return func(*http.Request) {
			if _, err := ts.Seed(owner, repo, "main", "other writer", githubtest.File{Path: name, Content: []byte("o\n")}); err != nil {
				t.Error(err)
			}
		}
	}
	const lookup = "query Paths(" // the GraphQL path lookup, not a mutation or a settling read
	for _, tc := range []struct {
		name     string
		engine   committer.Engine
		fault    func(ts *githubtest.TestServer) githubtest.Fault // on the second attempt
		writes   int                                              // of all attempts
		before   int                                              // without the look
		attempts int                                              // counted: one lost before any write is not
		queue    bool                                             // through a Queue: a batch, which looks the same way
	}{
		// Moved during the path lookup: nothing sent in attempt 2.
		{"git-data/before the tree", committer.EngineGitData, func(ts *githubtest.TestServer) githubtest.Fault {
			return githubtest.Fault{Route: routeGraphQL, BodyContains: lookup, Skip: 1, Times: 1, Before: other(ts, "o1")}
		}, 6, 9, 2, false},
		// Moved while the tree is created: the tree alone, no commit and
		// no ref update (the branch is read again before the commit).
		{"git-data/before the commit", committer.EngineGitData, func(ts *githubtest.TestServer) githubtest.Fault {
			return githubtest.Fault{Route: routeTrees, Skip: 1, Times: 1, Before: other(ts, "o2")}
		}, 7, 9, 3, false},
		{"queue/git-data/before the tree", committer.EngineGitData, func(ts *githubtest.TestServer) githubtest.Fault {
			return githubtest.Fault{Route: routeGraphQL, BodyContains: lookup, Skip: 1, Times: 1, Before: other(ts, "o1")}
		}, 6, 9, 2, true},
		{"queue/git-data/before the commit", committer.EngineGitData, func(ts *githubtest.TestServer) githubtest.Fault {
			return githubtest.Fault{Route: routeTrees, Skip: 1, Times: 1, Before: other(ts, "o2")}
		}, 7, 9, 3, true},
		{"graphql/before the mutation", committer.EngineGraphQL, func(ts *githubtest.TestServer) githubtest.Fault {
			return githubtest.Fault{Route: routeGraphQL, BodyContains: lookup, Skip: 1, Times: 1, Before: other(ts, "o3")}
		}, 2, 3, 2, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts, c := setup(t)
			seed(t, ts, map[string]string{"log": "start\n"})
			// Attempt 1 loses an ordinary race at its landing write.
			landing := githubtest.Fault{Route: routeGraphQL, BodyContains: githubtest.MutationUpdateRefs, Times: 1, Before: other(ts, "first")}
			if tc.engine == committer.EngineGraphQL {
				landing.Route, landing.BodyContains = routeGraphQL, githubtest.MutationCreateCommit
			}
			ts.Inject(landing)
			ts.Inject(tc.fault(ts))
			ts.ResetRequests()
			cs := committer.NewChangeSet("append").Edit("log", appendLine("x"))
			commit := func() (*committer.Result, error) {
				return c.Commit(context.Background(), "main", cs, committer.WithEngine(tc.engine))
			}
			if tc.queue {
				q, err := committer.NewQueue(c, "main", committer.WithEngine(tc.engine))
				if err != nil {
					t.Fatal(err)
				}
				commit = func() (*committer.Result, error) { return q.Commit(context.Background(), cs) }
			}
			res, err := commit()
			if err != nil {
				t.Fatal(err)
			}
			if res.Attempts != tc.attempts || ts.CountWrites() != tc.writes {
				t.Errorf("%d attempts, %d writes; want %d and %d (%d without looking): %v", res.Attempts, ts.CountWrites(), tc.attempts, tc.writes, tc.before, routes(ts))
			}
			if got := readFile(t, ts, "main", "log"); got != "start\nx\n" || commitsWithMessage(t, ts, "append") != 1 {
				t.Errorf("log = %q, %d commits of the change", got, commitsWithMessage(t, ts, "append"))
			}
			checkFastForwardOnly(t, ts)
		})
	}
}
