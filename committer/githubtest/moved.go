package githubtest

import (
	"fmt"
	"io/fs"
	"net/http"
	"strconv"
	"strings"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/state"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/wire"
)

// docRedirect is the documentation_url of GitHub's redirect replies.
const docRedirect = "https://docs.github.com/rest/guides/best-practices-for-using-the-rest-api#follow-redirects"

// MoveRepo renames owner/name to newOwner/newName (a rename, or a transfer
// to another owner). Requests to the old name are then redirected, as on
// GitHub, to /repositories/{id}/... on the same host: 301 for GET and HEAD,
// 307 for other methods. A repository later created under the old name
// takes the name back.
func (s *Server) MoveRepo(owner, name, newOwner, newName string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	oldKey, newKey := repoKey(owner, name), repoKey(newOwner, newName)
	rp := s.repos[oldKey]
	if rp == nil {
		return fmt.Errorf("githubtest: repository %s/%s: %w", owner, name, fs.ErrNotExist)
	}
	if _, taken := s.repos[newKey]; taken && newKey != oldKey {
		return fmt.Errorf("githubtest: repository %s/%s already exists", newOwner, newName)
	}
	delete(s.repos, oldKey)
	s.repos[newKey] = rp
	delete(s.moved, newKey)
	s.moved[oldKey] = newKey
	rp.Mu.Lock()
	rp.Owner, rp.Name = newOwner, newName
	rp.Mu.Unlock()
	return nil
}

// RenameRepo renames owner/name to owner/newName (see MoveRepo).
func (s *Server) RenameRepo(owner, name, newName string) error {
	return s.MoveRepo(owner, name, owner, newName)
}

// movedRepo follows renames from an old name to the repository now holding
// it, or nil.
func (s *Server) movedRepo(owner, name string) *state.Repo {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := repoKey(owner, name)
	for range 16 { // a chain of renames; bounded against cycles
		next, ok := s.moved[k]
		if !ok {
			return nil
		}
		if rp := s.repos[next]; rp != nil {
			return rp
		}
		k = next
	}
	return nil
}

// repoGone answers a request for a repository that does not exist under
// that name: a redirect when it was renamed or transferred, else 404.
func (s *Server) repoGone(w http.ResponseWriter, r *http.Request) {
	rp := s.movedRepo(r.PathValue("owner"), r.PathValue("repo"))
	if rp == nil {
		wire.WriteError(w, r, http.StatusNotFound, "Not Found", wire.DocRoot)
		return
	}
	rest := strings.SplitN(strings.TrimPrefix(r.URL.EscapedPath(), "/repos/"), "/", 3)
	loc := wire.APIBase(r) + "/repositories/" + strconv.FormatInt(rp.ID, 10)
	if len(rest) == 3 {
		loc += "/" + rest[2]
	}
	if r.URL.RawQuery != "" {
		loc += "?" + r.URL.RawQuery
	}
	status, msg := http.StatusMovedPermanently, "Moved Permanently"
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		status, msg = http.StatusTemporaryRedirect, "Temporary Redirect"
	}
	w.Header().Set("Location", loc)
	wire.WriteJSON(w, r, status, obj{"message": msg, "url": loc, "documentation_url": docRedirect})
}

// repositoryPath rewrites /repositories/{id}/rest to /repos/{owner}/{name}/rest
// (where GitHub's repository redirects point). ok is false when no
// repository has that id.
func (s *Server) repositoryPath(path string) (string, bool) {
	rest, found := strings.CutPrefix(path, "/repositories/")
	if !found {
		return "", false
	}
	idStr, tail, _ := strings.Cut(rest, "/")
	id, err := strconv.ParseInt(idStr, 10, 64)
	if err != nil {
		return "", false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, rp := range s.repos {
		if rp.ID == id {
			p := "/repos/" + rp.Owner + "/" + rp.Name
			if tail != "" || strings.HasSuffix(rest, "/") {
				p += "/" + tail
			}
			return p, true
		}
	}
	return "", false
}
