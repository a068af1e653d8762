package ghclient

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"
)

// Wrap returns an *http.Client that sends requests for the GitHub API at
// baseURL through hc's transport (keeping hc's Jar and Timeout) with this
// package's own layers on top: the redirect policy, a conditional-GET
// cache (If-None-Match), the per-repository concurrency limit, idempotent
// retries (WithMaxRetries(0) turns them off), the shared rate-limit gate
// and the write pacer, and debug logging (WithLogger). hc brings its own
// authentication; WithToken and WithApp are for NewHTTPClient.
//
// The redirect policy replaces hc's CheckRedirect: requests and redirects
// only ever go to the API's own host (and path), so credentials that hc's
// transport adds are never sent anywhere else (*ForeignHostError); a GET
// follows same-host redirects (a renamed or transferred repository), other
// methods only 307 and 308; under a context from NoRedirect nothing is
// followed.
//
// The gate and the pacer share their state with every client in the
// process that uses the same credential on the same host. Credentials
// added by hc's transport are invisible here, so clients Wrap returns for
// the same hc.Transport count as one credential (a request that already
// carries an Authorization header is counted by that header).
//
// A client that already carries these layers (from Wrap or NewHTTPClient)
// is returned as it is, so the layers never stack.
func Wrap(hc *http.Client, baseURL string, opts ...Option) (*http.Client, error) {
	if hc == nil {
		return nil, errors.New("ghclient: Wrap: client is nil")
	}
	if _, ok := hc.Transport.(*layered); ok {
		return hc, nil
	}
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	switch {
	case o.token != "" || o.app != nil:
		return nil, errors.New("ghclient: Wrap: the client brings its own authentication; WithToken and WithApp are for NewHTTPClient")
	case o.httpClient != nil:
		return nil, errors.New("ghclient: Wrap: WithHTTPClient is for NewHTTPClient; Wrap takes the client as its argument")
	}
	if baseURL != "" {
		o.baseURL = baseURL
	}
	base, upload, err := resolveBaseURL(o.baseURL)
	if err != nil {
		return nil, fmt.Errorf("ghclient: Wrap: %w", err)
	}
	rt := hc.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	return assemble(hc, o, base, upload, rt, wrapKey(base.Host, rt)), nil
}

// NewHTTPClient returns an *http.Client that authenticates (WithToken,
// WithApp, WithAppKeyFile) and carries the same layers as Wrap, over the
// transport of WithHTTPClient. The auth layer adds credentials only to
// requests for the API's own host; the rate-limit state is shared by every
// client of the process with the same credential on the same host. ctx is
// used only for the requests NewHTTPClient itself makes (the App
// installation lookup); it is not kept.
func NewHTTPClient(ctx context.Context, opts ...Option) (*http.Client, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	if o.token != "" && o.app != nil {
		return nil, errors.New("ghclient: WithToken and WithApp both given: choose one way to authenticate")
	}
	if o.app != nil && o.app.installationID == 0 && o.owner == "" {
		return nil, fmt.Errorf("ghclient: WithApp: app %d: installation ID 0 needs WithRepository to look the installation up", o.app.appID)
	}
	if o.userAgent == "" {
		o.userAgent = defaultUserAgent()
	}
	base, upload, err := resolveBaseURL(o.baseURL)
	if err != nil {
		return nil, fmt.Errorf("ghclient: %w", err)
	}
	hc := o.httpClient
	if hc == nil {
		hc = &http.Client{Transport: defaultTransport}
	}
	if _, ok := hc.Transport.(*layered); ok {
		return nil, errors.New("ghclient: WithHTTPClient: the client already carries ghclient's layers (from Wrap or NewHTTPClient); pass its base client instead")
	}
	rt := hc.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	hosts := newAPIHosts(base, upload)
	api := apiRoot{basePath: base.Path}
	// Requests made by the auth layer itself (installation tokens, the
	// installation lookup) get their own retries and logging, and the same
	// host guard: ghinstallation signs whatever it carries.
	inner := userAgent(logging(guard(newRetryTransport(rt, o, api), hosts), o.logger, api), o.userAgent)
	auth, cred, err := authTransport(ctx, o, rt, inner, base)
	if err != nil {
		return nil, err
	}
	return assemble(hc, o, base, upload, auth, fixedKey(base.Host, cred)), nil
}

// layered is the transport of a client from Wrap or NewHTTPClient.
type layered struct{ rt http.RoundTripper }

func (l *layered) RoundTrip(req *http.Request) (*http.Response, error) { return l.rt.RoundTrip(req) }

// assemble builds the client: from the outside in, host guard → user agent
// → logging → ETag cache → per-repository limit → retry → rate-limit gate
// and write pacer → next (auth, then the base transport).
func assemble(hc *http.Client, o *options, base, upload *url.URL, next http.RoundTripper, key keyer) *http.Client {
	hosts := newAPIHosts(base, upload)
	api := apiRoot{basePath: base.Path}
	var rt http.RoundTripper = &limitLayer{next: next, o: o, api: api, key: key}
	rt = newRetryTransport(rt, o, api)
	rt = newLimiter(rt, o.concurrency, api)
	rt = newETagCache(rt, key, o.etagEntries)
	rt = logging(rt, o.logger, api)
	if o.userAgent != "" {
		rt = userAgent(rt, o.userAgent)
	} else {
		rt = defaultUA(rt)
	}
	if len(o.header) > 0 {
		rt = withHeader(rt, o.header)
	}
	rt = guard(rt, hosts)
	c := *hc
	c.Transport = &layered{rt: rt}
	c.CheckRedirect = checkRedirect(hosts)
	return &c
}

// buildOptions applies opts to the defaults.
func buildOptions(opts []Option) (*options, error) {
	o := defaultOptions()
	for _, opt := range opts {
		if opt == nil {
			continue
		}
		if err := opt(o); err != nil {
			return nil, fmt.Errorf("ghclient: %w", err)
		}
	}
	return o, nil
}

// defaultTransport is the base transport of NewHTTPClient when no
// WithHTTPClient is given: http.DefaultTransport's settings (proxy from
// the environment, timeouts, HTTP/2) with more idle connections per host,
// shared so that clients share connections.
var defaultTransport = func() http.RoundTripper {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 32
	t.IdleConnTimeout = 90 * time.Second
	return t
}()

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
