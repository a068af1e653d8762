package rest

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/state"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/wire"
)

const docCompare = "https://docs.github.com/rest/commits/commits#compare-two-commits"

// Compare serves GET compare/{base}...{head}: head described relative
// to base (status identical, ahead, behind or diverged, ahead_by,
// behind_by, the merge base) and a page of the commits head has that base
// lacks, oldest first (per_page default 250, at most 250; a Link header
// names the next and last pages), as GitHub's commit-comparison schema.
func (rh *Handler) Compare(w http.ResponseWriter, r *http.Request, rp *state.Repo) {
	baseRef, headRef, ok := strings.Cut(r.PathValue("basehead"), "...")
	if !ok {
		wire.WriteError(w, r, http.StatusNotFound, "Not Found", docCompare)
		return
	}
	baseRef, headRef = stripOwner(baseRef, rp.Owner), stripOwner(headRef, rp.Owner)
	rp.Mu.RLock()
	defer rp.Mu.RUnlock()
	base, okB := rp.Resolve(baseRef)
	head, okH := rp.Resolve(headRef)
	if !okB || !okH || rp.Commits[base] == nil || rp.Commits[head] == nil {
		wire.WriteError(w, r, http.StatusNotFound, "Not Found", docCompare)
		return
	}
	fromBase, fromHead := rp.Reachable(base), rp.Reachable(head)
	var ahead, behind []plumbing.Hash
	for h := range fromHead {
		if !fromBase[h] {
			ahead = append(ahead, h)
		}
	}
	for h := range fromBase {
		if !fromHead[h] {
			behind = append(behind, h)
		}
	}
	mergeBase, found := rp.MergeBase(head, fromBase)
	if !found {
		wire.WriteError(w, r, http.StatusNotFound, "No common ancestor between "+baseRef+" and "+headRef+".", docCompare)
		return
	}
	status := "diverged"
	switch {
	case len(ahead) == 0 && len(behind) == 0:
		status = "identical"
	case len(behind) == 0:
		status = "ahead"
	case len(ahead) == 0:
		status = "behind"
	}
	rp.SortOldestFirst(ahead)
	page, perPage := pageParams(r, 250, 250)
	lo, hi := min((page-1)*perPage, len(ahead)), min(page*perPage, len(ahead))
	commits := []obj{}
	for _, h := range ahead[lo:hi] {
		commits = append(commits, wire.CommitJSON(r, rp, rp.Commits[h]))
	}
	if last := (len(ahead) + perPage - 1) / perPage; page < last {
		u := wire.RepoURL(rp, r) + "/compare/" + r.PathValue("basehead") + "?per_page=" + strconv.Itoa(perPage)
		w.Header().Set("Link", `<`+u+`&page=`+strconv.Itoa(page+1)+`>; rel="next", <`+u+`&page=`+strconv.Itoa(last)+`>; rel="last"`)
	}
	basehead := baseRef + "..." + headRef
	web := wire.RepoHTMLURL(rp, r) + "/compare/"
	wire.WriteJSON(w, r, http.StatusOK, obj{
		"url": wire.RepoURL(rp, r) + "/compare/" + basehead, "html_url": web + basehead,
		"permalink_url": web + rp.Owner + ":" + base.String() + "..." + rp.Owner + ":" + head.String(),
		"diff_url":      web + basehead + ".diff", "patch_url": web + basehead + ".patch",
		"base_commit":       wire.CommitJSON(r, rp, rp.Commits[base]),
		"merge_base_commit": wire.CommitJSON(r, rp, rp.Commits[mergeBase]),
		"status":            status, "ahead_by": len(ahead), "behind_by": len(behind),
		"total_commits": len(ahead), "commits": commits,
	})
}

func stripOwner(ref, owner string) string {
	if o, rest, ok := strings.Cut(ref, ":"); ok && strings.EqualFold(o, owner) {
		return rest
	}
	return ref
}

// pageParams reads page (from 1) and per_page (default def, at most limit).
func pageParams(r *http.Request, def, limit int) (page, perPage int) {
	page, perPage = 1, def
	if n, err := strconv.Atoi(r.URL.Query().Get("page")); err == nil && n > 0 {
		page = n
	}
	if n, err := strconv.Atoi(r.URL.Query().Get("per_page")); err == nil && n > 0 {
		perPage = min(n, limit)
	}
	return page, perPage
}
