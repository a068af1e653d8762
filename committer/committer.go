package committer

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/google/go-github/v66/github"

	"github.com/ghcommitter/ghcommitter/committer/ghclient"
	"github.com/ghcommitter/ghcommitter/committer/internal/ghgraphql"
	"github.com/ghcommitter/ghcommitter/committer/internal/kind"
)

// Committer commits change sets to the branches of one GitHub repository
// through the Git Data API. It is safe for concurrent use; concurrent commits
// to one branch coordinate through GitHub's fast-forward-only ref update (see
// Commit). Immutable objects it has read or uploaded are cached across
// commits and attempts.
type Committer struct {
	client *github.Client
	owner  string
	repo   string
	o      options
	cache  *objectCache
	gql    *ghgraphql.Client // the GraphQL engine's client (see WithEngine), and path lookups
	cred   string            // the client's credential, as ghclient.Config names it
	swap   refSwap           // the strict ref update's state (refswap.go)
	// observing serializes the calls of the WithObserver function: events
	// come from every commit of the Committer and from the HTTP layer's
	// waits of parallel uploads.
	observing *sync.Mutex
	// noPathQueries is set once the GraphQL endpoint turned out not to be
	// there: path lookups read directories over REST (see view.prefetch).
	noPathQueries atomic.Bool
}

// New returns a Committer for the repository owner/repo.
//
// Requests go through the *http.Client of WithHTTPClient (which carries the
// caller's authentication, proxy or tracing) to the API at WithBaseURL. New
// always wraps that client with ghclient.Wrap, which adds GitHub-aware
// retries of the idempotent requests, rate-limit waits and the redirect
// policy (credentials only ever go to the API's own host); the commit loop
// itself only settles the ref update, so the two never multiply. A client
// that already has those layers (ghclient.NewHTTPClient, ghclient.Wrap)
// keeps them: made without its own base URL, it is rebuilt for
// WithBaseURL's; without WithBaseURL, its base URL is the committer's. The
// wait after a bare secondary limit is the client's
// (ghclient.WithSecondaryLimitWait, ghclient.WithLimitScale).
func New(owner, repo string, opts ...Option) (*Committer, error) {
	if err := ValidateRepo(owner, repo); err != nil {
		return nil, fmt.Errorf("committer: %w", err)
	}
	o := defaultOptions()
	for _, opt := range opts {
		if opt == nil {
			continue
		}
		if err := opt(&o); err != nil {
			return nil, fmt.Errorf("committer: %w", err)
		}
	}
	hc := o.httpClient
	if hc == nil {
		hc = &http.Client{}
	}
	// One client, configured once: the committer's WithBaseURL and
	// WithLogger reach the HTTP layers (ghclient.Wrap rebuilds a client
	// that already has them for a base URL it was not made for, unless it
	// names another one itself), and without WithBaseURL the client's own
	// base URL is used.
	var wopts []ghclient.Option
	if cfg, _ := ghclient.ConfigOf(hc); o.requestLog != nil && cfg.Logger != o.requestLog {
		wopts = append(wopts, ghclient.WithLogger(o.requestLog))
	}
	wrapped, err := ghclient.Wrap(hc, o.baseURL, wopts...)
	if err != nil {
		return nil, fmt.Errorf("committer: %w", err)
	}
	cfg, _ := ghclient.ConfigOf(wrapped)
	base, err := resolveBaseURL(cfg.BaseURL)
	if err != nil {
		return nil, fmt.Errorf("committer: %w", err)
	}
	o.secondaryFloor = cfg.SecondaryLimitWait
	o.maxLimitWait = cfg.MaxRateLimitWait
	client := github.NewClient(withBranchRedirectRefusal(wrapped))
	client.BaseURL = base
	up := *base
	client.UploadURL = &up
	endpoint, err := ghgraphql.EndpointFor(base.String(), o.graphqlURL)
	if err != nil {
		return nil, fmt.Errorf("committer: %w", err)
	}
	gql := ghgraphql.New(wrapped, endpoint)
	return &Committer{client: client, owner: owner, repo: repo, o: o, cache: newObjectCache(), gql: gql, cred: cfg.Credential, observing: new(sync.Mutex)}, nil
}

