package committer

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
)

// onProtected is WithPullRequestOnProtected's: where a refused commit goes.
type onProtected struct {
	head string // "": generated from the message
	pr   PullRequestOptions
}

// ProtectedPullRequest is the pull request Commit opened instead of
// committing to a branch whose pull-request rule refused the write
// (WithPullRequestOnProtected).
type ProtectedPullRequest struct {
	Number  int    `json:"number"`
	URL     string `json:"url"`
	Created bool   `json:"created"` // false: an open one from the head branch was reused
	Base    string `json:"base"`    // the protected branch
}

// WithPullRequestOnProtected turns a refusal by a pull-request rule
// (ErrProtected with Error.Rule "pull_request") into a pull request: the
// same change set is committed to the branch head, created from the
// protected branch, and a pull request from head into it is opened, as
// CommitPullRequest does. The Result is then head's commit, with
// PullRequest set. An empty head is generated from the change set's
// message ("ghcommitter/" and 12 hex digits of its SHA-256), so a re-run
// reuses the pull request. A refusal by any other rule is returned as it
// is. The default returns every refusal.
func WithPullRequestOnProtected(head string, pr PullRequestOptions) CommitOption {
	return func(o *commitOptions) error {
		if head != "" {
			if err := ValidateBranch(head); err != nil {
				return err
			}
		}
		o.onProtected = &onProtected{head: head, pr: pr}
		return nil
	}
}

// protectedHead is the head branch of WithPullRequestOnProtected's pull
// request for a change set with message.
func (o *onProtected) protectedHead(message string) string {
	if o.head != "" {
		return o.head
	}
	sum := sha256.Sum256([]byte(message))
	return "ghcommitter/" + hex.EncodeToString(sum[:])[:12]
}

// instead commits cs through a pull request into branch when err is a
// refusal by a pull-request rule and co asks for it; ok is false when it
// does not apply.
func (c *Committer) instead(ctx context.Context, branch string, cs *ChangeSet, co commitOptions, err error) (res *Result, ok bool, perr error) {
	var e *Error
	if co.onProtected == nil || !errors.As(err, &e) || !errors.Is(err, ErrProtected) || e.Rule != "pull_request" {
		return nil, false, nil
	}
	head := co.onProtected.protectedHead(cs.Message)
	if head == branch {
		return nil, true, err
	}
	c.o.logger.DebugContext(ctx, "a pull-request rule refused the commit; opening a pull request instead", "branch", branch, "head", head)
	pr, perr := c.CommitPullRequest(ctx, branch, head, cs, co.onProtected.pr)
	if pr == nil || pr.Commit == nil {
		return nil, true, perr
	}
	out := *pr.Commit
	out.PullRequest = &ProtectedPullRequest{Number: pr.Number, URL: pr.URL, Created: pr.Created, Base: branch}
	return &out, true, perr
}
