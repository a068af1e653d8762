package rest

import (
	"encoding/json"
	"hash/fnv"
	"io"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/state"
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

// UpdatePull answers PATCH /repos/{owner}/{repo}/pulls/{number}.
func (rh *Handler) UpdatePull(w http.ResponseWriter, r *http.Request, rp *state.Repo) {
	var body struct {
		Title *string `json:"title"`
		Body  *string `json:"body"`
		State *string `json:"state"`
		Base  *string `json:"base"`
	}
	if !wire.DecodeBody(w, r, &body, docUpdatePull) {
		return
	}
	rp.Mu.Lock()
	defer rp.Mu.Unlock()
	p := rp.PullAt(r, "number")
	if p == nil {
		wire.WriteError(w, r, http.StatusNotFound, "Not Found", docUpdatePull)
		return
	}
	state := p.State
	if body.State != nil {
		if *body.State != "open" && *body.State != "closed" {
			wire.WriteValidation(w, r, docUpdatePull, wire.ValidationError{Resource: "PullRequest", Field: "state", Code: "invalid"})
			return
		}
		state = *body.State
	}
	base := p.Base
	if body.Base != nil {
		if _, ok := rp.Refs["refs/heads/"+*body.Base]; !ok {
			wire.WriteValidation(w, r, docUpdatePull, wire.ValidationError{Resource: "PullRequest", Field: "base", Code: "invalid"})
			return
		}
		base = *body.Base
	}
	if body.Title != nil && *body.Title == "" {
		wire.WriteValidation(w, r, docUpdatePull, wire.ValidationError{Resource: "PullRequest", Field: "title", Code: "missing_field"})
		return
	}
	if state == "open" && (p.State != "open" || base != p.Base) {
		if _, ok := rp.Refs["refs/heads/"+p.Head]; !ok {
			// Reopening needs the head branch (wording a guess).
			wire.WriteValidation(w, r, docUpdatePull, wire.ValidationError{Resource: "PullRequest", Code: "custom",
				Message: "The head branch " + p.Head + " does not exist."})
			return
		}
		for _, o := range rp.Pulls {
			if o != p && o.State == "open" && o.Head == p.Head && o.Base == base {
				wire.WriteValidation(w, r, docUpdatePull, wire.ValidationError{Resource: "PullRequest", Code: "custom",
					Message: "A pull request already exists for " + p.HeadOwner + ":" + p.Head + "."})
				return
			}
		}
	}
	now := rh.Now()
	if body.Title != nil {
		p.Title = *body.Title
	}
	if body.Body != nil {
		p.Body = *body.Body
	}
	if state != p.State {
		p.Closed = nil
		if state == "closed" {
			p.Closed = &now
		}
		p.State = state
	}
	if base != p.Base {
		p.Base, p.BaseSHA = base, rp.Refs["refs/heads/"+base].String()
	}
	p.Updated = now
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

// IssueLabels serves POST (add) and PUT (replace) issues/{n}/labels.
func (rh *Handler) IssueLabels(w http.ResponseWriter, r *http.Request, rp *state.Repo) {
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
	rp.Mu.Lock()
	defer rp.Mu.Unlock()
	p := rp.PullAt(r, "number")
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
		p.Labels = nil
	}
	for _, n := range names {
		rp.EnsureLabel(n)
		if !slices.Contains(p.Labels, n) {
			p.Labels = append(p.Labels, n)
		}
	}
	p.Updated = rh.Now()
	wire.WriteJSON(w, r, http.StatusOK, labelsJSON(rp, r, p.Labels, false))
}

// RemoveIssueLabel answers DELETE /repos/{owner}/{repo}/issues/{number}/labels/{name}.
func (rh *Handler) RemoveIssueLabel(w http.ResponseWriter, r *http.Request, rp *state.Repo) {
	rp.Mu.Lock()
	defer rp.Mu.Unlock()
	p := rp.PullAt(r, "number")
	if p == nil {
		wire.WriteError(w, r, http.StatusNotFound, "Not Found", docLabels)
		return
	}
	name := r.PathValue("name")
	i := slices.Index(p.Labels, name)
	if i < 0 {
		wire.WriteError(w, r, http.StatusNotFound, "Label does not exist", docLabels)
		return
	}
	p.Labels = slices.Delete(p.Labels, i, i+1)
	p.Updated = rh.Now()
	wire.WriteJSON(w, r, http.StatusOK, labelsJSON(rp, r, p.Labels, false))
}

// labelsJSON is the labels of names. inPull: as a pull request shows them,
// with "" for no description (GitHub's description of pull requests has a
// string there; its label and issue replies have null).
func labelsJSON(rp *state.Repo, r *http.Request, names []string, inPull bool) []obj {
	out := []obj{}
	for _, n := range names {
		for _, l := range rp.Labels {
			if l.Name == n {
				o := LabelJSON(r, rp, l)
				if inPull && o["description"] == nil {
					o["description"] = ""
				}
				out = append(out, o)
			}
		}
	}
	return out
}

// LabelJSON is the REST shape of a label. Caller holds rp.Mu.
func LabelJSON(r *http.Request, rp *state.Repo, l *state.Label) map[string]any {
	var desc any
	if l.Description != "" {
		desc = l.Description
	}
	return obj{"id": loginID(rp.FullName() + "#label:" + l.Name), "node_id": wire.NodeID("LA", rp.FullName()+":"+l.Name),
		"url": wire.RepoURL(rp, r) + "/labels/" + l.Name, "name": l.Name, "color": l.Color, "default": false, "description": desc}
}

// loginID is a stable numeric ID for a name the fake has no record of.
func loginID(s string) int64 {
	h := fnv.New32a()
	_, _ = h.Write([]byte(s))
	return int64(h.Sum32()%90_000_000) + 10_000_000
}

// RequestedReviewers serves POST (request) and DELETE (remove)
// pulls/{n}/requested_reviewers.
func (rh *Handler) RequestedReviewers(w http.ResponseWriter, r *http.Request, rp *state.Repo) {
	var body struct {
		Reviewers     *[]string `json:"reviewers"`
		TeamReviewers []string  `json:"team_reviewers"`
	}
	if !wire.DecodeBody(w, r, &body, docReviewers) {
		return
	}
	rp.Mu.Lock()
	defer rp.Mu.Unlock()
	p := rp.PullAt(r, "number")
	if p == nil {
		wire.WriteError(w, r, http.StatusNotFound, "Not Found", docReviewers)
		return
	}
	if len(body.TeamReviewers) > 0 {
		// The fake has no teams; GitHub's answer to an unknown team.
		wire.WriteValidation(w, r, docReviewers, wire.ValidationError{Resource: "PullRequest", Code: "custom",
			Message: "Reviews may only be requested from collaborators. One or more of the teams you specified is not a collaborator of the " + rp.FullName() + " repository."})
		return
	}
	if body.Reviewers == nil {
		wire.WriteError(w, r, http.StatusUnprocessableEntity, "Invalid request.\n\n\"reviewers\" wasn't supplied.", docReviewers)
		return
	}
	status := http.StatusOK
	if r.Method == http.MethodPost {
		for _, l := range *body.Reviewers {
			if l == p.User.Login {
				wire.WriteValidation(w, r, docReviewers, wire.ValidationError{Resource: "PullRequest", Code: "custom",
					Message: "Review cannot be requested from pull request author."})
				return
			}
		}
		for _, l := range *body.Reviewers {
			if !slices.Contains(p.Reviewers, l) {
				p.Reviewers = append(p.Reviewers, l)
			}
		}
		status = http.StatusCreated
	} else {
		p.Reviewers = slices.DeleteFunc(p.Reviewers, func(l string) bool { return slices.Contains(*body.Reviewers, l) })
	}
	p.Updated = rh.Now()
	wire.WriteJSON(w, r, status, pullJSON(r, rp, p))
}

// Assignees serves POST (add) and DELETE (remove) issues/{n}/assignees.
func (rh *Handler) Assignees(w http.ResponseWriter, r *http.Request, rp *state.Repo) {
	var body struct {
		Assignees *[]string `json:"assignees"`
	}
	if !wire.DecodeBody(w, r, &body, docAssignees) {
		return
	}
	rp.Mu.Lock()
	defer rp.Mu.Unlock()
	p := rp.PullAt(r, "number")
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
			if l != "" && !slices.Contains(p.Assignees, l) && len(p.Assignees) < 10 { // GitHub: at most 10
				p.Assignees = append(p.Assignees, l)
			}
		}
		status = http.StatusCreated
	} else {
		p.Assignees = slices.DeleteFunc(p.Assignees, func(l string) bool { return slices.Contains(*body.Assignees, l) })
	}
	p.Updated = rh.Now()
	wire.WriteJSON(w, r, status, issueJSON(r, rp, p))
}

