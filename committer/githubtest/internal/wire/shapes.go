package wire

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/sign"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/state"
)

// UserJSON is the user shape (owner, user, account) of login.
func UserJSON(r *http.Request, login string, id int64, typ string) map[string]any {
	api, web := APIBase(r)+"/users/"+login, WebBase(r)+"/"+login
	return obj{
		"login": login, "id": id, "node_id": NodeID("U", login), "type": typ, "site_admin": false,
		"avatar_url":  "https://avatars.githubusercontent.com/u/" + strconv.FormatInt(id, 10) + "?v=4",
		"gravatar_id": "", "url": api, "html_url": web,
		"followers_url": api + "/followers", "following_url": api + "/following{/other_user}",
		"gists_url": api + "/gists{/gist_id}", "starred_url": api + "/starred{/owner}{/repo}",
		"subscriptions_url": api + "/subscriptions", "organizations_url": api + "/orgs",
		"repos_url": api + "/repos", "events_url": api + "/events{/privacy}",
		"received_events_url": api + "/received_events",
	}
}

// RepoURL is rp's API URL.
func RepoURL(rp *state.Repo, r *http.Request) string {
	return APIBase(r) + "/repos/" + rp.FullName()
}

// RepoHTMLURL is rp's web URL.
func RepoHTMLURL(rp *state.Repo, r *http.Request) string {
	return WebBase(r) + "/" + rp.FullName()
}

// RepoJSON is the full repository shape. Caller holds rp.Mu (read).
func RepoJSON(r *http.Request, rp *state.Repo) map[string]any {
	u, html := RepoURL(rp, r), RepoHTMLURL(rp, r)
	created := rp.Created.UTC().Format(time.RFC3339)
	o := obj{
		"id": rp.ID, "node_id": NodeID("R", rp.FullName()), "name": rp.Name, "full_name": rp.FullName(),
		"private": rp.Private, "owner": UserJSON(r, rp.Owner, rp.ID*7, "User"), "html_url": html,
		"description": nil, "fork": false, "url": u, "homepage": nil, "language": nil,
		"clone_url": html + ".git", "git_url": strings.Replace(html, "http", "git", 1) + ".git",
		"ssh_url": "git@" + r.Host + ":" + rp.FullName() + ".git", "svn_url": html, "mirror_url": nil,
		"default_branch": rp.DefaultBranch, "forks": 0, "forks_count": 0, "stargazers_count": 0,
		"watchers": 0, "watchers_count": 0, "open_issues": 0, "open_issues_count": 0, "size": 0,
		"has_downloads": true, "has_issues": true, "has_projects": true, "has_wiki": true, "has_discussions": false,
		"has_pages": false, "archived": false, "disabled": false, "license": nil, "visibility": "public",
		"pushed_at": created, "created_at": created, "updated_at": created,
		"permissions": obj{"admin": true, "maintain": true, "push": true, "triage": true, "pull": true},
	}
	if rp.Private {
		o["visibility"] = "private"
	}
	for _, k := range []string{"allow_update_branch",
		"is_template", "use_squash_pr_title_as_default", "web_commit_signoff_required"} {
		o[k] = false
	}
	o["allow_forking"], o["allow_auto_merge"] = true, rp.Merge.AllowAutoMerge
	o["allow_merge_commit"], o["allow_squash_merge"] = rp.Merge.AllowMergeCommit, rp.Merge.AllowSquashMerge
	o["allow_rebase_merge"], o["delete_branch_on_merge"] = rp.Merge.AllowRebaseMerge, rp.Merge.DeleteBranchOnMerge
	o["network_count"], o["subscribers_count"], o["topics"] = 0, 0, []string{}
	if rp.Org {
		org := UserJSON(r, rp.Owner, rp.ID*7, "Organization")
		o["owner"], o["organization"] = org, org
	}
	for k, v := range map[string]string{
		"archive_url": "/{archive_format}{/ref}", "assignees_url": "/assignees{/user}",
		"blobs_url": "/git/blobs{/sha}", "branches_url": "/branches{/branch}",
		"collaborators_url": "/collaborators{/collaborator}", "comments_url": "/comments{/number}",
		"commits_url": "/commits{/sha}", "compare_url": "/compare/{base}...{head}",
		"contents_url": "/contents/{+path}", "contributors_url": "/contributors",
		"deployments_url": "/deployments", "downloads_url": "/downloads", "events_url": "/events",
		"forks_url": "/forks", "git_commits_url": "/git/commits{/sha}", "git_refs_url": "/git/refs{/sha}",
		"git_tags_url": "/git/tags{/sha}", "hooks_url": "/hooks", "issue_comment_url": "/issues/comments{/number}",
		"issue_events_url": "/issues/events{/number}", "issues_url": "/issues{/number}", "keys_url": "/keys{/key_id}",
		"labels_url": "/labels{/name}", "languages_url": "/languages", "merges_url": "/merges",
		"milestones_url": "/milestones{/number}", "notifications_url": "/notifications{?since,all,participating}",
		"pulls_url": "/pulls{/number}", "releases_url": "/releases{/id}", "stargazers_url": "/stargazers",
		"statuses_url": "/statuses/{sha}", "subscribers_url": "/subscribers", "subscription_url": "/subscription",
		"tags_url": "/tags", "teams_url": "/teams", "trees_url": "/git/trees{/sha}",
	} {
		o[k] = u + v
	}
	return o
}

