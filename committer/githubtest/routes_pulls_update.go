package githubtest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strconv"
	"sync"
)

// The minimal pull-request lifecycle routes the CLI's --pull-request needs
// (issue 25): update a pull request's title and body, add labels, request
// reviewers, add assignees. What they set is kept beside the pull request
// (pullExtras) and listed in its JSON (routes_pulls.go).

const (
	docPullUpdate = "https://docs.github.com/rest/pulls/pulls#update-a-pull-request"
	docLabels     = "https://docs.github.com/rest/issues/labels#add-labels-to-an-issue"
	docReviewers  = "https://docs.github.com/rest/pulls/review-requests#request-reviewers-for-a-pull-request"
	docAssignees  = "https://docs.github.com/rest/issues/assignees#add-assignees-to-an-issue"
)

// pullExtra is what the lifecycle routes set on one pull request.
type pullExtra struct {
	labels, reviewers, assignees []string
}

var (
	pullExtrasMu sync.Mutex
	pullExtras   = map[*pull]*pullExtra{}
)

func extraOf(p *pull) *pullExtra {
	pullExtrasMu.Lock()
	defer pullExtrasMu.Unlock()
	x := pullExtras[p]
	if x == nil {
		x = &pullExtra{}
		pullExtras[p] = x
	}
	return x
}

// pullLabelsJSON is a pull request's labels, as its JSON lists them.
// Caller holds rp.mu.
func pullLabelsJSON(r *http.Request, rp *repo, p *pull) []obj {
	x := extraOf(p)
	pullExtrasMu.Lock()
	defer pullExtrasMu.Unlock()
	out := []obj{}
	for i, l := range x.labels {
		out = append(out, obj{"id": int64(i + 1), "node_id": nodeID("LA", l), "url": rp.url(r) + "/labels/" + l,
			"name": l, "description": nil, "color": "ededed", "default": false})
	}
	return out
}

// pullUsersJSON is a list of users by login.
func pullUsersJSON(r *http.Request, logins []string) []obj {
	pullExtrasMu.Lock()
	logins = slices.Clone(logins)
	pullExtrasMu.Unlock()
	out := []obj{}
	for i, l := range logins {
		out = append(out, userJSON(r, l, int64(1000+i), "User"))
	}
	return out
}

func (s *Server) pullUpdateRoutes(rr string) {
	s.handleRepo("PATCH "+rr+"/pulls/{number}", s.handleUpdatePull)
	s.handleRepo("POST "+rr+"/pulls/{number}/requested_reviewers", s.handleRequestReviewers)
	s.handleRepo("POST "+rr+"/issues/{number}/labels", s.handleAddLabels)
	s.handleRepo("POST "+rr+"/issues/{number}/assignees", s.handleAddAssignees)
}

// pullAt returns the pull request the route's {number} names, or writes
// 404. Caller holds rp.mu.
func pullAt(w http.ResponseWriter, r *http.Request, rp *repo) *pull {
	n, err := strconv.Atoi(r.PathValue("number"))
	if err != nil || n < 1 || n > len(rp.pulls) {
		writeError(w, r, http.StatusNotFound, "Not Found", docRoot)
		return nil
	}
	return rp.pulls[n-1]
}

func (s *Server) handleUpdatePull(w http.ResponseWriter, r *http.Request, rp *repo) {
	var body struct {
		Title *string `json:"title"`
		Body  *string `json:"body"`
		State *string `json:"state"`
	}
	if !decodeBody(w, r, &body, docPullUpdate) {
		return
	}
	rp.mu.Lock()
	defer rp.mu.Unlock()
	p := pullAt(w, r, rp)
	if p == nil {
		return
	}
	if body.State != nil && *body.State != "open" && *body.State != "closed" {
		writeValidation(w, r, docPullUpdate, validationError{Resource: "PullRequest", Field: "state", Code: "invalid"})
		return
	}
	if body.Title != nil {
		p.title = *body.Title
	}
	if body.Body != nil {
		p.body = *body.Body
	}
	if body.State != nil {
		p.state = *body.State
	}
	writeJSON(w, r, http.StatusOK, pullJSON(r, rp, p))
}

// addNames adds names to list, keeping it free of duplicates.
func addNames(list *[]string, names []string) {
	pullExtrasMu.Lock()
	defer pullExtrasMu.Unlock()
	for _, n := range names {
		if !slices.Contains(*list, n) {
			*list = append(*list, n)
		}
	}
}

func (s *Server) handleAddLabels(w http.ResponseWriter, r *http.Request, rp *repo) {
	var body struct {
		Labels []string `json:"labels"`
	}
	// GitHub takes {"labels": [...]} or the bare array go-github sends.
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, r, http.StatusBadRequest, "Problems parsing JSON", docLabels)
		return
	}
	if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '[' {
		if err := json.Unmarshal(t, &body.Labels); err != nil {
			writeError(w, r, http.StatusBadRequest, "Problems parsing JSON", docLabels)
			return
		}
	} else {
		r.Body = io.NopCloser(bytes.NewReader(raw))
		if !decodeBody(w, r, &body, docLabels) {
			return
		}
	}
	rp.mu.Lock()
	defer rp.mu.Unlock()
	p := pullAt(w, r, rp)
	if p == nil {
		return
	}
	addNames(&extraOf(p).labels, body.Labels)
	writeJSON(w, r, http.StatusOK, pullLabelsJSON(r, rp, p))
}

func (s *Server) handleRequestReviewers(w http.ResponseWriter, r *http.Request, rp *repo) {
	var body struct {
		Reviewers     []string `json:"reviewers"`
		TeamReviewers []string `json:"team_reviewers"`
	}
	if !decodeBody(w, r, &body, docReviewers) {
		return
	}
	rp.mu.Lock()
	defer rp.mu.Unlock()
	p := pullAt(w, r, rp)
	if p == nil {
		return
	}
	if slices.Contains(body.Reviewers, p.user.login) {
		writeValidation(w, r, docReviewers, validationError{Code: "custom", Message: "Review cannot be requested from pull request author."})
		return
	}
	x := extraOf(p)
	addNames(&x.reviewers, body.Reviewers)
	writeJSON(w, r, http.StatusCreated, pullJSON(r, rp, p))
}

func (s *Server) handleAddAssignees(w http.ResponseWriter, r *http.Request, rp *repo) {
	var body struct {
		Assignees []string `json:"assignees"`
	}
	if !decodeBody(w, r, &body, docAssignees) {
		return
	}
	rp.mu.Lock()
	defer rp.mu.Unlock()
	p := pullAt(w, r, rp)
	if p == nil {
		return
	}
	x := extraOf(p)
	addNames(&x.assignees, body.Assignees)
	out := pullJSON(r, rp, p)
	out["url"] = rp.url(r) + "/issues/" + strconv.Itoa(p.number)
	writeJSON(w, r, http.StatusCreated, out)
}
