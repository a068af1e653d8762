package ghclient

import (
	"context"
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

// retryTransport resends retryable requests that failed in a retryable way
// (CheckRetry), waiting through the sleep hook between attempts.
type retryTransport struct {
	next  http.RoundTripper
	o     *options
	api   apiRoot
	check func(context.Context, *http.Response, error) (bool, error)
}

func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	rel := t.api.rel(req.URL)
	if !retryableRequest(req.Method, rel) || retriesOff(ctx) {
		return t.next.RoundTrip(req)
	}
	rewindable := req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
	for attempt := 0; ; attempt++ {
		r := req
		if attempt > 0 && req.GetBody != nil {
			body, err := req.GetBody()
			if err != nil {
				return nil, err
			}
			r = req.Clone(ctx)
			r.Body = body
		}
		resp, err := t.next.RoundTrip(r)
		retry, checkErr := t.check(ctx, resp, err)
		if !retry && resp != nil && ctx.Err() != nil {
			// The caller gave up. A failure we would otherwise have
			// retried is reported as the context's error; a final
			// answer is still handed back.
			if again, _ := t.check(context.WithoutCancel(ctx), resp, nil); again {
				drain(resp)
				return nil, ctx.Err()
			}
		}
		if !retry {
			if resp != nil {
				return resp, nil
			}
			if err == nil {
				err = checkErr
			}
			return nil, err
		}
		now := t.o.now()
		wait := backoffAt(now, t.o.backoffMin, t.o.backoffMax, attempt, resp, t.o.secondaryFloor())
		if secondary := isSecondaryRateLimit(resp); (secondary || isPrimaryRateLimit(resp)) && wait > t.o.maxRateWait {
			rle := &RateLimitError{
				Reset: now.Add(wait), Wait: wait, MaxWait: t.o.maxRateWait,
				Secondary: secondary, Method: req.Method, Path: rel, StatusCode: resp.StatusCode,
				RequestID: resp.Header.Get("X-GitHub-Request-Id"),
			}
			t.log(ctx, req.Method, rel, resp, err, attempt, 0, "rate limit too far away")
			drain(resp)
			return nil, rle
		}
		if attempt >= t.o.maxRetries || !rewindable {
			// Out of retries: hand back the last reply untouched so that
			// go-github reports its typed error with the real status.
			return resp, err
		}
		t.log(ctx, req.Method, rel, resp, err, attempt, wait, "retrying")
		drain(resp)
		if serr := t.o.sleep(ctx, wait); serr != nil {
			return nil, serr
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
}

func (t *retryTransport) log(ctx context.Context, method, rel string, resp *http.Response, err error, attempt int, wait time.Duration, msg string) {
	l := t.o.logger
	if l == nil {
		return
	}
	attrs := []slog.Attr{
		slog.String("method", method),
		slog.String("route", rel),
		slog.Int("attempt", attempt+1),
		slog.Duration("wait", wait),
	}
	if resp != nil {
		attrs = append(attrs, slog.Int("status", resp.StatusCode))
	}
	if err != nil {
		attrs = append(attrs, slog.String("error", err.Error()))
	}
	l.LogAttrs(ctx, slog.LevelDebug, "github "+msg, attrs...)
}
