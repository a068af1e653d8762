package githubtest

import (
	"net/http"
)

func (s *Server) handleGetBranch(w http.ResponseWriter, r *http.Request, rp *repo) {
	rp.mu.RLock()
	defer rp.mu.RUnlock()
	if rp.empty() {
		writeError(w, r, http.StatusConflict, msgEmptyRepo, docBranch)
		return
	}
	name := r.PathValue("branch")
	h, ok := rp.refs["refs/heads/"+name]
	if !ok {
		writeError(w, r, http.StatusNotFound, "Branch not found", docBranch)
		return
	}
	c := rp.commits[h]
	u := rp.url(r) + "/branches/" + name
	writeJSON(w, r, http.StatusOK, obj{
		"name":      name,
		"commit":    commitJSON(r, rp, c),
		"_links":    obj{"self": u, "html": rp.htmlURL(r) + "/tree/" + name},
		"protected": false,
		"protection": obj{
			"enabled": false,
			"required_status_checks": obj{
				"enforcement_level": "off", "contexts": []string{}, "checks": []obj{},
			},
		},
		"protection_url": u + "/protection",
	})
}

func (s *Server) handleRepoCommit(w http.ResponseWriter, r *http.Request, rp *repo) {
	rp.mu.RLock()
	defer rp.mu.RUnlock()
	if rp.empty() {
		writeError(w, r, http.StatusConflict, msgEmptyRepo, docRepoCommit)
		return
	}
	ref := r.PathValue("ref")
	h, ok := rp.resolve(ref)
	c, isCommit := rp.commits[h]
	if !ok || !isCommit {
		writeValidation(w, r, docRepoCommit, validationError{Resource: "Commit", Field: "ref", Code: "invalid",
			Message: "No commit found for SHA: " + ref})
		return
	}
	out := commitJSON(r, rp, c)
	out["files"] = []obj{}
	out["stats"] = obj{"total": 0, "additions": 0, "deletions": 0}
	writeJSON(w, r, http.StatusOK, out)
}