// withBranchRedirectRefusal returns a copy of hc that, for a branch head
// read (readHead, under branchRead), never follows a redirect to another
// branch: GitHub answers GET branches/{b} with 301 for a renamed branch and
// for master where there is none. A redirect that keeps the branch name
// (a renamed or transferred repository: /repositories/{id}/branches/{b})
// is left to hc's own policy, as is every other request.
func withBranchRedirectRefusal(hc *http.Client) *http.Client {
	cp := *hc
	prev := hc.CheckRedirect
	cp.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if b, ok := req.Context().Value(branchReadKey{}).(string); ok && redirectTarget(req.URL.String()) != b {
			return http.ErrUseLastResponse
		}
		if prev != nil {
			return prev(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	return &cp
}

type branchReadKey struct{}

// branchRead marks ctx as the read of branch's head (see
// withBranchRedirectRefusal).
func branchRead(ctx context.Context, branch string) context.Context {
	return context.WithValue(ctx, branchReadKey{}, branch)
}

// Repository returns "owner/name".
func (c *Committer) Repository() string { return c.owner + "/" + c.repo }

// DefaultBranch returns the repository's default branch, as GitHub reports
// it (GET /repos/{owner}/{repo}). See
// https://docs.github.com/rest/repos/repos#get-a-repository.
func (c *Committer) DefaultBranch(ctx context.Context) (string, error) {
	const op = "look up the default branch of"
	got, _, err := c.client.Repositories.Get(ctx, c.owner, c.repo)
	if err != nil {
		return "", c.fail(op, "", nil, err)
	}
	c.knowRepositoryID(got.GetNodeID()) // the strict ref update's (refswap.go)
	if got.GetDefaultBranch() == "" {
		return "", c.fail(op, "", ErrNotFound, errors.New("the repository reports no default branch: name the branch to commit to"))
	}
	return got.GetDefaultBranch(), nil
}

// Result describes a commit that landed, or a change set that needed none.
type Result struct {
	Repository string `json:"repository"`
	Branch     string `json:"branch"`
	Commit     string `json:"commit"` // the new head; the unchanged head for a no-op
	Parent     string `json:"parent"` // the head the commit was built on
	Tree       string `json:"tree"`
	Attempts   int    `json:"attempts"`
	// Changed lists the paths the commit wrote or deleted. Small puts are
	// written without reading the branch first (see Written), so a put of
	// content that was already there can be listed.
	Changed []string     `json:"changed"`
	Files   []FileChange `json:"-"`
	// NoOp is true when the branch already held the change set's content:
	// no commit was made and the branch did not move.
	NoOp bool `json:"noop"`
	// CreatedBranch is true when this commit created the branch.
	CreatedBranch bool `json:"created_branch,omitempty"`
	// Bootstrapped is true when the repository was empty: GitHub's Git Data
	// API refuses to work on a repository with no commit, so its first
	// commit was made through the contents API with one of the change set's
	// own plain files (exactly as asked), and the rest of the change set, if
	// any, followed in a second commit (Commit; its Parent is the first).
	Bootstrapped bool `json:"bootstrapped,omitempty"`
	// Engine names the engine that made the commit (git-data, graphql or
	// contents; see WithEngine): with EngineAuto, the one it picked.
	Engine string `json:"engine,omitempty"`
	// Tag is the tag (Tag) that now points at Commit, moved in the same
	// ref update as the branch where GitHub has updateRefs.
	Tag string `json:"tag,omitempty"`
	// PullRequest is set when a pull-request rule refused the commit and
	// WithPullRequestOnProtected committed it to Branch (a head branch)
	// with a pull request into the protected branch instead.
	PullRequest *ProtectedPullRequest `json:"pull_request,omitempty"`
}

func (c *Committer) fail(op, branch string, k, err error) *Error {
	e := &Error{Op: op, Repo: c.Repository(), Branch: branch, Kind: k, Err: err}
	var pe *kind.Cause
	if errors.As(err, &pe) {
		e.Path = pe.Path
		e.Err = pe.Err
		if e.Kind == nil {
			e.Kind = pe.Kind
		}
		e.Hint = pe.Hint
	}
	e.Status, e.Message, e.RequestID = apiDetails(err)
	ck, hint := classify(err)
	if e.Kind == nil {
		e.Kind = ck
	}
	if e.Hint == "" && (ck == nil || errors.Is(e.Kind, ck)) {
		e.Hint = hint
	}
	if errors.Is(e.Kind, ErrRateLimited) {
		e.RetryAfter = limitWait(err, c.o.secondaryFloor)
	}
	return e
}

// missingBranch is the error for a branch that does not exist (or whose
// name only redirects to another branch) when no base to create it from
// was given.
func (c *Committer) missingBranch(op, branch string, cause error) *Error {
	err := fmt.Errorf("branch %q does not exist", branch)
	if cause != nil {
		err = fmt.Errorf("branch %q does not exist: %w", branch, cause)
	}
	e := c.fail(op, branch, ErrNotFound, err)
	e.Hint = "create it from a base with CreateBranchFrom"
	return e
}

// resolveBaseURL turns the API URL of WithBaseURL into go-github's base
// URL: https://api.github.com/ as it is; a GitHub Enterprise Server URL
// with or without its /api/v3/ suffix; a loopback URL (a local fake) as it
// is.
func resolveBaseURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("base URL %q: %w", s, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("base URL %q: want http(s)://HOST/", s)
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("base URL %q: must not hold credentials, a query or a fragment", s)
	}
	u.RawPath = ""
	if len(u.Path) == 0 || u.Path[len(u.Path)-1] != '/' {
		u.Path += "/"
	}
	host := strings.ToLower(u.Hostname())
	if host == "api.github.com" || isLoopbackHost(host) || strings.HasSuffix(u.Path, "/api/v3/") ||
		strings.HasPrefix(host, "api.") || strings.Contains(host, ".api.") {
		return u, nil
	}
	u.Path += "api/v3/"
	return u, nil
}

func isLoopbackHost(host string) bool {
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
