package githubtest

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/graphql"
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
func gqlPullsLocked(rp *repo, args map[string]any, headRef string) (any, error) {
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
	for _, p := range rp.pulls {
		if len(states) > 0 && !states[p.state] || head != "" && p.head != head || base != "" && p.base != base {
			continue
		}
		ok := true
		for _, l := range labels {
			ok = ok && slices.Contains(p.labels, l)
		}
		if ok {
			nodes = append(nodes, gqlPull{rp: rp, p: p})
		}
	}
	anchor := plumbing.ComputeHash(plumbing.BlobObject, []byte("pulls\x00"+head+"\x00"+base))
	return newConnection("PullRequestConnection", "pullRequests", anchor, nodes, args)
}

type gqlPull struct {
	rp *repo
	p  *pull
}

func (gqlPull) TypeName() string { return "PullRequest" }

func (g gqlPull) Field(x *graphql.Exec, name string, _ map[string]any) (any, error) {
	rp, p := g.rp, g.p
	rp.mu.RLock()
	defer rp.mu.RUnlock()
	num := strconv.Itoa(p.number)
	switch name {
	case "id":
		return wire.NodeID("PR", rp.fullName()+"#"+num), nil
	case "number":
		return p.number, nil
	case "databaseId", "fullDatabaseId":
		if name == "fullDatabaseId" {
			return strconv.FormatInt(rp.id*100000+int64(p.number), 10), nil
		}
		return rp.id*100000 + int64(p.number), nil
	case "title":
		return p.title, nil
	case "body":
		return p.body, nil
	case "state":
		return strings.ToUpper(p.state), nil
	case "closed":
		return p.state == "closed", nil
	case "merged":
		return false, nil
	case "isDraft":
		return p.draft, nil
	case "locked":
		return false, nil
	case "url", "permalink":
		return repoHTMLURL(rp, x.R) + "/pull/" + num, nil
	case "resourcePath":
		return "/" + rp.fullName() + "/pull/" + num, nil
	case "headRefName":
		return p.head, nil
	case "baseRefName":
		return p.base, nil
	case "headRefOid":
		return p.headSHA, nil
	case "baseRefOid":
		return p.baseSHA, nil
	case "headRef":
		return gqlRefLocked(rp, "refs/heads/"+p.head), nil
	case "baseRef":
		return gqlRefLocked(rp, "refs/heads/"+p.base), nil
	case "repository", "baseRepository", "headRepository":
		return gqlRepo{rp: rp}, nil
	case "createdAt":
		return p.created.UTC().Format(time.RFC3339), nil
	case "updatedAt":
		return p.updatedAt().UTC().Format(time.RFC3339), nil
	case "closedAt":
		if p.closed == nil {
			return nil, nil
		}
		return p.closed.UTC().Format(time.RFC3339), nil
	case "author":
		return gqlAccount{typ: "User", login: p.user.login, id: p.user.userID}, nil
	case "mergeable":
		return "UNKNOWN", nil
	}
	return nil, graphql.Unserved("PullRequest", name)
}
