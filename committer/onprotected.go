package committer

import (
	"crypto/sha256"
	"encoding/hex"
)

// onProtected is WithPullRequestOnProtected's: where a refused commit goes.
type onProtected struct {
	head string // "": generated from the message
	pr   PullRequestOptions
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
