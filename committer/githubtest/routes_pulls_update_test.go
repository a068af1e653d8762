package githubtest

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/google/go-github/v66/github"
)

// go-github's own calls update a pull request, its labels, reviewers and
// assignees, and GET shows the result.
func TestPullRequestUpdates(t *testing.T) {
	ts, _ := seeded(t)
	ctx := context.Background()
	if _, err := ts.Seed("acme", "mono", "feature", "f", File{Path: "f.txt", Content: []byte("f")}); err != nil {
		t.Fatal(err)
	}
	gh := ts.Client
	pr, _, err := gh.PullRequests.Create(ctx, "acme", "mono", &github.NewPullRequest{Title: github.String("t"), Head: github.String("feature"), Base: github.String("main")})
	if err != nil {
		t.Fatal(err)
	}
	n := pr.GetNumber()
	pr, _, err = gh.PullRequests.Edit(ctx, "acme", "mono", n, &github.PullRequest{Title: github.String("new"), Body: github.String("body")})
	if err != nil || pr.GetTitle() != "new" || pr.GetBody() != "body" || pr.GetState() != "open" {
		t.Fatalf("edit: %v %+v", err, pr)
	}
	if _, _, err := gh.Issues.AddLabelsToIssue(ctx, "acme", "mono", n, []string{"bug", "deploy"}); err != nil {
		t.Fatal(err)
	}
	labels, _, err := gh.Issues.ReplaceLabelsForIssue(ctx, "acme", "mono", n, []string{"deploy", "prod"})
	if err != nil || len(labels) != 2 || labels[0].GetName() != "deploy" || labels[1].GetName() != "prod" {
		t.Fatalf("replace labels: %v %v", err, labels)
	}
	if _, err := gh.Issues.RemoveLabelForIssue(ctx, "acme", "mono", n, "deploy"); err != nil {
		t.Fatal(err)
	}
	_, err = gh.Issues.RemoveLabelForIssue(ctx, "acme", "mono", n, "deploy")
	var er *github.ErrorResponse
	if !errors.As(err, &er) || er.Response.StatusCode != http.StatusNotFound {
		t.Fatalf("removing a label it does not have: %v", err)
	}
	if _, _, err := gh.PullRequests.RequestReviewers(ctx, "acme", "mono", n, github.ReviewersRequest{Reviewers: []string{"alice", "bob"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := gh.PullRequests.RemoveReviewers(ctx, "acme", "mono", n, github.ReviewersRequest{Reviewers: []string{"bob"}}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := gh.PullRequests.RequestReviewers(ctx, "acme", "mono", n, github.ReviewersRequest{Reviewers: []string{"octocat"}}); !errors.As(err, &er) || er.Response.StatusCode != 422 {
		t.Fatalf("the author as reviewer: %v", err)
	}
	if _, _, err := gh.Issues.AddAssignees(ctx, "acme", "mono", n, []string{"carol", "dave"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := gh.Issues.RemoveAssignees(ctx, "acme", "mono", n, []string{"dave"}); err != nil {
		t.Fatal(err)
	}
	got, _, err := gh.PullRequests.Get(ctx, "acme", "mono", n)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Labels) != 1 || got.Labels[0].GetName() != "prod" || len(got.RequestedReviewers) != 1 || got.RequestedReviewers[0].GetLogin() != "alice" ||
		len(got.Assignees) != 1 || got.GetAssignee().GetLogin() != "carol" || got.GetTitle() != "new" {
		t.Fatalf("pull request after updates: labels %v reviewers %v assignees %v", got.Labels, got.RequestedReviewers, got.Assignees)
	}

	// Close; a new pull request for the same branches may then open, and
	// the old one cannot reopen beside it.
	closed, _, err := gh.PullRequests.Edit(ctx, "acme", "mono", n, &github.PullRequest{State: github.String("closed")})
	if err != nil || closed.GetState() != "closed" || closed.ClosedAt == nil {
		t.Fatalf("close: %v %+v", err, closed)
	}
	open, _, err := gh.PullRequests.List(ctx, "acme", "mono", nil)
	if err != nil || len(open) != 0 {
		t.Fatalf("open pulls after close: %v %d", err, len(open))
	}
	if _, _, err := gh.PullRequests.Create(ctx, "acme", "mono", &github.NewPullRequest{Title: github.String("again"), Head: github.String("feature"), Base: github.String("main")}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := gh.PullRequests.Edit(ctx, "acme", "mono", n, &github.PullRequest{State: github.String("open")}); !errors.As(err, &er) || er.Response.StatusCode != 422 {
		t.Fatalf("reopening beside an open duplicate: %v", err)
	}
	if _, _, err := gh.PullRequests.Edit(ctx, "acme", "mono", 99, &github.PullRequest{Title: github.String("x")}); !errors.As(err, &er) || er.Response.StatusCode != 404 {
		t.Fatalf("editing a missing pull request: %v", err)
	}
}
