package lfs

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// Object returns the content stored for oid in repo ("owner/name").
func (s *Server) Object(repo, oid string) ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	data, ok := s.objects[repo][oid]
	return data, ok
}

// StorageLog returns the requests storage received, in order.
func (s *Server) StorageLog() []StorageRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]StorageRequest(nil), s.log...)
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

// ServeHTTP serves storage: PUT and GET objects/{repo}/{oid}, POST
// verify/{repo}; each needs the header a batch reply granted for repo.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
	defer func() {
		s.mu.Lock()
		s.log = append(s.log, StorageRequest{Method: r.Method, Host: r.Host, Path: r.URL.Path, Authorization: r.Header.Get("Authorization"), Status: sw.status})
		s.mu.Unlock()
	}()
	p := strings.TrimPrefix(r.URL.EscapedPath(), StoragePrefix)
	p = strings.TrimPrefix(p, "/")
	parts := strings.Split(p, "/")
	s.mu.Lock()
	granted := s.grants[r.Header.Get("Authorization")]
	s.mu.Unlock()
	switch {
	case len(parts) == 3 && parts[0] == "objects" && (r.Method == http.MethodPut || r.Method == http.MethodGet),
		len(parts) == 2 && parts[0] == "verify" && r.Method == http.MethodPost:
	default:
		http.Error(sw, "not found", http.StatusNotFound)
		return
	}
	repo, err := url.PathUnescape(parts[1])
	if err != nil || granted == "" || granted != repo {
		http.Error(sw, "unauthorized", http.StatusUnauthorized)
		return
	}
	switch {
	case parts[0] == "verify":
		s.verify(sw, r, repo)
	case r.Method == http.MethodPut:
		s.put(sw, r, repo, parts[2])
	default:
		data, ok := s.Object(repo, parts[2])
		if !ok {
			http.Error(sw, "not found", http.StatusNotFound)
			return
		}
		sw.Header().Set("Content-Type", "application/octet-stream")
		_, _ = sw.Write(data)
	}
}

// put stores the body as oid if it hashes to it.
func (s *Server) put(w http.ResponseWriter, r *http.Request, repo, oid string) {
	if r.ContentLength < 0 || r.ContentLength > s.MaxSize {
		http.Error(w, "a Content-Length within the size limit is required", http.StatusBadRequest)
		return
	}
	buf := bytes.NewBuffer(make([]byte, 0, r.ContentLength))
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(buf, h), io.LimitReader(r.Body, r.ContentLength+1))
	if err != nil || n != r.ContentLength || hex.EncodeToString(h.Sum(nil)) != oid {
		http.Error(w, "content does not match the object ID and size", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	if s.objects[repo] == nil {
		s.objects[repo] = map[string][]byte{}
	}
	s.objects[repo][oid] = buf.Bytes()
	s.mu.Unlock()
	w.WriteHeader(http.StatusOK)
}

// verify answers 200 when the object named in the body is stored with its
// size, else 422.
func (s *Server) verify(w http.ResponseWriter, r *http.Request, repo string) {
	var o object
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<16)).Decode(&o); err != nil {
		writeLFS(w, http.StatusUnprocessableEntity, map[string]any{"message": "Unable to parse request body"})
		return
	}
	data, ok := s.Object(repo, o.OID)
	if !ok || int64(len(data)) != o.Size {
		writeLFS(w, http.StatusUnprocessableEntity, map[string]any{"message": "Object does not exist"})
		return
	}
	w.WriteHeader(http.StatusOK)
}
