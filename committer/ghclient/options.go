package ghclient

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
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
	// nowSet: WithNow replaced the clock, whose times other processes
	// cannot share.
	limitDir    string
	limitDirSet bool
	nowSet      bool
}

// machineDir is the directory of the machine's shared rate-limit state for
// the API at base, "" when the process keeps it alone: with a replaced
// clock, and by default for an API on a loopback address (a test server,
// whose ports and tokens the next run reuses) unless WithLimitStateDir
// named the directory.
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
		limitDir:      DefaultLimitStateDir(),
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

// WithApp authenticates as a GitHub App installation: the app signs a JWT
// with its private key (PEM, PKCS#1 or PKCS#8 RSA) and exchanges it for
// installation tokens, which are refreshed before they expire.
// installationID 0 means "look it up": New asks GET
// /repos/{owner}/{repo}/installation for the repository given by
// WithRepository. It cannot be combined with WithToken. The default is no
// authentication.
func WithApp(appID int64, privateKeyPEM []byte, installationID int64) Option {
	return func(o *options) error {
		if appID <= 0 {
			return fmt.Errorf("WithApp: app ID %d: must be positive", appID)
		}
		if installationID < 0 {
			return fmt.Errorf("WithApp: installation ID %d: must not be negative (0 looks it up)", installationID)
		}
		if _, err := parseRSAKey(privateKeyPEM); err != nil {
			return fmt.Errorf("WithApp: app %d: %w", appID, err)
		}
		o.app = &appAuth{appID: appID, key: append([]byte(nil), privateKeyPEM...), installationID: installationID}
		return nil
	}
}

// WithAppKeyFile is WithApp with the private key read from a PEM file (as
// downloaded from the app's settings page). The default is no
// authentication.
func WithAppKeyFile(appID int64, path string, installationID int64) Option {
	return func(o *options) error {
		pem, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("WithAppKeyFile: read private key: %w", err)
		}
		return WithApp(appID, pem, installationID)(o)
	}
}

// WithRepository names the repository the client works on. New needs it
// only to look up an App installation (WithApp with installation ID 0).
// The default is none.
func WithRepository(owner, repo string) Option {
	return func(o *options) error {
		if err := validName("owner", owner); err != nil {
			return fmt.Errorf("WithRepository: %w", err)
		}
		if err := validName("repository", repo); err != nil {
			return fmt.Errorf("WithRepository: %w", err)
		}
		o.owner, o.repo = owner, repo
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

// WithUserAgent sets the User-Agent header of every request (GitHub rejects
// requests without one). The default is "ghcommitter/" + Version.
func WithUserAgent(ua string) Option {
	return func(o *options) error {
		if strings.TrimSpace(ua) == "" {
			return errors.New("WithUserAgent: user agent is empty")
		}
		if strings.ContainsAny(ua, "\r\n") {
			return errors.New("WithUserAgent: user agent contains a line break")
		}
		o.userAgent = ua
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
// (committer.WithUploadParallelism, which this cap still bounds). The
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

// WithSleep replaces how the client waits (backoffs, Retry-After, rate
// limit resets): every wait goes through sleep, which must return early
// with an error when ctx is done. Tests use it to record waits without
// sleeping. The default waits on a timer or ctx.Done.
func WithSleep(sleep func(ctx context.Context, d time.Duration) error) Option {
	return func(o *options) error {
		if sleep == nil {
			return errors.New("WithSleep: sleep is nil")
		}
		o.sleep = sleep
		return nil
	}
}

// WithNow replaces the clock used to turn x-ratelimit-reset and
// Retry-After dates into waits. The default is time.Now.
func WithNow(now func() time.Time) Option {
	return func(o *options) error {
		if now == nil {
			return errors.New("WithNow: now is nil")
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

// WithHeader adds a header to every request the client sends to the API,
// such as the X-Githubtest-Client header by which the fake
// (committer/githubtest) tells processes sharing a token apart in its
// rate-limit accounting. Authorization, Cookie, Host and User-Agent are
// refused (use the auth options and WithUserAgent). The default is none.
func WithHeader(key, value string) Option {
	return func(o *options) error {
		k := http.CanonicalHeaderKey(strings.TrimSpace(key))
		switch {
		case k == "" || strings.ContainsAny(k, " \t\r\n:"):
			return fmt.Errorf("WithHeader: %q is not a header name", key)
		case strings.ContainsAny(value, "\r\n"):
			return fmt.Errorf("WithHeader(%s): value contains a line break", k)
		case k == "Authorization" || k == "Cookie" || k == "Host" || k == "User-Agent" || k == "Proxy-Authorization":
			return fmt.Errorf("WithHeader(%s): set through the auth options or WithUserAgent", k)
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

// WithLimitStateDir names the directory through which the processes of one
// machine share each credential's rate-limit state: the write pacer's
// count of recent writes and the windows GitHub told any of them to wait
// (see WithWritePacing). Separate processes that use one token then stay
// under GitHub's 80 writes a minute and 500 an hour together, and none
// writes inside a Retry-After another was told. The default is
// ghcommitter/limits in the user cache directory (DefaultLimitStateDir);
// "" keeps the state within the process. A missing directory is created
// with mode 0700; an existing one is used only when it belongs to the user
// and neither group nor others may write into it, and its files only when
// they are the user's regular files (never a symbolic link or a FIFO);
// else, and on systems other than Unix, the state stays within the
// process. It holds a small file per credential and its lock, named by a
// hash, replaced whole on each change (a process that cannot write leaves
// the others' state); only those files are ever removed, once unused for
// two hours. A client whose clock is replaced
// (WithNow), or whose credential is known only as its transport (Wrap of
// a client without an Authorization header: an App's installation
// transport), keeps its state within the process; so, unless this option
// names the directory, does a client of an API on a loopback address (a
// test server: its next run reuses ports and tokens, not the budget).
func WithLimitStateDir(dir string) Option {
	return func(o *options) error {
		if dir != "" && !filepath.IsAbs(dir) {
			abs, err := filepath.Abs(dir)
			if err != nil {
				return fmt.Errorf("WithLimitStateDir(%q): %w", dir, err)
			}
			dir = abs
		}
		o.limitDir, o.limitDirSet = dir, true
		return nil
	}
}
