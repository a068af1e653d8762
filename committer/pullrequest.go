package committer

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/ghcommitter/ghcommitter/committer/internal/rest"
)

// CommitPullRequest commits cs to the branch head, creating head from base
// when it does not exist (see CreateBranchFrom), then opens a pull request
// from head into base, for branches that refuse direct pushes. When a pull
// request from head into base is already open, it is reused: the new commit
// simply adds to it, and its title and body are updated to pr.Title and
// pr.Body where those are given and differ (the message's defaults never
// replace what a pull request already says). pr's labels, reviewers and
// assignees are added in both cases.
//
// base and head are validated, and must differ, before any request is sent.
// The commit is made exactly as by Commit, through the same coordinator of
// head (fast-forward only, retried on a new head of head when another
// writer wins), with opts: WithEngine picks its engine, ExpectHead pins
// head's head, and CreateBranchFrom names another ref than base to create
// head from (the default is base). Opening the pull request is
// sent once and never retried; when it fails after the commit landed, the
// error is returned together with a *PullRequestResult whose Commit says what
// landed, so a caller can retry just the pull request.
//
// The token needs contents: write to commit and pull-requests: write to open
// the pull request. See https://docs.github.com/rest/pulls/pulls#create-a-pull-request.
func (c *Committer) CommitPullRequest(ctx context.Context, base, head string, cs *ChangeSet, pr PullRequestOptions, opts ...CommitOption) (*PullRequestResult, error) {
	const op = "open pull request for"
	if err := ValidateBranch(base); err != nil {
		return nil, c.fail(op, head, ErrInvalid, fmt.Errorf("base branch: %w", err))
	}
	if err := ValidateBranch(head); err != nil {
		return nil, c.fail(op, head, ErrInvalid, fmt.Errorf("head branch: %w", err))
	}
	if head == base {
		return nil, c.fail(op, head, ErrInvalid, fmt.Errorf("head and base are both %q: a pull request needs a separate head branch", head))
	}
	if cs == nil {
		return nil, c.fail(op, head, ErrInvalid, errors.New("change set must not be nil"))
	}
	res, err := c.Commit(ctx, head, cs, append([]CommitOption{CreateBranchFrom(base)}, opts...)...)
	if err != nil {
		return nil, err
	}
	return c.openPullRequest(ctx, base, head, cs, pr, &PullRequestResult{Commit: res})
}

// openPullRequest opens the pull request from head into base after the
// commit res landed on head, or reuses (and updates) the open one.
func (c *Committer) openPullRequest(ctx context.Context, base, head string, cs *ChangeSet, pr PullRequestOptions, out *PullRequestResult) (*PullRequestResult, error) {
	title, body := splitMessage(cs.Message)
	if pr.Title != "" {
		title = pr.Title
	}
	if pr.Body != "" {
		body = pr.Body
	}
	// The commit landed: opening the pull request is sent like a landing
	// write (see WithLandingGrace), so a cancel does not leave it unknown.
	l := c.startLanding(ctx)
	got, err := c.rest.CreatePull(l.Ctx, rest.NewPullRequest{Title: title, Body: body, Head: head, Base: base, Draft: pr.Draft})
	err = l.Done(err)
	if err == nil {
		out.Number, out.URL, out.Created, out.Operation = got.Number, got.URL, true, PullRequestCreated
		return out, c.decorate(ctx, head, base, got, pr)
	}
	if !rest.Unprocessable(err) || rest.FieldError(err) {
		return out, c.prFail(head, base, err)
	}
	// 422 without a bad field: a pull request from head into base is already
	// open, or head holds no commit that base lacks. Look for the open one.
	rctx, cancel := c.settleContext(ctx)
	defer cancel()
	open, ferr := c.rest.OpenPull(rctx, base, head)
	if ferr != nil {
		return out, c.prFail(head, base, ferr)
	}
	if open == nil {
		if out.Commit.NoOp {
			return out, nil // nothing to propose
		}
		return out, c.prFail(head, base, err)
	}
	return c.reusePullRequest(ctx, base, head, *open, pr, out)
}

