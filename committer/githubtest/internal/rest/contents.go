package rest

import (
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/state"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/wire"
)

const maxContentsBlob = 1 << 20

// ContentEntry is the content-file/content-tree entry shape without content.
// Caller holds rp.mu.
func ContentEntry(r *http.Request, rp *state.Repo, ref, p string, e object.TreeEntry) map[string]any {
	sha := e.Hash.String()
	typ := "file"
	gitURL := wire.RepoURL(rp, r) + "/git/blobs/" + sha
	var size int64
	var download any = wire.WebBase(r) + "/raw/" + rp.FullName() + "/" + wire.EscapeSegments(ref) + "/" + wire.EscapeSegments(p)
	switch e.Mode {
	case filemode.Dir:
		typ, gitURL, download = "dir", wire.RepoURL(rp, r)+"/git/trees/"+sha, nil
	case filemode.Submodule:
		typ, gitURL, download = "submodule", wire.RepoURL(rp, r)+"/git/trees/"+sha, nil
	case filemode.Symlink:
		typ = "symlink"
	}
	if o, ok := rp.Objects[e.Hash]; ok && e.Mode != filemode.Dir {
		size = o.Size()
	}
	self := wire.RepoURL(rp, r) + "/contents/" + wire.EscapeSegments(p) + "?ref=" + url.QueryEscape(ref)
	html := wire.RepoHTMLURL(rp, r) + "/blob/" + wire.EscapeSegments(ref) + "/" + wire.EscapeSegments(p)
	if typ == "dir" {
		html = wire.RepoHTMLURL(rp, r) + "/tree/" + wire.EscapeSegments(ref) + "/" + wire.EscapeSegments(p)
	}
	return obj{
		"type": typ, "size": size, "name": path.Base(p), "path": p, "sha": sha, "url": self,
		"git_url": gitURL, "html_url": html, "download_url": download,
		"_links": obj{"self": self, "git": gitURL, "html": html},
	}
}

// GetContent answers GET /repos/{owner}/{repo}/contents/{path}.
func (rh *Handler) GetContent(w http.ResponseWriter, r *http.Request, rp *state.Repo) {
	p := strings.Trim(r.PathValue("path"), "/")
	rp.Mu.RLock()
	defer rp.Mu.RUnlock()
	if rp.Empty() {
		wire.WriteError(w, r, http.StatusNotFound, "This repository is empty.", docGetContent)
		return
	}
	ref := r.URL.Query().Get("ref")
	if ref == "" {
		ref = rp.DefaultBranch
	}
	root, ok := rp.ResolveTree(ref)
	if !ok {
		wire.WriteError(w, r, http.StatusNotFound, "No commit found for the ref "+ref, docGetContent)
		return
	}
	e, ok := rp.LookupPath(root, p)
	if !ok {
		wire.WriteError(w, r, http.StatusNotFound, "Not Found", docGetContent)
		return
	}
	if e.Mode == filemode.Dir {
		out := []obj{}
		for _, c := range rp.Trees[e.Hash] {
			out = append(out, ContentEntry(r, rp, ref, path.Join(p, c.Name), c))
		}
		wire.WriteJSON(w, r, http.StatusOK, out)
		return
	}
	data, _ := rp.Blob(e.Hash)
	if strings.Contains(r.Header.Get("Accept"), ".raw") {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Content-Length", strconv.Itoa(len(data)))
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(data)
		return
	}
	if len(data) > maxContentsBlob {
		wire.WriteJSON(w, r, http.StatusForbidden, obj{
			"message":           "This API returns blobs up to 1 MB in size. The requested blob is too large to fetch via the API, but you can use the Git Data API to request blobs up to 100 MB in size.",
			"errors":            []wire.ValidationError{{Resource: "Blob", Field: "data", Code: "too_large"}},
			"documentation_url": docGetContent, "status": "403",
		})
		return
	}
	out := ContentEntry(r, rp, ref, p, e)
	out["content"] = wire.Base64Lines(data)
	out["encoding"] = "base64"
	if e.Mode == filemode.Symlink {
		out["target"] = string(data)
	}
	wire.WriteJSON(w, r, http.StatusOK, out)
}