// usersJSON is the user objects of logins.
func usersJSON(r *http.Request, logins []string) []obj {
	out := []obj{}
	for _, l := range logins {
		out = append(out, wire.UserJSON(r, l, loginID(l), "User"))
	}
	return out
}

// issueJSON is the issue shape of a pull request. Caller holds mu.
func issueJSON(r *http.Request, rp *state.Repo, p *state.Pull) obj {
	num := strconv.Itoa(p.Number)
	u := wire.RepoURL(rp, r) + "/issues/" + num
	var assignee any
	if len(p.Assignees) > 0 {
		assignee = wire.UserJSON(r, p.Assignees[0], loginID(p.Assignees[0]), "User")
	}
	var closed any
	if p.Closed != nil {
		closed = p.Closed.UTC().Format(time.RFC3339)
	}
	html := wire.RepoHTMLURL(rp, r) + "/pull/" + num
	return obj{
		"id": rp.ID*100000 + int64(p.Number), "node_id": wire.NodeID("PR", rp.FullName()+"#"+num), "url": u,
		"repository_url": wire.RepoURL(rp, r), "labels_url": u + "/labels{/name}", "comments_url": u + "/comments",
		"events_url": u + "/events", "html_url": html, "number": p.Number, "state": p.State, "title": p.Title,
		"body": p.Body, "user": wire.UserJSON(r, p.User.Login, p.User.UserID, "User"), "labels": labelsJSON(rp, r, p.Labels, false),
		"assignee": assignee, "assignees": usersJSON(r, p.Assignees), "milestone": nil, "locked": false,
		"active_lock_reason": nil, "comments": 0, "closed_at": closed, "created_at": p.Created.UTC().Format(time.RFC3339),
		"updated_at": p.UpdatedAt().UTC().Format(time.RFC3339), "author_association": "OWNER",
		"pull_request": obj{"url": wire.RepoURL(rp, r) + "/pulls/" + num, "html_url": html, "diff_url": html + ".diff",
			"patch_url": html + ".patch", "merged_at": mergedAt(p)},
	}
}