// GitRefJSON is the git-ref shape of ref at h. Caller holds rp.Mu.
func GitRefJSON(r *http.Request, rp *state.Repo, ref string, h plumbing.Hash) map[string]any {
	typ := "commit"
	if t := rp.ObjType(h); t == plumbing.TagObject {
		typ = "tag"
	}
	return obj{
		"ref": ref, "node_id": RefNodeID(rp, ref), "url": RepoURL(rp, r) + "/git/" + EscapeSegments(ref),
		"object": obj{"type": typ, "sha": h.String(), "url": RepoURL(rp, r) + "/git/" + typ + "s/" + h.String()},
	}
}

// SigJSON is a git commit's or tag's author, committer or tagger.
func SigJSON(s object.Signature) map[string]any {
	return obj{"name": s.Name, "email": s.Email, "date": s.When.Format(time.RFC3339)}
}

// UnsignedVerification is the verification of a commit without a signature.
func UnsignedVerification() sign.Verification {
	return sign.Verification{Verified: false, Reason: "unsigned"}
}

// GitCommitJSON is the git-commit shape. Caller holds rp.Mu.
func GitCommitJSON(r *http.Request, rp *state.Repo, c *object.Commit) map[string]any {
	parents := []obj{}
	for _, p := range c.ParentHashes {
		parents = append(parents, obj{"sha": p.String(), "url": RepoURL(rp, r) + "/git/commits/" + p.String(),
			"html_url": RepoHTMLURL(rp, r) + "/commit/" + p.String()})
	}
	v, ok := rp.Verif[c.Hash]
	if !ok {
		v = UnsignedVerification()
	}
	return obj{
		"sha": c.Hash.String(), "node_id": ObjNodeID(rp, "C", c.Hash),
		"url": RepoURL(rp, r) + "/git/commits/" + c.Hash.String(), "html_url": RepoHTMLURL(rp, r) + "/commit/" + c.Hash.String(),
		"author": SigJSON(c.Author), "committer": SigJSON(c.Committer), "message": c.Message,
		"tree":    obj{"sha": c.TreeHash.String(), "url": RepoURL(rp, r) + "/git/trees/" + c.TreeHash.String()},
		"parents": parents, "verification": v,
	}
}

// CommitJSON is the repos "commit" shape (GET /repos/{o}/{r}/commits/{ref},
// branch.commit). Caller holds rp.Mu.
func CommitJSON(r *http.Request, rp *state.Repo, c *object.Commit) map[string]any {
	sha := c.Hash.String()
	gc := GitCommitJSON(r, rp, c)
	delete(gc, "sha")
	delete(gc, "node_id")
	delete(gc, "html_url")
	delete(gc, "parents")
	gc["comment_count"] = 0
	parents := []obj{}
	for _, p := range c.ParentHashes {
		parents = append(parents, obj{"sha": p.String(), "url": RepoURL(rp, r) + "/commits/" + p.String(),
			"html_url": RepoHTMLURL(rp, r) + "/commit/" + p.String()})
	}
	return obj{
		"sha": sha, "node_id": ObjNodeID(rp, "C", c.Hash), "url": RepoURL(rp, r) + "/commits/" + sha,
		"html_url": RepoHTMLURL(rp, r) + "/commit/" + sha, "comments_url": RepoURL(rp, r) + "/commits/" + sha + "/comments",
		"commit": gc, "author": nil, "committer": nil, "parents": parents,
	}
}

// ObjNodeID is the node ID of a git object (kind C, T, B or TAG), the same
// in REST replies and GraphQL, so node(id:) resolves either.
func ObjNodeID(rp *state.Repo, kind string, h plumbing.Hash) string {
	return NodeID(kind, rp.FullName()+":"+h.String())
}

// RefNodeID is the node ID (REST node_id, GraphQL id)  of a ref; CommittableBranch.id takes it.
func RefNodeID(rp *state.Repo, ref string) string { return NodeID("REF", rp.FullName()+":"+ref) }
