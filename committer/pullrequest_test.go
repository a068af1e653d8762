package committer_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-github/v66/github"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

func TestCommitPullRequestCreatesThenReuses(t *testing.T) {
	ctx := context.Background()
	ts, c := setup(t)
	mainHead := head(t, ts, "main")

	cs := committer.NewChangeSet("bump api to v2\n\nPromote the api image.").Put("envs/prod/api.txt", []byte("v2\n"))
	r1, err := c.CommitPullRequest(ctx, "main", "promote/api", cs, committer.PullRequestOptions{Draft: true})
	if err != nil {
		t.Fatal(err)
	}
	if !r1.Created || r1.Number == 0 || r1.URL == "" {
		t.Fatalf("first call: got %+v, want a new pull request", r1)
	}
	if !r1.Commit.CreatedBranch || r1.Commit.Parent != mainHead {
		t.Errorf("commit: created branch %v, parent %s; want a new branch off main %s", r1.Commit.CreatedBranch, r1.Commit.Parent, mainHead)
	}
	if got := head(t, ts, "main"); got != mainHead {
		t.Errorf("main moved to %s; only the head branch may move", got)
	}
	pr, _, err := ts.Client.PullRequests.Get(ctx, owner, repo, r1.Number)
	if err != nil {
		t.Fatal(err)
	}
	if pr.GetTitle() != "bump api to v2" || pr.GetBody() != "Promote the api image." || !pr.GetDraft() {
		t.Errorf("pull request title %q body %q draft %v; want the message's first line, the rest, draft", pr.GetTitle(), pr.GetBody(), pr.GetDraft())
	}
	if pr.GetHead().GetRef() != "promote/api" || pr.GetBase().GetRef() != "main" {
		t.Errorf("pull request %s -> %s, want promote/api -> main", pr.GetHead().GetRef(), pr.GetBase().GetRef())
	}

	cs2 := committer.NewChangeSet("bump worker too").Put("envs/prod/worker.txt", []byte("v2\n"))
	r2, err := c.CommitPullRequest(ctx, "main", "promote/api", cs2, committer.PullRequestOptions{Title: "ignored for an open PR"})
	if err != nil {
		t.Fatal(err)
	}
	if r2.Created || r2.Number != r1.Number || r2.URL != r1.URL {
		t.Fatalf("second call: got %+v, want pull request #%d reused", r2, r1.Number)
	}
	if r2.Commit.Parent != r1.Commit.Commit || r2.Commit.NoOp {
		t.Errorf("second commit built on %s (noop %v), want a new commit on %s", r2.Commit.Parent, r2.Commit.NoOp, r1.Commit.Commit)
	}
	if n := ts.Count("POST /repos/{owner}/{repo}/pulls"); n != 2 {
		t.Errorf("%d create-PR requests, want 2", n)
	}
	if readFile(t, ts, "promote/api", "envs/prod/api.txt") != "v2\n" || readFile(t, ts, "promote/api", "envs/prod/worker.txt") != "v2\n" {
		t.Error("head branch does not hold both commits' files")
	}
	checkFastForwardOnly(t, ts)
}

func TestCommitPullRequestNoOp(t *testing.T) {
	ctx := context.Background()
	ts, c := setup(t)
	mainHead := head(t, ts, "main")
	readme := readFile(t, ts, "main", "README.md")
	// "same" exists and points at main's head: a change set that changes
	// nothing leaves nothing to propose, so no pull request is opened.
	if _, _, err := ts.Client.Git.CreateRef(ctx, owner, repo, &github.Reference{
		Ref: github.String("refs/heads/same"), Object: &github.GitObject{SHA: github.String(mainHead)}}); err != nil {
		t.Fatal(err)
	}
	cs := committer.NewChangeSet("no change").Put("README.md", []byte(readme))
	r, err := c.CommitPullRequest(ctx, "main", "same", cs, committer.PullRequestOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Commit.NoOp || r.Number != 0 || r.Created {
		t.Errorf("got %+v (commit %+v), want a no-op and no pull request", r, r.Commit)
	}

	// A no-op on a head branch whose pull request is open reuses it.
	first, err := c.CommitPullRequest(ctx, "main", "feature", committer.NewChangeSet("add a").Put("a.txt", []byte("a")), committer.PullRequestOptions{})
	if err != nil {
		t.Fatal(err)
	}
	again, err := c.CommitPullRequest(ctx, "main", "feature", committer.NewChangeSet("add a").Put("a.txt", []byte("a")), committer.PullRequestOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !again.Commit.NoOp || again.Number != first.Number || again.Created {
		t.Errorf("repeat: got %+v (noop %v), want a no-op reusing #%d", again, again.Commit.NoOp, first.Number)
	}
}

func TestCommitPullRequestRejectsBadBranches(t *testing.T) {
	ctx := context.Background()
	cs := committer.NewChangeSet("x").Put("a.txt", []byte("a"))
	for _, tc := range []struct{ base, head string }{
		{"main", "main"},
		{"main", "bad..name"},
		{"bad name", "feature"},
		{"", "feature"},
	} {
		ts, c := setup(t)
		_, err := c.CommitPullRequest(ctx, tc.base, tc.head, cs, committer.PullRequestOptions{})
		if !errors.Is(err, committer.ErrInvalid) {
			t.Errorf("base %q head %q: err = %v, want ErrInvalid", tc.base, tc.head, err)
		}
		var ce *committer.Error
		if !errors.As(err, &ce) {
			t.Errorf("base %q head %q: err %T is not a *committer.Error", tc.base, tc.head, err)
		}
		if n := len(ts.Requests()); n != 0 {
			t.Errorf("base %q head %q: %d requests sent, want none", tc.base, tc.head, n)
		}
	}
}

func TestCommitPullRequestMissingBase(t *testing.T) {
	ctx := context.Background()
	ts, c := setup(t)
	cs := committer.NewChangeSet("x").Put("a.txt", []byte("a"))
	_, err := c.CommitPullRequest(ctx, "no-such-base", "feature", cs, committer.PullRequestOptions{})
	if !errors.Is(err, committer.ErrNotFound) {
		t.Errorf("err = %v, want ErrNotFound", err)
	}
	if n := ts.Count("POST /repos/{owner}/{repo}/pulls"); n != 0 {
		t.Errorf("%d create-PR requests after a failed commit, want 0", n)
	}
}

func TestCommitPullRequestConcurrent(t *testing.T) {
	ctx := context.Background()
	ts, c := setup(t)
	const n = 4
	results := make([]*committer.PullRequestResult, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cs := committer.NewChangeSet(fmt.Sprintf("writer %d", i)).Put(fmt.Sprintf("w/%d.txt", i), []byte("x"))
			results[i], errs[i] = c.CommitPullRequest(ctx, "main", "bot/batch", cs, committer.PullRequestOptions{})
		}()
	}
	wg.Wait()
	created := 0
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("writer %d: %v", i, errs[i])
		}
		if results[i].Number != results[0].Number {
			t.Errorf("writer %d got #%d, writer 0 #%d: want one pull request", i, results[i].Number, results[0].Number)
		}
		if results[i].Created {
			created++
		}
	}
	if created != 1 {
		t.Errorf("%d calls report creating the pull request, want 1", created)
	}
	files, err := ts.Files(owner, repo, "bot/batch")
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if _, ok := files[fmt.Sprintf("w/%d.txt", i)]; !ok {
			t.Errorf("w/%d.txt is missing from the head branch", i)
		}
	}
	checkFastForwardOnly(t, ts)
}

