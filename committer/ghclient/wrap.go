package ghclient

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/ghcommitter/ghcommitter/internal/testseam"
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
// A client whose transport is a testseam.Transport (the repository's own
// tests and benchmarks) gets its seams: see internal/testseam.
//
// A client that already carries these layers (from Wrap or NewHTTPClient)
// never gets them twice. It is returned as it is when baseURL is "" or
// names its own API and no opts are given; otherwise Wrap returns a copy
// of it rebuilt with opts added to the options it was made with (they
// win) and, when its base URL was the default (no WithBaseURL, no
// baseURL), for baseURL: its credentials then go to baseURL's host. A
// client made with an explicit base URL for another API is refused, as is
// a GitHub App client whose installation was looked up on another API.
func Wrap(hc *http.Client, baseURL string, opts ...Option) (*http.Client, error) {
	if hc == nil {
		return nil, errors.New("ghclient: Wrap: client is nil")
	}
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	if err := wrapOptions(o); err != nil {
		return nil, err
	}
	if l, ok := hc.Transport.(*layered); ok {
		return l.rewrap(hc, baseURL, opts)
	}
	rt, err := applySeams(o, hc.Transport)
	if err != nil {
		return nil, fmt.Errorf("ghclient: Wrap: %w", err)
	}
	if baseURL != "" {
		o.baseURL, o.baseURLSet = baseURL, true
	}
	base, upload, err := resolveBaseURL(o.baseURL)
	if err != nil {
		return nil, fmt.Errorf("ghclient: Wrap: %w", err)
	}
	if rt == nil {
		rt = http.DefaultTransport
	}
	saved := append([]Option(nil), opts...)
	return assemble(hc, o, base, upload, rt, wrapKey(base.Host, rt, o.credential), func(baseURL string, extra []Option) (*http.Client, error) {
		return Wrap(hc, baseURL, append(append([]Option(nil), saved...), extra...)...)
	}), nil
}

// wrapOptions refuses the options that are NewHTTPClient's only.
func wrapOptions(o *options) error {
	switch {
	case o.token != "" || o.app != nil:
		return errors.New("ghclient: Wrap: the client brings its own authentication; WithToken and WithApp are for NewHTTPClient")
	case o.httpClient != nil:
		return errors.New("ghclient: Wrap: WithHTTPClient is for NewHTTPClient; Wrap takes the client as its argument")
	}
	return nil
}

// newClientOptions refuses NewHTTPClient's options that do not go
// together, and those that are Wrap's only.
func newClientOptions(o *options) error {
	switch {
	case o.token != "" && o.app != nil:
		return errors.New("ghclient: WithToken and WithApp both given: choose one way to authenticate")
	case o.credential != "":
		return errors.New("ghclient: WithCredential is for Wrap: NewHTTPClient knows the credential it authenticates with")
	}
	return nil
}

// rewrap is Wrap of a client that already has the layers (see Wrap).
func (l *layered) rewrap(hc *http.Client, baseURL string, opts []Option) (*http.Client, error) {
	target := l.base
	if baseURL != "" {
		b, _, err := resolveBaseURL(baseURL)
		if err != nil {
			return nil, fmt.Errorf("ghclient: Wrap: %w", err)
		}
		target = b
	}
	same := target.String() == l.base.String()
	if !same && l.explicitBase {
		return nil, fmt.Errorf("ghclient: Wrap: the client was made for the API at %s (WithBaseURL), not %s: give the base URL once, or the same one to both", l.base, target)
	}
	if same && len(opts) == 0 {
		return hc, nil
	}
	c, err := l.rebuild(target.String(), opts)
	if err != nil {
		return nil, err
	}
	c.Jar, c.Timeout = hc.Jar, hc.Timeout
	return c, nil
}

// NewHTTPClient returns an *http.Client that authenticates (WithToken,
// WithApp) and carries the same layers as Wrap, over the
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
	if err := newClientOptions(o); err != nil {
		return nil, err
	}
	if o.app != nil && o.app.installationID == 0 && o.owner == "" {
		return nil, fmt.Errorf("ghclient: WithApp: app %d: installation ID 0 needs the App's Owner and Repo to look the installation up", o.app.appID)
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
	rt, err := applySeams(o, hc.Transport)
	if err != nil {
		return nil, fmt.Errorf("ghclient: WithHTTPClient: %w", err)
	}
	switch {
	case rt == nil && hc.Transport != nil: // the seams' client had no transport
		rt = defaultTransport
	case rt == nil:
		rt = http.DefaultTransport
	}
	hosts := newAPIHosts(base, upload)
	api := apiRoot{basePath: base.Path}
	// Requests made by the auth layer itself (installation tokens, the
	// installation lookup) get their own retries and logging, and the same
	// host guard: ghinstallation signs whatever it carries.
	inner := userAgent(logging(guard(newRetryTransport(rt, o, api), hosts), o.logger, api), o.userAgent)
	auth, cred, installation, err := authTransport(ctx, o, rt, inner, base)
	if err != nil {
		return nil, err
	}
	saved := append([]Option(nil), opts...)
	return assemble(hc, o, base, upload, auth, fixedKey(base.Host, cred), func(baseURL string, extra []Option) (*http.Client, error) {
		all := append(append(append([]Option(nil), saved...), extra...), WithBaseURL(baseURL))
		if installation != 0 {
			// Looked up on the API at base: valid there only.
			if rb, _, _ := resolveBaseURL(baseURL); rb.String() != base.String() {
				return nil, fmt.Errorf("ghclient: Wrap: the client authenticates as GitHub App %d through installation %d, looked up on %s: make it with WithBaseURL(%q) instead", o.app.appID, installation, base, baseURL)
			}
			all = append(all, withInstallationID(installation))
		}
		return NewHTTPClient(context.Background(), all...) // nothing to look up: ctx is unused
	}), nil
}

