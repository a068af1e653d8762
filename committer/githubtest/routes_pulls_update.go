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
// (pullExtras) and read back with PullRequest; the pull request's own JSON
// shape (routes_pulls.go) still lists none of it.

const (
	docPullUpdate = "https://docs.github.com/rest/pulls/pulls#update-a-pull-request"
	docLabels     = "https://docs.github.com/rest/issues/labels#add-labels-to-an-issue"
	docReviewers  = "https://docs.github.com/rest/pulls/review-requests#request-reviewers-for-a-pull-request"
	docAssignees  = "https://docs.github.com/rest/issues/assignees#add-assignees-to-an-issue"
)

// pullExtra is what the lifecycle routes set on one pull request.
type pullExtra struct {
	labels, reviewers, assignees []string
	updates                      int // PATCH requests that changed it
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

// PullRequestInfo is a pull request as the fake holds it.
type PullRequestInfo struct {
	Number                       int
	Title, Body, Head, Base      string
	State                        string
	Draft                        bool
	Labels, Reviewers, Assignees []string
	// Updates counts the update requests that changed its title or body.
	Updates int
}

// PullRequest returns pull request number of owner/name.
func (s *Server) PullRequest(owner, name string, number int) (PullRequestInfo, bool) {
	rp := s.getRepo(owner, name)
	if rp == nil {
		return PullRequestInfo{}, false
	}
	rp.mu.RLock()
	defer rp.mu.RUnlock()
	if number < 1 || number > len(rp.pulls) {
		return PullRequestInfo{}, false
	}
	p := rp.pulls[number-1]
	x := extraOf(p)
	pullExtrasMu.Lock()
	defer pullExtrasMu.Unlock()
	return PullRequestInfo{Number: p.number, Title: p.title, Body: p.body, Head: p.head, Base: p.base, State: p.state, Draft: p.draft,
		Labels: slices.Clone(x.labels), Reviewers: slices.Clone(x.reviewers), Assignees: slices.Clone(x.assignees), Updates: x.updates}, true
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
	changed := false
	if body.Title != nil && *body.Title != p.title {
		p.title, changed = *body.Title, true
	}
	if body.Body != nil && *body.Body != p.body {
		p.body, changed = *body.Body, true
	}
	if body.State != nil && *body.State != p.state {
		p.state, changed = *body.State, true
	}
	if changed {
		x := extraOf(p)
		pullExtrasMu.Lock()
		x.updates++
		pullExtrasMu.Unlock()
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
	x := extraOf(p)
	addNames(&x.labels, body.Labels)
	out := []obj{}
	pullExtrasMu.Lock()
	for i, l := range x.labels {
		out = append(out, obj{"id": int64(i + 1), "node_id": nodeID("LA", l), "url": rp.url(r) + "/labels/" + l,
			"name": l, "description": nil, "color": "ededed", "default": false})
	}
	pullExtrasMu.Unlock()
	writeJSON(w, r, http.StatusOK, out)
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
