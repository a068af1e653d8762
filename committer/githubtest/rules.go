package githubtest

import (
	"fmt"
	"io/fs"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/rules"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/state"
)

// Rule is one rule of a ruleset, as GitHub's rules API lists it: a type
// ("pull_request", "required_signatures", ...) and its parameters.
//
// See the fields in committer/githubtest/internal/rules.
type Rule = rules.Rule

// Ruleset is a repository ruleset. Include and Exclude are ref name
// patterns as GitHub's ref_name condition takes them: "refs/heads/main",
// "refs/heads/release/*", "refs/tags/v*", "~DEFAULT_BRANCH", "~ALL"; a
// pattern without "refs/" or "~" is a branch name. BypassLogins lists the
// users (the login of the request's token) whose writes skip the ruleset.
//
// See the fields in committer/githubtest/internal/rules.
type Ruleset = rules.Ruleset

// BranchProtection is classic branch protection of one branch (or a
// pattern such as "release/*").
//
// See the fields in committer/githubtest/internal/rules.
type BranchProtection = rules.BranchProtection

// RequirePullRequest is the pull_request rule: changes to the branch must
// be made through a pull request.
func RequirePullRequest() Rule {
	return Rule{Type: "pull_request", Parameters: map[string]any{
		"allowed_merge_methods": []string{"merge", "squash", "rebase"}, "dismiss_stale_reviews_on_push": false,
		"require_code_owner_review": false, "require_last_push_approval": false,
		"required_approving_review_count": 0, "required_review_thread_resolution": false,
	}}
}

// RequireSignatures is the required_signatures rule: every commit the
// update brings must be Verified (GitHub-signed, or signed with a key
// registered with AddGPGKey by a matching committer).
func RequireSignatures() Rule { return Rule{Type: "required_signatures"} }

// RequireStatusChecks is the required_status_checks rule: the new head
// must have a "success" status (SetCommitStatus) for every context.
func RequireStatusChecks(contexts ...string) Rule {
	checks := make([]map[string]any, 0, len(contexts))
	for _, c := range contexts {
		checks = append(checks, map[string]any{"context": c})
	}
	return Rule{Type: "required_status_checks", Parameters: map[string]any{
		"required_status_checks": checks, "strict_required_status_checks_policy": false, "do_not_enforce_on_create": false,
	}}
}

// RequireMergeQueue is the merge_queue rule: changes go through the merge
// queue, never a direct update.
func RequireMergeQueue() Rule {
	return Rule{Type: "merge_queue", Parameters: map[string]any{
		"check_response_timeout_minutes": 60, "grouping_strategy": "ALLGREEN", "max_entries_to_build": 5,
		"max_entries_to_merge": 5, "merge_method": "MERGE", "min_entries_to_merge": 1, "min_entries_to_merge_wait_minutes": 5,
	}}
}

// RestrictFilePaths is the file_path_restriction rule: no commit the
// update brings may change a path matching one of the patterns (fnmatch:
// "*" within a segment, "**" across segments).
func RestrictFilePaths(patterns ...string) Rule {
	return Rule{Type: "file_path_restriction", Parameters: map[string]any{"restricted_file_paths": patterns}}
}

// MaxFileSize is the max_file_size rule: no file the update brings may be
// larger than megabytes MB (1 to 100).
func MaxFileSize(megabytes int) Rule {
	return Rule{Type: "max_file_size", Parameters: map[string]any{"max_file_size": megabytes}}
}

// RestrictCreations is the creation rule; RestrictUpdates and
// RestrictDeletions are the update and deletion rules, BlockForcePushes is
// non_fast_forward.
func RestrictCreations() Rule { return Rule{Type: "creation"} }

// RestrictUpdates is the update rule (see RestrictCreations).
func RestrictUpdates() Rule {
	return Rule{Type: "update", Parameters: map[string]any{"update_allows_fetch_and_merge": false}}
}

// RestrictDeletions is the deletion rule (see RestrictCreations).
func RestrictDeletions() Rule { return Rule{Type: "deletion"} }

// BlockForcePushes is the non_fast_forward rule (see RestrictCreations).
func BlockForcePushes() Rule { return Rule{Type: "non_fast_forward"} }

// AddRuleset adds an active ruleset to owner/name and returns its id.
func (s *Server) AddRuleset(owner, name string, rs Ruleset) (int64, error) {
	rp := s.getRepo(owner, name)
	if rp == nil {
		return 0, fmt.Errorf("githubtest: repository %s/%s: %w", owner, name, fs.ErrNotExist)
	}
	for _, r := range rs.Rules {
		if r.Type == "" {
			return 0, fmt.Errorf("githubtest: ruleset %q: a rule without a type", rs.Name)
		}
	}
	id := s.rulesetSeq.Add(1) // not nextID: repository IDs stay as they were
	rp.Mu.Lock()
	defer rp.Mu.Unlock()
	rp.Rulesets = append(rp.Rulesets, &rules.Set{Ruleset: rs, ID: id})
	return id, nil
}

// ProtectBranch sets classic branch protection on branch (a name or a
// pattern) of owner/name, replacing any it had.
func (s *Server) ProtectBranch(owner, name, branch string, p BranchProtection) error {
	rp := s.getRepo(owner, name)
	if rp == nil {
		return fmt.Errorf("githubtest: repository %s/%s: %w", owner, name, fs.ErrNotExist)
	}
	rp.Mu.Lock()
	defer rp.Mu.Unlock()
	for _, pr := range rp.Protections {
		if pr.Pattern == branch {
			pr.BranchProtection = p
			return nil
		}
	}
	rp.Protections = append(rp.Protections, &rules.Protection{Pattern: branch, BranchProtection: p})
	return nil
}

// SetCommitStatus records a commit status (state "success", "failure",
// "pending" or "error") for context on sha, which required status checks
// read.
func (s *Server) SetCommitStatus(owner, name, sha, context, st string) error {
	rp := s.getRepo(owner, name)
	if rp == nil {
		return fmt.Errorf("githubtest: repository %s/%s: %w", owner, name, fs.ErrNotExist)
	}
	rp.Mu.Lock()
	defer rp.Mu.Unlock()
	h := plumbing.NewHash(sha)
	if _, ok := rp.Commits[h]; !ok {
		return fmt.Errorf("githubtest: %s/%s: commit %s: %w", owner, name, sha, fs.ErrNotExist)
	}
	rp.AddStatus(&state.CommitStatus{SHA: h, State: st, Context: context, Creator: state.Identity{Login: "githubtest"}, Created: s.now()})
	return nil
}
