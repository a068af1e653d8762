package githubtest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/wire"
)

// recorder buffers nothing; it counts what the handler writes. onBody runs
// once, just before the first body bytes go out, so the request is in the
// log before the client can have read the reply (handlers write their body
// in one Write).
type recorder struct {
	http.ResponseWriter
	status int
	n      int64
	onBody func(pending int64)
}

func (rw *recorder) WriteHeader(code int) {
	if rw.status == 0 {
		rw.status = code
	}
	rw.ResponseWriter.WriteHeader(code)
}

func (rw *recorder) Write(b []byte) (int, error) {
	if rw.status == 0 {
		rw.status = http.StatusOK
	}
	if rw.onBody != nil {
		f := rw.onBody
		rw.onBody = nil
		f(int64(len(b)))
	}
	n, err := rw.ResponseWriter.Write(b)
	rw.n += int64(n)
	return n, err
}

// bufWriter captures a whole reply (for DropResponse).
type bufWriter struct {
	h      http.Header
	status int
	buf    bytes.Buffer
}

func (b *bufWriter) Header() http.Header { return b.h }
func (b *bufWriter) WriteHeader(c int) {
	if b.status == 0 {
		b.status = c
	}
}
func (b *bufWriter) Write(p []byte) (int, error) {
	if b.status == 0 {
		b.status = http.StatusOK
	}
	return b.buf.Write(p)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	route := s.routeOf(r)
	if route == routeLimitStats {
		s.handleLimitStats(w, r)
		return
	}
	repoName := repoFromPath(r.URL.Path)
	rec := &recorder{ResponseWriter: w}
	reqBytes := r.ContentLength
	if reqBytes < 0 {
		reqBytes = 0
	}
	logged := false
	meta := &reqMeta{write: countsAsWrite(r, route)}
	r = r.WithContext(context.WithValue(r.Context(), metaKey{}, meta))
	logBytes := func(pending int64) {
		if logged {
			return
		}
		logged = true
		st := rec.status
		if st == 0 {
			st = http.StatusOK
		}
		s.appendLog(Request{Method: r.Method, Route: route, Path: r.URL.Path, RawPath: r.URL.EscapedPath(), RawQuery: r.URL.RawQuery, Status: st,
			RequestBytes: reqBytes, ResponseBytes: rec.n + pending, Repo: repoName, Write: meta.write})
	}
	logIt := func() { logBytes(0) }
	rec.onBody = logBytes
	defer logIt()

	h := rec.Header()
	h.Set("X-GitHub-Media-Type", "github.v3; format=json")
	h.Set("X-GitHub-Request-Id", fmt.Sprintf("FAKE:%08X", s.reqSeq.Add(1)))
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Date", s.now().UTC().Format(http.TimeFormat)) // GitHub's clock: the fake's

	id, ok := s.authenticate(r, route)
	if !ok {
		wire.WriteError(rec, r, http.StatusUnauthorized, "Bad credentials", wire.DocRoot)
		return
	}
	r = r.WithContext(wire.WithIdentity(r.Context(), id))
	inflight, done := s.enter(r, route, id)
	defer done()
	s.sleep(r, s.latencyNow())
	if !s.rateLimit(rec, r, route, id) || !s.secondaryLimit(rec, r, route, id, inflight) {
		return
	}

	act := s.matchFaults(r, route, repoName)
	s.sleep(r, act.latency)
	if len(act.hold) > 0 {
		// Received in full, as GitHub has it: applied once released,
		// whatever the client does meanwhile.
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		r = r.WithContext(context.WithoutCancel(r.Context()))
	}
	for _, f := range act.before {
		f(r)
	}
	for _, h := range act.hold {
		<-h
	}
	if act.fault != nil {
		s.noteInjected(r, route, id, act.fault)
		writeFault(rec, r, act.fault)
		return
	}
	if act.drop {
		bw := &bufWriter{h: http.Header{}}
		s.dispatch(bw, r, route)
		rec.status = bw.status
		logIt() // before the connection closes: the client may act on the close at once
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				_ = conn.Close()
				return
			}
		}
		panic(http.ErrAbortHandler)
	}
	s.serveConditional(rec, r, route, id)
}

func (s *Server) latencyNow() time.Duration { return time.Duration(s.latency.Load()) }

// repoFromPath returns "owner/name" for /repos/{owner}/{name}/... paths.
func repoFromPath(p string) string {
	if !strings.HasPrefix(p, "/repos/") {
		return ""
	}
	parts := strings.SplitN(strings.TrimPrefix(p, "/repos/"), "/", 3)
	if len(parts) < 2 || parts[0] == "" || parts[1] == "" {
		return ""
	}
	return parts[0] + "/" + parts[1]
}

func defaultMessage(status int) string {
	switch status {
	case 404:
		return "Not Found"
	case 401:
		return "Bad credentials"
	case 409:
		return "Conflict"
	case 422:
		return "Validation Failed"
	case 500, 502, 503, 504:
		return "Server Error"
	}
	if t := http.StatusText(status); t != "" {
		return t
	}
	return "Error " + strconv.Itoa(status)
}

// writeFault sends an injected fault's reply.
func writeFault(w http.ResponseWriter, r *http.Request, f *Fault) {
	h := w.Header()
	for k, v := range f.Header {
		h[k] = v
	}
	if f.Body != "" {
		w.WriteHeader(f.Status)
		_, _ = w.Write([]byte(f.Body))
		return
	}
	wire.WriteError(w, r, f.Status, defaultMessage(f.Status), wire.DocRoot)
}

// reqMeta is what a handler learns about a request for its log entry.
type reqMeta struct {
	write bool // content-creating (see Request.Write)
}

type metaKey struct{}

// markWrite records that r turned out to be content-creating (a GraphQL
// mutation).
func markWrite(r *http.Request) {
	if m, ok := r.Context().Value(metaKey{}).(*reqMeta); ok {
		m.write = true
	}
}
