package resolve

import (
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/graphql"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/state"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/wire"
)

// mergePullRequest merges a pull request as PUT pulls/{n}/merge does
// (state.MergePull), with expectedHeadOid as the sha guard. GitHub's
// GraphQL answers to a refused merge are not recorded: the fake gives the
// REST message in an UNPROCESSABLE error (a guess; the -tags github probe
// TestGitHubProbeMerge records the real ones).
func (s *Env) mergePullRequest(x *graphql.Exec, in map[string]any) (graphql.Object, error) {
	id, _ := in["pullRequestId"].(string)
	rp, num := s.pullFromID(id)
	if rp == nil {
		return nil, graphql.Errorf("NOT_FOUND", "Could not resolve to a node with the global id of '"+id+"'")
	}
	str := func(k string) *string {
		if v, ok := in[k].(string); ok {
			return &v
		}
		return nil
	}
	method := "merge"
	if m := str("mergeMethod"); m != nil {
		method = strings.ToLower(*m)
	}
	mi := state.MergeInput{Method: method, Title: str("commitHeadline"), Message: str("commitBody"),
		By: wire.IdentOf(x.R), Now: s.Now()}
	if e := str("expectedHeadOid"); e != nil {
		mi.SHA = *e
	}
	if e := str("authorEmail"); e != nil && *e != "" {
		mi.By.Email = *e
	}
	rp.Mu.Lock()
	defer rp.Mu.Unlock()
	if num < 1 || num > len(rp.Pulls) {
		return nil, graphql.Errorf("NOT_FOUND", "Could not resolve to a node with the global id of '"+id+"'")
	}
	p := rp.Pulls[num-1]
	if e := rp.MergePull(p, mi); e != nil {
		if e.Status == http.StatusInternalServerError {
			return nil, graphql.Errorf("", msgGraphQLGaveUp)
		}
		return nil, graphql.Errorf("UNPROCESSABLE", e.Message)
	}
	return gqlMergePayload{rp: rp, p: p, by: mi.By, clientMutationID: in["clientMutationId"]}, nil
}

// pullFromID decodes a pull request's node ID (wire.NodeID("PR",
// "owner/name#n")) to its repository and number; nil when it names none.
func (s *Env) pullFromID(id string) (*state.Repo, int) {
	enc, ok := strings.CutPrefix(id, "PR_")
	raw, err := base64.RawURLEncoding.DecodeString(enc)
	if !ok || err != nil {
		return nil, 0
	}
	full, n, ok := strings.Cut(string(raw), "#")
	owner, name, _ := strings.Cut(full, "/")
	num, err := strconv.Atoi(n)
	if !ok || err != nil {
		return nil, 0
	}
	rp := s.Repo(owner, name)
	if rp == nil {
		rp = s.MovedRepo(owner, name)
	}
	return rp, num
}

type gqlMergePayload struct {
	rp               *state.Repo
	p                *state.Pull
	by               state.Identity
	clientMutationID any
}

func (gqlMergePayload) TypeName() string { return "MergePullRequestPayload" }

func (g gqlMergePayload) Field(_ *graphql.Exec, name string, _ map[string]any) (any, error) {
	switch name {
	case "clientMutationId":
		return g.clientMutationID, nil
	case "pullRequest":
		return gqlPull{rp: g.rp, p: g.p}, nil
	case "actor":
		return gqlAccount{typ: "User", login: g.by.Login, id: g.by.UserID}, nil
	}
	return nil, graphql.Unserved("MergePullRequestPayload", name)
}

// mergeField answers the merge fields of a pull request; ok is false for
// the others. Caller holds rp.Mu.
func (g gqlPull) mergeField(x *graphql.Exec, name string) (v any, ok bool) {
	rp, p := g.rp, g.p
	switch name {
	case "merged":
		return p.MergedAt != nil, true
	case "mergedAt":
		if p.MergedAt == nil {
			return nil, true
		}
		return p.MergedAt.UTC().Format(time.RFC3339), true
	case "mergedBy":
		if p.MergedAt == nil {
			return nil, true
		}
		return gqlAccount{typ: "User", login: p.MergedBy.Login, id: p.MergedBy.UserID}, true
	case "mergeCommit":
		if c, found := rp.Commits[plumbing.NewHash(p.MergeCommit)]; p.MergedAt != nil && found {
			return gqlCommit{rp: rp, c: c}, true
		}
		return nil, true
	case "mergeable", "mergeStateStatus", "canBeRebased":
		m := rp.PullMergeability(p, wire.IdentOf(x.R))
		mergeable, status := m.GraphQLState()
		return map[string]any{"mergeable": mergeable, "mergeStateStatus": status, "canBeRebased": m.Known && m.Rebaseable}[name], true
	case "headRefOid":
		return rp.PullHead(p).String(), true
	}
	return nil, false
}

// pullNode is node(id:) of a pull request's ID, or nil.
func (s *Env) pullNode(id string) graphql.Object {
	rp, n := s.pullFromID(id)
	if rp == nil {
		return nil
	}
	rp.Mu.RLock()
	defer rp.Mu.RUnlock()
	if n < 1 || n > len(rp.Pulls) {
		return nil
	}
	return gqlPull{rp: rp, p: rp.Pulls[n-1]}
}

// repoSetting is a repository's boolean setting name: its merge settings,
// and true for the features the fake has on. Caller holds rp.Mu.
func repoSetting(rp *state.Repo, name string) bool {
	m := rp.Merge
	return map[string]bool{"mergeCommitAllowed": m.AllowMergeCommit, "squashMergeAllowed": m.AllowSquashMerge,
		"rebaseMergeAllowed": m.AllowRebaseMerge, "deleteBranchOnMerge": m.DeleteBranchOnMerge, "autoMergeAllowed": m.AllowAutoMerge,
		"hasIssuesEnabled": true, "hasWikiEnabled": true, "hasProjectsEnabled": true}[name]
}
