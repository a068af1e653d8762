package ghclient

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/internal/ratelimit"
)

// Option configures Wrap, NewHTTPClient and New. Options validate their
// input: a bad value makes them fail before any request is sent.
type Option func(*options) error

type options struct {
	token         string
	app           *appAuth
	owner, repo   string
	baseURL       string
	baseURLSet    bool // by WithBaseURL (or Wrap's baseURL)
	graphqlURL    string
	userAgent     string
	header        http.Header
	logger        *slog.Logger
	maxRetries    int
	maxRateWait   time.Duration
	concurrency   int
	httpClient    *http.Client
	sleep         func(context.Context, time.Duration) error
	now           func() time.Time
	backoffMin    time.Duration
	backoffMax    time.Duration
	secondaryWait time.Duration // before scaling
	writesPerMin  int
	writeBurst    int
	writesPerHour int
	limitScale    float64
	etagEntries   int
	// limitDir holds the machine's shared rate-limit state (machine.go);
	// nowSet: a seam replaced the clock (testseam.Seams.Now), whose times
	// other processes cannot share.
	limitDir    string
	limitDirSet bool
	nowSet      bool
}

// machineDir is the directory of the machine's shared rate-limit state for
// the API at base, "" when the process keeps it alone: by default, with a
// replaced clock, and, with RateLimits.MachineState, for an API on a
// loopback address (a test server, whose ports and tokens the next run
// reuses) unless RateLimits.StateDir named the directory.
func (o *options) machineDir(base *url.URL) string {
	switch {
	case o.nowSet:
		return ""
	case o.limitDirSet:
		return o.limitDir
	case base == nil || isLoopback(base.Hostname()):
		return ""
	}
	return o.limitDir
}

type appAuth struct {
	appID          int64
	key            []byte // PEM
	installationID int64
}

func defaultOptions() *options {
	return &options{
		baseURL:       defaultBaseURL,
		maxRetries:    4,
		maxRateWait:   60 * time.Second,
		concurrency:   4,
		sleep:         sleepCtx,
		now:           time.Now,
		backoffMin:    200 * time.Millisecond,
		backoffMax:    10 * time.Second,
		secondaryWait: ratelimit.BareSecondaryWait,
		writesPerMin:  defaultWritesPerMinute,
		writeBurst:    defaultWriteBurst,
		writesPerHour: defaultWritesPerHour,
		limitScale:    1,
		etagEntries:   256,
	}
}

// sleepCtx waits for d or until ctx is done, whichever comes first.
func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// WithToken authenticates every request with a personal access token, an
// Actions GITHUB_TOKEN or an installation token, sent as a Bearer token
// through an oauth2.StaticTokenSource. It cannot be combined with WithApp.
// The default is no authentication (60 requests an hour on github.com).
func WithToken(token string) Option {
	return func(o *options) error {
		token = strings.TrimSpace(token)
		if token == "" {
			return errors.New("WithToken: token is empty")
		}
		if strings.ContainsAny(token, "\r\n ") {
			return errors.New("WithToken: token contains whitespace")
		}
		o.token = token
		return nil
	}
}

// App is a GitHub App installation to authenticate as (WithApp).
type App struct {
	// ID is the App's ID.
	ID int64
	// PrivateKey is the App's private key, PEM (PKCS#1 or PKCS#8 RSA).
	// KeyFile instead names a PEM file that holds it, as downloaded from
	// the App's settings page. Exactly one of the two must be given.
	PrivateKey []byte
	KeyFile    string
	// InstallationID is the installation to act as; 0 means "look it up":
	// NewHTTPClient asks GET /repos/{Owner}/{Repo}/installation.
	InstallationID int64
	// Owner and Repo name the repository whose installation is looked up
	// when InstallationID is 0; they are not used otherwise.
	Owner, Repo string
}

