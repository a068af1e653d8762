package commit

import (
	"fmt"
	"strings"

	"github.com/ghcommitter/ghcommitter/committer"
)

// pullRequestAfterLanding reports a --pull-request run whose commit
// (r.Commit) landed on the head branch while err, after it, failed: opening
// the pull request, or, once it is open (r.Number), editing it or adding its
// labels, reviewers and assignees. It is never "nothing was written": the
// GitHub Actions outputs (commit, branch, and the pull request's when one is
// open) are written first, the message says the commit landed and what
// failed after it, --json prints the result with the error beside it, and
// the exit code is 4 (partly done). The afterLanding in its chain tells a
// signal's exit (interrupted) the same.
func (o *output) pullRequestAfterLanding(r *committer.PullRequestResult, base string, verified bool, err error) error {
	c := r.Commit
	u := o.commitURL(c.Repository, c.Commit)
	ee := Classify(err)
	what, hint := "opening the pull request into "+base+" failed", "open the pull request from "+c.Branch+" into "+base+" yourself"
	switch {
	case r.Merge != nil:
		what = fmt.Sprintf("pull request #%d (%s) is open, but it was not merged", r.Number, r.URL)
		hint = fmt.Sprintf("see to pull request #%d yourself", r.Number)
	case r.Number != 0:
		what = fmt.Sprintf("pull request #%d (%s) is open, but finishing it failed", r.Number, r.URL)
		hint = fmt.Sprintf("finish pull request #%d yourself", r.Number)
	}
	msg := fmt.Errorf("the commit landed on %s (%s); then %s: %w", c.Branch, c.Commit, what, ee.Err)
	if aerr := o.actions(c, u, r, verified); aerr != nil {
		msg = fmt.Errorf("%w; and %w", msg, aerr)
	}
	hint = "do not run again for the commit, which would commit again: " + hint
	if h := ee.Hint; h != "" {
		hint += " (" + strings.TrimPrefix(h, "the commit landed on "+c.Branch+"; ") + ")"
	}
	pd := PartlyDone(&afterLanding{err: msg, branch: c.Branch, commit: c.Commit}, hint, o.json)
	if o.json {
		j := o.jsonResult(c, u)
		if r.Number != 0 {
			j.PullRequest = &jsonPR{r.Number, r.URL, r.Created, r.Operation, base, c.Branch, r.Merge}
		}
		_ = writeJSON(o.e, partlyDoneJSON(j, pd)) // stdout failed too: the exit code still says it
	}
	return pd
}
