package rest

import (
	"net/http"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/rules"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/state"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/wire"
)

// A ref's "/" may come literal or escaped as %2F (@octokit/rest sends
// heads%2Fmain; github.com answers it): PathValue unescapes both alike.

// GetRef answers GET /repos/{owner}/{repo}/git/ref/{ref}.
func (rh *Handler) GetRef(w http.ResponseWriter, r *http.Request, rp *state.Repo) {
	rp.Mu.RLock()
	defer rp.Mu.RUnlock()
	if rp.Empty() {
		wire.WriteError(w, r, http.StatusConflict, wire.MsgEmptyRepo, docGetRef)
		return
	}
	ref := "refs/" + r.PathValue("ref")
	h, ok := rp.Refs[ref]
	if !ok {
		wire.WriteError(w, r, http.StatusNotFound, "Not Found", wire.DocRoot)
		return
	}
	wire.WriteJSON(w, r, http.StatusOK, wire.GitRefJSON(r, rp, ref, h))
}

// ListRefs serves the undocumented GET git/refs/{prefix}: an array of
// the refs under that prefix (or the single ref, as an object, on an exact
// match, like GitHub).
func (rh *Handler) ListRefs(w http.ResponseWriter, r *http.Request, rp *state.Repo) {
	rp.Mu.RLock()
	defer rp.Mu.RUnlock()
	if rp.Empty() {
		wire.WriteError(w, r, http.StatusConflict, wire.MsgEmptyRepo, docMatchRefs)
		return
	}
	p := strings.TrimSuffix(r.PathValue("ref"), "/")
	full := "refs/" + p
	if h, ok := rp.Refs[full]; ok && p != "" {
		wire.WriteJSON(w, r, http.StatusOK, wire.GitRefJSON(r, rp, full, h))
		return
	}
	prefix := "refs/"
	if p != "" {
		prefix = full + "/"
	}
	out := []obj{}
	for _, name := range rp.SortedRefs(prefix) {
		out = append(out, wire.GitRefJSON(r, rp, name, rp.Refs[name]))
	}
	if len(out) == 0 {
		wire.WriteError(w, r, http.StatusNotFound, "Not Found", wire.DocRoot)
		return
	}
	wire.WriteJSON(w, r, http.StatusOK, out)
}

// MatchingRefs answers GET /repos/{owner}/{repo}/git/matching-refs/{ref}.
func (rh *Handler) MatchingRefs(w http.ResponseWriter, r *http.Request, rp *state.Repo) {
	rp.Mu.RLock()
	defer rp.Mu.RUnlock()
	if rp.Empty() {
		wire.WriteError(w, r, http.StatusConflict, wire.MsgEmptyRepo, docMatchRefs)
		return
	}
	out := []obj{}
	for _, name := range rp.SortedRefs("refs/" + r.PathValue("ref")) {
		out = append(out, wire.GitRefJSON(r, rp, name, rp.Refs[name]))
	}
	wire.WriteJSON(w, r, http.StatusOK, out)
}

// CreateRef answers POST /repos/{owner}/{repo}/git/refs.
func (rh *Handler) CreateRef(w http.ResponseWriter, r *http.Request, rp *state.Repo) {
	var body struct {
		Ref string `json:"ref"`
		SHA string `json:"sha"`
	}
	if !wire.DecodeBody(w, r, &body, docCreateRef) {
		return
	}
	rp.Mu.Lock()
	defer rp.Mu.Unlock()
	if rp.Empty() {
		wire.WriteError(w, r, http.StatusConflict, wire.MsgEmptyRepo, docCreateRef)
		return
	}
	if !state.ValidRefName(body.Ref) {
		wire.WriteError(w, r, http.StatusUnprocessableEntity, "Reference name is invalid", docCreateRef)
		return
	}
	h := plumbing.NewHash(body.SHA)
	if len(body.SHA) != 40 || rp.ObjType(h) == plumbing.InvalidObject {
		wire.WriteError(w, r, http.StatusUnprocessableEntity, "Object does not exist", docCreateRef)
		return
	}
	if strings.HasPrefix(body.Ref, "refs/heads/") && rp.ObjType(h) != plumbing.CommitObject {
		// A branch names a commit; the wording is PATCH's (a guess for POST).
		wire.WriteError(w, r, http.StatusUnprocessableEntity, "Object is not a commit", docCreateRef)
		return
	}
	if _, ok := rp.Refs[body.Ref]; ok {
		wire.WriteError(w, r, http.StatusUnprocessableEntity, "Reference already exists", docCreateRef)
		return
	}
	if rp.RefNameClash(body.Ref) != "" {
		// git: 'refs/heads/main' exists; cannot create 'refs/heads/main/sub'.
		wire.WriteError(w, r, http.StatusUnprocessableEntity, "Reference update failed", docCreateRef)
		return
	}
	if e := state.Refusal(rp, wire.IdentOf(r), rules.Change{Ref: body.Ref, New: h}); e != nil {
		wire.WriteError(w, r, http.StatusUnprocessableEntity, e.RestMessage(false), docCreateRef)
		return
	}
	rp.SetRef(body.Ref, h, false, rh.Now())
	out := wire.GitRefJSON(r, rp, body.Ref, h)
	w.Header().Set("Location", out["url"].(string))
	wire.WriteJSON(w, r, http.StatusCreated, out)
}

