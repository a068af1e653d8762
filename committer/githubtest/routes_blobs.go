package githubtest

import (
	"encoding/base64"
	"net/http"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

func (s *Server) handleCreateBlob(w http.ResponseWriter, r *http.Request, rp *repo) {
	var body struct {
		Content  *string `json:"content"`
		Encoding string  `json:"encoding"`
	}
	if !decodeBody(w, r, &body, docCreateBlob) {
		return
	}
	if body.Content == nil {
		writeError(w, r, http.StatusUnprocessableEntity, "Invalid request.\n\n\"content\" wasn't supplied.", docCreateBlob)
		return
	}
	var data []byte
	switch strings.ToLower(body.Encoding) {
	case "", "utf-8", "utf8":
		data = []byte(*body.Content)
	case "base64":
		b, err := base64.StdEncoding.DecodeString(*body.Content)
		if err != nil {
			writeError(w, r, http.StatusUnprocessableEntity, "Invalid request.\n\nThe content is not valid Base64.", docCreateBlob)
			return
		}
		data = b
	default:
		writeError(w, r, http.StatusUnprocessableEntity,
			"Invalid request.\n\nencoding must be one of \"utf-8\" or \"base64\".", docCreateBlob)
		return
	}
	rp.mu.Lock()
	defer rp.mu.Unlock()
	if rp.empty() {
		writeError(w, r, http.StatusConflict, msgEmptyRepo, docCreateBlob)
		return
	}
	h := rp.PutBlob(data)
	u := rp.url(r) + "/git/blobs/" + h.String()
	w.Header().Set("Location", u)
	writeJSON(w, r, http.StatusCreated, obj{"sha": h.String(), "url": u})
}

func (s *Server) handleGetBlob(w http.ResponseWriter, r *http.Request, rp *repo) {
	sha := r.PathValue("sha")
	rp.mu.RLock()
	defer rp.mu.RUnlock()
	if rp.empty() {
		writeError(w, r, http.StatusConflict, msgEmptyRepo, docGetBlob)
		return
	}
	data, ok := rp.Blob(plumbing.NewHash(sha))
	if len(sha) != 40 || !ok {
		writeError(w, r, http.StatusNotFound, "Not Found", docRoot)
		return
	}
	writeJSON(w, r, http.StatusOK, obj{
		"sha": sha, "node_id": objNodeID(rp, "B", plumbing.NewHash(sha)), "size": len(data), "url": rp.url(r) + "/git/blobs/" + sha,
		"content": base64Lines(data), "encoding": "base64",
	})
}
