package committer_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v66/github"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

// shortSleep sleeps a tenth of what the merge wait asks: the wait's
// reads are still paced, the test does not take minutes.
func shortSleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d / 10)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// protect makes main of acme/mono take changes through pull requests only.
func protect(t *testing.T, ts *githubtest.TestServer, rules ...githubtest.Rule) {
	t.Helper()
	if len(rules) == 0 {
		rules = []githubtest.Rule{githubtest.RequirePullRequest()}
	}
	if _, err := ts.AddRuleset(owner, repo, githubtest.Ruleset{Include: []string{"main"}, Rules: rules}); err != nil {
		t.Fatal(err)
	}
}

func TestMergeNowWaitMerges(t *testing.T) {
	ctx := context.Background()
	ts, c := setup(t, committer.WithBackoffSleep(shortSleep))
	protect(t, ts)
	cs := committer.NewChangeSet("promote api").Put("envs/prod/api.txt", []byte("v2\n"))
	r, err := c.CommitPullRequest(ctx, "main", "promote/api", cs, committer.PullRequestOptions{Merge: committer.MergeNow, Wait: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	m := r.Merge
	if m == nil || !m.Merged || m.Via != "merge-now" || m.Method != "squash" {
		t.Fatalf("merge outcome %+v; want merged now by squash (the default where all are allowed)", m)
	}
	if got := head(t, ts, "main"); got != m.Commit {
		t.Errorf("main is at %s, the outcome says merge commit %s", got, m.Commit)
	}
	if readFile(t, ts, "main", "envs/prod/api.txt") != "v2\n" {
		t.Error("main does not hold the change after the merge")
	}
	pr, _, err := ts.Client.PullRequests.Get(ctx, owner, repo, r.Number)
	if err != nil || !pr.GetMerged() || pr.GetMergeCommitSHA() != m.Commit {
		t.Errorf("pull request merged %v at %s (err %v); want merged at %s", pr.GetMerged(), pr.GetMergeCommitSHA(), err, m.Commit)
	}
}

// TestMergeMethodFromRules: with no method given, the first the base
// branch's rules allow is used.
func TestMergeMethodFromRules(t *testing.T) {
	ctx := context.Background()
	ts, c := setup(t)
	protect(t, ts, githubtest.RequirePullRequestMethods("rebase"))
	cs := committer.NewChangeSet("promote worker").Put("w.txt", []byte("w\n"))
	r, err := c.CommitPullRequest(ctx, "main", "promote/w", cs, committer.PullRequestOptions{Merge: committer.MergeNow})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Merge.Merged || r.Merge.Method != "rebase" {
		t.Fatalf("outcome %+v; want merged by rebase, the rules' only method", r.Merge)
	}
}

// TestMergeNeverMergesAMovedHead: another writer pushes to the head branch
// between the commit and the merge: the merge, pinned to the commit this
// call made, is refused and main does not move.
func TestMergeNeverMergesAMovedHead(t *testing.T) {
	ctx := context.Background()
	ts, c := setup(t)
	protect(t, ts)
	mainHead := head(t, ts, "main")
	ts.Inject(githubtest.Fault{Route: "POST /graphql", BodyContains: "mergePullRequest", Times: 1, Before: func(*http.Request) {
		if _, err := ts.Seed(owner, repo, "promote/x", "someone else", githubtest.File{Path: "other.txt", Content: []byte("o\n")}); err != nil {
			t.Error(err)
		}
	}})
	cs := committer.NewChangeSet("promote x").Put("x.txt", []byte("x\n"))
	r, err := c.CommitPullRequest(ctx, "main", "promote/x", cs, committer.PullRequestOptions{Merge: committer.MergeNow, Wait: time.Minute})
	if err == nil {
		t.Fatal("merged although the head moved")
	}
	if r == nil || r.Commit == nil || r.Number == 0 || r.Merge == nil || r.Merge.Merged {
		t.Fatalf("result %+v; want the landed commit and the open pull request, not merged", r)
	}
	if got := head(t, ts, "main"); got != mainHead {
		t.Errorf("main moved to %s", got)
	}
}

// TestMergeLostReplySettled: the merge is applied but its reply lost: the
// pull request is read, and the outcome is merged (never sent again).
func TestMergeLostReplySettled(t *testing.T) {
	ctx := context.Background()
	ts, c := setup(t)
	protect(t, ts)
	ts.Inject(githubtest.Fault{Route: "POST /graphql", BodyContains: "mergePullRequest", Times: 1, DropResponse: true})
	cs := committer.NewChangeSet("promote y").Put("y.txt", []byte("y\n"))
	r, err := c.CommitPullRequest(ctx, "main", "promote/y", cs, committer.PullRequestOptions{Merge: committer.MergeNow})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Merge.Merged || r.Merge.Commit != head(t, ts, "main") {
		t.Fatalf("outcome %+v; want merged, at main's head", r.Merge)
	}
}

func TestMergeWaitEndings(t *testing.T) {
	for _, tc := range []struct {
		name   string
		during func(ts *githubtest.TestServer, n int) // once the wait has started
		want   error
	}{
		{"timeout", nil, committer.ErrMergeTimeout},
		{"closed", func(ts *githubtest.TestServer, n int) {
			_, _, _ = ts.Client.PullRequests.Edit(context.Background(), owner, repo, n, &github.PullRequest{State: github.String("closed")})
		}, committer.ErrPullRequestClosed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			ts, c := setup(t, committer.WithBackoffSleep(shortSleep))
			protect(t, ts)
			mainHead := head(t, ts, "main")
			var once bool
			opts := committer.PullRequestOptions{Wait: 3 * time.Second, OnWait: func(p committer.MergeProgress) {
				if !once && tc.during != nil {
					once = true
					tc.during(ts, p.Number)
				}
			}}
			cs := committer.NewChangeSet("promote "+tc.name).Put(tc.name+".txt", []byte("z\n"))
			r, err := c.CommitPullRequest(ctx, "main", "promote/"+tc.name, cs, opts)
			if !errors.Is(err, tc.want) {
				t.Fatalf("error %v; want %v", err, tc.want)
			}
			var e *committer.Error
			if !errors.As(err, &e) || e.Hint == "" {
				t.Errorf("error %#v: want a *committer.Error with a hint", err)
			}
			if r == nil || r.Commit == nil || r.Number == 0 || r.Merge == nil || r.Merge.Merged {
				t.Fatalf("result %+v; want the commit and the pull request, not merged", r)
			}
			if got := head(t, ts, "main"); got != mainHead {
				t.Errorf("main moved to %s", got)
			}
		})
	}
}

// TestMergeOptionsRefused: options that cannot work are refused before
// any request.
func TestMergeOptionsRefused(t *testing.T) {
	ctx := context.Background()
	ts, c := setup(t)
	before := len(ts.Requests())
	for _, pr := range []committer.PullRequestOptions{
		{Merge: committer.MergeNow, Draft: true},
		{Merge: committer.MergeNow, MergeMethod: "fast-forward"},
		{Merge: committer.MergeQueue, MergeMethod: "squash"},
		{Wait: -time.Second},
		{Merge: committer.MergeQueue + 1},
	} {
		cs := committer.NewChangeSet("m").Put("m.txt", []byte("m\n"))
		if _, err := c.CommitPullRequest(ctx, "main", "promote/m", cs, pr); !errors.Is(err, committer.ErrInvalid) {
			t.Errorf("%+v: error %v, want ErrInvalid", pr, err)
		}
	}
	if n := len(ts.Requests()); n != before {
		t.Errorf("%d requests sent for refused options", n-before)
	}
}

// autoMergeFake is setup with auto-merge allowed, main requiring pull
// requests and the check ci, which reports conclusion on every new head
// of promote/** a minute (on the fake's clock) after it is pushed.
func autoMergeFake(t *testing.T, conclusion string) (*githubtest.TestServer, *committer.Committer) {
	t.Helper()
	ts, c := setup(t, committer.WithBackoffSleep(shortSleep))
	m := githubtest.DefaultMergeSettings()
	m.AllowAutoMerge = true
	if err := ts.SetMergeSettings(owner, repo, m); err != nil {
		t.Fatal(err)
	}
	protect(t, ts, githubtest.RequirePullRequest(), githubtest.RequireStatusChecks("ci"))
	if err := ts.AddAutoCheck(owner, repo, "ci", "promote/**", conclusion, time.Minute); err != nil {
		t.Fatal(err)
	}
	return ts, c
}

// TestAutoMergeWaitMerges: auto-merge is enabled while ci runs; once it
// passes, GitHub merges, and the wait says so.
func TestAutoMergeWaitMerges(t *testing.T) {
	ctx := context.Background()
	ts, c := autoMergeFake(t, githubtest.CheckSuccess)
	var passed bool
	opts := committer.PullRequestOptions{Merge: committer.MergeAuto, Wait: time.Minute, OnWait: func(committer.MergeProgress) {
		if !passed {
			passed = true
			ts.Pass(time.Minute) // ci reports
		}
	}}
	cs := committer.NewChangeSet("promote api").Put("api.txt", []byte("v3\n"))
	r, err := c.CommitPullRequest(ctx, "main", "promote/api", cs, opts)
	if err != nil {
		t.Fatal(err)
	}
	m := r.Merge
	if !m.Merged || !m.AutoMerge || m.Via != "auto-merge" || m.Method != "squash" || m.Note != "" {
		t.Fatalf("outcome %+v; want auto-merge enabled, then merged by it", m)
	}
	if got := head(t, ts, "main"); got != m.Commit {
		t.Errorf("main at %s, merge commit %s", got, m.Commit)
	}
}

// TestAutoMergeAlreadyMergeable: ci passed before auto-merge is asked
// for: nothing to wait for, so the pull request is merged at once and the
// Note says so.
func TestAutoMergeAlreadyMergeable(t *testing.T) {
	ctx := context.Background()
	ts, c := autoMergeFake(t, githubtest.CheckSuccess)
	ts.Inject(githubtest.Fault{Route: "POST /graphql", BodyContains: "mergeCommitAllowed", Times: 1, Before: func(*http.Request) { ts.Pass(time.Minute) }})
	cs := committer.NewChangeSet("promote api").Put("api.txt", []byte("v4\n"))
	r, err := c.CommitPullRequest(ctx, "main", "promote/api", cs, committer.PullRequestOptions{Merge: committer.MergeAuto})
	if err != nil {
		t.Fatal(err)
	}
	if m := r.Merge; !m.Merged || m.AutoMerge || m.Via != "merge-now" || m.Note == "" {
		t.Fatalf("outcome %+v; want merged at once, with a note", m)
	}
}

// TestAutoMergeRequiredCheckFails: ci fails: the wait ends with
// ErrCheckFailed, nothing merged.
func TestAutoMergeRequiredCheckFails(t *testing.T) {
	ctx := context.Background()
	ts, c := autoMergeFake(t, githubtest.CheckFailure)
	mainHead := head(t, ts, "main")
	var passed bool
	opts := committer.PullRequestOptions{Merge: committer.MergeAuto, Wait: time.Minute, OnWait: func(committer.MergeProgress) {
		if !passed {
			passed = true
			ts.Pass(time.Minute)
		}
	}}
	cs := committer.NewChangeSet("promote api").Put("api.txt", []byte("bad\n"))
	r, err := c.CommitPullRequest(ctx, "main", "promote/api", cs, opts)
	if !errors.Is(err, committer.ErrCheckFailed) {
		t.Fatalf("error %v; want ErrCheckFailed", err)
	}
	if r.Merge == nil || r.Merge.Merged || !r.Merge.AutoMerge || head(t, ts, "main") != mainHead {
		t.Fatalf("outcome %+v; want auto-merge on, nothing merged", r.Merge)
	}
}

// TestAutoMergeNotAllowed: the repository does not allow auto-merge: a
// clear error, the pull request open, nothing merged.
func TestAutoMergeNotAllowed(t *testing.T) {
	ctx := context.Background()
	ts, c := setup(t)
	protect(t, ts, githubtest.RequirePullRequest(), githubtest.RequireStatusChecks("ci"))
	cs := committer.NewChangeSet("promote").Put("p.txt", []byte("p\n"))
	r, err := c.CommitPullRequest(ctx, "main", "promote/p", cs, committer.PullRequestOptions{Merge: committer.MergeAuto})
	var e *committer.Error
	if !errors.As(err, &e) || !errors.Is(err, committer.ErrInvalid) || e.Hint == "" {
		t.Fatalf("error %v; want ErrInvalid with a hint", err)
	}
	if r == nil || r.Number == 0 || r.Merge == nil || r.Merge.AutoMerge {
		t.Fatalf("result %+v", r)
	}
}

// queueFake is setup with auto-merge allowed and main requiring the merge
// queue and the check ci, which passes ci after it is pushed (on the
// fake's clock) on every head (the pull requests' and the queue's).
func queueFake(t *testing.T, ci time.Duration) (*githubtest.TestServer, *committer.Committer) {
	t.Helper()
	ts, c := setup(t, committer.WithBackoffSleep(shortSleep))
	m := githubtest.DefaultMergeSettings()
	m.AllowAutoMerge = true
	if err := ts.SetMergeSettings(owner, repo, m); err != nil {
		t.Fatal(err)
	}
	mq := githubtest.RequireMergeQueue()
	mq.Parameters["min_entries_to_merge_wait_minutes"] = 0
	protect(t, ts, githubtest.RequirePullRequest(), mq, githubtest.RequireStatusChecks("ci"))
	if err := ts.AddAutoCheck(owner, repo, "ci", "**", githubtest.CheckSuccess, ci); err != nil {
		t.Fatal(err)
	}
	return ts, c
}

func TestMergeQueueWaitMerges(t *testing.T) {
	ctx := context.Background()
	ts, c := queueFake(t, 0)
	cs := committer.NewChangeSet("promote q").Put("q.txt", []byte("q\n"))
	r, err := c.CommitPullRequest(ctx, "main", "promote/q", cs, committer.PullRequestOptions{Merge: committer.MergeQueue, Wait: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if m := r.Merge; !m.Merged || !m.Queued || m.AutoMerge || m.Via != "merge-queue" || m.Commit != head(t, ts, "main") {
		t.Fatalf("outcome %+v; want queued, then merged by the queue as main's head", m)
	}
	if readFile(t, ts, "main", "q.txt") != "q\n" {
		t.Error("main lacks the change")
	}
}

// TestMergeQueueWhenReady: the pull request's ci has not passed when it is
// to be queued: auto-merge is enabled instead, which queues it once ci
// passes; the queue merges it.
func TestMergeQueueWhenReady(t *testing.T) {
	ctx := context.Background()
	ts, c := queueFake(t, time.Minute)
	var passed int
	opts := committer.PullRequestOptions{Merge: committer.MergeQueue, Wait: time.Minute, OnWait: func(committer.MergeProgress) {
		passed++
		ts.Pass(time.Minute) // the pull request's ci, then the queue's
	}}
	cs := committer.NewChangeSet("promote q").Put("q.txt", []byte("q\n"))
	r, err := c.CommitPullRequest(ctx, "main", "promote/q", cs, opts)
	if err != nil {
		t.Fatal(err)
	}
	if m := r.Merge; !m.Merged || !m.Queued || !m.AutoMerge || m.Via != "merge-queue" || m.Note == "" || m.Commit != head(t, ts, "main") {
		t.Fatalf("outcome %+v; want auto-merge, queued once ready, merged by the queue", m)
	}
}

// TestMergeQueueNone: the base branch has no merge queue: refused with a
// clear error, nothing merged.
func TestMergeQueueNone(t *testing.T) {
	ctx := context.Background()
	ts, c := setup(t)
	protect(t, ts)
	mainHead := head(t, ts, "main")
	cs := committer.NewChangeSet("promote").Put("p.txt", []byte("p\n"))
	r, err := c.CommitPullRequest(ctx, "main", "promote/p", cs, committer.PullRequestOptions{Merge: committer.MergeQueue, Wait: time.Minute})
	if !errors.Is(err, committer.ErrInvalid) || !strings.Contains(err.Error(), "no merge queue") {
		t.Fatalf("error %v; want ErrInvalid naming the missing queue", err)
	}
	if r.Merge == nil || r.Merge.Queued || head(t, ts, "main") != mainHead {
		t.Fatalf("outcome %+v", r.Merge)
	}
}

// TestMergeQueueDequeued: ci fails on the queue's branch: the queue
// removes the pull request, and the wait ends with ErrDequeued.
func TestMergeQueueDequeued(t *testing.T) {
	ctx := context.Background()
	ts, c := setup(t, committer.WithBackoffSleep(shortSleep))
	mq := githubtest.RequireMergeQueue()
	mq.Parameters["min_entries_to_merge_wait_minutes"] = 0
	protect(t, ts, githubtest.RequirePullRequest(), mq, githubtest.RequireStatusChecks("ci"))
	mainHead := head(t, ts, "main")
	for pattern, conclusion := range map[string]string{"promote/**": githubtest.CheckSuccess, "gh-readonly-queue/**": githubtest.CheckFailure} {
		if err := ts.AddAutoCheck(owner, repo, "ci", pattern, conclusion, 0); err != nil {
			t.Fatal(err)
		}
	}
	cs := committer.NewChangeSet("promote d").Put("d.txt", []byte("d\n"))
	r, err := c.CommitPullRequest(ctx, "main", "promote/d", cs, committer.PullRequestOptions{Merge: committer.MergeQueue, Wait: time.Minute})
	if !errors.Is(err, committer.ErrDequeued) {
		t.Fatalf("error %v; want ErrDequeued", err)
	}
	if r.Merge == nil || r.Merge.Merged || !r.Merge.Queued || head(t, ts, "main") != mainHead {
		t.Fatalf("outcome %+v; want queued, not merged", r.Merge)
	}
}

// TestAutoMergeChecksPassMeanwhile: ci passes between the read and the
// enabling, which GitHub then refuses (the pull request is clean): read
// again, and merged at once, with a note.
func TestAutoMergeChecksPassMeanwhile(t *testing.T) {
	ctx := context.Background()
	ts, c := autoMergeFake(t, githubtest.CheckSuccess)
	ts.Inject(githubtest.Fault{Route: "POST /graphql", BodyContains: "enablePullRequestAutoMerge", Times: 1, Before: func(*http.Request) { ts.Pass(time.Minute) }})
	cs := committer.NewChangeSet("promote api").Put("api.txt", []byte("v5\n"))
	r, err := c.CommitPullRequest(ctx, "main", "promote/api", cs, committer.PullRequestOptions{Merge: committer.MergeAuto, Wait: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if m := r.Merge; !m.Merged || m.AutoMerge || m.Via != "merge-now" || m.Note == "" || m.Commit != head(t, ts, "main") {
		t.Fatalf("outcome %+v; want merged at once after the refusal, with a note", m)
	}
}

// TestAutoMergeIntoQueue: auto-merge into a branch with a merge queue,
// its ci passed: auto-merge is enabled (never a direct merge, which the
// queue refuses), it queues the pull request, and the queue merges it.
func TestAutoMergeIntoQueue(t *testing.T) {
	ctx := context.Background()
	ts, c := queueFake(t, 0)
	cs := committer.NewChangeSet("promote aq").Put("aq.txt", []byte("aq\n"))
	r, err := c.CommitPullRequest(ctx, "main", "promote/aq", cs, committer.PullRequestOptions{Merge: committer.MergeAuto, Wait: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if m := r.Merge; !m.Merged || !m.AutoMerge || m.Note != "" || m.Commit != head(t, ts, "main") {
		t.Fatalf("outcome %+v; want auto-merge enabled, merged through the queue", m)
	}
}
