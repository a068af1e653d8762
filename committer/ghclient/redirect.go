package ghclient

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// maxRedirects bounds how many redirects one request follows.
const maxRedirects = 10

// apiHosts are where credentials may go: the scheme and host (with port)
// of the REST API root and of the uploads root (uploads.github.com for
// api.github.com, the API's own host elsewhere), and for api.github.com
// github.com, where the Git LFS batch API is (GHES serves it on the API's
// own host). GHES serves GraphQL on the API's host (/api/graphql), outside
// /api/v3/, so the check is on the host, not the path.
type apiHosts struct {
	roots []*url.URL
}

func newAPIHosts(base, upload *url.URL) apiHosts {
	h := apiHosts{roots: []*url.URL{base, upload}}
	if strings.EqualFold(base.Host, "api.github.com") {
		h.roots = append(h.roots, &url.URL{Scheme: base.Scheme, Host: "github.com"})
	}
	return h
}

// allows reports whether u has the scheme and host (case-insensitive, port
// included) of one of the API's roots.
func (h apiHosts) allows(u *url.URL) bool {
	for _, r := range h.roots {
		if strings.EqualFold(u.Scheme, r.Scheme) && strings.EqualFold(u.Host, r.Host) {
			return true
		}
	}
	return false
}

func (h apiHosts) String() string { return h.roots[0].String() }

// ForeignHostError reports a request, or a redirect, to a place other than
// the GitHub API this client was made for. It is refused, so credentials
// (a token, an App JWT or an installation token) are only ever sent to the
// API's own host. Match it with errors.As.
type ForeignHostError struct {
	// Method is the request's method.
	Method string
	// URL is where the request or redirect pointed, without its query.
	URL string
	// Status is the redirect's HTTP status (301, 302, 307, ...), or 0 when
	// the request itself was addressed to another host.
	Status int
	// API is the API root the client sends requests to.
	API string
	// RequestID is the redirect's X-GitHub-Request-Id, if it had one.
	RequestID string
}

func (e *ForeignHostError) Error() string {
	if e.Status == 0 {
		return fmt.Sprintf("ghclient: refused to send %s %s: this client sends requests (and credentials) only to the API at %s", e.Method, e.URL, e.API)
	}
	return fmt.Sprintf("ghclient: %s: the server answered %d, a redirect to %s, another host than the API at %s: not followed, so credentials never leave the API's host", e.Method, e.Status, e.URL, e.API)
}

// RedirectError reports a redirect on the API's own host that the client
// did not follow: one that would resend a write as a GET (301, 302, 303),
// or one hop past the limit (a redirect loop). The request was answered
// with a redirect, so nothing past it was sent. Match it with errors.As.
type RedirectError struct {
	// Method and URL are the original request's (URL without its query).
	Method, URL string
	// Status is the last redirect's HTTP status; RequestID its
	// X-GitHub-Request-Id, if it had one.
	Status    int
	RequestID string
	// Hops is how many redirects were followed before this one.
	Hops int
}

func (e *RedirectError) Error() string {
	if e.Hops >= maxRedirects {
		return fmt.Sprintf("ghclient: %s %s: stopped after %d redirects (a redirect loop?)", e.Method, e.URL, e.Hops)
	}
	return fmt.Sprintf("ghclient: %s %s: the server answered %d, a redirect that would resend the request as a GET: not followed", e.Method, e.URL, e.Status)
}

// redactedURL is u without its user info, query and fragment.
func redactedURL(u *url.URL) string {
	c := url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}
	return c.String()
}

// guard refuses any request to another host before it reaches an
// auth layer. go-github follows some redirects by itself
// (Repositories.GetBranch calls the transport directly), and
// ghinstallation signs every request it carries, so the check belongs in
// the transport and not only in CheckRedirect.
func guard(next http.RoundTripper, hosts apiHosts) http.RoundTripper {
	return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		if !hosts.allows(req.URL) {
			if req.Body != nil {
				_ = req.Body.Close()
			}
			return nil, &ForeignHostError{Method: req.Method, URL: redactedURL(req.URL), API: hosts.String()}
		}
		return next.RoundTrip(req)
	})
}

// checkRedirect is the client's one redirect policy:
//   - under NoRedirect, nothing is followed (the 3xx reply is returned);
//   - a redirect to another host (or scheme) is refused with a
//     *ForeignHostError;
//   - a GET or HEAD follows any same-host redirect (a renamed or
//     transferred repository answers 301); other methods follow only 307
//     and 308, which keep the method and body (a 301/302/303 would turn
//     the write into a GET);
//   - at most maxRedirects hops.
func checkRedirect(hosts apiHosts) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if noRedirect(req.Context()) {
			return http.ErrUseLastResponse
		}
		first := via[0]
		status, requestID := 0, ""
		if req.Response != nil {
			status, requestID = req.Response.StatusCode, req.Response.Header.Get("X-GitHub-Request-Id")
		}
		if !hosts.allows(req.URL) {
			return &ForeignHostError{Method: first.Method, URL: redactedURL(req.URL), Status: status, API: hosts.String(), RequestID: requestID}
		}
		refused := &RedirectError{Method: first.Method, URL: redactedURL(first.URL), Status: status, RequestID: requestID, Hops: len(via)}
		if first.Method != http.MethodGet && first.Method != http.MethodHead &&
			status != http.StatusTemporaryRedirect && status != http.StatusPermanentRedirect {
			return refused
		}
		if len(via) >= maxRedirects {
			return refused
		}
		return nil
	}
}
