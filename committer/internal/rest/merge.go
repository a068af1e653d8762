package rest

import (
	"context"
	"net/http"
	"strconv"
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

// RuleMergeMethods lists the merge methods the pull_request rules active
// on branch allow (their allowed_merge_methods, intersected); nil when no
// rule limits them. See
// https://docs.github.com/rest/repos/rules#get-rules-for-a-branch.
func (c *Client) RuleMergeMethods(ctx context.Context, branch string) ([]string, error) {
	var rules []struct {
		Type       string `json:"type"`
		Parameters struct {
			AllowedMergeMethods []string `json:"allowed_merge_methods"`
		} `json:"parameters"`
	}
	if _, err := c.do(ctx, http.MethodGet, c.repoURL("rules/branches", branch), nil, &rules); err != nil {
		return nil, err
	}
	var out []string
	limited := false
	for _, r := range rules {
		if r.Type != "pull_request" || len(r.Parameters.AllowedMergeMethods) == 0 {
			continue
		}
		if !limited {
			out, limited = append([]string(nil), r.Parameters.AllowedMergeMethods...), true
			continue
		}
		out = intersect(out, r.Parameters.AllowedMergeMethods)
	}
	if limited && out == nil {
		out = []string{} // the rules allow no method at all
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
