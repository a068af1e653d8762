package ghclient

import (
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// apiRoot knows the REST API root's path, so that routes can be matched
// the same way on github.com ("/") and on GHES ("/api/v3/").
type apiRoot struct{ basePath string } // always ends with "/"

// rel returns the request path relative to the API root, with a leading
// "/": "/repos/o/r/git/trees".
func (a apiRoot) rel(u *url.URL) string {
	if rest, ok := strings.CutPrefix(u.Path, a.basePath); ok {
		return "/" + rest
	}
	return u.Path
}

// retryableRequest reports whether a request may be sent more than once:
// GET and HEAD, and the POSTs that create content-addressed objects (the
// same body always yields the same object) or installation tokens.
// Everything else — ref updates, contents writes, pull requests — belongs
// to the caller's own loop.
func retryableRequest(method, rel string) bool {
	switch method {
	case http.MethodGet, http.MethodHead:
		return true
	case http.MethodPost:
		s := strings.Split(strings.TrimSuffix(rel, "/"), "/")
		if len(s) == 6 && s[1] == "repos" && s[4] == "git" {
			switch s[5] {
			case "blobs", "trees", "commits":
				return true
			}
		}
		return len(s) == 5 && s[1] == "app" && s[2] == "installations" && s[4] == "access_tokens"
	}
	return false
}

// repoKey is "owner/repo" (lower case) for requests under
// /repos/{owner}/{repo}, else "".
func repoKey(rel string) string {
	s := strings.SplitN(rel, "/", 5)
	if len(s) >= 4 && s[1] == "repos" && s[2] != "" && s[3] != "" {
		return strings.ToLower(s[2] + "/" + s[3])
	}
	return ""
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// userAgent sets the User-Agent header.
func userAgent(next http.RoundTripper, ua string) http.RoundTripper {
	return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		if req.Header.Get("User-Agent") == ua {
			return next.RoundTrip(req)
		}
		r := req.Clone(req.Context())
		r.Header.Set("User-Agent", ua)
		return next.RoundTrip(r)
	})
}

// withHeader sets h's headers on every request.
func withHeader(next http.RoundTripper, h http.Header) http.RoundTripper {
	return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		r := req.Clone(req.Context())
		for k, v := range h {
			r.Header[k] = v
		}
		return next.RoundTrip(r)
	})
}

// defaultUA sets the default User-Agent on requests that have none.
func defaultUA(next http.RoundTripper) http.RoundTripper {
	return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		if req.Header.Get("User-Agent") != "" {
			return next.RoundTrip(req)
		}
		r := req.Clone(req.Context())
		r.Header.Set("User-Agent", defaultUserAgent())
		return next.RoundTrip(r)
	})
}

// logging logs one debug line per request: method, path, status (or
// error) and duration. It never logs headers, queries or bodies.
func logging(next http.RoundTripper, l *slog.Logger, api apiRoot) http.RoundTripper {
	if l == nil {
		return next
	}
	return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		ctx := req.Context()
		start := time.Now()
		resp, err := next.RoundTrip(req)
		attrs := []slog.Attr{
			slog.String("method", req.Method),
			slog.String("route", api.rel(req.URL)),
			slog.Duration("elapsed", time.Since(start)),
		}
		if err != nil {
			attrs = append(attrs, slog.String("error", err.Error()))
		} else {
			attrs = append(attrs, slog.Int("status", resp.StatusCode))
		}
		l.LogAttrs(ctx, slog.LevelDebug, "github request", attrs...)
		return resp, err
	})
}
