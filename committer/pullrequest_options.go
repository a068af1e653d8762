package committer

import "strings"

// PullRequestOptions describes the pull request CommitPullRequest opens.
type PullRequestOptions struct {
	// Title defaults to the first line of the change set's message.
	Title string
	// Body defaults to the rest of the change set's message.
	Body string
	// Draft opens the pull request as a draft. The default is ready for
	// review. It has no effect on a pull request that is already open.
	Draft bool
	// Labels, Reviewers (user logins) and Assignees are added to the pull
	// request, opened or reused, when it does not have them yet; none is
	// ever removed.
	Labels, Reviewers, Assignees []string
}

// Operations a PullRequestResult reports.
const (
	PullRequestCreated   = "created"   // this call opened it
	PullRequestUpdated   = "updated"   // reused: a commit landed on it, or its title or body changed
	PullRequestUnchanged = "unchanged" // reused: nothing landed, its title and body were already as given
)

// PullRequestResult describes the commit CommitPullRequest made and the pull
// request it proposes.
type PullRequestResult struct {
	Commit *Result `json:"commit"`
	// Number and URL (the pull request's html_url) identify the pull request.
	// Number is 0 when none was opened: the change set was a no-op and head
	// holds no commit that base lacks, so there is nothing to propose.
	Number int    `json:"number"`
	URL    string `json:"url"`
	// Created is true when this call opened the pull request, false when one
	// was already open from head to base and was reused.
	Created bool `json:"created"`
	// Operation is PullRequestCreated, PullRequestUpdated or
	// PullRequestUnchanged; "" when Number is 0.
	Operation string `json:"operation,omitempty"`
}

// splitMessage returns a commit message's first line and the rest, trimmed.
func splitMessage(msg string) (title, body string) {
	msg = strings.TrimSpace(msg)
	title, body, _ = strings.Cut(msg, "\n")
	return strings.TrimSpace(title), strings.TrimSpace(body)
}
