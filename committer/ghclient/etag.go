package ghclient

import (
	"bytes"
	"container/list"
	"io"
	"net/http"
	"strconv"
	"sync"
)

// Bounds of the ETag cache: entries, bytes per body, bytes in all.
const (
	etagMaxBody  = 1 << 20
	etagMaxBytes = 32 << 20
)

// etagCache makes GETs conditional: it remembers the last 200 reply with an
// ETag per URL, Accept and X-GitHub-Api-Version headers and credential,
// sends If-None-Match with the next GET of that URL, and on 304 Not
// Modified hands back the remembered reply as a 200 (with the 304's
// rate-limit headers and X-From-Cache: 1).
// GitHub does not count a 304 against the primary rate limit, so a branch
// head that has not moved costs no quota. A body is served from the cache
// only after GitHub said it is unchanged.
type etagCache struct {
	next http.RoundTripper
	key  keyer
	max  int

	mu    sync.Mutex
	ll    *list.List // *etagEntry, most recent first
	m     map[string]*list.Element
	bytes int
}

type etagEntry struct {
	key, etag string
	header    http.Header
	body      []byte
}

func newETagCache(next http.RoundTripper, key keyer, entries int) http.RoundTripper {
	if entries <= 0 {
		return next
	}
	return &etagCache{next: next, key: key, max: entries, ll: list.New(), m: map[string]*list.Element{}}
}

func (c *etagCache) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodGet || req.Header.Get("If-None-Match") != "" ||
		req.Header.Get("If-Modified-Since") != "" || req.Header.Get("Range") != "" {
		return c.next.RoundTrip(req)
	}
	key := c.key(req) + "\x00" + req.Header.Get("Accept") + "\x00" + req.Header.Get("X-GitHub-Api-Version") + "\x00" + req.URL.String()
	e := c.get(key)
	r := req
	if e != nil {
		r = req.Clone(req.Context())
		r.Header.Set("If-None-Match", e.etag)
	}
	resp, err := c.next.RoundTrip(r)
	if err != nil {
		return resp, err
	}
	switch {
	case resp.StatusCode == http.StatusNotModified && e != nil:
		drain(resp)
		return e.response(req, resp), nil
	case resp.StatusCode == http.StatusOK && resp.Header.Get("ETag") != "":
		c.store(key, resp)
	default:
		c.remove(key)
	}
	return resp, nil
}

// store reads resp's body (up to etagMaxBody) and remembers it; a larger
// body is handed on unread past what was peeked, and not cached.
func (c *etagCache) store(key string, resp *http.Response) {
	if resp.ContentLength > etagMaxBody {
		c.remove(key)
		return
	}
	buf, err := io.ReadAll(io.LimitReader(resp.Body, etagMaxBody+1))
	if err != nil || len(buf) > etagMaxBody {
		resp.Body = &restoredBody{Reader: io.MultiReader(bytes.NewReader(buf), errReader{err}, resp.Body), Closer: resp.Body}
		c.remove(key)
		return
	}
	_ = resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(buf))
	e := &etagEntry{key: key, etag: resp.Header.Get("ETag"), header: resp.Header.Clone(), body: buf}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.removeLocked(key)
	c.m[key] = c.ll.PushFront(e)
	c.bytes += len(buf)
	for c.ll.Len() > c.max || c.bytes > etagMaxBytes {
		c.removeLocked(c.ll.Back().Value.(*etagEntry).key)
	}
}

func (c *etagCache) get(key string) *etagEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	el := c.m[key]
	if el == nil {
		return nil
	}
	c.ll.MoveToFront(el)
	return el.Value.(*etagEntry)
}

func (c *etagCache) remove(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.removeLocked(key)
}

func (c *etagCache) removeLocked(key string) {
	if el := c.m[key]; el != nil {
		c.bytes -= len(el.Value.(*etagEntry).body)
		c.ll.Remove(el)
		delete(c.m, key)
	}
}

// response is the cached reply to req, refreshed by the 304 notModified:
// its rate-limit headers, date and request ID are the 304's.
func (e *etagEntry) response(req *http.Request, notModified *http.Response) *http.Response {
	h := e.header.Clone()
	for k, v := range notModified.Header {
		switch http.CanonicalHeaderKey(k) {
		case "Date", "X-Github-Request-Id", "Etag", "Cache-Control", "X-Ratelimit-Limit",
			"X-Ratelimit-Remaining", "X-Ratelimit-Reset", "X-Ratelimit-Used", "X-Ratelimit-Resource":
			h[k] = v
		}
	}
	h.Set("X-From-Cache", "1")
	h.Set("Content-Length", strconv.Itoa(len(e.body)))
	return &http.Response{
		Status: "200 OK", StatusCode: http.StatusOK,
		Proto: notModified.Proto, ProtoMajor: notModified.ProtoMajor, ProtoMinor: notModified.ProtoMinor,
		Header: h, Body: io.NopCloser(bytes.NewReader(e.body)), ContentLength: int64(len(e.body)),
		Request: req, TLS: notModified.TLS,
	}
}
