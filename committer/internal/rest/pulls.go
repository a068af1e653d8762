package rest

import (
	"context"
	"errors"
	"net/http"

	"github.com/google/go-github/v66/github"
)

// PullRequest is what the library reads of a pull request.
type PullRequest struct {
	Number    int
	URL       string // its page on GitHub (html_url)
	Title     string
	Body      string
	Labels    []string
	Reviewers []string // requested reviewers' logins
	Assignees []string
}

// NewPullRequest is a pull request to open.
type NewPullRequest struct {
	Title, Body, Head, Base string
	Draft                   bool
}

func fromPull(p *github.PullRequest) PullRequest {
	out := PullRequest{Number: p.GetNumber(), URL: p.GetHTMLURL(), Title: p.GetTitle(), Body: p.GetBody()}
	for _, l := range p.Labels {
		out.Labels = append(out.Labels, l.GetName())
	}
	for _, u := range p.RequestedReviewers {
		out.Reviewers = append(out.Reviewers, u.GetLogin())
	}
	for _, u := range p.Assignees {
		out.Assignees = append(out.Assignees, u.GetLogin())
	}
	return out
}

// CreatePull opens a pull request (POST pulls). See
// https://docs.github.com/rest/pulls/pulls#create-a-pull-request.
func (c *Client) CreatePull(ctx context.Context, np NewPullRequest) (PullRequest, error) {
	in := &github.NewPullRequest{Title: str(np.Title), Head: str(np.Head), Base: str(np.Base)}
	if np.Body != "" {
		in.Body = str(np.Body)
	}
	if np.Draft {
		in.Draft = github.Bool(true)
	}
	got, _, err := c.gh.PullRequests.Create(ctx, c.owner, c.repo, in)
	if err != nil {
		return PullRequest{}, err
	}
	return fromPull(got), nil
}

// EditPull sets a pull request's title and body where not nil (PATCH
// pulls/{n}); an empty body clears it.
func (c *Client) EditPull(ctx context.Context, number int, title, body *string) error {
	edit := &github.PullRequest{Title: title, Body: body}
	_, _, err := c.gh.PullRequests.Edit(ctx, c.owner, c.repo, number, edit)
	return err
}

// AddLabels adds labels to issue or pull request number.
func (c *Client) AddLabels(ctx context.Context, number int, labels []string) error {
	_, _, err := c.gh.Issues.AddLabelsToIssue(ctx, c.owner, c.repo, number, labels)
	return err
}

// RequestReviewers asks users to review pull request number.
func (c *Client) RequestReviewers(ctx context.Context, number int, users []string) error {
	_, _, err := c.gh.PullRequests.RequestReviewers(ctx, c.owner, c.repo, number, github.ReviewersRequest{Reviewers: users})
	return err
}

// AddAssignees assigns users to issue or pull request number.
func (c *Client) AddAssignees(ctx context.Context, number int, users []string) error {
	_, _, err := c.gh.Issues.AddAssignees(ctx, c.owner, c.repo, number, users)
	return err
}

// OpenPull returns the open pull request from head into base (GET pulls,
// one page), if any.
func (c *Client) OpenPull(ctx context.Context, base, head string) (*PullRequest, error) {
	prs, _, err := c.gh.PullRequests.List(ctx, c.owner, c.repo, &github.PullRequestListOptions{
		State: "open", Head: c.owner + ":" + head, Base: base,
		ListOptions: github.ListOptions{PerPage: 10},
	})
	if err != nil {
		return nil, err
	}
	for _, p := range prs {
		if p.GetHead().GetRef() == head && p.GetBase().GetRef() == base {
			pr := fromPull(p)
			return &pr, nil
		}
	}
	return nil, nil
}

// Unprocessable reports a 422 reply.
func Unprocessable(err error) bool { return Status(err) == http.StatusUnprocessableEntity }

// FieldError reports whether an error reply names a request field (head
// or base invalid, title missing) rather than the state of the branches.
func FieldError(err error) bool {
	var er *github.ErrorResponse
	if !errors.As(err, &er) {
		return false
	}
	for _, e := range er.Errors {
		if e.Field != "" {
			return true
		}
	}
	return false
}