// layered is the transport of a client from Wrap or NewHTTPClient.
type layered struct {
	rt           http.RoundTripper
	o            *options
	base         *url.URL // the REST API root
	explicitBase bool     // base came from WithBaseURL or Wrap's baseURL
	// rebuild makes the same client for another base URL, with extra
	// options added (see Wrap).
	rebuild func(baseURL string, extra []Option) (*http.Client, error)
	key     keyer // the credential a request is sent with
}

func (l *layered) RoundTrip(req *http.Request) (*http.Response, error) { return l.rt.RoundTrip(req) }

// assemble builds the client: from the outside in, host guard → user agent
// → logging → ETag cache → per-repository limit → retry → rate-limit gate
// and write pacer → next (auth, then the base transport).
func assemble(hc *http.Client, o *options, base, upload *url.URL, next http.RoundTripper, key keyer,
	rebuild func(string, []Option) (*http.Client, error)) *http.Client {
	hosts := newAPIHosts(base, upload)
	api := apiRoot{basePath: base.Path}
	var rt http.RoundTripper = &limitLayer{next: next, o: o, api: api, key: key, machine: o.machineDir(base)}
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
	c.Transport = &layered{rt: rt, o: o, base: base, explicitBase: o.baseURLSet, rebuild: rebuild, key: key}
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
// caller as it is (GitHub answers GET branches/{b} with 301 for a renamed
// branch, for one). The committer does not use it: for a branch head read
// it refuses only a redirect to another branch, with a CheckRedirect of
// its own, and lets this package's policy follow the others.
func NoRedirect(ctx context.Context) context.Context {
	return context.WithValue(ctx, noRedirectKey{}, true)
}

func noRedirect(ctx context.Context) bool {
	v, _ := ctx.Value(noRedirectKey{}).(bool)
	return v
}

// Config describes a client that Wrap or NewHTTPClient made, for the
// layers above it (the committer reads its base URL, GraphQL endpoint,
// logger and rate-limit waits from here, so that they are set once, on
// the client).
type Config struct {
	// BaseURL is the REST API root requests go to, resolved as
	// WithBaseURL says ("https://api.github.com/", "https://HOST/api/v3/").
	BaseURL string
	// GraphQLURL is WithGraphQLURL's endpoint, or "" for the one derived
	// from BaseURL.
	GraphQLURL string
	// MaxRateLimitWait is RateLimits.MaxWait (0: never wait).
	MaxRateLimitWait time.Duration
	// SecondaryLimitWait is the wait after a secondary limit whose reply
	// names no Retry-After: RateLimits.SecondaryWait, scaled as the
	// client's own windows are.
	SecondaryLimitWait time.Duration
	// Logger is WithLogger's logger, or nil.
	Logger *slog.Logger
	// Credential names, as a hash (never the credential itself), the
	// credential the client's requests carry on its API host: clients of
	// NewHTTPClient with one token (or one App installation) have the same
	// Credential, as have clients Wrap made over oauth2 transports of that
	// token (or ghinstallation transports of that installation), over one
	// WithCredential name, or over one transport value. The
	// rate-limit gate and pacer are shared by it, and the committer
	// batches only commits of one Credential.
	Credential string
}

// ConfigOf returns the Config of a client from Wrap or NewHTTPClient; ok
// is false for any other client.
func ConfigOf(hc *http.Client) (c Config, ok bool) {
	if hc == nil {
		return Config{}, false
	}
	l, ok := hc.Transport.(*layered)
	if !ok {
		return Config{}, false
	}
	cred := l.key(&http.Request{Header: http.Header{}})
	return Config{BaseURL: l.base.String(), GraphQLURL: l.o.graphqlURL, MaxRateLimitWait: l.o.maxRateWait, SecondaryLimitWait: l.o.secondaryFloor(), Logger: l.o.logger, Credential: cred}, true
}

// applySeams applies the seams of a testseam.Transport rt to o and returns
// the transport beneath it; any other rt is returned as it is.
func applySeams(o *options, rt http.RoundTripper) (http.RoundTripper, error) {
	t, ok := rt.(*testseam.Transport)
	if !ok {
		return rt, nil
	}
	if _, ok := t.Next.(*layered); ok {
		return nil, errors.New("the test seams are on a client that already carries ghclient's layers: put them on its base client")
	}
	var opts []Option
	if s := t.Seams.Sleep; s != nil {
		opts = append(opts, withSleep(s))
	}
	if n := t.Seams.Now; n != nil {
		opts = append(opts, withNow(n))
	}
	if f := t.Seams.LimitScale; f != 0 {
		opts = append(opts, withLimitScale(f))
	}
	for _, opt := range opts {
		if err := opt(o); err != nil {
			return nil, err
		}
	}
	return t.Next, nil
}
