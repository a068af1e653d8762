package rules

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/graphql"
)

// Merging a pull request moves its base branch through the rules too, but
// a merge is what the pull_request rule asks for: it is judged by the
// approvals and the merge methods the rule sets; required status checks
// are read on the pull request's head, and with "require branches to be up
// to date" (ruleset strict_required_status_checks_policy, classic
// required_status_checks.strict) a head that does not hold the base
// branch's tip is refused ("N of N required status checks are expected.",
// as GitHub answered a behind pull request: RakuenSoftware/aimee#2460).
// The other messages are the ones a direct update gets; the approvals
// message is classic protection's, the merge-method one a guess.

// PullMerge marks a change as the merge of a pull request.
type PullMerge struct {
	Head   plumbing.Hash // the pull request's head commit
	Behind bool          // the head does not hold the base branch's tip
	Method string        // merge, squash or rebase; "" judges no method (mergeable_state)
	Queued bool          // judged for the merge queue: the merge_queue rule is what it goes through
}

// pullRuleMessages judges a ruleset rule for a merge; ok is false when the
// rule judges a merge as any other change.
func pullRuleMessages(rp Repo, r Rule, ch Change) (msgs []string, ok bool) {
	if ch.Pull == nil {
		return nil, false
	}
	switch r.Type {
	case "non_fast_forward":
		return nil, true // a merge moves the base forward
	case "merge_queue":
		if ch.Pull.Queued {
			return nil, true
		}
	case "pull_request":
		if n, _ := graphql.ArgInt(r.Parameters, "required_approving_review_count"); n > 0 {
			msgs = append(msgs, reviewsMessage(int(n)))
		}
		if m := stringsParam(r.Parameters["allowed_merge_methods"]); ch.Pull.Method != "" && m != nil && !slices.Contains(m, ch.Pull.Method) {
			// Wording a guess.
			msgs = append(msgs, "Merge method "+ch.Pull.Method+" is not allowed by a ruleset on this branch.")
		}
		return msgs, true
	case "required_status_checks":
		strict := r.Parameters["strict_required_status_checks_policy"] == true
		return pullChecks(rp, ch.Pull, checkContexts(r.Parameters), strict), true
	}
	return nil, false
}

// pullProtectionMessages is what classic protection says about a merge.
func pullProtectionMessages(rp Repo, p *Protection, ch Change) []string {
	var out []string
	if p.RequiredApprovingReviews > 0 {
		out = append(out, reviewsMessage(p.RequiredApprovingReviews))
	}
	out = append(out, pullChecks(rp, ch.Pull, p.RequiredStatusChecks, p.RequireUpToDate)...)
	if p.RequireSignatures {
		out = append(out, unsignedMessages(rp, ch)...)
	}
	return out
}

// pullChecks are the required checks a merge misses: all of them while
// the head is behind and the branch must be up to date, else those without
// a "success" status on the head.
func pullChecks(rp Repo, pm *PullMerge, contexts []string, strict bool) []string {
	if strict && pm.Behind {
		if len(contexts) == 0 {
			return []string{"Head branch is not up to date with the base branch."} // wording a guess
		}
		n := strconv.Itoa(len(contexts))
		return []string{n + " of " + n + " required status checks are expected."}
	}
	return missingChecks(rp, pm.Head, contexts)
}

func reviewsMessage(n int) string {
	return fmt.Sprintf("At least %d approving review%s required by reviewers with write access.", n, map[bool]string{true: " is", false: "s are"}[n == 1])
}

// checkContexts reads the contexts of a required_status_checks rule.
func checkContexts(params map[string]any) []string {
	var contexts []string
	switch checks := params["required_status_checks"].(type) {
	case []map[string]any:
		for _, c := range checks {
			contexts = append(contexts, fmt.Sprint(c["context"]))
		}
	case []any:
		for _, c := range checks {
			if m, ok := c.(map[string]any); ok {
				contexts = append(contexts, fmt.Sprint(m["context"]))
			}
		}
	}
	return contexts
}

// unsignedMessages refuses a change that brings a commit that is not
// Verified.
func unsignedMessages(rp Repo, ch Change) []string {
	for _, c := range newCommits(rp, ch) {
		if !rp.Verified(c.Hash) {
			return []string{"Commits must have verified signatures."}
		}
	}
	return nil
}
