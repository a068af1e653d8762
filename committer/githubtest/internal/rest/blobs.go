package rest

import (
	"encoding/base64"
	"net/http"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/state"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/wire"
)

// CreateBlob answers POST /repos/{owner}/{repo}/git/blobs.
func (rh *Handler) CreateBlob(w http.ResponseWriter, r *http.Request, rp *state.Repo) {
	var body struct {
		Content  *string `json:"content"`
		Encoding string  `json:"encoding"`
	}
	if !wire.DecodeBody(w, r, &body, docCreateBlob) {
		return
	}
	if body.Content == nil {
		wire.WriteError(w, r, http.StatusUnprocessableEntity, "Invalid request.\n\n\"content\" wasn't supplied.", docCreateBlob)
		return
	}
	var data []byte
	switch strings.ToLower(body.Encoding) {
	case "", "utf-8", "utf8":
		data = []byte(*body.Content)
	case "base64":
		b, err := base64.StdEncoding.DecodeString(*body.Content)
		if err != nil {
			wire.WriteError(w, r, http.StatusUnprocessableEntity, "Invalid request.\n\nThe content is not valid Base64.", docCreateBlob)
			return
		}
		data = b
	default:
		wire.WriteError(w, r, http.StatusUnprocessableEntity,
			"Invalid request.\n\nencoding must be one of \"utf-8\" or \"base64\".", docCreateBlob)
		return
	}
	rp.Mu.Lock()
	defer rp.Mu.Unlock()
	if rp.Empty() {
		wire.WriteError(w, r, http.StatusConflict, wire.MsgEmptyRepo, docCreateBlob)
		return
	}
	h := rp.PutBlob(data)
	u := wire.RepoURL(rp, r) + "/git/blobs/" + h.String()
	w.Header().Set("Location", u)
	wire.WriteJSON(w, r, http.StatusCreated, obj{"sha": h.String(), "url": u})
}

// GetBlob answers GET /repos/{owner}/{repo}/git/blobs/{sha}.
func (rh *Handler) GetBlob(w http.ResponseWriter, r *http.Request, rp *state.Repo) {
	sha := r.PathValue("sha")
	rp.Mu.RLock()
	defer rp.Mu.RUnlock()
	if rp.Empty() {
		wire.WriteError(w, r, http.StatusConflict, wire.MsgEmptyRepo, docGetBlob)
		return
	}
	data, ok := rp.Blob(plumbing.NewHash(sha))
	if len(sha) != 40 || !ok {
		wire.WriteError(w, r, http.StatusNotFound, "Not Found", wire.DocRoot)
		return
	}
	wire.WriteJSON(w, r, http.StatusOK, obj{
		"sha": sha, "node_id": wire.ObjNodeID(rp, "B", plumbing.NewHash(sha)), "size": len(data), "url": wire.RepoURL(rp, r) + "/git/blobs/" + sha,
		"content": wire.Base64Lines(data), "encoding": "base64",
	})
}
