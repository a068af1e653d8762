package githubtest

import (
	"encoding/json"
	"hash/fnv"
	"io"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/wire"
)

// Updating pull requests: PATCH pulls/{n} (title, body, state, base),
// labels (POST/PUT issues/{n}/labels, DELETE issues/{n}/labels/{name}; a
// label that does not exist yet is created, as GitHub does), requested
// reviewers (POST/DELETE pulls/{n}/requested_reviewers) and assignees
// (POST/DELETE issues/{n}/assignees). The fake has no issues besides pull
// requests and no collaborators: any login may be requested or assigned.

const (
	docUpdatePull = "https://docs.github.com/rest/pulls/pulls#update-a-pull-request"
	docLabels     = "https://docs.github.com/rest/issues/labels#add-labels-to-an-issue"
	docReviewers  = "https://docs.github.com/rest/pulls/review-requests#request-reviewers-for-a-pull-request"
	docAssignees  = "https://docs.github.com/rest/issues/assignees#add-assignees-to-an-issue"
)

// label is a repository label.
type label struct{ name, color, description string }

// pullAt returns pull number n (of the path), or nil. Caller holds mu.
func (rp *repo) pullAt(r *http.Request, key string) *pull {
	n, err := strconv.Atoi(r.PathValue(key))
	if err != nil || n < 1 || n > len(rp.pulls) {
		return nil
	}
	return rp.pulls[n-1]
}

func (s *Server) handleUpdatePull(w http.ResponseWriter, r *http.Request, rp *repo) {
	var body struct {
		Title *string `json:"title"`
		Body  *string `json:"body"`
		State *string `json:"state"`
		Base  *string `json:"base"`
	}
	if !wire.DecodeBody(w, r, &body, docUpdatePull) {
		return
	}
	rp.mu.Lock()
	defer rp.mu.Unlock()
	p := rp.pullAt(r, "number")
	if p == nil {
		wire.WriteError(w, r, http.StatusNotFound, "Not Found", docUpdatePull)
		return
	}
	state := p.state
	if body.State != nil {
		if *body.State != "open" && *body.State != "closed" {
			wire.WriteValidation(w, r, docUpdatePull, wire.ValidationError{Resource: "PullRequest", Field: "state", Code: "invalid"})
			return
		}
		state = *body.State
	}
	base := p.base
	if body.Base != nil {
		if _, ok := rp.refs["refs/heads/"+*body.Base]; !ok {
			wire.WriteValidation(w, r, docUpdatePull, wire.ValidationError{Resource: "PullRequest", Field: "base", Code: "invalid"})
			return
		}
		base = *body.Base
	}
	if body.Title != nil && *body.Title == "" {
		wire.WriteValidation(w, r, docUpdatePull, wire.ValidationError{Resource: "PullRequest", Field: "title", Code: "missing_field"})
		return
	}
	if state == "open" && (p.state != "open" || base != p.base) {
		if _, ok := rp.refs["refs/heads/"+p.head]; !ok {
			// Reopening needs the head branch (wording a guess).
			wire.WriteValidation(w, r, docUpdatePull, wire.ValidationError{Resource: "PullRequest", Code: "custom",
				Message: "The head branch " + p.head + " does not exist."})
			return
		}
		for _, o := range rp.pulls {
			if o != p && o.state == "open" && o.head == p.head && o.base == base {
				wire.WriteValidation(w, r, docUpdatePull, wire.ValidationError{Resource: "PullRequest", Code: "custom",
					Message: "A pull request already exists for " + p.headOwner + ":" + p.head + "."})
				return
			}
		}
	}
	now := s.now()
	if body.Title != nil {
		p.title = *body.Title
	}
	if body.Body != nil {
		p.body = *body.Body
	}
	if state != p.state {
		p.closed = nil
		if state == "closed" {
			p.closed = &now
		}
		p.state = state
	}
	if base != p.base {
		p.base, p.baseSHA = base, rp.refs["refs/heads/"+base].String()
	}
	p.updated = now
	wire.WriteJSON(w, r, http.StatusOK, pullJSON(r, rp, p))
}

// labelNames reads a labels body: {"labels": ["a", {"name": "b"}]}, a bare
// array of the same, or a single string. ok is false for anything else.
func labelNames(raw []byte) (names []string, ok bool) {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return nil, false
	}
	if m, isObj := v.(map[string]any); isObj {
		v = m["labels"]
	}
	switch x := v.(type) {
	case string:
		return []string{x}, true
	case []any:
		for _, e := range x {
			switch l := e.(type) {
			case string:
				names = append(names, l)
			case map[string]any:
				n, _ := l["name"].(string)
				if n == "" {
					return nil, false
				}
				names = append(names, n)
			default:
				return nil, false
			}
		}
		return names, true
	}
	return nil, false
}

