package commit

import (
	"context"
	"errors"
	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"strings"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/ghclient"
	"github.com/ghcommitter/ghcommitter/internal/testseam"
	"github.com/google/go-github/v66/github"
	"github.com/spf13/cobra"
)

// DefaultAPIURL is github.com's REST API root, used when nothing names
// another host.
const DefaultAPIURL = "https://api.github.com/"

// TokenHint says where a token comes from, for the hints of errors about
// one.
const TokenHint = "set GH_TOKEN or GITHUB_TOKEN, or pass --token-file"

// authFlags say where the API is and how to authenticate. A token is never
// taken from a flag value, so it never shows in process listings.
type authFlags struct {
	apiURL         string
	tokenFile      string
	appID          int64
	appKeyFile     string
	installationID int64
}

func (a *authFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&a.apiURL, "api-url", "", "REST API root `URL` (default $GITHUB_API_URL, else "+DefaultAPIURL+")")
	fl.StringVar(&a.tokenFile, "token-file", "", "read the token from `FILE` (default: $GH_TOKEN, else $GITHUB_TOKEN)")
	fl.Int64Var(&a.appID, "app-id", 0, "authenticate as the GitHub App with this `ID` (with --app-key-file)")
	fl.StringVar(&a.appKeyFile, "app-key-file", "", "the GitHub App's private key, a PEM `FILE`")
	fl.Int64Var(&a.installationID, "installation-id", 0, "the App's installation `ID` (default: looked up from the repository)")
}

// LimitScaleEnv = F makes the client's own rate-limit windows (the write
// pacer's minute and hour, the wait after a bare secondary limit) F times
// shorter, as `ghcommitter fake-github --limits-scale F` does the fake's:
// benchmarks and black-box tests set both to the same F. Waits GitHub dictates
// (Retry-After, x-ratelimit-reset) are honoured as sent. Leave it unset
// against github.com.
const LimitScaleEnv = "GHCOMMITTER_LIMIT_SCALE"

// LimitStateDirEnv names the directory through which the ghcommitter
// processes of this machine share each token's rate-limit state (the
// write pacer's count and GitHub's Retry-After windows: see
// ghclient.RateLimits.StateDir). Unset, it is ghcommitter/limits in the user
// cache directory, except for an API on a loopback address (a test
// server), whose state stays in the process unless this names a
// directory; benchmarks set it, one directory per run.
const LimitStateDirEnv = "GHCOMMITTER_LIMIT_STATE_DIR"

// FakeClientEnv names this process to ghcommitter fake-github, which counts
// writes sent inside a retry-after told to the same client apart from
// those of other processes sharing the token (they cannot see each other's
// windows). It is sent as the X-Githubtest-Client header; benchmarks set
// it, one name per process.
const FakeClientEnv = "GHCOMMITTER_FAKE_CLIENT"

// authClient builds the API client. Missing or unusable credentials are usage
// errors: they are found before any request is sent.
func authClient(ctx context.Context, a *authFlags, e *cmdutil.Env, owner, name, apiURL string, logger *slog.Logger) (*http.Client, error) {
	opts, err := authOptions(ctx, a, e, owner, name, apiURL, logger)
	if err != nil {
		return nil, err
	}
	c, err := ghclient.NewHTTPClient(ctx, opts...)
	if err != nil {
		return nil, a.newError(owner, name, err)
	}
	return c, nil
}

// newError classifies a failure to build the client: with an App, New
// may have asked GitHub (the installation lookup); otherwise the options
// were refused before any request.
func (a *authFlags) newError(owner, name string, err error) error {
	if a.isApp() {
		return apiError("authenticate as GitHub App for", owner+"/"+name, err)
	}
	return cmdutil.UsageErrorf("", "%v", err)
}

func (a *authFlags) isApp() bool { return a.appID != 0 || a.appKeyFile != "" || a.installationID != 0 }

