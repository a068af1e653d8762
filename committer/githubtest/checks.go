package githubtest

import (
	"fmt"
	"io/fs"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/state"
)

// Checks, auto-merge and the merge queue: REST statuses/{sha}, the
// combined status and check runs; GraphQL statusCheckRollup,
// enablePullRequestAutoMerge, disablePullRequestAutoMerge,
// enqueuePullRequest, dequeuePullRequest and mergeQueue. A required check
// (RequireStatusChecks, BranchProtection.RequiredStatusChecks) is met by a
// commit status or a check run of that name. What GitHub does in the
// background (an auto-merge pull request merging once its checks pass, the
// merge queue building, checking and merging groups) the fake does on the
// first request to the repository that can see it: no goroutine, no
// sleep. See testdata/github-api/BEHAVIOUR.md section 7.

// Check conclusions an AutoCheck reports.
const (
	CheckSuccess = "success"
	CheckFailure = "failure"
)

// WithAutoCheck makes check run name report conclusion (CheckSuccess or
// CheckFailure) on every new head of the branches matching pattern ("*"
// within a path segment, "**" across them: "**" is every branch,
// "gh-readonly-queue/**" the merge queue's) of every repository the
// server creates, after d on the server's clock (Pass moves it; 0: at
// once). The run is in_progress until then. A head a branch already had
// when the setting was made gets no run.
func WithAutoCheck(name, pattern, conclusion string, d time.Duration) Option {
	return func(s *Server) {
		s.autoChecks = append(s.autoChecks, state.AutoCheck{Name: name, Pattern: pattern, Conclusion: conclusion, After: d})
	}
}

// AddAutoCheck is WithAutoCheck for owner/name alone, from now on.
func (s *Server) AddAutoCheck(owner, name, check, pattern, conclusion string, d time.Duration) error {
	rp := s.getRepo(owner, name)
	if rp == nil {
		return fmt.Errorf("githubtest: repository %s/%s: %w", owner, name, fs.ErrNotExist)
	}
	if conclusion != CheckSuccess && conclusion != CheckFailure {
		return fmt.Errorf("githubtest: check conclusion %q: want success or failure", conclusion)
	}
	rp.Mu.Lock()
	defer rp.Mu.Unlock()
	rp.Settle(s.now())
	rp.Checks.MarkSeen(len(rp.Updates))
	rp.Checks.Auto = append(rp.Checks.Auto, state.AutoCheck{Name: check, Pattern: pattern, Conclusion: conclusion, After: d})
	return nil
}

// MergeQueue lists the pull request numbers in the merge queue of
// branch of owner/name, front first.
func (s *Server) MergeQueue(owner, name, branch string) ([]int, error) {
	rp := s.getRepo(owner, name)
	if rp == nil {
		return nil, fmt.Errorf("githubtest: repository %s/%s: %w", owner, name, fs.ErrNotExist)
	}
	rp.Mu.RLock()
	defer rp.Mu.RUnlock()
	var out []int
	if q := rp.Queues[branch]; q != nil {
		for _, e := range q.Entries {
			out = append(out, e.Pull.Number)
		}
	}
	return out, nil
}

// settle lets what GitHub does in the background catch up with the clock
// before a request (or a Go helper) looks at rp.
func settle(rp *state.Repo) {
	if rp == nil || rp.Clock == nil {
		return
	}
	rp.Mu.RLock()
	now := rp.Clock()
	need := rp.Unsettled(now)
	rp.Mu.RUnlock()
	if need {
		rp.Mu.Lock()
		rp.Settle(now)
		rp.Mu.Unlock()
	}
}