// handleIssueLabels serves POST (add) and PUT (replace) issues/{n}/labels.
func (s *Server) handleIssueLabels(w http.ResponseWriter, r *http.Request, rp *repo) {
	raw, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil || !json.Valid(raw) {
		wire.WriteError(w, r, http.StatusBadRequest, "Problems parsing JSON", docLabels)
		return
	}
	names, ok := labelNames(raw)
	if !ok || (r.Method == http.MethodPost && len(names) == 0) {
		wire.WriteValidation(w, r, docLabels, wire.ValidationError{Resource: "Label", Field: "labels", Code: "invalid"})
		return
	}
	rp.mu.Lock()
	defer rp.mu.Unlock()
	p := rp.pullAt(r, "number")
	if p == nil {
		wire.WriteError(w, r, http.StatusNotFound, "Not Found", docLabels)
		return
	}
	for _, n := range names {
		if n == "" || len(n) > 50 {
			wire.WriteValidation(w, r, docLabels, wire.ValidationError{Resource: "Label", Field: "name", Code: "invalid"})
			return
		}
	}
	if r.Method == http.MethodPut {
		p.labels = nil
	}
	for _, n := range names {
		rp.ensureLabel(n)
		if !slices.Contains(p.labels, n) {
			p.labels = append(p.labels, n)
		}
	}
	p.updated = s.now()
	wire.WriteJSON(w, r, http.StatusOK, labelsJSON(rp, r, p.labels, false))
}

func (s *Server) handleRemoveIssueLabel(w http.ResponseWriter, r *http.Request, rp *repo) {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	p := rp.pullAt(r, "number")
	if p == nil {
		wire.WriteError(w, r, http.StatusNotFound, "Not Found", docLabels)
		return
	}
	name := r.PathValue("name")
	i := slices.Index(p.labels, name)
	if i < 0 {
		wire.WriteError(w, r, http.StatusNotFound, "Label does not exist", docLabels)
		return
	}
	p.labels = slices.Delete(p.labels, i, i+1)
	p.updated = s.now()
	wire.WriteJSON(w, r, http.StatusOK, labelsJSON(rp, r, p.labels, false))
}

// ensureLabel creates a label GitHub's way when an issue gets one that
// does not exist (color ededed). Caller holds mu for writing.
func (rp *repo) ensureLabel(name string) {
	for _, l := range rp.labels {
		if l.name == name {
			return
		}
	}
	rp.labels = append(rp.labels, &label{name: name, color: "ededed"})
}

// labelsJSON is the labels of names. inPull: as a pull request shows them,
// with "" for no description (GitHub's description of pull requests has a
// string there; its label and issue replies have null).
func labelsJSON(rp *repo, r *http.Request, names []string, inPull bool) []obj {
	out := []obj{}
	for _, n := range names {
		for _, l := range rp.labels {
			if l.name == n {
				o := labelJSON(r, rp, l)
				if inPull && o["description"] == nil {
					o["description"] = ""
				}
				out = append(out, o)
			}
		}
	}
	return out
}

func labelJSON(r *http.Request, rp *repo, l *label) obj {
	var desc any
	if l.description != "" {
		desc = l.description
	}
	return obj{"id": loginID(rp.fullName() + "#label:" + l.name), "node_id": wire.NodeID("LA", rp.fullName()+":"+l.name),
		"url": repoURL(rp, r) + "/labels/" + l.name, "name": l.name, "color": l.color, "default": false, "description": desc}
}

// loginID is a stable numeric ID for a name the fake has no record of.
func loginID(s string) int64 {
	h := fnv.New32a()
	_, _ = h.Write([]byte(s))
	return int64(h.Sum32()%90_000_000) + 10_000_000
}

