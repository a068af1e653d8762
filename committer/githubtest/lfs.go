package githubtest

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/lfs"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/wire"
)

// Git LFS: the batch API at /OWNER/REPO.git/info/lfs/objects/batch, on
// the API's host as GitHub serves it on its web host (github.com, or a
// GHES host), and the storage its hrefs point at. NewServer serves storage
// on a listener of its own, under another host name (localhost, where the
// API is 127.0.0.1), so a credential sent there shows in LFSStorageLog;
// a Server mounted another way serves it on its own host, under
// /_lfs/.

// LFSStorageRequest is one request LFS storage received.
type LFSStorageRequest = lfs.StorageRequest

// LFSObject returns the content LFS storage holds for oid (SHA-256, hex)
// in owner/name.
func (s *Server) LFSObject(owner, name, oid string) ([]byte, bool) {
	return s.lfs.Object(repoKey(owner, name), oid)
}

// LFSStorageLog returns the requests LFS storage received, in order, with
// the Authorization header each carried.
func (s *Server) LFSStorageLog() []LFSStorageRequest { return s.lfs.StorageLog() }

// SetLFSMaxSize sets the largest object the batch API accepts for upload.
// The default is 2 GB (GitHub Free and Pro).
func (s *Server) SetLFSMaxSize(n int64) { s.lfs.MaxSize = n }

// lfsRoutes mounts the batch API.
func (s *Server) lfsRoutes() {
	s.mux.HandleFunc("POST /{owner}/{repogit}/info/lfs/objects/batch", func(w http.ResponseWriter, r *http.Request) {
		name, ok := strings.CutSuffix(r.PathValue("repogit"), ".git")
		rp := s.getRepo(r.PathValue("owner"), name)
		if !ok || rp == nil || wire.PrefixOf(r) != "" {
			wire.WriteError(w, r, http.StatusNotFound, "Repository not found", wire.DocRoot)
			return
		}
		s.lfs.Batch(w, r, repoKey(r.PathValue("owner"), name))
	})
}

// serveLFSStorage serves storage on t's own host (see lfs.StoragePrefix);
// it reports whether r was for it.
func (s *Server) serveLFSStorage(w http.ResponseWriter, r *http.Request) bool {
	if !strings.HasPrefix(r.URL.Path, lfs.StoragePrefix) {
		return false
	}
	s.lfs.ServeHTTP(w, r)
	return true
}

// startLFSStorage serves storage on a listener of its own that t.Cleanup
// closes, under the host name localhost.
func (s *Server) startLFSStorage(t testing.TB) {
	hs := httptest.NewServer(s.lfs)
	t.Cleanup(hs.Close)
	u, _ := url.Parse(hs.URL)
	s.lfs.SetStorageURL("http://localhost:" + u.Port() + "/")
}
