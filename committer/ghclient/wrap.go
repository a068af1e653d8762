package ghclient

import (
	"context"
	"errors"
	"net/http"
)

// Wrap returns an *http.Client that sends requests for the GitHub API at
// baseURL through hc's transport (keeping hc's Jar and Timeout) with this
// package's own layers on top: the shared Retry-After gate, write pacing,
// idempotent retries and the redirect policy (credentials only ever go to
// the API's own host; same-host redirects of a renamed repository are
// followed; a request whose context comes from NoRedirect never follows
// one). A client that already carries these layers (from Wrap or
// NewHTTPClient) is returned as it is, so the layers never stack.
//
// STUB (integration contract): the first version returns hc unchanged.
func Wrap(hc *http.Client, baseURL string, opts ...Option) (*http.Client, error) {
	if hc == nil {
		return nil, errors.New("ghclient: Wrap: client is nil")
	}
	return hc, nil
}

// NewHTTPClient returns an *http.Client that authenticates (WithToken,
// WithApp, WithAppKeyFile) and carries the same layers as Wrap.
//
// STUB (integration contract): the first version builds a go-github client
// with New and returns its HTTP client.
func NewHTTPClient(ctx context.Context, opts ...Option) (*http.Client, error) {
	gh, err := New(ctx, opts...)
	if err != nil {
		return nil, err
	}
	return gh.Client(), nil
}

type noRedirectKey struct{}

// NoRedirect returns a context under which a request made through a
// wrapped client never follows a redirect: the 3xx reply is returned to the
// caller as it is. The commit loop reads branch heads this way, because
// GitHub answers GET branches/{b} with 301 for a renamed branch.
func NoRedirect(ctx context.Context) context.Context {
	return context.WithValue(ctx, noRedirectKey{}, true)
}

func noRedirect(ctx context.Context) bool {
	v, _ := ctx.Value(noRedirectKey{}).(bool)
	return v
}