// WithApp authenticates as a GitHub App installation: the App signs a JWT
// with its private key and exchanges it for installation tokens, which
// are refreshed before they expire. It cannot be combined with WithToken.
// The default is no authentication.
func WithApp(app App) Option {
	return func(o *options) error {
		if app.ID <= 0 {
			return fmt.Errorf("WithApp: app ID %d: must be positive", app.ID)
		}
		if app.InstallationID < 0 {
			return fmt.Errorf("WithApp: installation ID %d: must not be negative (0 looks it up)", app.InstallationID)
		}
		key := app.PrivateKey
		switch {
		case app.KeyFile != "" && len(key) > 0:
			return fmt.Errorf("WithApp: app %d: give the private key or its file, not both", app.ID)
		case app.KeyFile != "":
			pem, err := os.ReadFile(app.KeyFile)
			if err != nil {
				return fmt.Errorf("WithApp: read private key: %w", err)
			}
			key = pem
		}
		if _, err := parseRSAKey(key); err != nil {
			return fmt.Errorf("WithApp: app %d: %w", app.ID, err)
		}
		if app.Owner != "" || app.Repo != "" {
			if err := validName("owner", app.Owner); err != nil {
				return fmt.Errorf("WithApp: %w", err)
			}
			if err := validName("repository", app.Repo); err != nil {
				return fmt.Errorf("WithApp: %w", err)
			}
		}
		o.app = &appAuth{appID: app.ID, key: append([]byte(nil), key...), installationID: app.InstallationID}
		o.owner, o.repo = app.Owner, app.Repo
		return nil
	}
}

func validName(what, s string) error {
	switch {
	case s == "":
		return fmt.Errorf("%s name is empty", what)
	case s == "." || s == "..":
		return fmt.Errorf("%s name %q is not allowed", what, s)
	case strings.ContainsAny(s, "/\\?#% \t\r\n"):
		return fmt.Errorf("%s name %q: must not contain '/', '\\', '?', '#', '%%' or spaces", what, s)
	}
	return nil
}

// WithBaseURL sets the REST API root. "https://api.github.com/" is
// github.com; a GitHub Enterprise Server may be given as "https://HOST/" or
// "https://HOST/api/v3/" (like go-github's WithEnterpriseURLs, "api/v3/" is
// appended unless the path already ends with it or the host is api.* or
// *.api.*, as on GHE.com). A URL whose host is a loopback address (a local
// fake or proxy, e.g. "http://127.0.0.1:8080/") is used as given. The
// default is "https://api.github.com/".
func WithBaseURL(url string) Option {
	return func(o *options) error {
		if _, _, err := resolveBaseURL(url); err != nil {
			return fmt.Errorf("WithBaseURL: %w", err)
		}
		o.baseURL, o.baseURLSet = url, true
		return nil
	}
}

// WithGraphQLURL sets the GraphQL endpoint that the layers above the
// client (the committer's graphql engine, and the settling of its
// one-write engines) send their queries to, as GITHUB_GRAPHQL_URL does in
// GitHub Actions; ConfigOf reports it. Its host must be the API's own (the
// host guard refuses any other). The default is derived from the base
// URL: https://api.github.com/graphql, or https://HOST/api/graphql for
// GitHub Enterprise Server.
func WithGraphQLURL(u string) Option {
	return func(o *options) error {
		p, err := url.Parse(u)
		if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return fmt.Errorf("WithGraphQLURL: %q: must be an absolute http(s) URL", u)
		}
		o.graphqlURL = u
		return nil
	}
}

// WithLogger logs each request and each retry decision at debug level:
// method, path (with owner and repository, without the query), status,
// attempt and wait. Headers, bodies and tokens are never logged. The
// default is no logging.
func WithLogger(l *slog.Logger) Option {
	return func(o *options) error {
		if l == nil {
			return errors.New("WithLogger: logger is nil")
		}
		o.logger = l
		return nil
	}
}

// WithMaxRetries sets how many times the transport retries one retryable
// request (so n+1 attempts at most); 0 turns transport retries off. The
// default is 4.
func WithMaxRetries(n int) Option {
	return func(o *options) error {
		if n < 0 || n > 100 {
			return fmt.Errorf("WithMaxRetries: %d: must be between 0 and 100", n)
		}
		o.maxRetries = n
		return nil
	}
}

