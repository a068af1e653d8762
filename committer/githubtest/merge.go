package githubtest

import (
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/state"
)

// Merging pull requests: PUT /repos/{o}/{r}/pulls/{n}/merge and GraphQL
// mergePullRequest write git-exact merge, squash and rebased commits
// (committed and signed by GitHub's web flow), refuse what GitHub refuses
// (a conflict, a moved head, a merge method the repository or a ruleset
// does not allow, a rule the merge breaks) and show mergeable,
// mergeable_state and merged in the pull request. Conflicts are judged by
// path, not by line: see testdata/github-api/BEHAVIOUR.md section 7.

// MergeSettings are a repository's merge settings: which merge methods it
// allows and whether a merged pull request's head branch is deleted. A new
// repository allows all three and keeps head branches, as on GitHub.
//
// See the fields in committer/githubtest/internal/state.
type MergeSettings = state.MergeSettings

// DefaultMergeSettings are a new repository's: every method allowed, head
// branches kept.
func DefaultMergeSettings() MergeSettings { return state.DefaultMergeSettings() }

var errNoMergeMethod = errors.New("githubtest: at least one merge method must be allowed")

// WithMergeSettings sets the merge settings of every repository the server
// creates (Seed, CreateRepo, POST /user/repos). It panics when they allow
// no merge method, which GitHub does not let a repository have.
func WithMergeSettings(m MergeSettings) Option {
	if !m.AllowMergeCommit && !m.AllowSquashMerge && !m.AllowRebaseMerge {
		panic(errNoMergeMethod)
	}
	return func(s *Server) { s.mergeDefaults = &m }
}

// WithMergeabilityLag makes mergeability take d to compute, as GitHub
// computes it in the background: for d after a pull request is created or
// edited, or its head or base branch moves, it reads mergeable null and
// mergeable_state "unknown" (GraphQL mergeable and mergeStateStatus
// UNKNOWN), so that a client must poll for it. Merging is not held up.
// The default, 0, has it known at once. Pass moves the clock it is
// measured on.
func WithMergeabilityLag(d time.Duration) Option { return func(s *Server) { s.mergeLag = d } }

// SetMergeSettings changes the merge settings of owner/name. At least one
// merge method must be allowed.
func (s *Server) SetMergeSettings(owner, name string, m MergeSettings) error {
	if !m.AllowMergeCommit && !m.AllowSquashMerge && !m.AllowRebaseMerge {
		return errNoMergeMethod
	}
	rp := s.getRepo(owner, name)
	if rp == nil {
		return fmt.Errorf("githubtest: repository %s/%s: %w", owner, name, fs.ErrNotExist)
	}
	rp.Mu.Lock()
	defer rp.Mu.Unlock()
	rp.Merge = m
	return nil
}

// RequirePullRequestMethods is the pull_request rule allowing only the
// given merge methods ("merge", "squash", "rebase") to merge into the
// branch: a pull request merged another way is refused.
func RequirePullRequestMethods(methods ...string) Rule {
	r := RequirePullRequest()
	r.Parameters["allowed_merge_methods"] = append([]string(nil), methods...)
	return r
}

// RequireUpToDate is the required_status_checks rule with "require
// branches to be up to date before merging" on
// (strict_required_status_checks_policy): a pull request whose head does
// not hold the branch's tip is behind and may not merge, and the contexts,
// if any, must be "success" on its head.
func RequireUpToDate(contexts ...string) Rule {
	r := RequireStatusChecks(contexts...)
	r.Parameters["strict_required_status_checks_policy"] = true
	return r
}

// mergeRoutes mounts PUT and GET pulls/{n}/merge under rr.
func (s *Server) mergeRoutes(rr string) {
	s.handleRepo("PUT "+rr+"/pulls/{number}/merge", s.rest.MergePull)
	s.handleRepo("GET "+rr+"/pulls/{number}/merge", s.rest.CheckMerged)
}
