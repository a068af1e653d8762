package rest

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/state"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/wire"
)

// headBranch splits "owner:branch" or "branch".
func headBranch(head, owner string) (string, string) {
	if i := strings.IndexByte(head, ':'); i >= 0 {
		return head[:i], head[i+1:]
	}
	return owner, head
}

// CreatePull answers POST /repos/{owner}/{repo}/pulls.
func (rh *Handler) CreatePull(w http.ResponseWriter, r *http.Request, rp *state.Repo) {
	var body struct {
		Title string `json:"title"`
		Body  string `json:"body"`
		Head  string `json:"head"`
		Base  string `json:"base"`
		Draft bool   `json:"draft"`
	}
	if !wire.DecodeBody(w, r, &body, docPulls) {
		return
	}
	rp.Mu.Lock()
	defer rp.Mu.Unlock()
	headOwner, head := headBranch(body.Head, rp.Owner)
	hsha, okHead := rp.Refs["refs/heads/"+head]
	if body.Head == "" || !okHead || !strings.EqualFold(headOwner, rp.Owner) {
		wire.WriteValidation(w, r, docPulls, wire.ValidationError{Resource: "PullRequest", Field: "head", Code: "invalid"})
		return
	}
	bsha, okBase := rp.Refs["refs/heads/"+body.Base]
	if !okBase {
		wire.WriteValidation(w, r, docPulls, wire.ValidationError{Resource: "PullRequest", Field: "base", Code: "invalid"})
		return
	}
	if body.Title == "" {
		wire.WriteValidation(w, r, docPulls, wire.ValidationError{Resource: "PullRequest", Field: "title", Code: "missing_field"})
		return
	}
	for _, p := range rp.Pulls {
		if p.State == "open" && p.Head == head && p.Base == body.Base {
			wire.WriteValidation(w, r, docPulls, wire.ValidationError{Resource: "PullRequest", Code: "custom",
				Message: "A pull request already exists for " + headOwner + ":" + head + "."})
			return
		}
	}
	if hsha == bsha {
		wire.WriteValidation(w, r, docPulls, wire.ValidationError{Resource: "PullRequest", Code: "custom",
			Message: "No commits between " + body.Base + " and " + head})
		return
	}
	p := &state.Pull{Number: len(rp.Pulls) + 1, Title: body.Title, Body: body.Body, Head: head, Base: body.Base,
		HeadOwner: headOwner, State: "open", Draft: body.Draft, Created: rh.Now(), User: wire.IdentOf(r),
		HeadSHA: hsha.String(), BaseSHA: bsha.String()}
	rp.Pulls = append(rp.Pulls, p)
	out := pullJSON(r, rp, p)
	w.Header().Set("Location", out["url"].(string))
	wire.WriteJSON(w, r, http.StatusCreated, out)
}

// ListPulls answers GET /repos/{owner}/{repo}/pulls.
func (rh *Handler) ListPulls(w http.ResponseWriter, r *http.Request, rp *state.Repo) {
	q := r.URL.Query()
	state := q.Get("state")
	if state == "" {
		state = "open"
	}
	rp.Mu.RLock()
	defer rp.Mu.RUnlock()
	out := []obj{}
	for i := len(rp.Pulls) - 1; i >= 0; i-- {
		p := rp.Pulls[i]
		if state != "all" && p.State != state {
			continue
		}
		if h := q.Get("head"); h != "" {
			o, b := headBranch(h, rp.Owner)
			if !strings.EqualFold(o, p.HeadOwner) || b != p.Head {
				continue
			}
		}
		if b := q.Get("base"); b != "" && b != p.Base {
			continue
		}
		out = append(out, pullJSON(r, rp, p))
	}
	wire.WriteJSON(w, r, http.StatusOK, out)
}

// GetPull answers GET /repos/{owner}/{repo}/pulls/{number}.
func (rh *Handler) GetPull(w http.ResponseWriter, r *http.Request, rp *state.Repo) {
	n, _ := strconv.Atoi(r.PathValue("number"))
	rp.Mu.RLock()
	defer rp.Mu.RUnlock()
	if n < 1 || n > len(rp.Pulls) {
		wire.WriteError(w, r, http.StatusNotFound, "Not Found", wire.DocRoot)
		return
	}
	wire.WriteJSON(w, r, http.StatusOK, pullJSON(r, rp, rp.Pulls[n-1]))
}

