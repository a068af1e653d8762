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

	"github.com/ghcommitter/ghcommitter/committer/ghclient"
	"github.com/ghcommitter/ghcommitter/committer/internal/engine"
	"github.com/ghcommitter/ghcommitter/committer/internal/ghgraphql"
	"github.com/ghcommitter/ghcommitter/committer/internal/landing"
	"github.com/ghcommitter/ghcommitter/committer/internal/refs"
	"github.com/ghcommitter/ghcommitter/committer/internal/rest"
	"github.com/ghcommitter/ghcommitter/committer/internal/tree"
)

// Committer commits change sets to the branches of one GitHub repository
// through the Git Data API. It is safe for concurrent use; concurrent commits
// to one branch coordinate through GitHub's fast-forward-only ref update (see
// Commit). Immutable objects it has read or uploaded are cached across
// commits and attempts.
type Committer struct {
	rest  *rest.Client
	owner string
	repo  string
	o     options
	cache *tree.Cache       // immutable objects by SHA, and what trees hold at paths
	store *tree.GitHub      // the trees as the tree stage reads them (internal/tree)
	gql   *ghgraphql.Client // the GraphQL engine's client (see WithEngine), and path lookups
	cred  string            // the client's credential, as ghclient.Config names it
	api   string            // the REST API's base URL
	refs  *refs.Refs        // the branch's head, its moves and tags (internal/refs)
	// observing serializes the calls of the WithObserver function: events
	// come from every commit of the Committer and from the HTTP layer's
	// waits of parallel uploads.
	observing *sync.Mutex
}

// New returns a Committer for the repository owner/repo.
//
// Requests go through the *http.Client of WithHTTPClient (which carries the
// caller's authentication, proxy or tracing). New always has that client
// carry ghclient's layers, which add GitHub-aware retries of the idempotent
// requests, rate-limit waits and the redirect policy (credentials only
// ever go to the API's own host); the commit loop itself only settles the
// ref update, so the two never multiply. A client that already has those
// layers (ghclient.NewHTTPClient, ghclient.Wrap) is used as it is; any
// other is wrapped with ghclient.Wrap's defaults. The client alone owns
// the API's base URL and GraphQL endpoint, the logger (the committer logs
// each attempt, request step and wait at debug level to the client's
// ghclient.WithLogger) and the rate-limit handling (the wait after a bare
// secondary limit, the longest wait accepted: ghclient.WithRateLimits).
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
	// One client, configured once: its base URL, GraphQL endpoint, logger
	// and rate-limit waits are the committer's (ghclient.Wrap returns a
	// client that already has ghclient's layers as it is).
	wrapped, err := ghclient.Wrap(hc, "")
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
	o.graphqlURL = cfg.GraphQLURL
	if cfg.Logger != nil {
		o.logger = cfg.Logger
	}
	endpoint, err := ghgraphql.EndpointFor(base.String(), o.graphqlURL)
	if err != nil {
		return nil, fmt.Errorf("committer: %w", err)
	}
	gql := ghgraphql.New(wrapped, endpoint)
	rc := rest.New(wrapped, base, owner, repo)
	br := refs.New(rc, gql, refs.Config{Repo: owner + "/" + repo, Logger: o.logger, LandingGrace: o.landingGrace, FastForwardOnly: o.fastForwardOnly})
	cache := tree.NewCache()
	store := tree.NewGitHub(rc, gql, owner, repo, cache, o.logger, br.KnowRepositoryID)
	return &Committer{rest: rc, refs: br, owner: owner, repo: repo, o: o, cache: cache, store: store, gql: gql, cred: cfg.Credential, api: base.String(), observing: new(sync.Mutex)}, nil
}

// Repository returns "owner/name".
func (c *Committer) Repository() string { return c.owner + "/" + c.repo }

// DefaultBranch returns the repository's default branch, as GitHub reports
// it (GET /repos/{owner}/{repo}). See
// https://docs.github.com/rest/repos/repos#get-a-repository.
func (c *Committer) DefaultBranch(ctx context.Context) (string, error) {
	const op = "look up the default branch of"
	got, err := c.rest.Repository(ctx)
	if err != nil {
		return "", c.fail(op, "", nil, err)
	}
	c.refs.KnowRepositoryID(got.NodeID) // the strict ref update's (internal/refs)
	if got.DefaultBranch == "" {
		return "", c.fail(op, "", ErrNotFound, errors.New("the repository reports no default branch: name the branch to commit to"))
	}
	return got.DefaultBranch, nil
}

func (c *Committer) observe(e Event) {
	fn := c.o.observer
	if fn == nil {
		return
	}
	e.Repository = c.Repository()
	c.observing.Lock()
	defer c.observing.Unlock()
	fn(e)
}

// startLanding returns the context to send one landing write on (see
// internal/landing), with the Committer's grace period.
func (c *Committer) startLanding(ctx context.Context) *landing.Landing {
	return landing.Start(ctx, c.o.landingGrace)
}

// settleContext is the context of the reads that settle a landing write's
// outcome (landing.SettleContext).
func (c *Committer) settleContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return landing.SettleContext(ctx, c.o.landingGrace)
}

// engineEnv is what the engines' writes use of c (internal/engine).
func (c *Committer) engineEnv() *engine.Env {
	return &engine.Env{Owner: c.owner, Repo: c.repo, REST: c.rest, GQL: c.gql, Refs: c.refs, LandingGrace: c.o.landingGrace}
}

// resolveBaseURL turns the HTTP client's API URL (ghclient.ConfigOf) into
// go-github's base URL: https://api.github.com/ as it is; a GitHub Enterprise Server URL
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
