package rest

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/state"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/wire"
)

// Commit statuses: POST statuses/{sha}, GET commits/{ref}/statuses (newest
// first) and GET commits/{ref}/status (the combined status: the latest
// status of each context and their combined state).

const (
	docCreateStatus   = "https://docs.github.com/rest/commits/statuses#create-a-commit-status"
	docListStatuses   = "https://docs.github.com/rest/commits/statuses#list-commit-statuses-for-a-reference"
	docCombinedStatus = "https://docs.github.com/rest/commits/statuses#get-the-combined-status-for-a-specific-reference"
)

var statusStates = []string{"error", "failure", "pending", "success"}

// CreateStatus answers POST /repos/{owner}/{repo}/statuses/{sha}.
func (rh *Handler) CreateStatus(w http.ResponseWriter, r *http.Request, rp *state.Repo) {
	var body struct {
		State       string  `json:"state"`
		TargetURL   *string `json:"target_url"`
		Description *string `json:"description"`
		Context     *string `json:"context"`
	}
	if !wire.DecodeBody(w, r, &body, docCreateStatus) {
		return
	}
	ok := false
	for _, s := range statusStates {
		ok = ok || body.State == s
	}
	if !ok {
		wire.WriteValidation(w, r, docCreateStatus, wire.ValidationError{Resource: "Status", Field: "state", Code: "custom",
			Message: "state is not included in the list"}) // GitHub's wording for a bad state is a guess
		return
	}
	st := &state.CommitStatus{State: body.State, Context: "default", Creator: wire.IdentOf(r), Created: rh.Now()}
	if body.Context != nil && *body.Context != "" {
		st.Context = *body.Context
	}
	if body.Description != nil {
		st.Description = *body.Description
	}
	if body.TargetURL != nil {
		st.Target = *body.TargetURL
	}
	rp.Mu.Lock()
	defer rp.Mu.Unlock()
	sha := r.PathValue("sha")
	h, found := rp.Resolve(sha)
	if _, isCommit := rp.Commits[h]; !found || !isCommit {
		// GitHub's message (real reply: kubernetes/test-infra#21987).
		wire.WriteError(w, r, http.StatusUnprocessableEntity, "No commit found for SHA: "+sha, docCreateStatus)
		return
	}
	st.SHA = h
	rp.AddStatus(st)
	wire.WriteJSON(w, r, http.StatusCreated, statusJSON(r, rp, st))
}

// ListStatuses answers GET /repos/{owner}/{repo}/commits/{ref}/statuses.
func (rh *Handler) ListStatuses(w http.ResponseWriter, r *http.Request, rp *state.Repo) {
	rp.Mu.RLock()
	defer rp.Mu.RUnlock()
	h, ok := rp.Resolve(r.PathValue("ref"))
	if !ok {
		wire.WriteError(w, r, http.StatusNotFound, "Not Found", docListStatuses)
		return
	}
	out := []any{}
	for i := len(rp.Checks.StatusLog) - 1; i >= 0; i-- {
		if st := rp.Checks.StatusLog[i]; st.SHA == h {
			out = append(out, statusJSON(r, rp, st))
		}
	}
	wire.WriteJSON(w, r, http.StatusOK, out)
}

// CombinedStatus answers GET /repos/{owner}/{repo}/commits/{ref}/status.
func (rh *Handler) CombinedStatus(w http.ResponseWriter, r *http.Request, rp *state.Repo) {
	rp.Mu.RLock()
	defer rp.Mu.RUnlock()
	h, ok := rp.Resolve(r.PathValue("ref"))
	if !ok {
		wire.WriteError(w, r, http.StatusNotFound, "No commit found for SHA: "+r.PathValue("ref"), docCombinedStatus)
		return
	}
	latest := rp.LatestStatuses(h)
	list := make([]any, 0, len(latest))
	for _, st := range latest {
		m := statusJSON(r, rp, st)
		delete(m, "creator")
		list = append(list, m)
	}
	u := wire.RepoURL(rp, r) + "/commits/" + h.String()
	wire.WriteJSON(w, r, http.StatusOK, obj{"state": state.CombinedState(latest), "statuses": list, "sha": h.String(),
		"total_count": len(list), "repository": wire.RepoJSON(r, rp), "commit_url": u, "url": u + "/status"})
}

func statusJSON(r *http.Request, rp *state.Repo, st *state.CommitStatus) obj {
	opt := func(s string) any {
		if s == "" {
			return nil
		}
		return s
	}
	at := st.Created.UTC().Format(time.RFC3339)
	return obj{"url": wire.RepoURL(rp, r) + "/statuses/" + st.SHA.String(), "avatar_url": nil,
		"id": st.ID, "node_id": wire.NodeID("SC", strconv.FormatInt(st.ID, 10)), "state": st.State,
		"description": opt(st.Description), "target_url": opt(st.Target), "context": st.Context,
		"created_at": at, "updated_at": at, "creator": wire.UserJSON(r, st.Creator.Login, st.Creator.UserID, "User")}
}

// autoMergeJSON is a pull request's auto_merge: null, or who enabled it
// with which method and message.
func autoMergeJSON(r *http.Request, p *state.Pull) any {
	am := p.AutoMerge
	if am == nil {
		return nil
	}
	str := func(s *string) string {
		if s == nil {
			return ""
		}
		return *s
	}
	return obj{"enabled_by": wire.UserJSON(r, am.By.Login, am.By.UserID, "User"), "merge_method": am.Method,
		"commit_title": str(am.Title), "commit_message": str(am.Message)}
}

// headOf resolves a ref to a commit; ok false when it names none.
func headOf(rp *state.Repo, ref string) (plumbing.Hash, bool) {
	h, ok := rp.Resolve(strings.TrimPrefix(ref, "refs/"))
	if !ok {
		h, ok = rp.Resolve(ref)
	}
	return h, ok
}
