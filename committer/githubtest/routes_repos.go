package githubtest

import (
	"net/http"
	"strings"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/rest"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/state"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/wire"
)

func (s *Server) handleCreateRepo(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Name     string `json:"name"`
		AutoInit bool   `json:"auto_init"`
		Private  bool   `json:"private"`
	}
	if !wire.DecodeBody(w, r, &body, docCreateRepo) {
		return
	}
	if body.Name == "" || strings.ContainsAny(body.Name, "/ ") {
		wire.WriteValidation(w, r, docCreateRepo, wire.ValidationError{Resource: "Repository", Field: "name", Code: "missing_field"})
		return
	}
	owner := r.PathValue("org")
	if owner == "" {
		owner = wire.IdentOf(r).Login
	}
	rp, created := s.addRepo(owner, body.Name, body.Private)
	if !created {
		wire.WriteValidation(w, r, docCreateRepo, wire.ValidationError{Resource: "Repository", Field: "name", Code: "custom",
			Message: "name already exists on this account"})
		return
	}
	if r.PathValue("org") != "" {
		rp.Mu.Lock()
		rp.Org = true
		rp.Mu.Unlock()
	}
	if body.AutoInit {
		if _, err := s.Seed(owner, body.Name, "main", "Initial commit",
			File{Path: "README.md", Content: []byte("# " + body.Name + "\n")}); err != nil {
			wire.WriteError(w, r, http.StatusInternalServerError, err.Error(), docCreateRepo)
			return
		}
	}
	rp.Mu.RLock()
	defer rp.Mu.RUnlock()
	w.Header().Set("Location", wire.RepoURL(rp, r))
	wire.WriteJSON(w, r, http.StatusCreated, wire.RepoJSON(r, rp))
}

func (s *Server) handleGetRepo(w http.ResponseWriter, r *http.Request, rp *state.Repo) {
	rp.Mu.RLock()
	defer rp.Mu.RUnlock()
	wire.WriteJSON(w, r, http.StatusOK, wire.RepoJSON(r, rp))
}

func (s *Server) handleDeleteRepo(w http.ResponseWriter, _ *http.Request, rp *state.Repo) {
	s.mu.Lock()
	delete(s.repos, repoKey(rp.Owner, rp.Name))
	s.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) handleCreateLabel(w http.ResponseWriter, r *http.Request, rp *state.Repo) {
	var body struct {
		Name        string `json:"name"`
		Color       string `json:"color"`
		Description string `json:"description"`
	}
	const doc = "https://docs.github.com/rest/issues/labels#create-a-label"
	if !wire.DecodeBody(w, r, &body, doc) {
		return
	}
	if body.Name == "" {
		wire.WriteValidation(w, r, doc, wire.ValidationError{Resource: "Label", Field: "name", Code: "missing_field"})
		return
	}
	if !state.IsHex(body.Color, 6) {
		wire.WriteValidation(w, r, doc, wire.ValidationError{Resource: "Label", Field: "color", Code: "invalid"})
		return
	}
	rp.Mu.Lock()
	defer rp.Mu.Unlock()
	for _, l := range rp.Labels {
		if strings.EqualFold(l.Name, body.Name) {
			wire.WriteValidation(w, r, doc, wire.ValidationError{Resource: "Label", Field: "name", Code: "already_exists"})
			return
		}
	}
	l := &state.Label{Name: body.Name, Color: strings.ToLower(body.Color), Description: body.Description}
	rp.Labels = append(rp.Labels, l)
	wire.WriteJSON(w, r, http.StatusCreated, rest.LabelJSON(r, rp, l))
}
