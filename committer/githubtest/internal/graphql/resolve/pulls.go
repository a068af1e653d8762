package resolve

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/graphql"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/state"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/wire"
)

// Pull requests in GraphQL: Repository.pullRequest(number:),
// Repository.pullRequests and Ref.associatedPullRequests (filtered by
// states, headRefName, baseRefName, labels; oldest first, as GitHub's
// default order), with the fields clients read. The same pull requests
// the REST routes serve.

// gqlPullsLocked filters the repository's pull requests. ref, when set,
// keeps those whose head is that branch (associatedPullRequests). Caller
// holds mu.
func gqlPullsLocked(rp *state.Repo, args map[string]any, headRef string) (any, error) {
	states := map[string]bool{}
	if list, ok := args["states"].([]any); ok {
		for _, s := range list {
			states[strings.ToLower(s.(string))] = true
		}
	}
	head, _ := args["headRefName"].(string)
	if headRef != "" {
		head = headRef
	}
	base, _ := args["baseRefName"].(string)
	var labels []string
	if list, ok := args["labels"].([]any); ok {
		for _, l := range list {
			labels = append(labels, l.(string))
		}
	}
	var nodes []graphql.Object
	for _, p := range rp.Pulls {
		if len(states) > 0 && !states[gqlPullState(p)] || head != "" && p.Head != head || base != "" && p.Base != base {
			continue
		}
		ok := true
		for _, l := range labels {
			ok = ok && slices.Contains(p.Labels, l)
		}
		if ok {
			nodes = append(nodes, gqlPull{rp: rp, p: p})
		}
	}
	anchor := plumbing.ComputeHash(plumbing.BlobObject, []byte("pulls\x00"+head+"\x00"+base))
	return newConnection("PullRequestConnection", "pullRequests", anchor, nodes, args)
}

type gqlPull struct {
	rp *state.Repo
	p  *state.Pull
}

func (gqlPull) TypeName() string { return "PullRequest" }

func (g gqlPull) Field(x *graphql.Exec, name string, _ map[string]any) (any, error) {
	rp, p := g.rp, g.p
	rp.Mu.RLock()
	defer rp.Mu.RUnlock()
	num := strconv.Itoa(p.Number)
	if v, ok := g.mergeField(x, name); ok {
		return v, nil
	}
	if v, ok := g.autoMergeField(x, name); ok {
		return v, nil
	}
	switch name {
	case "id":
		return wire.NodeID("PR", rp.FullName()+"#"+num), nil
	case "number":
		return p.Number, nil
	case "databaseId", "fullDatabaseId":
		if name == "fullDatabaseId" {
			return strconv.FormatInt(rp.ID*100000+int64(p.Number), 10), nil
		}
		return rp.ID*100000 + int64(p.Number), nil
	case "title":
		return p.Title, nil
	case "body":
		return p.Body, nil
	case "state":
		return strings.ToUpper(gqlPullState(p)), nil
	case "closed":
		return p.State == "closed", nil
	case "isDraft":
		return p.Draft, nil
	case "locked":
		return false, nil
	case "url", "permalink":
		return wire.RepoHTMLURL(rp, x.R) + "/pull/" + num, nil
	case "resourcePath":
		return "/" + rp.FullName() + "/pull/" + num, nil
	case "headRefName":
		return p.Head, nil
	case "baseRefName":
		return p.Base, nil
	case "baseRefOid":
		return p.BaseSHA, nil
	case "headRef":
		return gqlRefLocked(rp, "refs/heads/"+p.Head), nil
	case "baseRef":
		return gqlRefLocked(rp, "refs/heads/"+p.Base), nil
	case "repository", "baseRepository", "headRepository":
		return gqlRepo{rp: rp}, nil
	case "createdAt":
		return p.Created.UTC().Format(time.RFC3339), nil
	case "updatedAt":
		return p.UpdatedAt().UTC().Format(time.RFC3339), nil
	case "closedAt":
		if p.Closed == nil {
			return nil, nil
		}
		return p.Closed.UTC().Format(time.RFC3339), nil
	case "author":
		return gqlAccount{typ: "User", login: p.User.Login, id: p.User.UserID}, nil
	}
	return nil, graphql.Unserved("PullRequest", name)
}

// gqlPullState is PullRequestState in lower case: merged pull requests
// are MERGED, not CLOSED.
func gqlPullState(p *state.Pull) string {
	if p.MergedAt != nil {
		return "merged"
	}
	return p.State
}
