package ghclient

import (
	"io"
	"net/http"
	"sync"
)

// limiter allows at most n requests in flight per repository. A request
// holds its slot from before it is sent until its response body is closed
// or read to the end (or the round trip fails).
type limiter struct {
	next http.RoundTripper
	n    int
	api  apiRoot

	mu    sync.Mutex
	slots map[string]*slot
}

type slot struct {
	sem   chan struct{}
	users int // goroutines holding or waiting for sem; the entry is dropped at 0
}

func newLimiter(next http.RoundTripper, n int, api apiRoot) *limiter {
	return &limiter{next: next, n: n, api: api, slots: make(map[string]*slot)}
}

func (l *limiter) RoundTrip(req *http.Request) (*http.Response, error) {
	key := repoKey(l.api.rel(req.URL))
	if key == "" {
		return l.next.RoundTrip(req)
	}
	s := l.join(key)
	select {
	case s.sem <- struct{}{}:
	case <-req.Context().Done():
		l.leave(key, s, false)
		if req.Body != nil {
			_ = req.Body.Close()
		}
		return nil, req.Context().Err()
	}
	var once sync.Once
	release := func() { once.Do(func() { l.leave(key, s, true) }) }
	resp, err := l.next.RoundTrip(req)
	if err != nil || resp.Body == nil || resp.Body == http.NoBody {
		release()
		return resp, err
	}
	resp.Body = &releaseBody{ReadCloser: resp.Body, release: release}
	return resp, nil
}

func (l *limiter) join(key string) *slot {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.slots[key]
	if s == nil {
		s = &slot{sem: make(chan struct{}, l.n)}
		l.slots[key] = s
	}
	s.users++
	return s
}

func (l *limiter) leave(key string, s *slot, held bool) {
	if held {
		<-s.sem
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	s.users--
	if s.users == 0 {
		delete(l.slots, key)
	}
}

// releaseBody frees the request's slot at EOF, on a read error or on Close.
type releaseBody struct {
	io.ReadCloser
	release func()
}

func (b *releaseBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil {
		b.release()
	}
	return n, err
}

func (b *releaseBody) Close() error {
	err := b.ReadCloser.Close()
	b.release()
	return err
}