// reusePullRequest updates the open pull request from head into base to
// pr's title, body, labels, reviewers and assignees.
func (c *Committer) reusePullRequest(ctx context.Context, base, head string, open rest.PullRequest, pr PullRequestOptions, out *PullRequestResult) (*PullRequestResult, error) {
	out.Number, out.URL, out.Operation = open.Number, open.URL, PullRequestUnchanged
	if !out.Commit.NoOp {
		out.Operation = PullRequestUpdated
	}
	edited, err := c.editPullRequest(ctx, head, base, open, pr)
	if edited {
		out.Operation = PullRequestUpdated
	}
	if err != nil {
		return out, err
	}
	return out, c.decorate(ctx, head, base, open, pr)
}

// editPullRequest sets a reused pull request's title and body to pr's,
// where given and different. It reports whether it changed them.
func (c *Committer) editPullRequest(ctx context.Context, head, base string, open rest.PullRequest, pr PullRequestOptions) (bool, error) {
	var title, body string
	if pr.Title != "" && pr.Title != open.Title {
		title = pr.Title
	}
	if pr.Body != "" && pr.Body != open.Body {
		body = pr.Body
	}
	if title == "" && body == "" {
		return false, nil
	}
	l := c.startLanding(ctx)
	err := c.rest.EditPull(l.Ctx, open.Number, title, body)
	if err = l.Done(err); err != nil {
		return false, c.prFail(head, base, fmt.Errorf("update pull request #%d: %w", open.Number, err))
	}
	return true, nil
}

// missing returns the names of want that have lacks (compared without
// case when fold).
func missing(want, have []string, fold bool) []string {
	seen := map[string]bool{}
	norm := func(s string) string {
		if fold {
			return strings.ToLower(s)
		}
		return s
	}
	for _, h := range have {
		seen[norm(h)] = true
	}
	var out []string
	for _, w := range want {
		if !seen[norm(w)] {
			out = append(out, w)
		}
	}
	return out
}

// decorate adds pr's labels, reviewers and assignees that p lacks.
func (c *Committer) decorate(ctx context.Context, head, base string, p rest.PullRequest, pr PullRequestOptions) error {
	labels := missing(pr.Labels, p.Labels, false)
	reviewers := missing(pr.Reviewers, p.Reviewers, true)
	assignees := missing(pr.Assignees, p.Assignees, true)
	n := p.Number
	l := c.startLanding(ctx)
	var err error
	if len(labels) > 0 && err == nil {
		err = wrapIf(c.rest.AddLabels(l.Ctx, n, labels), "add labels to #%d", n)
	}
	if len(reviewers) > 0 && err == nil {
		err = wrapIf(c.rest.RequestReviewers(l.Ctx, n, reviewers), "request reviewers for #%d", n)
	}
	if len(assignees) > 0 && err == nil {
		err = wrapIf(c.rest.AddAssignees(l.Ctx, n, assignees), "add assignees to #%d", n)
	}
	if err = l.Done(err); err != nil {
		return c.prFail(head, base, err)
	}
	return nil
}

func wrapIf(err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf(format+": %w", append(args, err)...)
}

func (c *Committer) prFail(head, base string, err error) *Error {
	e := c.fail("open pull request for", head, nil, fmt.Errorf("into %s: %w", base, err))
	switch rest.Status(err) {
	case http.StatusForbidden, http.StatusNotFound:
		e.Hint = "the commit landed on " + head + "; opening the pull request needs the pull-requests: write permission"
	case http.StatusUnprocessableEntity:
		e.Kind = ErrInvalid
		e.Hint = "the commit landed on " + head + "; check that " + base + " exists and that " + head + " has commits " + base + " lacks"
	}
	return e
}

// Operations a PullRequestResult reports.
const (
	PullRequestCreated   = "created"   // this call opened it
	PullRequestUpdated   = "updated"   // reused: a commit landed on it, or its title or body changed
	PullRequestUnchanged = "unchanged" // reused: nothing landed, its title and body were already as given
)

// splitMessage returns a commit message's first line and the rest, trimmed.
func splitMessage(msg string) (title, body string) {
	msg = strings.TrimSpace(msg)
	title, body, _ = strings.Cut(msg, "\n")
	return strings.TrimSpace(title), strings.TrimSpace(body)
}
