package committer_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/ghclient"
	"github.com/ghcommitter/ghcommitter/internal/testseam"
)

// TestChaosCoordinator runs the chaos model over the process's coordinator
// (issue 19): writers of one process with their own clients for two
// tokens, each trial through a random engine (git-data, graphql or auto),
// some cancelled at a random moment, some refused in their batch (a
// failed precondition), while the monkey loses replies, fails and delays
// requests (GraphQL ones too) and moves the branch. Every invariant of the
// chaos check holds: each change lands at most once, a change reported as
// not landed is not on the branch, nothing of another writer is lost.
func TestChaosCoordinator(t *testing.T) {
	r, _ := newChaosRun(t, 0.10)
	fast := func(ctx context.Context, _ time.Duration) error { return ctx.Err() }
	const writers = 6
	cs := make([]*committer.Committer, writers)
	for w := range writers {
		gh, err := ghclient.New(context.Background(), ghclient.WithBaseURL(r.url+"/"),
			ghclient.WithToken([]string{"chaos-token-a", "chaos-token-b"}[w%2]), ghclient.WithHTTPClient(seamed(nil, testseam.Seams{Sleep: fast})), ghclient.WithConcurrency(8))
		must(t, err)
		if cs[w], err = newWith(gh, owner, repo, committer.WithBackoffSleep(fast), committer.WithRetries(12, nil)); err != nil {
			t.Fatal(err)
		}
	}
	engines := []committer.Engine{committer.EngineGitData, committer.EngineGitData, committer.EngineGitData, committer.EngineGraphQL, committer.EngineAuto}
	var refused, cancelled atomic.Int32
	r.run(writers, chaosTrials(600, 36), func(ctx context.Context, set *committer.ChangeSet) (*committer.Result, error) {
		var w, k int
		if _, err := fmt.Sscanf(set.Message, "chaos [trial w%d k%d]", &w, &k); err != nil {
			return nil, fmt.Errorf("trial tag: %w", err)
		}
		rng := rand.New(rand.NewPCG(r.seed, uint64(w)<<32|uint64(k)))
		e := engines[rng.IntN(len(engines))]
		if rng.IntN(100) < 10 {
			set.ExpectAbsent("README.md") // refused in its batch: the others land
			refused.Add(1)
		}
		if rng.IntN(100) < 15 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, time.Duration(rng.IntN(40))*time.Millisecond)
			defer cancel()
			cancelled.Add(1)
		}
		return cs[w].Commit(ctx, "main", set, committer.WithEngine(e))
	})
	r.logFailures()
	r.check(false)
	t.Logf("%d trials refused by a precondition, %d with a context cut short", refused.Load(), cancelled.Load())
}
