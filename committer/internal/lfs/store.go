package lfs

import (
	"context"
	"net/http"
	"sync"
)

// Store is a repository's LFS storage as commits use it: a Client, and the
// objects known stored, so that later attempts and commits ask nothing
// about them. It is safe for concurrent use.
type Store struct {
	Client *Client

	mu     sync.Mutex
	stored map[string]bool
}

// NewStore is the Store of the repository whose LFS URL is endpoint (see
// Endpoint): batch requests go through api, storage requests through
// storage (a clone of http.DefaultTransport when nil), never api's.
func NewStore(api *http.Client, storage http.RoundTripper, endpoint string) *Store {
	if storage == nil {
		storage = http.DefaultTransport.(*http.Transport).Clone()
	}
	return &Store{Client: &Client{API: api, Storage: &http.Client{Transport: storage}, Endpoint: endpoint}, stored: map[string]bool{}}
}

// Upload stores the objects of ups not known stored yet (see
// Client.UploadAll), each once.
func (s *Store) Upload(ctx context.Context, ups []Upload) error {
	var todo []Upload
	seen := map[string]bool{}
	s.mu.Lock()
	for _, u := range ups {
		if !s.stored[u.OID] && !seen[u.OID] {
			seen[u.OID] = true
			todo = append(todo, u)
		}
	}
	s.mu.Unlock()
	if err := s.Client.UploadAll(ctx, todo); err != nil {
		return err
	}
	s.mu.Lock()
	for _, u := range todo {
		s.stored[u.OID] = true
	}
	s.mu.Unlock()
	return nil
}

// Download reads the object o (see Client.Download).
func (s *Store) Download(ctx context.Context, o Object, limit int64) ([]byte, error) {
	return s.Client.Download(ctx, o, limit)
}
