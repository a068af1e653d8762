package commit

import (
	"errors"
	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/spf13/cobra"
)

// commit's --on-protected, and the hints of a refusal by a rule. commit.go
// calls registerOnProtected, checkOnProtected and onProtectedOptions (one
// line each); env.go calls protectedHint.

func registerOnProtected(cmd *cobra.Command, v *string) {
	cmd.Flags().StringVar(v, "on-protected", "fail", "what to do when a pull-request rule refuses the commit: `fail` (exit 1, kind protected) or pull-request (commit to a generated ghcommitter/… branch and open a pull request into the branch)")
}

func checkOnProtected(v string, pr, tag bool) error {
	switch {
	case v != "fail" && v != "pull-request":
		return cmdutil.UsageErrorf("", "--on-protected must be fail or pull-request, got %q", v)
	case v == "pull-request" && pr:
		return cmdutil.UsageErrorf("drop one of them", "--on-protected pull-request and --pull-request cannot be combined")
	case v == "pull-request" && tag:
		return cmdutil.UsageErrorf("tag the merge commit once the pull request is merged", "--on-protected pull-request and --tag cannot be combined")
	}
	return nil
}

// onProtectedOptions is --on-protected's option; the pull request takes
// the merge flags (merge.go), as --pull-request's does.
func onProtectedOptions(v string, m *mergeFlags, e *cmdutil.Env) []committer.CommitOption {
	if v != "pull-request" {
		return nil
	}
	var pr committer.PullRequestOptions
	m.options(&pr, e)
	return []committer.CommitOption{committer.WithPullRequestOnProtected("", pr)}
}

// protectedAfterLanding reports a commit that --on-protected pull-request
// landed on its pull request's head branch when opening, merging or
// waiting for the pull request then failed: partly done (exit 4), as with
// --pull-request.
func protectedAfterLanding(out *output, rb *readBack, res *committer.Result, err error) error {
	p := res.PullRequest
	c := *res
	c.PullRequest = nil
	pr := &committer.PullRequestResult{Commit: &c, Number: p.Number, URL: p.URL, Created: p.Created, Operation: p.Operation, Merge: p.Merge}
	return out.pullRequestAfterLanding(pr, p.Base, rb.verified(c.Repository, c.Commit), err)
}

// protectedHint is the way through a refusal by the rule the library
// named (committer.Error.Rule), in this CLI's flags.
func protectedHint(err error) string {
	var ce *committer.Error
	rule := ""
	if errors.As(err, &ce) {
		rule = ce.Rule
	}
	switch rule {
	case "required_signatures":
		return "the branch needs verified signatures: commit with --engine graphql or --engine contents (GitHub signs their commits), or --sign-key with a key registered on GitHub"
	case "merge_queue":
		return "the branch takes changes through its merge queue: commit with --pull-request -b NEW_BRANCH and add the pull request to the queue"
	case "required_status_checks":
		return "the branch needs passing status checks on the new commit: commit with --pull-request -b NEW_BRANCH"
	}
	return "the branch is protected: commit through a pull request instead: add --pull-request -b NEW_BRANCH, or --on-protected pull-request"
}
