package rest

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/state"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/wire"
)

const docListCommits = "https://docs.github.com/rest/commits/commits#list-commits"

// ListCommits serves GET /repos/{owner}/{repo}/commits (repos/list-commits):
// the commits reachable from sha (a branch, tag or commit SHA; by default
// the default branch) in git log's order, newest first, each in the commit
// shape of GET commits/{ref} without files and stats; path keeps the
// commits that change that file or directory, simplified as git log --
// path does by default. per_page (default 30, at most 100) and page (from
// 1) pick a page; the Link header names the prev, next, last and first
// pages as GitHub's does. An empty repository is 409 "Git Repository is
// empty.", a sha that names no commit 404 "No commit found for SHA: <sha>".
// author, committer, since and until are not modelled: they are ignored.
func (rh *Handler) ListCommits(w http.ResponseWriter, r *http.Request, rp *state.Repo) {
	rp.Mu.RLock()
	defer rp.Mu.RUnlock()
	if rp.Empty() {
		wire.WriteError(w, r, http.StatusConflict, wire.MsgEmptyRepo, docListCommits)
		return
	}
	q := r.URL.Query()
	ref := q.Get("sha")
	if ref == "" {
		ref = "refs/heads/" + rp.DefaultBranch
	}
	h, ok := rp.Resolve(ref)
	if _, isCommit := rp.Commits[h]; !ok || !isCommit {
		wire.WriteError(w, r, http.StatusNotFound, "No commit found for SHA: "+q.Get("sha"), docListCommits)
		return
	}
	log := rp.Log(h, strings.Trim(q.Get("path"), "/"))
	page, perPage := pageParams(r, 30, 100)
	lo, hi := min((page-1)*perPage, len(log)), min(page*perPage, len(log))
	out := []obj{}
	for _, c := range log[lo:hi] {
		out = append(out, wire.CommitJSON(r, rp, c))
	}
	if link := pageLinks(r, wire.RepoURL(rp, r)+"/commits", page, (len(log)+perPage-1)/perPage); link != "" {
		w.Header().Set("Link", link)
	}
	wire.WriteJSON(w, r, http.StatusOK, out)
}

// pageLinks is GitHub's Link header for page of last pages at base with
// the request's query: prev and first after the first page, next and last
// before the last one, in GitHub's order (prev, next, last, first).
func pageLinks(r *http.Request, base string, page, last int) string {
	at := func(n int, rel string) string {
		q := r.URL.Query()
		q.Set("page", strconv.Itoa(n))
		return "<" + base + "?" + q.Encode() + `>; rel="` + rel + `"`
	}
	var links []string
	if page > 1 {
		links = append(links, at(page-1, "prev"))
	}
	if page < last {
		links = append(links, at(page+1, "next"), at(last, "last"))
	}
	if page > 1 {
		links = append(links, at(1, "first"))
	}
	return strings.Join(links, ", ")
}