func TestCommitPullRequestForbidden(t *testing.T) {
	ctx := context.Background()
	ts, c := setup(t)
	ts.Inject(githubtest.Fault{Route: "POST /repos/{owner}/{repo}/pulls", Status: http.StatusForbidden})
	cs := committer.NewChangeSet("x").Put("a.txt", []byte("a"))
	r, err := c.CommitPullRequest(ctx, "main", "feature", cs, committer.PullRequestOptions{})
	if !errors.Is(err, committer.ErrPermission) {
		t.Fatalf("err = %v, want ErrPermission", err)
	}
	var ce *committer.Error
	if !errors.As(err, &ce) || !strings.Contains(ce.Hint, "pull-requests: write") {
		t.Errorf("hint %q does not name the pull-requests permission", ce.Hint)
	}
	if r == nil || r.Commit == nil || r.Number != 0 {
		t.Fatalf("result %+v: want the landed commit and no pull request", r)
	}
	if got := head(t, ts, "feature"); got != r.Commit.Commit {
		t.Errorf("feature at %s, want the reported commit %s", got, r.Commit.Commit)
	}
}

// TestPullRequestTextFollowsTheRun (issue 41.3): a reused pull request's
// title and body follow each commit — the message's defaults included, an
// empty body clearing the old one — unless KeepTitle or KeepBody keeps a
// person's edit.
func TestPullRequestTextFollowsTheRun(t *testing.T) {
	ctx := context.Background()
	ts, c := setup(t)
	text := func(n int) (string, string) {
		t.Helper()
		pr, _, err := ts.Client.PullRequests.Get(ctx, owner, repo, n)
		if err != nil {
			t.Fatal(err)
		}
		return pr.GetTitle(), pr.GetBody()
	}
	run := func(msg, content string, pr committer.PullRequestOptions) *committer.PullRequestResult {
		t.Helper()
		r, err := c.CommitPullRequest(ctx, "main", "promote/stage-01", committer.NewChangeSet(msg).Put("stage-01.txt", []byte(content)), pr)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r := run("Promote stage-01 to v3\n\nImage v3.", "v3\n", committer.PullRequestOptions{})
	if title, body := text(r.Number); title != "Promote stage-01 to v3" || body != "Image v3." {
		t.Fatalf("opened with %q / %q", title, body)
	}
	r = run("Promote stage-01 to v4", "v4\n", committer.PullRequestOptions{})
	if title, body := text(r.Number); title != "Promote stage-01 to v4" || body != "" || r.Operation != committer.PullRequestUpdated {
		t.Errorf("after v4: %q / %q (%s), want the message's title and no body", title, body, r.Operation)
	}
	if _, _, err := ts.Client.PullRequests.Edit(ctx, owner, repo, r.Number, &github.PullRequest{Title: github.String("Stage 01: v4 (reviewed)")}); err != nil {
		t.Fatal(err)
	}
	r = run("Promote stage-01 to v5\n\nImage v5.", "v5\n", committer.PullRequestOptions{KeepTitle: true})
	if title, body := text(r.Number); title != "Stage 01: v4 (reviewed)" || body != "Image v5." {
		t.Errorf("after v5 with KeepTitle: %q / %q, want the person's title kept and the body followed", title, body)
	}
	r = run("Promote stage-01 to v6", "v6\n", committer.PullRequestOptions{Title: "Stage 01: v6", KeepBody: true})
	if title, body := text(r.Number); title != "Stage 01: v6" || body != "Image v5." {
		t.Errorf("after v6 with a title and KeepBody: %q / %q", title, body)
	}
}
