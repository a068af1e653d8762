package committer

import (
	"time"
)

// Result describes a commit that landed, or a change set that needed none.
type Result struct {
	Repository string `json:"repository"`
	Branch     string `json:"branch"`
	Commit     string `json:"commit"` // the new head; the unchanged head for a no-op
	Parent     string `json:"parent"` // the head the commit was built on
	Tree       string `json:"tree"`
	Attempts   int    `json:"attempts"`
	// Changed lists the paths the commit wrote or deleted. Small puts are
	// written without reading the branch first (see Written), so a put of
	// content that was already there can be listed.
	Changed []string     `json:"changed"`
	Files   []FileChange `json:"-"`
	// NoOp is true when the branch already held the change set's content:
	// no commit was made and the branch did not move.
	NoOp bool `json:"noop"`
	// CreatedBranch is true when this commit created the branch.
	CreatedBranch bool `json:"created_branch,omitempty"`
	// Bootstrapped is true when the repository was empty: GitHub's Git Data
	// API refuses to work on a repository with no commit, so its first
	// commit was made through the contents API with one of the change set's
	// own plain files (exactly as asked), and the rest of the change set, if
	// any, followed in a second commit (Commit; its Parent is the first).
	Bootstrapped bool `json:"bootstrapped,omitempty"`
	// Engine names the engine that made the commit (git-data, graphql or
	// contents; see WithEngine): with EngineAuto, the one it picked.
	Engine string `json:"engine,omitempty"`
	// Tag is the tag (Tag) that now points at Commit, moved in the same
	// ref update as the branch where GitHub has updateRefs.
	Tag string `json:"tag,omitempty"`
	// PullRequest is set when a pull-request rule refused the commit and
	// WithPullRequestOnProtected committed it to Branch (a head branch)
	// with a pull request into the protected branch instead.
	PullRequest *ProtectedPullRequest `json:"pull_request,omitempty"`
}

// ProtectedPullRequest is the pull request Commit opened instead of
// committing to a branch whose pull-request rule refused the write
// (WithPullRequestOnProtected).
type ProtectedPullRequest struct {
	Number  int    `json:"number"`
	URL     string `json:"url"`
	Created bool   `json:"created"` // false: an open one from the head branch was reused
	Base    string `json:"base"`    // the protected branch
	// Operation is PullRequestCreated, PullRequestUpdated or
	// PullRequestUnchanged, as in PullRequestResult.
	Operation string `json:"operation,omitempty"`
}

// Plan is what a change set would do to a branch, computed without writing
// anything: a dry run.
type Plan struct {
	Repository string       `json:"repository"`
	Branch     string       `json:"branch"`
	Head       string       `json:"head"` // the head it was resolved against; "" for an empty repository
	Files      []FileChange `json:"files"`
	// NewBranch is true when the branch does not exist and would be created
	// from the CreateBranchFrom base.
	NewBranch bool `json:"new_branch,omitempty"`
}

// Changes reports whether the plan changes anything.
func (p *Plan) Changes() bool {
	for _, f := range p.Files {
		if f.Action != Unchanged {
			return true
		}
	}
	return p.NewBranch
}

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

// EventKind says what an Event reports.
type EventKind int

// The events WithObserver reports.
const (
	// EventAttempt: an attempt starts (Attempt is its number, from 1).
	EventAttempt EventKind = iota + 1
	// EventLostRace: another writer moved the branch first; the change is
	// rebuilt on the new head in the next attempt (Head is the head it was
	// built on, Took how long the attempt took).
	EventLostRace
	// EventRateLimitWait: GitHub refused a write for now (a secondary rate
	// limit), and the next attempt waits at least Wait; or a request of
	// the attempt waits Wait for a rate-limit window of its credential
	// before it is sent (the HTTP layer's gate). A wait longer than the
	// client accepts (ghclient.RateLimits.MaxWait) is never waited: the
	// commit fails with ErrRateLimited.
	EventRateLimitWait
	// EventLanded: the commit landed (Commit is the new head, or the head
	// that already held the change for a no-op).
	EventLanded
	// EventWritePaced: a write of the attempt waits Wait for the write
	// pacer, which spaces the credential's writes as GitHub asks
	// (ghclient.RateLimits.Pacing).
	EventWritePaced
	// EventUpload: a blob upload finished: Done of Total blobs this
	// attempt uploads, Bytes of TotalBytes (a progress event: it names the
	// Repository, not the Branch or Attempt).
	EventUpload
	// EventTree: a create-tree request finished: Done of Total for the
	// tree being built (a large tree is built in chunks; a progress event,
	// like EventUpload).
	EventTree
)

func (k EventKind) String() string {
	switch k {
	case EventAttempt:
		return "attempt"
	case EventLostRace:
		return "lost race"
	case EventRateLimitWait:
		return "rate-limit wait"
	case EventLanded:
		return "landed"
	case EventWritePaced:
		return "write paced"
	case EventUpload:
		return "upload"
	case EventTree:
		return "tree"
	}
	return "unknown"
}

// Event is one step of a commit's life, reported to the function given to
// WithObserver.
type Event struct {
	Kind       EventKind
	Repository string // owner/name
	Branch     string
	Attempt    int
	Head       string        // the head the attempt built on, when known
	Commit     string        // EventLanded: the commit on the branch
	Wait       time.Duration // EventRateLimitWait, EventWritePaced
	Took       time.Duration // EventLostRace: how long the lost attempt took
	Changes    int           // the change sets the attempt carries (1, or a batch's)
	// EventUpload and EventTree: progress.
	Done, Total       int
	Bytes, TotalBytes int64
}
