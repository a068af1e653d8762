package rest

import (
	"context"
	"fmt"
	"net/http"
	"strconv"

	"github.com/google/go-github/v66/github"

	"github.com/ghcommitter/ghcommitter/committer/internal/kind"
)

// PullState is what waiting for a pull request's merge reads of it.
type PullState struct {
	State       string // "open" or "closed"
	Merged      bool
	MergeCommit string // merge_commit_sha once merged
	Head        string // the head branch's commit
	AutoMerge   bool   // auto-merge is enabled on it
}

// PullState reads pull request number (GET pulls/{n}). The client's ETag
// cache (ghclient) makes every read after the first conditional: an
// unchanged pull request is a 304, which costs none of the primary rate
// limit. See https://docs.github.com/rest/pulls/pulls#get-a-pull-request.
func (c *Client) PullState(ctx context.Context, number int) (PullState, error) {
	var p struct {
		State          string `json:"state"`
		Merged         bool   `json:"merged"`
		MergeCommitSHA string `json:"merge_commit_sha"`
		Head           struct {
			SHA string `json:"sha"`
		} `json:"head"`
		AutoMerge *struct{} `json:"auto_merge"`
	}
	u := c.repoURL("pulls", strconv.Itoa(number))
	if _, err := c.do(ctx, http.MethodGet, u, nil, &p); err != nil {
		return PullState{}, err
	}
	out := PullState{State: p.State, Merged: p.Merged, Head: p.Head.SHA, AutoMerge: p.AutoMerge != nil}
	if p.Merged {
		out.MergeCommit = p.MergeCommitSHA
	}
	return out, nil
}

// MergeRules is what the rules active on a branch say of merging into it.
type MergeRules struct {
	// Methods are the merge methods the pull_request rules allow (their
	// allowed_merge_methods, intersected); nil when no rule limits them.
	Methods []string
	// Checks are the contexts the required_status_checks rules require.
	Checks []string
}

// MergeRules reads the rules active on branch (GET
// rules/branches/{branch}). Classic branch protection is not among them.
// See https://docs.github.com/rest/repos/rules#get-rules-for-a-branch.
func (c *Client) MergeRules(ctx context.Context, branch string) (MergeRules, error) {
	var rules []struct {
		Type       string `json:"type"`
		Parameters struct {
			AllowedMergeMethods  []string `json:"allowed_merge_methods"`
			RequiredStatusChecks []struct {
				Context string `json:"context"`
			} `json:"required_status_checks"`
		} `json:"parameters"`
	}
	if _, err := c.do(ctx, http.MethodGet, c.repoURL("rules/branches", branch), nil, &rules); err != nil {
		return MergeRules{}, err
	}
	var out MergeRules
	limited := false
	for _, r := range rules {
		for _, rc := range r.Parameters.RequiredStatusChecks {
			out.Checks = append(out.Checks, rc.Context)
		}
		if r.Type != "pull_request" || len(r.Parameters.AllowedMergeMethods) == 0 {
			continue
		}
		if !limited {
			out.Methods, limited = append([]string(nil), r.Parameters.AllowedMergeMethods...), true
			continue
		}
		out.Methods = intersect(out.Methods, r.Parameters.AllowedMergeMethods)
	}
	if limited && out.Methods == nil {
		out.Methods = []string{} // the rules allow no method at all
	}
	return out, nil
}

func intersect(a, b []string) []string {
	var out []string
	for _, x := range a {
		for _, y := range b {
			if x == y {
				out = append(out, x)
				break
			}
		}
	}
	return out
}

// Ahead is a commit that compare lists: one head has that base lacks.
type Ahead struct {
	SHA     string
	Message string
}

// maxAhead bounds the commits AheadOf reads (four pages of 250).
const maxAhead = 1000

// AheadOf lists the commits head has that base lacks, oldest first (GET
// compare/{base}...{head}, pages of 250). More than maxAhead is an error.
// See https://docs.github.com/rest/commits/commits#compare-two-commits.
func (c *Client) AheadOf(ctx context.Context, base, head string) ([]Ahead, error) {
	var out []Ahead
	for page := 1; ; page++ {
		cmp, resp, err := c.gh.Repositories.CompareCommits(ctx, c.owner, c.repo, base, head, &github.ListOptions{PerPage: 250, Page: page})
		if err != nil {
			return nil, err
		}
		for _, rc := range cmp.Commits {
			out = append(out, Ahead{SHA: rc.GetSHA(), Message: rc.GetCommit().GetMessage()})
		}
		if len(out) > maxAhead {
			return nil, fmt.Errorf("%s has more than %d commits that %s lacks", kind.Short(head), maxAhead, kind.Short(base))
		}
		if resp == nil || resp.NextPage == 0 {
			return out, nil
		}
	}
}
