package rules

import (
	"strings"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/graphql"
)

// The merge queue reads its rule and the required checks of the branch it
// merges into (GitHub: "Managing a merge queue", rulesets "Require merge
// queue").

// QueueRule is the parameters of the merge_queue rule that applies to ref
// (the first ruleset's), or nil when no ruleset requires a merge queue.
func QueueRule(sets []*Set, defaultBranch, ref string) map[string]any {
	for _, rs := range sets {
		if !rs.Applies(defaultBranch, ref) {
			continue
		}
		for _, r := range rs.Rules {
			if r.Type == "merge_queue" {
				if r.Parameters == nil {
					return map[string]any{}
				}
				return r.Parameters
			}
		}
	}
	return nil
}

// QueueParam is an integer parameter of a merge_queue rule, or def.
func QueueParam(params map[string]any, key string, def int) int {
	if n, ok := graphql.ArgInt(params, key); ok {
		return int(n)
	}
	return def
}

// RequiredChecks lists the contexts the rulesets and classic protections
// of ref require, without repeats.
func RequiredChecks(sets []*Set, prots []*Protection, defaultBranch, ref string) []string {
	var out []string
	for _, rs := range sets {
		if !rs.Applies(defaultBranch, ref) {
			continue
		}
		for _, r := range rs.Rules {
			if r.Type == "required_status_checks" {
				out = append(out, checkContexts(r.Parameters)...)
			}
		}
	}
	if branch, ok := strings.CutPrefix(ref, "refs/heads/"); ok {
		for _, p := range prots {
			if GlobMatch(p.Pattern, branch) {
				out = append(out, p.RequiredStatusChecks...)
			}
		}
	}
	return dedupe(out)
}

// QueueStringParam is a string parameter of a merge_queue rule, or def.
func QueueStringParam(params map[string]any, key, def string) string {
	if s, ok := params[key].(string); ok && s != "" {
		return s
	}
	return def
}
