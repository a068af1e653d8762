package rest

import (
	"net/http"
	"strconv"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/state"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/wire"
)

// Check runs: POST check-runs, PATCH and GET check-runs/{id}, GET
// commits/{ref}/check-runs. Only a GitHub App writes check runs: any other
// token gets GitHub's 403 "You must authenticate via a GitHub App." (real
// reply: EnricoMi/publish-unit-test-result-action#53)
// Setting a conclusion completes the run; status completed needs one.

const (
	docCreateCheck = "https://docs.github.com/rest/checks/runs#create-a-check-run"
	docUpdateCheck = "https://docs.github.com/rest/checks/runs#update-a-check-run"
	docGetCheck    = "https://docs.github.com/rest/checks/runs#get-a-check-run"
	docListChecks  = "https://docs.github.com/rest/checks/runs#list-check-runs-for-a-git-reference"
)

var checkConclusions = map[string]bool{"action_required": true, "cancelled": true, "failure": true, "neutral": true,
	"success": true, "skipped": true, "stale": true, "timed_out": true}

type checkBody struct {
	Name       *string `json:"name"`
	HeadSHA    *string `json:"head_sha"`
	Status     *string `json:"status"`
	Conclusion *string `json:"conclusion"`
	DetailsURL *string `json:"details_url"`
	ExternalID *string `json:"external_id"`
	Output     *struct {
		Title   string `json:"title"`
		Summary string `json:"summary"`
	} `json:"output"`
}

// apply sets the body's fields on cr; a message when the body is invalid.
func (b *checkBody) apply(cr *state.CheckRun, now time.Time) string {
	set := func(dst *string, v *string) {
		if v != nil {
			*dst = *v
		}
	}
	set(&cr.Name, b.Name)
	set(&cr.DetailsURL, b.DetailsURL)
	set(&cr.ExternalID, b.ExternalID)
	if b.Output != nil {
		cr.Title, cr.Summary = b.Output.Title, b.Output.Summary
	}
	if b.Status != nil {
		switch *b.Status {
		case "queued", "in_progress", "completed":
			cr.Status = *b.Status
		default:
			return "Invalid request.\n\n" + *b.Status + " is not a member of [\"queued\", \"in_progress\", \"completed\"]." // a guess
		}
	}
	if b.Conclusion != nil {
		if !checkConclusions[*b.Conclusion] {
			return "Invalid request.\n\n" + *b.Conclusion + " is not a valid conclusion." // a guess
		}
		cr.Status, cr.Conclusion = "completed", *b.Conclusion
	}
	if cr.Status == "completed" && cr.Conclusion == "" {
		return "Invalid request.\n\nNo subschema in \"anyOf\" matched.\n\"conclusion\" wasn't supplied." // GitHub's schema check; wording a guess
	}
	if cr.Status == "completed" && cr.Completed == nil {
		cr.Completed = &now
	}
	return ""
}

func appOnly(w http.ResponseWriter, r *http.Request, doc string) bool {
	if wire.IdentOf(r).Installation == 0 {
		wire.WriteError(w, r, http.StatusForbidden, "You must authenticate via a GitHub App.", doc)
		return false
	}
	return true
}

// CreateCheckRun answers POST /repos/{owner}/{repo}/check-runs.
func (rh *Handler) CreateCheckRun(w http.ResponseWriter, r *http.Request, rp *state.Repo) {
	var b checkBody
	if !appOnly(w, r, docCreateCheck) || !wire.DecodeBody(w, r, &b, docCreateCheck) {
		return
	}
	if b.Name == nil || *b.Name == "" || b.HeadSHA == nil {
		wire.WriteError(w, r, http.StatusUnprocessableEntity, "Invalid request.\n\n\"name\" and \"head_sha\" weren't supplied.", docCreateCheck)
		return
	}
	now := rh.Now()
	cr := &state.CheckRun{Status: "queued", Started: now}
	if msg := b.apply(cr, now); msg != "" {
		wire.WriteError(w, r, http.StatusUnprocessableEntity, msg, docCreateCheck)
		return
	}
	rp.Mu.Lock()
	defer rp.Mu.Unlock()
	h, ok := headOf(rp, *b.HeadSHA)
	if _, isCommit := rp.Commits[h]; !ok || !isCommit {
		wire.WriteValidation(w, r, docCreateCheck, wire.ValidationError{Resource: "CheckRun", Field: "head_sha", Code: "invalid"}) // a guess
		return
	}
	cr.SHA = h
	rp.AddCheckRun(cr)
	wire.WriteJSON(w, r, http.StatusCreated, checkJSON(r, rp, cr))
}

