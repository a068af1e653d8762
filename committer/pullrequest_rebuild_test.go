package committer_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

// promotion is stage's change set: its own file, and one shared edit that
// adds its own line to promotions.yaml unless it is there (each pair of
// them conflicts: the fake merges by path).
func promotion(stage string) *committer.ChangeSet {
	return committer.NewChangeSet("promote "+stage).
		Put("stages/"+stage+".txt", []byte(stage+"\n")).
		Edit("promotions.yaml", func(old []byte, _ bool) ([]byte, error) {
			if strings.Contains(string(old), stage+": v2\n") {
				return old, nil
			}
			return append(old, []byte(stage+": v2\n")...), nil
		})
}

// once checks that main's promotions.yaml holds each stage's line exactly
// once.
func once(t *testing.T, ts *githubtest.TestServer, stages ...string) {
	t.Helper()
	got := readFile(t, ts, "main", "promotions.yaml")
	for _, s := range stages {
		if n := strings.Count(got, s+": v2\n"); n != 1 {
			t.Errorf("main's promotions.yaml holds %q %d times:\n%s", s, n, got)
		}
	}
}

// TestRebuildOnReRun: a pull request that went stale (another one that
// edits the same file merged first) is rebuilt when its command runs
// again: a commit whose tree is the change set re-run on main's new head
// and whose parents are [main's head, the head branch's old head], then
// merged.
func TestRebuildOnReRun(t *testing.T) {
	ctx := context.Background()
	ts, c := setup(t)
	protect(t, ts)
	a, err := c.CommitPullRequest(ctx, "main", "promo/a", promotion("a"), committer.PullRequestOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.CommitPullRequest(ctx, "main", "promo/b", promotion("b"), committer.PullRequestOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CommitPullRequest(ctx, "main", "promo/a", promotion("a"), committer.PullRequestOptions{Merge: committer.MergeNow}); err != nil {
		t.Fatalf("merge a: %v", err)
	}
	mainAfterA, oldB := head(t, ts, "main"), b.Commit.Commit
	r, err := c.CommitPullRequest(ctx, "main", "promo/b", promotion("b"), committer.PullRequestOptions{Merge: committer.MergeNow, MergeMethod: "merge"})
	if err != nil {
		t.Fatalf("re-run of b: %v", err)
	}
	m := r.Merge
	if !m.Merged || m.Rebuilds != 1 || m.Head == "" || r.Number != b.Number {
		t.Fatalf("outcome %+v (pull request #%d, b was #%d); want merged after one rebuild", m, r.Number, b.Number)
	}
	rc, _, err := ts.Client.Git.GetCommit(ctx, owner, repo, m.Head)
	if err != nil {
		t.Fatal(err)
	}
	if len(rc.Parents) != 2 || rc.Parents[0].GetSHA() != mainAfterA || rc.Parents[1].GetSHA() != oldB {
		t.Errorf("rebuild's parents %v; want [main %s, b's old head %s]", rc.Parents, mainAfterA, oldB)
	}
	if rc.GetMessage() == "" || !strings.HasPrefix(rc.GetMessage(), "promote b") {
		t.Errorf("rebuild's message %q; want the change set's", rc.GetMessage())
	}
	once(t, ts, "a", "b")
	if readFile(t, ts, "main", "stages/b.txt") != "b\n" || readFile(t, ts, "main", "stages/a.txt") != "a\n" {
		t.Error("main lacks a stage's own file")
	}
	_ = a
}

// TestRebuildRefusedForeignCommit: the head branch holds a commit another
// writer pushed: the pull request is reported stale (ErrPullRequestStale)
// and left as it is, the other writer's commit kept.
func TestRebuildRefusedForeignCommit(t *testing.T) {
	ctx := context.Background()
	ts, c := setup(t)
	protect(t, ts)
	if _, err := c.CommitPullRequest(ctx, "main", "promo/b", promotion("b"), committer.PullRequestOptions{}); err != nil {
		t.Fatal(err)
	}
	foreign, err := c.Commit(ctx, "promo/b", committer.NewChangeSet("a fix by hand").Put("notes.txt", []byte("mine\n")))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CommitPullRequest(ctx, "main", "promo/a", promotion("a"), committer.PullRequestOptions{Merge: committer.MergeNow}); err != nil {
		t.Fatal(err)
	}
	mainHead := head(t, ts, "main")
	r, err := c.CommitPullRequest(ctx, "main", "promo/b", promotion("b"), committer.PullRequestOptions{Merge: committer.MergeNow, Wait: time.Minute})
	if !errors.Is(err, committer.ErrPullRequestStale) {
		t.Fatalf("err %v; want ErrPullRequestStale", err)
	}
	if errors.Is(err, committer.ErrConflict) || !strings.Contains(err.Error(), foreign.Commit[:7]) {
		t.Errorf("err %v: want it to name the other writer's commit %s, and to be of its own kind", err, foreign.Commit[:7])
	}
	if r == nil || r.Merge == nil || r.Merge.Merged || r.Merge.Rebuilds != 0 {
		t.Fatalf("result %+v; want the pull request open, not rebuilt", r)
	}
	if got := head(t, ts, "promo/b"); got != foreign.Commit {
		t.Errorf("promo/b moved to %s; want it left at the other writer's %s", got, foreign.Commit)
	}
	if got := head(t, ts, "main"); got != mainHead {
		t.Errorf("main moved to %s", got)
	}
	pr, _, err := ts.Client.PullRequests.Get(ctx, owner, repo, r.Number)
	if err != nil || pr.GetState() != "open" || pr.GetMerged() {
		t.Errorf("pull request state %q merged %v (err %v); want open", pr.GetState(), pr.GetMerged(), err)
	}
}

// TestRebuildRefusedPrecondition: the change set no longer applies on
// main's new head (its precondition fails there): ErrPullRequestStale,
// the head branch untouched.
func TestRebuildRefusedPrecondition(t *testing.T) {
	ctx := context.Background()
	ts, c := setup(t)
	protect(t, ts)
	b := func() *committer.ChangeSet { return promotion("b").ExpectAbsent("stages/a.txt") }
	first, err := c.CommitPullRequest(ctx, "main", "promo/b", b(), committer.PullRequestOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CommitPullRequest(ctx, "main", "promo/a", promotion("a"), committer.PullRequestOptions{Merge: committer.MergeNow}); err != nil {
		t.Fatal(err)
	}
	_, err = c.CommitPullRequest(ctx, "main", "promo/b", b(), committer.PullRequestOptions{Merge: committer.MergeNow})
	if !errors.Is(err, committer.ErrPullRequestStale) || errors.Is(err, committer.ErrConflict) {
		t.Fatalf("err %v; want ErrPullRequestStale alone", err)
	}
	if got := head(t, ts, "promo/b"); got != first.Commit.Commit {
		t.Errorf("promo/b moved to %s; want it untouched at %s", got, first.Commit.Commit)
	}
}

// TestRebuildConcurrentMergeNowWait: 8 promotions at once, each with its
// own Committer (no coordinator shared), --merge-now --wait: the later
// pull requests conflict as the earlier merge, and are rebuilt: 8/8
// merged, every line on main exactly once.
func TestRebuildConcurrentMergeNowWait(t *testing.T) {
	ctx := context.Background()
	ts, _ := setup(t)
	protect(t, ts)
	const n = 8
	var wg sync.WaitGroup
	outs, errs := make([]*committer.PullRequestResult, n), make([]error, n)
	stages := make([]string, n)
	for i := range n {
		stages[i] = fmt.Sprintf("s%d", i)
		c, err := newWithClient(ts.Client, owner, repo, nil, committer.WithBackoffSleep(shortSleep))
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i], errs[i] = c.CommitPullRequest(ctx, "main", "promo/"+stages[i], promotion(stages[i]),
				committer.PullRequestOptions{Merge: committer.MergeNow, Wait: 2 * time.Minute})
		}()
	}
	wg.Wait()
	rebuilds := 0
	for i := range n {
		if errs[i] != nil || outs[i].Merge == nil || !outs[i].Merge.Merged {
			t.Errorf("promotion %d: %v, %+v", i, errs[i], outs[i])
			continue
		}
		rebuilds += outs[i].Merge.Rebuilds
	}
	once(t, ts, stages...)
	t.Logf("%d promotions merged with %d rebuilds", n, rebuilds)
}

// TestRebuildHeadMovedMeanwhile: another writer pushes to the head branch
// while the rebuild builds its commit: the head branch's compare-and-swap
// refuses the rebuild, which is reported (ErrPullRequestStale), and the
// other writer's commit stays.
func TestRebuildHeadMovedMeanwhile(t *testing.T) {
	ctx := context.Background()
	ts, c := setup(t)
	protect(t, ts)
	if _, err := c.CommitPullRequest(ctx, "main", "promo/b", promotion("b"), committer.PullRequestOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CommitPullRequest(ctx, "main", "promo/a", promotion("a"), committer.PullRequestOptions{Merge: committer.MergeNow}); err != nil {
		t.Fatal(err)
	}
	var theirs string
	ts.Inject(githubtest.Fault{Route: "POST /repos/{owner}/{repo}/git/commits", Times: 1, Before: func(*http.Request) {
		var err error
		if theirs, err = ts.Seed(owner, repo, "promo/b", "someone else", githubtest.File{Path: "other.txt", Content: []byte("o\n")}); err != nil {
			t.Error(err)
		}
	}})
	r, err := c.CommitPullRequest(ctx, "main", "promo/b", promotion("b"), committer.PullRequestOptions{Merge: committer.MergeNow, Wait: time.Minute})
	if !errors.Is(err, committer.ErrPullRequestStale) {
		t.Fatalf("err %v; want ErrPullRequestStale", err)
	}
	if theirs == "" || head(t, ts, "promo/b") != theirs {
		t.Errorf("promo/b is at %s; want the other writer's %q", head(t, ts, "promo/b"), theirs)
	}
	if r.Merge == nil || r.Merge.Merged || r.Merge.Rebuilds != 0 {
		t.Errorf("outcome %+v; want not merged, not rebuilt", r.Merge)
	}
}

// TestNoRebuild: NoRebuild leaves the stale pull request as it is: the
// merge is refused (the conflict), nothing is written to the head branch.
func TestNoRebuild(t *testing.T) {
	ctx := context.Background()
	ts, c := setup(t)
	protect(t, ts)
	b, err := c.CommitPullRequest(ctx, "main", "promo/b", promotion("b"), committer.PullRequestOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CommitPullRequest(ctx, "main", "promo/a", promotion("a"), committer.PullRequestOptions{Merge: committer.MergeNow}); err != nil {
		t.Fatal(err)
	}
	r, err := c.CommitPullRequest(ctx, "main", "promo/b", promotion("b"), committer.PullRequestOptions{Merge: committer.MergeNow, NoRebuild: true})
	if err == nil || errors.Is(err, committer.ErrPullRequestStale) || r.Merge == nil || r.Merge.Merged {
		t.Fatalf("err %v, result %+v; want the merge refused", err, r)
	}
	if got := head(t, ts, "promo/b"); got != b.Commit.Commit {
		t.Errorf("promo/b moved to %s", got)
	}
}

// TestRebuildMergeQueue: pull requests queued at once into a merge queue,
// each with the shared edit: the queue removes the ones that conflict, and
// each is rebuilt and queued again; all merge, every line once.
func TestRebuildMergeQueue(t *testing.T) {
	ctx := context.Background()
	ts, _ := queueFake(t, 0)
	const n = 4
	var wg sync.WaitGroup
	outs, errs := make([]*committer.PullRequestResult, n), make([]error, n)
	stages := make([]string, n)
	for i := range n {
		stages[i] = fmt.Sprintf("q%d", i)
		c, err := newWithClient(ts.Client, owner, repo, nil, committer.WithBackoffSleep(shortSleep))
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i], errs[i] = c.CommitPullRequest(ctx, "main", "promo/"+stages[i], promotion(stages[i]),
				committer.PullRequestOptions{Merge: committer.MergeQueue, Wait: 2 * time.Minute})
		}()
	}
	wg.Wait()
	rebuilds := 0
	for i := range n {
		if errs[i] != nil || outs[i].Merge == nil || !outs[i].Merge.Merged {
			t.Errorf("promotion %d: %v, %+v", i, errs[i], outs[i])
			continue
		}
		rebuilds += outs[i].Merge.Rebuilds
	}
	once(t, ts, stages...)
	t.Logf("%d promotions merged through the queue with %d rebuilds", n, rebuilds)
}

// TestRebuildLostReply: the reply to the rebuild's branch update is lost:
// the commit loop reads the branch back and finds the rebuild landed (it
// is never sent again), and the pull request merges on it.
func TestRebuildLostReply(t *testing.T) {
	ctx := context.Background()
	ts, c := setup(t)
	protect(t, ts)
	if _, err := c.CommitPullRequest(ctx, "main", "promo/b", promotion("b"), committer.PullRequestOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CommitPullRequest(ctx, "main", "promo/a", promotion("a"), committer.PullRequestOptions{Merge: committer.MergeNow}); err != nil {
		t.Fatal(err)
	}
	ts.Inject(githubtest.Fault{Route: "POST /graphql", BodyContains: "updateRefs", Times: 1, DropResponse: true})
	r, err := c.CommitPullRequest(ctx, "main", "promo/b", promotion("b"), committer.PullRequestOptions{Merge: committer.MergeNow})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Merge.Merged || r.Merge.Rebuilds != 1 {
		t.Fatalf("outcome %+v; want merged after one rebuild", r.Merge)
	}
	once(t, ts, "a", "b")
}

// TestRebuildNotRepeatedOnALaggingState: after a rebuild, GitHub may still
// show the pull request DIRTY until it has computed the new head's
// mergeability in the background: the same base is not rebuilt on again.
// (The fake computes at once; the wait's GraphQL read is answered DIRTY
// here.)
func TestRebuildNotRepeatedOnALaggingState(t *testing.T) {
	ctx := context.Background()
	ts, c := setup(t, committer.WithBackoffSleep(shortSleep))
	protect(t, ts)
	if _, err := c.CommitPullRequest(ctx, "main", "promo/b", promotion("b"), committer.PullRequestOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CommitPullRequest(ctx, "main", "promo/a", promotion("a"), committer.PullRequestOptions{Merge: committer.MergeNow}); err != nil {
		t.Fatal(err)
	}
	ts.Inject(githubtest.Fault{Route: "POST /graphql", BodyContains: "autoMergeRequest{enabledAt}", Status: http.StatusOK,
		Body: `{"data":{"node":{"merged":false,"mergeCommit":null,"mergeStateStatus":"DIRTY","autoMergeRequest":null,"mergeQueueEntry":null,"statusCheckRollup":null}}}`})
	r, err := c.CommitPullRequest(ctx, "main", "promo/b", promotion("b"), committer.PullRequestOptions{Wait: 3 * time.Second})
	if !errors.Is(err, committer.ErrMergeTimeout) {
		t.Fatalf("err %v; want ErrMergeTimeout (nobody merges it)", err)
	}
	if r.Merge == nil || r.Merge.Rebuilds != 1 {
		t.Fatalf("outcome %+v; want one rebuild, not one per read", r.Merge)
	}
}