// pullJSON is the pull-request shape. Caller holds rp.mu.
func pullJSON(r *http.Request, rp *state.Repo, p *state.Pull) obj {
	num := strconv.Itoa(p.Number)
	u := wire.RepoURL(rp, r) + "/pulls/" + num
	html := wire.RepoHTMLURL(rp, r) + "/pull/" + num
	issue := wire.RepoURL(rp, r) + "/issues/" + num
	user := wire.UserJSON(r, p.User.Login, p.User.UserID, "User")
	ts := p.Created.UTC().Format(time.RFC3339)
	var closed, assignee any
	if p.Closed != nil {
		closed = p.Closed.UTC().Format(time.RFC3339)
	}
	if len(p.Assignees) > 0 {
		assignee = wire.UserJSON(r, p.Assignees[0], loginID(p.Assignees[0]), "User")
	}
	repoObj := wire.RepoJSON(r, rp)
	side := func(branch, sha string) obj {
		return obj{"label": rp.Owner + ":" + branch, "ref": branch, "sha": sha, "user": user, "repo": repoObj}
	}
	link := func(h string) obj { return obj{"href": h} }
	headSHA := rp.PullHead(p).String()
	m := rp.PullMergeability(p, wire.IdentOf(r))
	var mergeable, rebaseable, mergeSHA, mergedBy any
	if m.Known {
		mergeable, rebaseable = m.Mergeable, m.Rebaseable
	}
	if p.MergedAt != nil {
		mergeSHA = p.MergeCommit
		mergedBy = wire.UserJSON(r, p.MergedBy.Login, p.MergedBy.UserID, "User")
	}
	return obj{
		"url": u, "id": rp.ID*100000 + int64(p.Number), "node_id": wire.NodeID("PR", rp.FullName()+"#"+num),
		"html_url": html, "diff_url": html + ".diff", "patch_url": html + ".patch", "issue_url": issue,
		"commits_url": u + "/commits", "review_comments_url": u + "/comments",
		"review_comment_url": wire.RepoURL(rp, r) + "/pulls/comments{/number}", "comments_url": issue + "/comments",
		"statuses_url": wire.RepoURL(rp, r) + "/statuses/" + headSHA, "number": p.Number, "state": p.State,
		"locked": false, "title": p.Title, "user": user, "body": p.Body, "labels": labelsJSON(rp, r, p.Labels, true),
		"milestone": nil, "active_lock_reason": nil, "created_at": ts, "updated_at": p.UpdatedAt().UTC().Format(time.RFC3339),
		"closed_at": closed, "merged_at": mergedAt(p), "merge_commit_sha": mergeSHA, "assignee": assignee,
		"assignees": usersJSON(r, p.Assignees), "requested_reviewers": usersJSON(r, p.Reviewers), "requested_teams": []obj{},
		"head": side(p.Head, headSHA), "base": side(p.Base, p.BaseSHA),
		"_links": obj{"self": link(u), "html": link(html), "issue": link(issue),
			"comments": link(issue + "/comments"), "review_comments": link(u + "/comments"),
			"review_comment": link(wire.RepoURL(rp, r) + "/pulls/comments{/number}"), "commits": link(u + "/commits"),
			"statuses": link(wire.RepoURL(rp, r) + "/statuses/" + headSHA)},
		"author_association": "OWNER", "auto_merge": autoMergeJSON(r, p), "draft": p.Draft, "merged": p.MergedAt != nil,
		"mergeable": mergeable, "rebaseable": rebaseable, "mergeable_state": m.State, "merged_by": mergedBy,
		"comments": 0, "review_comments": 0, "maintainer_can_modify": false, "commits": 1,
		"additions": 0, "deletions": 0, "changed_files": 0,
	}
}

// mergedAt is merged_at: null until merged.
func mergedAt(p *state.Pull) any {
	if p.MergedAt == nil {
		return nil
	}
	return p.MergedAt.UTC().Format(time.RFC3339)
}
