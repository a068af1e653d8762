package kubelease_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/ghclient"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
	"github.com/ghcommitter/ghcommitter/committer/turns/kubelease"
	"github.com/ghcommitter/ghcommitter/committer/turns/kubelease/kubetest"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestShardsTakeTurnsThroughLeases: committers that share nothing but the
// API server's Leases (each its own HTTP client, its own Turns with its own
// identity: separate processes, as far as the turns can tell) commit to one
// branch of the fake at once; every change lands on its first attempt — no
// race is lost between them.
func TestShardsTakeTurnsThroughLeases(t *testing.T) {
	ns := kubetest.Namespace(t)
	ts := githubtest.NewServer(t)
	if err := ts.CreateRepo("acme", "mono", true); err != nil {
		t.Fatal(err)
	}
	ts.Pass(time.Minute)                 // not a busy branch to begin with
	ts.SetLatency(20 * time.Millisecond) // attempts overlap, as over a network
	const shards, stages = 3, 3
	var wg sync.WaitGroup
	results := make(chan *committer.Result, shards*stages)
	errs := make(chan error, shards*stages)
	for s := range shards {
		c := shardCommitter(t, ts, fmt.Sprintf("shard-%d", s), newTurns(t, leases(t), ns, kubelease.WithIdentity(fmt.Sprintf("shard-%d", s))))
		for st := range stages {
			wg.Go(func() {
				cs := committer.NewChangeSet(fmt.Sprintf("promote stage %d of shard %d", st, s)).
					Put(fmt.Sprintf("shard-%d/stage-%d.yaml", s, st), []byte("tag: v1\n"))
				ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
				defer cancel()
				res, err := c.Commit(ctx, "main", cs)
				if err != nil {
					errs <- err
					return
				}
				results <- res
			})
		}
	}
	wg.Wait()
	close(errs)
	close(results)
	for err := range errs {
		t.Error(err)
	}
	attempts, landed := 0, 0
	for r := range results {
		attempts += r.Attempts
		landed++
	}
	t.Logf("%d landed in %d attempts", landed, attempts)
	if landed != shards*stages || attempts != landed {
		t.Fatalf("%d of %d landed in %d attempts; want all, one attempt each", landed, shards*stages, attempts)
	}
	leaseChangedHands(t, ns)
}

// shardCommitter is one shard's committer: its own client to the fake
// (pacing off), a credential of its own (as a shard's token would be: one
// process batches the commits of one credential, and those of separate
// shards must not share a batch here), turns through tt.
func shardCommitter(t *testing.T, ts *githubtest.TestServer, shard string, tt *kubelease.Turns) *committer.Committer {
	t.Helper()
	hc, err := ghclient.Wrap(ts.Client.Client(), ts.URL, ghclient.WithCredential(shard),
		ghclient.WithRateLimits(ghclient.RateLimits{Pacing: &ghclient.Pacing{}}))
	if err != nil {
		t.Fatal(err)
	}
	c, err := committer.New("acme", "mono", committer.WithHTTPClient(hc), committer.WithTurns(tt))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// leaseChangedHands checks that the turns were the Lease's: one Lease, for
// the branch, that changed hands (the committers batch a branch's commits
// of one process, and take a turn per attempt, not per commit).
func leaseChangedHands(t *testing.T, ns string) {
	t.Helper()
	list, err := leases(t).Leases(ns).List(t.Context(), metav1.ListOptions{LabelSelector: kubelease.LabelManagedBy + "=ghcommitter"})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 {
		t.Fatalf("%d Leases, want 1 (one branch)", len(list.Items))
	}
	l := list.Items[0]
	if l.Annotations[kubelease.AnnotationRepository] != "acme/mono" || l.Annotations[kubelease.AnnotationBranch] != "main" {
		t.Errorf("the Lease is for %v", l.Annotations)
	}
	if n := *l.Spec.LeaseTransitions; n < 1 {
		t.Errorf("the Lease changed hands %d times", n)
	}
}