// authOptions gathers the client options from flags and environment. Missing
// or unusable credentials are usage errors, found before any request.
func authOptions(ctx context.Context, a *authFlags, e *cmdutil.Env, owner, name, apiURL string, logger *slog.Logger) ([]ghclient.Option, error) {
	opts := []ghclient.Option{ghclient.WithBaseURL(apiURL)}
	// The GraphQL engine's endpoint: $GITHUB_GRAPHQL_URL when set (GitHub
	// Actions sets it, on GitHub Enterprise Server too); otherwise it is
	// derived from the REST API URL.
	if u := e.Getenv("GITHUB_GRAPHQL_URL"); u != "" {
		opts = append(opts, ghclient.WithGraphQLURL(u))
	}
	if logger != nil {
		opts = append(opts, ghclient.WithLogger(logger)) // the committer's log too
	}
	if f, ok, err := limitScale(e); err != nil {
		return nil, err
	} else if ok {
		// A test seam (internal/testseam): the CLI's black-box tests and
		// the benchmark scale the client's windows as the fake's.
		opts = append(opts, ghclient.WithHTTPClient(testseam.Client(nil, testseam.Seams{LimitScale: f})))
	}
	// The processes of the machine share the token's rate-limit state
	// (the command's default; the library's keeps it in the process).
	opts = append(opts, ghclient.WithRateLimits(ghclient.RateLimits{MachineState: true, StateDir: strings.TrimSpace(e.Getenv(LimitStateDirEnv))}))
	if v := strings.TrimSpace(e.Getenv(FakeClientEnv)); v != "" {
		opts = append(opts, ghclient.WithHeader("X-Githubtest-Client", v))
	}
	auth, err := authOption(ctx, a, e, owner, name, apiURL, opts)
	if err != nil {
		return nil, err
	}
	return append(opts, auth), nil
}

// authOption is the credential option: an App's key, a token file, or
// the environment's token for apiURL (envToken).
func authOption(ctx context.Context, a *authFlags, e *cmdutil.Env, owner, name, apiURL string, opts []ghclient.Option) (ghclient.Option, error) {
	switch {
	case a.isApp():
		if a.appID <= 0 || a.appKeyFile == "" {
			return nil, cmdutil.UsageErrorf("pass both --app-id and --app-key-file (and optionally --installation-id)", "incomplete GitHub App credentials")
		}
		if a.tokenFile != "" {
			return nil, cmdutil.UsageErrorf("", "--token-file and --app-id both given: choose one way to authenticate")
		}
		key, err := os.ReadFile(a.appKeyFile)
		if err != nil {
			return nil, cmdutil.UsageErrorf("", "--app-key-file: %v", err)
		}
		// Check the options before New may look the installation up.
		app := ghclient.App{ID: a.appID, PrivateKey: key, InstallationID: a.installationID, Owner: owner, Repo: name}
		check := app
		check.InstallationID = 1
		if _, err := ghclient.NewHTTPClient(ctx, append(opts[:len(opts):len(opts)], ghclient.WithApp(check))...); err != nil {
			return nil, cmdutil.UsageErrorf("", "%v", err)
		}
		return ghclient.WithApp(app), nil
	case a.tokenFile != "":
		data, err := os.ReadFile(a.tokenFile)
		if err != nil {
			return nil, cmdutil.UsageErrorf(TokenHint, "--token-file: %v", err)
		}
		tok := strings.TrimSpace(string(data))
		if tok == "" {
			return nil, cmdutil.UsageErrorf(TokenHint, "--token-file %s is empty", a.tokenFile)
		}
		return ghclient.WithToken(tok), nil
	}
	tok := envToken(e, apiURL)
	if tok == "" {
		hint := TokenHint
		if IsEnterpriseAPI(apiURL) {
			hint = "set GH_ENTERPRISE_TOKEN (or GITHUB_ENTERPRISE_TOKEN, GH_TOKEN, GITHUB_TOKEN), or pass --token-file"
		}
		return nil, cmdutil.UsageErrorf(hint, "no GitHub token for %s", apiURL)
	}
	return ghclient.WithToken(tok), nil
}

// apiError describes a failed request the CLI made itself, with the same
// kinds and hints as the library's errors.
func apiError(op, repo string, err error) error {
	e := &committer.Error{Op: op, Repo: repo, Err: err}
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		switch er.Response.StatusCode {
		case http.StatusUnauthorized:
			e.Kind, e.Hint = committer.ErrUnauthorized, "the token is missing, expired or revoked: "+TokenHint+" with a valid token"
		case http.StatusForbidden:
			e.Kind, e.Hint = committer.ErrPermission, "the token needs the contents: write permission on this repository (repo scope for a classic token)"
		case http.StatusNotFound:
			e.Kind, e.Hint = committer.ErrNotFound, "check the repository name, and that the token can see it and has contents: write (GitHub answers 404 to tokens without access)"
		}
	}
	return e
}

// limitScale reads GHCOMMITTER_LIMIT_SCALE; ok is false when it is unset.
func limitScale(e *cmdutil.Env) (f float64, ok bool, err error) {
	v := strings.TrimSpace(e.Getenv(LimitScaleEnv))
	if v == "" {
		return 0, false, nil
	}
	f, err = strconv.ParseFloat(v, 64)
	if err != nil || !(f > 0 && f <= 1e6) {
		return 0, false, cmdutil.UsageErrorf("unset it to keep GitHub's own windows", "%s=%q: must be a number above 0 and at most 1e6 (how many times shorter the windows are)", LimitScaleEnv, v)
	}
	return f, true, nil
}
