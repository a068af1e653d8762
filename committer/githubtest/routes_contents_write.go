package githubtest

import (
	"encoding/base64"
	"net/http"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

type contentsWrite struct {
	Message   *string `json:"message"`
	Content   *string `json:"content"`
	SHA       string  `json:"sha"`
	Branch    string  `json:"branch"`
	Author    *sigIn  `json:"author"`
	Committer *sigIn  `json:"committer"`
}

func (s *Server) handlePutContent(w http.ResponseWriter, r *http.Request, rp *repo) {
	var body contentsWrite
	if !decodeBody(w, r, &body, docContents) {
		return
	}
	p := strings.Trim(r.PathValue("path"), "/")
	fail := func(st int, msg string) { writeError(w, r, st, msg, docContents) }
	if body.Message == nil {
		fail(422, "Invalid request.\n\n\"message\" wasn't supplied.")
		return
	}
	if body.Content == nil {
		fail(422, "Invalid request.\n\n\"content\" wasn't supplied.")
		return
	}
	data, err := base64.StdEncoding.DecodeString(*body.Content)
	if err != nil {
		fail(422, "content is not valid Base64")
		return
	}
	if !validPath(p) {
		fail(422, "path contains a malformed path component")
		return
	}
	rp.mu.Lock()
	defer rp.mu.Unlock()
	ref, head, root, ok := rp.contentsBranch(body.Branch)
	if !ok {
		fail(404, "Branch "+strings.TrimPrefix(ref, "refs/heads/")+" not found")
		return
	}
	status := http.StatusCreated
	if !head.IsZero() {
		if e, exists := rp.lookupPath(root, p); exists {
			if e.Mode == filemode.Dir {
				fail(422, "Invalid request.\n\n\""+p+"\" is a directory.")
				return
			}
			if body.SHA == "" {
				fail(422, "Invalid request.\n\n\"sha\" wasn't supplied.")
				return
			}
			if body.SHA != e.Hash.String() {
				fail(409, p+" does not match "+body.SHA)
				return
			}
			status = http.StatusOK
		}
	}
	b := newTreeBuilder(rp, root)
	mode := filemode.Regular
	if e, exists := rp.lookupPath(root, p); exists && !head.IsZero() && e.Mode == filemode.Executable {
		mode = filemode.Executable
	}
	blob := rp.putBlob(data)
	b.set(p, mode, blob)
	tree, err := b.write()
	if err != nil {
		fail(500, err.Error())
		return
	}
	c := s.commitContents(r, rp, ref, head, tree, *body.Message, body.Author, body.Committer)
	branch := strings.TrimPrefix(ref, "refs/heads/")
	writeJSON(w, r, status, obj{
		"content": contentEntry(r, rp, branch, p, object.TreeEntry{Name: p, Mode: mode, Hash: blob}),
		"commit":  gitCommitJSON(r, rp, c),
	})
}

func (s *Server) handleDeleteContent(w http.ResponseWriter, r *http.Request, rp *repo) {
	var body contentsWrite
	if !decodeBody(w, r, &body, docDelContent) {
		return
	}
	p := strings.Trim(r.PathValue("path"), "/")
	fail := func(st int, msg string) { writeError(w, r, st, msg, docDelContent) }
	if body.Message == nil {
		fail(422, "Invalid request.\n\n\"message\" wasn't supplied.")
		return
	}
	if body.SHA == "" {
		fail(422, "Invalid request.\n\n\"sha\" wasn't supplied.")
		return
	}
	rp.mu.Lock()
	defer rp.mu.Unlock()
	ref, head, root, ok := rp.contentsBranch(body.Branch)
	if !ok || head.IsZero() {
		fail(404, "Branch "+strings.TrimPrefix(ref, "refs/heads/")+" not found")
		return
	}
	e, exists := rp.lookupPath(root, p)
	if !exists || e.Mode == filemode.Dir {
		fail(404, "Not Found")
		return
	}
	if body.SHA != e.Hash.String() {
		fail(409, p+" does not match "+body.SHA)
		return
	}
	b := newTreeBuilder(rp, root)
	_ = b.del(p)
	tree, err := b.write()
	if err != nil {
		fail(500, err.Error())
		return
	}
	c := s.commitContents(r, rp, ref, head, tree, *body.Message, body.Author, body.Committer)
	writeJSON(w, r, http.StatusOK, obj{"content": nil, "commit": gitCommitJSON(r, rp, c)})
}
