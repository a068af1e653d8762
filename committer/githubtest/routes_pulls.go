package githubtest

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/wire"
)

type pull struct {
	number           int
	title, body      string
	head, base       string // branch names
	headOwner        string
	state            string
	draft            bool
	created          time.Time
	user             identity
	headSHA, baseSHA string

	updated   time.Time  // zero: never updated
	closed    *time.Time // closed_at
	labels    []string   // label names, in the order added
	assignees []string   // logins
	reviewers []string   // requested reviewers' logins
}

// headBranch splits "owner:branch" or "branch".
func headBranch(head, owner string) (string, string) {
	if i := strings.IndexByte(head, ':'); i >= 0 {
		return head[:i], head[i+1:]
	}
	return owner, head
}

func (s *Server) handleCreatePull(w http.ResponseWriter, r *http.Request, rp *repo) {
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
	rp.mu.Lock()
	defer rp.mu.Unlock()
	headOwner, head := headBranch(body.Head, rp.owner)
	hsha, okHead := rp.refs["refs/heads/"+head]
	if body.Head == "" || !okHead || !strings.EqualFold(headOwner, rp.owner) {
		wire.WriteValidation(w, r, docPulls, wire.ValidationError{Resource: "PullRequest", Field: "head", Code: "invalid"})
		return
	}
	bsha, okBase := rp.refs["refs/heads/"+body.Base]
	if !okBase {
		wire.WriteValidation(w, r, docPulls, wire.ValidationError{Resource: "PullRequest", Field: "base", Code: "invalid"})
		return
	}
	if body.Title == "" {
		wire.WriteValidation(w, r, docPulls, wire.ValidationError{Resource: "PullRequest", Field: "title", Code: "missing_field"})
		return
	}
	for _, p := range rp.pulls {
		if p.state == "open" && p.head == head && p.base == body.Base {
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
	p := &pull{number: len(rp.pulls) + 1, title: body.Title, body: body.Body, head: head, base: body.Base,
		headOwner: headOwner, state: "open", draft: body.Draft, created: s.now(), user: identOf(r),
		headSHA: hsha.String(), baseSHA: bsha.String()}
	rp.pulls = append(rp.pulls, p)
	out := pullJSON(r, rp, p)
	w.Header().Set("Location", out["url"].(string))
	wire.WriteJSON(w, r, http.StatusCreated, out)
}

func (s *Server) handleListPulls(w http.ResponseWriter, r *http.Request, rp *repo) {
	q := r.URL.Query()
	state := q.Get("state")
	if state == "" {
		state = "open"
	}
	rp.mu.RLock()
	defer rp.mu.RUnlock()
	out := []obj{}
	for i := len(rp.pulls) - 1; i >= 0; i-- {
		p := rp.pulls[i]
		if state != "all" && p.state != state {
			continue
		}
		if h := q.Get("head"); h != "" {
			o, b := headBranch(h, rp.owner)
			if !strings.EqualFold(o, p.headOwner) || b != p.head {
				continue
			}
		}
		if b := q.Get("base"); b != "" && b != p.base {
			continue
		}
		out = append(out, pullJSON(r, rp, p))
	}
	wire.WriteJSON(w, r, http.StatusOK, out)
}

func (s *Server) handleGetPull(w http.ResponseWriter, r *http.Request, rp *repo) {
	n, _ := strconv.Atoi(r.PathValue("number"))
	rp.mu.RLock()
	defer rp.mu.RUnlock()
	if n < 1 || n > len(rp.pulls) {
		wire.WriteError(w, r, http.StatusNotFound, "Not Found", docRoot)
		return
	}
	wire.WriteJSON(w, r, http.StatusOK, pullJSON(r, rp, rp.pulls[n-1]))
}

// pullJSON is the pull-request shape. Caller holds rp.mu.
func pullJSON(r *http.Request, rp *repo, p *pull) obj {
	num := strconv.Itoa(p.number)
	u := repoURL(rp, r) + "/pulls/" + num
	html := repoHTMLURL(rp, r) + "/pull/" + num
	issue := repoURL(rp, r) + "/issues/" + num
	user := userJSON(r, p.user.login, p.user.userID, "User")
	ts := p.created.UTC().Format(time.RFC3339)
	var closed, assignee any
	if p.closed != nil {
		closed = p.closed.UTC().Format(time.RFC3339)
	}
	if len(p.assignees) > 0 {
		assignee = userJSON(r, p.assignees[0], loginID(p.assignees[0]), "User")
	}
	repoObj := repoJSON(r, rp)
	side := func(branch, sha string) obj {
		return obj{"label": rp.owner + ":" + branch, "ref": branch, "sha": sha, "user": user, "repo": repoObj}
	}
	link := func(h string) obj { return obj{"href": h} }
	return obj{
		"url": u, "id": rp.id*100000 + int64(p.number), "node_id": wire.NodeID("PR", rp.fullName()+"#"+num),
		"html_url": html, "diff_url": html + ".diff", "patch_url": html + ".patch", "issue_url": issue,
		"commits_url": u + "/commits", "review_comments_url": u + "/comments",
		"review_comment_url": repoURL(rp, r) + "/pulls/comments{/number}", "comments_url": issue + "/comments",
		"statuses_url": repoURL(rp, r) + "/statuses/" + p.headSHA, "number": p.number, "state": p.state,
		"locked": false, "title": p.title, "user": user, "body": p.body, "labels": labelsJSON(rp, r, p.labels, true),
		"milestone": nil, "active_lock_reason": nil, "created_at": ts, "updated_at": p.updatedAt().UTC().Format(time.RFC3339),
		"closed_at": closed, "merged_at": nil, "merge_commit_sha": nil, "assignee": assignee,
		"assignees": usersJSON(r, p.assignees), "requested_reviewers": usersJSON(r, p.reviewers), "requested_teams": []obj{},
		"head": side(p.head, p.headSHA), "base": side(p.base, p.baseSHA),
		"_links": obj{"self": link(u), "html": link(html), "issue": link(issue),
			"comments": link(issue + "/comments"), "review_comments": link(u + "/comments"),
			"review_comment": link(repoURL(rp, r) + "/pulls/comments{/number}"), "commits": link(u + "/commits"),
			"statuses": link(repoURL(rp, r) + "/statuses/" + p.headSHA)},
		"author_association": "OWNER", "auto_merge": nil, "draft": p.draft, "merged": false,
		"mergeable": nil, "rebaseable": nil, "mergeable_state": "unknown", "merged_by": nil,
		"comments": 0, "review_comments": 0, "maintainer_can_modify": false, "commits": 1,
		"additions": 0, "deletions": 0, "changed_files": 0,
	}
}