// UpdateRef answers PATCH /repos/{owner}/{repo}/git/refs/{ref}.
func (rh *Handler) UpdateRef(w http.ResponseWriter, r *http.Request, rp *state.Repo) {
	var body struct {
		SHA   string `json:"sha"`
		Force bool   `json:"force"`
	}
	if !wire.DecodeBody(w, r, &body, docUpdateRef) {
		return
	}
	ref := "refs/" + r.PathValue("ref")
	rp.Mu.Lock()
	defer rp.Mu.Unlock()
	old, ok := rp.Refs[ref]
	if !ok {
		wire.WriteError(w, r, http.StatusUnprocessableEntity, "Reference does not exist", docUpdateRef)
		return
	}
	h := plumbing.NewHash(body.SHA)
	if len(body.SHA) != 40 || rp.ObjType(h) == plumbing.InvalidObject {
		wire.WriteError(w, r, http.StatusUnprocessableEntity, "Object does not exist", docUpdateRef)
		return
	}
	if strings.HasPrefix(ref, "refs/heads/") && rp.ObjType(h) != plumbing.CommitObject {
		wire.WriteError(w, r, http.StatusUnprocessableEntity, "Object is not a commit", docUpdateRef)
		return
	}
	if !body.Force && !rp.IsAncestor(old, h) {
		wire.WriteError(w, r, http.StatusUnprocessableEntity, "Update is not a fast forward", docUpdateRef)
		return
	}
	if old != h {
		if e := state.Refusal(rp, wire.IdentOf(r), rules.Change{Ref: ref, Old: old, New: h}); e != nil {
			wire.WriteError(w, r, http.StatusUnprocessableEntity, e.RestMessage(false), docUpdateRef)
			return
		}
		rp.SetRef(ref, h, body.Force, rh.Now())
	}
	wire.WriteJSON(w, r, http.StatusOK, wire.GitRefJSON(r, rp, ref, h))
}

// DeleteRef answers DELETE /repos/{owner}/{repo}/git/refs/{ref}.
func (rh *Handler) DeleteRef(w http.ResponseWriter, r *http.Request, rp *state.Repo) {
	ref := "refs/" + r.PathValue("ref")
	rp.Mu.Lock()
	defer rp.Mu.Unlock()
	old, ok := rp.Refs[ref]
	if !ok {
		wire.WriteError(w, r, http.StatusUnprocessableEntity, "Reference does not exist", docDeleteRef)
		return
	}
	if ref == "refs/heads/"+rp.DefaultBranch {
		wire.WriteError(w, r, http.StatusUnprocessableEntity, "Cannot delete the default branch", docDeleteRef)
		return
	}
	if e := state.Refusal(rp, wire.IdentOf(r), rules.Change{Ref: ref, Old: old}); e != nil {
		wire.WriteError(w, r, http.StatusUnprocessableEntity, e.RestMessage(false), docDeleteRef)
		return
	}
	rp.SetRef(ref, plumbing.ZeroHash, false, rh.Now())
	w.WriteHeader(http.StatusNoContent)
}