// UpdateCheckRun answers PATCH /repos/{owner}/{repo}/check-runs/{id}.
func (rh *Handler) UpdateCheckRun(w http.ResponseWriter, r *http.Request, rp *state.Repo) {
	var b checkBody
	if !appOnly(w, r, docUpdateCheck) || !wire.DecodeBody(w, r, &b, docUpdateCheck) {
		return
	}
	rp.Mu.Lock()
	defer rp.Mu.Unlock()
	cr := checkAt(r, rp)
	if cr == nil {
		wire.WriteError(w, r, http.StatusNotFound, "Not Found", docUpdateCheck)
		return
	}
	next := *cr
	if msg := b.apply(&next, rh.Now()); msg != "" {
		wire.WriteError(w, r, http.StatusUnprocessableEntity, msg, docUpdateCheck)
		return
	}
	*cr = next
	wire.WriteJSON(w, r, http.StatusOK, checkJSON(r, rp, cr))
}

// GetCheckRun answers GET /repos/{owner}/{repo}/check-runs/{id}.
func (rh *Handler) GetCheckRun(w http.ResponseWriter, r *http.Request, rp *state.Repo) {
	rp.Mu.RLock()
	defer rp.Mu.RUnlock()
	cr := checkAt(r, rp)
	if cr == nil {
		wire.WriteError(w, r, http.StatusNotFound, "Not Found", docGetCheck)
		return
	}
	wire.WriteJSON(w, r, http.StatusOK, checkJSON(r, rp, cr))
}

// ListCheckRuns answers GET /repos/{owner}/{repo}/commits/{ref}/check-runs
// (filter=latest, GitHub's default: the latest run of each name; all:
// every run; check_name and status filter).
func (rh *Handler) ListCheckRuns(w http.ResponseWriter, r *http.Request, rp *state.Repo) {
	rp.Mu.RLock()
	defer rp.Mu.RUnlock()
	h, ok := headOf(rp, r.PathValue("ref"))
	if !ok {
		wire.WriteError(w, r, http.StatusNotFound, "Not Found", docListChecks)
		return
	}
	q := r.URL.Query()
	runs := rp.LatestRuns(h)
	if q.Get("filter") == "all" {
		runs = nil
		for _, cr := range rp.Checks.Runs {
			if cr.SHA == h {
				runs = append(runs, cr)
			}
		}
	}
	out := []any{}
	for i := len(runs) - 1; i >= 0; i-- {
		cr := runs[i]
		if n := q.Get("check_name"); n != "" && cr.Name != n {
			continue
		}
		if s := q.Get("status"); s != "" && cr.Status != s {
			continue
		}
		out = append(out, checkJSON(r, rp, cr))
	}
	wire.WriteJSON(w, r, http.StatusOK, obj{"total_count": len(out), "check_runs": out})
}

func checkAt(r *http.Request, rp *state.Repo) *state.CheckRun {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		return nil
	}
	return rp.CheckRunByID(id)
}

func checkJSON(r *http.Request, rp *state.Repo, cr *state.CheckRun) obj {
	opt := func(s string) any {
		if s == "" {
			return nil
		}
		return s
	}
	var completed any
	if cr.Completed != nil {
		completed = cr.Completed.UTC().Format(time.RFC3339)
	}
	id := strconv.FormatInt(cr.ID, 10)
	u := wire.RepoURL(rp, r) + "/check-runs/" + id
	return obj{"id": cr.ID, "head_sha": cr.SHA.String(), "node_id": wire.NodeID("CR", rp.FullName()+":"+id),
		"external_id": cr.ExternalID, "url": u, "html_url": wire.RepoHTMLURL(rp, r) + "/runs/" + id,
		"details_url": opt(cr.DetailsURL), "status": cr.Status, "conclusion": opt(cr.Conclusion),
		"started_at": cr.Started.UTC().Format(time.RFC3339), "completed_at": completed, "name": cr.Name,
		"output": obj{"title": opt(cr.Title), "summary": opt(cr.Summary), "text": nil, "annotations_count": 0,
			"annotations_url": u + "/annotations"},
		"check_suite": nil, "app": nil, "pull_requests": []any{}}
}
