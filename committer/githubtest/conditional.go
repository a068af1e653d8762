package githubtest

import (
	"net/http"
	"reflect"
	"strings"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/state"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/wire"
)

var redirectHandlerType = reflect.TypeOf(http.RedirectHandler("/", http.StatusTemporaryRedirect))

// routeOf returns the route pattern a request matches, or "" when no route
// serves it. A path the ServeMux would answer with a redirect (a missing
// trailing slash, an unclean path) is not served: GitHub answers 404.
func (s *Server) routeOf(r *http.Request) string {
	h, pattern := s.mux.Handler(r)
	if pattern == "/" || reflect.TypeOf(h) == redirectHandlerType {
		return ""
	}
	return pattern
}

// dispatch runs the route's handler, or the 404 reply for unserved paths.
func (s *Server) dispatch(w http.ResponseWriter, r *http.Request, route string) {
	if route == "" {
		wire.WriteError(w, r, http.StatusNotFound, "Not Found", wire.DocRoot)
		return
	}
	s.mux.ServeHTTP(w, r)
}

// serveConditional answers a GET carrying If-None-Match with 304 Not
// Modified when the reply it would send has that ETag (weak comparison, as
// GitHub's ETags are weak). A 304 does not count against the primary limit.
func (s *Server) serveConditional(w http.ResponseWriter, r *http.Request, route string, id state.Identity) {
	inm := r.Header.Get("If-None-Match")
	if (r.Method != http.MethodGet && r.Method != http.MethodHead) || inm == "" {
		s.dispatch(w, r, route)
		return
	}
	bw := &bufWriter{h: http.Header{}}
	s.dispatch(bw, r, route)
	h := w.Header()
	for k, v := range bw.h {
		h[k] = v
	}
	if bw.status == http.StatusOK && etagMatch(inm, bw.h.Get("ETag")) {
		h.Del("Content-Length")
		h.Del("Content-Type")
		s.uncount(h, route, id)
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.WriteHeader(bw.status)
	_, _ = w.Write(bw.buf.Bytes())
}

func etagMatch(ifNoneMatch, etag string) bool {
	if etag == "" {
		return false
	}
	strip := func(t string) string { return strings.TrimPrefix(strings.TrimSpace(t), "W/") }
	for _, t := range strings.Split(ifNoneMatch, ",") {
		if t = strings.TrimSpace(t); t == "*" || strip(t) == strip(etag) {
			return true
		}
	}
	return false
}
