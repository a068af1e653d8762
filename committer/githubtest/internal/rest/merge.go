package rest

import (
	"bytes"
	"io"
	"net/http"
	"slices"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/state"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/wire"
)

// Merging: PUT pulls/{n}/merge (state.MergePull: GitHub's 405, 409 and
// 422 answers) and GET pulls/{n}/merge (204 when merged, else 404).

const (
	docMerge       = "https://docs.github.com/rest/pulls/pulls#merge-a-pull-request"
	docCheckMerged = "https://docs.github.com/rest/pulls/pulls#check-if-a-pull-request-has-been-merged"
)

// mergeMethods are merge_method's values, in GitHub's description's order.
var mergeMethods = []string{"merge", "squash", "rebase"}

// MergePull answers PUT /repos/{owner}/{repo}/pulls/{number}/merge.
func (rh *Handler) MergePull(w http.ResponseWriter, r *http.Request, rp *state.Repo) {
	var body struct {
		Title   *string `json:"commit_title"`
		Message *string `json:"commit_message"`
		SHA     *string `json:"sha"`
		Method  *string `json:"merge_method"`
	}
	raw, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if t := bytes.TrimSpace(raw); len(t) > 0 && !bytes.Equal(t, []byte("null")) { // the body is optional
		r.Body = io.NopCloser(bytes.NewReader(t))
		if !wire.DecodeBody(w, r, &body, docMerge) {
			return
		}
	}
	method := "merge"
	if body.Method != nil {
		method = *body.Method
	}
	if !slices.Contains(mergeMethods, method) {
		// GitHub's schema check of a request body; the wording is a guess.
		wire.WriteError(w, r, http.StatusUnprocessableEntity, "Invalid request.\n\nFor 'properties/merge_method', \""+
			method+"\" is not a member of [\"merge\", \"squash\", \"rebase\"].", docMerge)
		return
	}
	rp.Mu.Lock()
	defer rp.Mu.Unlock()
	p := rp.PullAt(r, "number")
	if p == nil {
		wire.WriteError(w, r, http.StatusNotFound, "Not Found", docMerge)
		return
	}
	in := state.MergeInput{Method: method, Title: body.Title, Message: body.Message, By: wire.IdentOf(r), Now: rh.Now()}
	if body.SHA != nil {
		in.SHA = *body.SHA
	}
	if e := rp.MergePull(p, in); e != nil {
		wire.WriteError(w, r, e.Status, e.Message, docMerge)
		return
	}
	wire.WriteJSON(w, r, http.StatusOK, obj{"sha": p.MergeCommit, "merged": true, "message": "Pull Request successfully merged"})
}

// CheckMerged answers GET /repos/{owner}/{repo}/pulls/{number}/merge.
func (rh *Handler) CheckMerged(w http.ResponseWriter, r *http.Request, rp *state.Repo) {
	rp.Mu.RLock()
	defer rp.Mu.RUnlock()
	if p := rp.PullAt(r, "number"); p == nil || p.MergedAt == nil {
		wire.WriteError(w, r, http.StatusNotFound, "Not Found", docCheckMerged)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