// handleRequestedReviewers serves POST (request) and DELETE (remove)
// pulls/{n}/requested_reviewers.
func (s *Server) handleRequestedReviewers(w http.ResponseWriter, r *http.Request, rp *repo) {
	var body struct {
		Reviewers     *[]string `json:"reviewers"`
		TeamReviewers []string  `json:"team_reviewers"`
	}
	if !wire.DecodeBody(w, r, &body, docReviewers) {
		return
	}
	rp.mu.Lock()
	defer rp.mu.Unlock()
	p := rp.pullAt(r, "number")
	if p == nil {
		wire.WriteError(w, r, http.StatusNotFound, "Not Found", docReviewers)
		return
	}
	if len(body.TeamReviewers) > 0 {
		// The fake has no teams; GitHub's answer to an unknown team.
		wire.WriteValidation(w, r, docReviewers, wire.ValidationError{Resource: "PullRequest", Code: "custom",
			Message: "Reviews may only be requested from collaborators. One or more of the teams you specified is not a collaborator of the " + rp.fullName() + " repository."})
		return
	}
	if body.Reviewers == nil {
		wire.WriteError(w, r, http.StatusUnprocessableEntity, "Invalid request.\n\n\"reviewers\" wasn't supplied.", docReviewers)
		return
	}
	status := http.StatusOK
	if r.Method == http.MethodPost {
		for _, l := range *body.Reviewers {
			if l == p.user.login {
				wire.WriteValidation(w, r, docReviewers, wire.ValidationError{Resource: "PullRequest", Code: "custom",
					Message: "Review cannot be requested from pull request author."})
				return
			}
		}
		for _, l := range *body.Reviewers {
			if !slices.Contains(p.reviewers, l) {
				p.reviewers = append(p.reviewers, l)
			}
		}
		status = http.StatusCreated
	} else {
		p.reviewers = slices.DeleteFunc(p.reviewers, func(l string) bool { return slices.Contains(*body.Reviewers, l) })
	}
	p.updated = s.now()
	wire.WriteJSON(w, r, status, pullJSON(r, rp, p))
}

// handleAssignees serves POST (add) and DELETE (remove) issues/{n}/assignees.
func (s *Server) handleAssignees(w http.ResponseWriter, r *http.Request, rp *repo) {
	var body struct {
		Assignees *[]string `json:"assignees"`
	}
	if !wire.DecodeBody(w, r, &body, docAssignees) {
		return
	}
	rp.mu.Lock()
	defer rp.mu.Unlock()
	p := rp.pullAt(r, "number")
	if p == nil {
		wire.WriteError(w, r, http.StatusNotFound, "Not Found", docAssignees)
		return
	}
	if body.Assignees == nil {
		wire.WriteError(w, r, http.StatusUnprocessableEntity, "Invalid request.\n\n\"assignees\" wasn't supplied.", docAssignees)
		return
	}
	status := http.StatusOK
	if r.Method == http.MethodPost {
		for _, l := range *body.Assignees {
			if l != "" && !slices.Contains(p.assignees, l) && len(p.assignees) < 10 { // GitHub: at most 10
				p.assignees = append(p.assignees, l)
			}
		}
		status = http.StatusCreated
	} else {
		p.assignees = slices.DeleteFunc(p.assignees, func(l string) bool { return slices.Contains(*body.Assignees, l) })
	}
	p.updated = s.now()
	wire.WriteJSON(w, r, status, issueJSON(r, rp, p))
}

// usersJSON is the user objects of logins.
func usersJSON(r *http.Request, logins []string) []obj {
	out := []obj{}
	for _, l := range logins {
		out = append(out, userJSON(r, l, loginID(l), "User"))
	}
	return out
}

// issueJSON is the issue shape of a pull request. Caller holds mu.
func issueJSON(r *http.Request, rp *repo, p *pull) obj {
	num := strconv.Itoa(p.number)
	u := repoURL(rp, r) + "/issues/" + num
	var assignee any
	if len(p.assignees) > 0 {
		assignee = userJSON(r, p.assignees[0], loginID(p.assignees[0]), "User")
	}
	var closed any
	if p.closed != nil {
		closed = p.closed.UTC().Format(time.RFC3339)
	}
	html := repoHTMLURL(rp, r) + "/pull/" + num
	return obj{
		"id": rp.id*100000 + int64(p.number), "node_id": wire.NodeID("PR", rp.fullName()+"#"+num), "url": u,
		"repository_url": repoURL(rp, r), "labels_url": u + "/labels{/name}", "comments_url": u + "/comments",
		"events_url": u + "/events", "html_url": html, "number": p.number, "state": p.state, "title": p.title,
		"body": p.body, "user": userJSON(r, p.user.login, p.user.userID, "User"), "labels": labelsJSON(rp, r, p.labels, false),
		"assignee": assignee, "assignees": usersJSON(r, p.assignees), "milestone": nil, "locked": false,
		"active_lock_reason": nil, "comments": 0, "closed_at": closed, "created_at": p.created.UTC().Format(time.RFC3339),
		"updated_at": p.updatedAt().UTC().Format(time.RFC3339), "author_association": "OWNER",
		"pull_request": obj{"url": repoURL(rp, r) + "/pulls/" + num, "html_url": html, "diff_url": html + ".diff",
			"patch_url": html + ".patch", "merged_at": nil},
	}
}

func (p *pull) updatedAt() time.Time {
	if p.updated.IsZero() {
		return p.created
	}
	return p.updated
}