// WithConcurrency sets the most requests in flight at once for one
// repository (requests under /repos/{owner}/{repo}/, case-insensitive); a
// request holds its slot until its response body is closed or read to the
// end, and during transport retries. Requests outside /repos/ are not
// limited. GitHub asks clients to avoid concurrent writes; its secondary
// limits start at 100 concurrent requests. It is the cap every request
// of the client shares, not the parallelism of one commit's uploads
// (committer.WithUploads, which this cap still bounds). The
// default is 4.
func WithConcurrency(n int) Option {
	return func(o *options) error {
		if n < 1 || n > 100 {
			return fmt.Errorf("WithConcurrency: %d: must be between 1 and 100", n)
		}
		o.concurrency = n
		return nil
	}
}

// WithHTTPClient sets the client whose Transport carries the requests after
// the GitHub layers, for New and NewHTTPClient (its Timeout and Jar are
// kept; its CheckRedirect is replaced by this package's redirect policy; a
// nil Transport means http.DefaultTransport). Wrap takes the client as its
// argument instead. The default is a client over a clone of
// http.DefaultTransport that keeps more idle connections per host.
func WithHTTPClient(c *http.Client) Option {
	return func(o *options) error {
		if c == nil {
			return errors.New("WithHTTPClient: client is nil")
		}
		o.httpClient = c
		return nil
	}
}

// withSleep replaces how the client waits (testseam.Seams.Sleep).
func withSleep(sleep func(ctx context.Context, d time.Duration) error) Option {
	return func(o *options) error {
		if sleep == nil {
			return errors.New("sleep is nil")
		}
		o.sleep = sleep
		return nil
	}
}

// withNow replaces the clock (testseam.Seams.Now).
func withNow(now func() time.Time) Option {
	return func(o *options) error {
		if now == nil {
			return errors.New("now is nil")
		}
		o.now, o.nowSet = now, true
		return nil
	}
}

// WithETagCache sets how many GET replies the client remembers to make
// conditional requests (If-None-Match): a 304 reply is served from the
// cache and costs no primary rate limit. Bodies over 1 MiB are not kept.
// 0 turns the cache off. The default is 256.
func WithETagCache(entries int) Option {
	return func(o *options) error {
		if entries < 0 || entries > 100000 {
			return fmt.Errorf("WithETagCache: %d: must be between 0 and 100000", entries)
		}
		o.etagEntries = entries
		return nil
	}
}

// WithHeader sets a header on every request the client sends to the API,
// such as the X-Githubtest-Client header by which the fake
// (committer/githubtest) tells processes sharing a token apart in its
// rate-limit accounting. User-Agent replaces the default,
// "ghcommitter/" + Version (GitHub rejects requests without one, so its
// value must not be empty), also on the requests of the App
// authentication and in go-github's client from New. Authorization,
// Cookie, Host and Proxy-Authorization are refused (use the auth
// options). The default is none.
func WithHeader(key, value string) Option {
	return func(o *options) error {
		k := http.CanonicalHeaderKey(strings.TrimSpace(key))
		switch {
		case k == "" || strings.ContainsAny(k, " \t\r\n:"):
			return fmt.Errorf("WithHeader: %q is not a header name", key)
		case strings.ContainsAny(value, "\r\n"):
			return fmt.Errorf("WithHeader(%s): value contains a line break", k)
		case k == "Authorization" || k == "Cookie" || k == "Host" || k == "Proxy-Authorization":
			return fmt.Errorf("WithHeader(%s): set through the auth options", k)
		case k == "User-Agent":
			if strings.TrimSpace(value) == "" {
				return errors.New("WithHeader(User-Agent): user agent is empty")
			}
			o.userAgent = value
			return nil
		}
		if o.header == nil {
			o.header = http.Header{}
		}
		o.header.Set(k, value)
		return nil
	}
}

// withInstallationID is the installation NewHTTPClient looked up, for a
// client Wrap rebuilds.
func withInstallationID(id int64) Option {
	return func(o *options) error {
		if o.app != nil {
			o.app.installationID = id
		}
		return nil
	}
}
