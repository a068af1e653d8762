package committer_test

import (
	"context"
	"errors"
	"testing"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/google/go-github/v66/github"
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
