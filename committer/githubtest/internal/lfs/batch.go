// Package lfs is the fake's Git LFS server: the batch API (basic transfer:
// upload, download and verify actions) that GitHub serves at
// https://HOST/OWNER/REPO.git/info/lfs/objects/batch, and the object
// storage its hrefs point at, on a host of its own, which logs what each
// request carried (so a test sees a credential sent there). See
// https://github.com/git-lfs/git-lfs/blob/main/docs/api/batch.md and
// docs/api/basic-transfers.md there.
package lfs

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"sync"
)

// MediaType is the batch API's media type.
const MediaType = "application/vnd.git-lfs+json"

// DefaultMaxSize is the largest object accepted: GitHub Free's and Pro's
// LFS file limit (2 GB). See
// https://docs.github.com/repositories/working-with-files/managing-large-files/about-git-large-file-storage
const DefaultMaxSize = 2 << 30

// StoragePrefix is the path under which a server without a storage host
// of its own serves storage on the API's host.
const StoragePrefix = "/_lfs/"

// Server is the LFS batch API and its storage, for every repository.
type Server struct {
	mu      sync.Mutex
	objects map[string]map[string][]byte // repo -> oid -> content
	grants  map[string]string            // RemoteAuth token -> repo
	log     []StorageRequest
	base    string // storage's base URL ("" = the API's host, StoragePrefix)
	MaxSize int64
}

// StorageRequest is one request to storage, as it arrived.
type StorageRequest struct {
	Method, Host, Path string
	Authorization      string // the header as sent
	Status             int
}

// New returns an LFS server with nothing stored.
func New() *Server {
	return &Server{objects: map[string]map[string][]byte{}, grants: map[string]string{}, MaxSize: DefaultMaxSize}
}

// SetStorageURL makes hrefs point at base (ending in "/").
func (s *Server) SetStorageURL(base string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.base = base
}

type object struct {
	OID  string `json:"oid"`
	Size int64  `json:"size"`
}

type batchRequest struct {
	Operation string   `json:"operation"`
	Transfers []string `json:"transfers"`
	Objects   []object `json:"objects"`
	HashAlgo  string   `json:"hash_algo"`
}

// writeLFS writes v as the batch API's JSON.
func writeLFS(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", MediaType)
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// lfsError writes the batch API's error body.
func lfsError(w http.ResponseWriter, status int, msg string) {
	writeLFS(w, status, map[string]any{"message": msg, "documentation_url": "https://docs.github.com/repositories/working-with-files/managing-large-files",
		"request_id": w.Header().Get("X-GitHub-Request-Id")})
}

// Batch answers POST /OWNER/REPO.git/info/lfs/objects/batch for repo
// ("owner/name", known to exist).
func (s *Server) Batch(w http.ResponseWriter, r *http.Request, repo string) {
	var req batchRequest
	if err := json.NewDecoder(io.LimitReader(r.Body, 10<<20)).Decode(&req); err != nil {
		lfsError(w, http.StatusUnprocessableEntity, "Unable to parse request body")
		return
	}
	if req.Operation != "upload" && req.Operation != "download" {
		lfsError(w, http.StatusUnprocessableEntity, fmt.Sprintf("Invalid operation %q", req.Operation))
		return
	}
	if req.HashAlgo != "" && req.HashAlgo != "sha256" {
		lfsError(w, http.StatusConflict, "Unsupported hash algorithm")
		return
	}
	base := s.storageBase(r)
	out := make([]map[string]any, 0, len(req.Objects))
	for _, o := range req.Objects {
		out = append(out, s.answer(req.Operation, repo, o, base))
	}
	writeLFS(w, http.StatusOK, map[string]any{"transfer": "basic", "objects": out, "hash_algo": "sha256"})
}

// answer is the batch reply's entry for o.
func (s *Server) answer(op, repo string, o object, base string) map[string]any {
	e := map[string]any{"oid": o.OID, "size": o.Size}
	fail := func(code int, msg string) map[string]any {
		e["error"] = map[string]any{"code": code, "message": msg}
		return e
	}
	switch {
	case !isOID(o.OID):
		return fail(http.StatusUnprocessableEntity, "Invalid object ID")
	case o.Size < 0:
		return fail(http.StatusUnprocessableEntity, "Invalid size")
	case op == "upload" && o.Size > s.MaxSize:
		return fail(http.StatusUnprocessableEntity, "Size must be less than or equal to "+strconv.FormatInt(s.MaxSize, 10))
	}
	s.mu.Lock()
	data, have := s.objects[repo][o.OID]
	s.mu.Unlock()
	e["authenticated"] = true
	href := base + "objects/" + url.PathEscape(repo) + "/" + o.OID
	switch {
	case op == "upload" && have:
		// Stored already: no actions, so nothing is sent.
	case op == "upload":
		h := s.grant(repo)
		e["actions"] = map[string]any{
			"upload": map[string]any{"href": href, "header": h, "expires_in": 3600},
			"verify": map[string]any{"href": base + "verify/" + url.PathEscape(repo), "header": h, "expires_in": 3600},
		}
	case !have || int64(len(data)) != o.Size:
		return fail(http.StatusNotFound, "Object does not exist")
	default:
		e["actions"] = map[string]any{"download": map[string]any{"href": href, "header": s.grant(repo), "expires_in": 3600}}
	}
	return e
}

// grant issues the header a storage request for repo must carry.
func (s *Server) grant(repo string) map[string]string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	tok := "RemoteAuth " + hex.EncodeToString(b)
	s.mu.Lock()
	s.grants[tok] = repo
	s.mu.Unlock()
	return map[string]string{"Authorization": tok}
}

func (s *Server) storageBase(r *http.Request) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.base != "" {
		return s.base
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host + StoragePrefix
}

func isOID(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
