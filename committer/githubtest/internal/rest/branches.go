package rest

import (
	"net/http"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/state"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/wire"
)

const docRenameBranch = "https://docs.github.com/rest/branches/branches#rename-a-branch"

// GetBranch serves GET branches/{b}. Like GitHub it answers 404
// "Branch not found" for any branch of an empty repository, and 301 (with
// Location) for a branch renamed away (POST branches/{b}/rename) and for
// master in a repository that has none.
func (rh *Handler) GetBranch(w http.ResponseWriter, r *http.Request, rp *state.Repo) {
	rp.Mu.RLock()
	name := r.PathValue("branch")
	if b, ok := rp.SplitProtection(name); ok {
		rp.Mu.RUnlock()
		rh.handleBranchProtection(w, r, rp, b)
		return
	}
	defer rp.Mu.RUnlock()
	h, ok := rp.Refs["refs/heads/"+name]
	if !ok {
		if to := rp.BranchRedirect(name); to != "" {
			u := wire.RepoURL(rp, r) + "/branches/" + wire.EscapeSegments(to)
			w.Header().Set("Location", u)
			wire.WriteJSON(w, r, http.StatusMovedPermanently, obj{
				"message": "Moved Permanently", "url": u, "documentation_url": "https://docs.github.com/v3/#http-redirects",
			})
			return
		}
		wire.WriteError(w, r, http.StatusNotFound, "Branch not found", docBranch)
		return
	}
	wire.WriteJSON(w, r, http.StatusOK, branchJSON(r, rp, name, h))
}

func branchJSON(r *http.Request, rp *state.Repo, name string, h plumbing.Hash) obj {
	c := rp.Commits[h]
	u := wire.RepoURL(rp, r) + "/branches/" + wire.EscapeSegments(name)
	return obj{
		"name":           name,
		"commit":         wire.CommitJSON(r, rp, c),
		"_links":         obj{"self": u, "html": wire.RepoHTMLURL(rp, r) + "/tree/" + wire.EscapeSegments(name)},
		"protected":      rp.BranchProtected(name),
		"protection":     protectionSummary(rp, name),
		"protection_url": u + "/protection",
	}
}

// BranchPost serves POST branches/{b}/rename (the only POST under
// branches/): it renames the branch, keeps its history, moves the default
// branch along, and leaves the old name redirecting to the new one.
func (rh *Handler) BranchPost(w http.ResponseWriter, r *http.Request, rp *state.Repo) {
	old, ok := strings.CutSuffix(r.PathValue("branch"), "/rename")
	if !ok || old == "" {
		wire.WriteError(w, r, http.StatusNotFound, "Not Found", wire.DocRoot)
		return
	}
	var body struct {
		NewName *string `json:"new_name"`
	}
	if !wire.DecodeBody(w, r, &body, docRenameBranch) {
		return
	}
	if body.NewName == nil {
		wire.WriteValidation(w, r, docRenameBranch, wire.ValidationError{Resource: "Branch", Field: "new_name", Code: "missing_field"})
		return
	}
	newName := strings.TrimPrefix(*body.NewName, "refs/heads/")
	rp.Mu.Lock()
	defer rp.Mu.Unlock()
	h, ok := rp.Refs["refs/heads/"+old]
	if !ok {
		wire.WriteError(w, r, http.StatusNotFound, "Branch not found", docRenameBranch)
		return
	}
	ref := "refs/heads/" + newName
	if !state.ValidRefName(ref) || rp.RefNameClash(ref) != "" && rp.RefNameClash(ref) != "refs/heads/"+old {
		wire.WriteValidation(w, r, docRenameBranch, wire.ValidationError{Resource: "Branch", Field: "new_name", Code: "invalid",
			Message: "New branch name is invalid or already exists"})
		return
	}
	if _, exists := rp.Refs[ref]; exists && newName != old {
		wire.WriteValidation(w, r, docRenameBranch, wire.ValidationError{Resource: "Branch", Field: "new_name", Code: "already_exists",
			Message: "New branch name already exists"})
		return
	}
	if newName != old {
		now := rh.Now()
		rp.SetRef("refs/heads/"+old, plumbing.ZeroHash, false, now)
		rp.SetRef(ref, h, false, now)
		if rp.Renamed == nil {
			rp.Renamed = map[string]string{}
		}
		for from, to := range rp.Renamed {
			if to == old {
				rp.Renamed[from] = newName
			}
		}
		delete(rp.Renamed, newName)
		rp.Renamed[old] = newName
		if rp.DefaultBranch == old {
			rp.DefaultBranch = newName
		}
	}
	wire.WriteJSON(w, r, http.StatusCreated, branchJSON(r, rp, newName, h))
}

// RepoCommit answers GET /repos/{owner}/{repo}/commits/{ref}.
func (rh *Handler) RepoCommit(w http.ResponseWriter, r *http.Request, rp *state.Repo) {
	rp.Mu.RLock()
	defer rp.Mu.RUnlock()
	if rp.Empty() {
		wire.WriteError(w, r, http.StatusConflict, wire.MsgEmptyRepo, docRepoCommit)
		return
	}
	ref := r.PathValue("ref")
	h, ok := rp.Resolve(ref)
	c, isCommit := rp.Commits[h]
	if !ok || !isCommit {
		wire.WriteValidation(w, r, docRepoCommit, wire.ValidationError{Resource: "Commit", Field: "ref", Code: "invalid",
			Message: "No commit found for SHA: " + ref})
		return
	}
	out := wire.CommitJSON(r, rp, c)
	out["files"] = []obj{}
	out["stats"] = obj{"total": 0, "additions": 0, "deletions": 0}
	wire.WriteJSON(w, r, http.StatusOK, out)
}
