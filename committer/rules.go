package committer

import (
	"context"
	"errors"
	"strings"
)

// Rules that explain themselves: after a write refused by a rule
// (ErrProtected), the rule is named (Error.Rule) and the hint says the way
// through. Rulesets are read with GET rules/branches/{branch} after the
// refusal, never before a commit; classic branch protection is known by
// its refusal's message and GET branches/{branch}'s protected.

// ruleMessages maps what GitHub's refusals say to the rule's type, as GET
// rules/branches names it (classic protection's refusals say the same
// things for the same requirements).
var ruleMessages = []struct{ says, typ string }{
	{"through a pull request", "pull_request"},
	{"approving review", "pull_request"},
	{"verified signature", "required_signatures"},
	{"must be signed", "required_signatures"},
	{"merge queue", "merge_queue"},
	{"status check", "required_status_checks"},
	{"cannot force-push", "non_fast_forward"},
	{"creations being restricted", "creation"},
	{"cannot update this protected ref", "update"},
	{"file path", "file_path_restriction"},
	{"file size", "max_file_size"},
}

// RuleHints is the way through a refusal by each rule type (Error.Hint).
var ruleHints = map[string]string{
	"pull_request":           "the branch takes changes through pull requests: commit with CommitPullRequest (to a new branch, with a pull request into this one), or WithPullRequestOnProtected",
	"required_signatures":    "the branch needs verified signatures: commit through the graphql or contents engine (GitHub signs their commits), or sign with WithSigner using a key registered on GitHub",
	"merge_queue":            "the branch takes changes through its merge queue: open a pull request (CommitPullRequest) and add it to the queue; direct pushes need a bypass",
	"required_status_checks": "the branch needs status checks that pass on the new commit: commit to another branch and open a pull request (CommitPullRequest)",
}

// explainProtected names the rule that refused e's write and gives the
// way through. A read that fails leaves e as it is.
func (c *Committer) explainProtected(ctx context.Context, branch string, e *Error) {
	if e == nil || !errors.Is(e.Kind, ErrProtected) || e.Rule != "" {
		return
	}
	said := strings.ToLower(e.Error())
	var named []string
	for _, m := range ruleMessages {
		if strings.Contains(said, m.says) && !contains(named, m.typ) {
			named = append(named, m.typ)
		}
	}
	rctx, cancel := c.settleContext(ctx)
	defer cancel()
	active := c.branchRuleTypes(rctx, branch)
	rule := ""
	for _, t := range named {
		if contains(active, t) {
			rule = t
			break
		}
	}
	switch {
	case rule == "" && len(active) > 0 && len(named) == 0:
		rule = active[0]
	case rule == "" && len(named) > 0:
		rule = named[0] // classic branch protection: its own message says it
	}
	if rule == "" && c.branchProtected(rctx, branch) {
		rule = "branch_protection"
	}
	e.Rule = rule
	if h, ok := ruleHints[rule]; ok {
		e.Hint = h
	}
}

// branchRuleTypes lists the types of the rules active on branch (GET
// rules/branches/{branch}), nil when they cannot be read. See
// https://docs.github.com/rest/repos/rules#get-rules-for-a-branch.
func (c *Committer) branchRuleTypes(ctx context.Context, branch string) []string {
	types, err := c.rest.BranchRuleTypes(ctx, branch)
	if err != nil {
		return nil
	}
	return types
}

// branchProtected reports GET branches/{branch}'s protected (classic
// protection or rules).
func (c *Committer) branchProtected(ctx context.Context, branch string) bool {
	protected, err := c.rest.BranchProtected(ctx, branch)
	return err == nil && protected
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
