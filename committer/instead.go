package committer

import (
	"context"
	"errors"
)

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
	out.PullRequest = &ProtectedPullRequest{Number: pr.Number, URL: pr.URL, Created: pr.Created, Base: branch, Operation: pr.Operation}
	return &out, true, perr
}
