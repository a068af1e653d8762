// Package committer commits files to a GitHub repository through the REST
// Git Data API, without a local clone, and stays correct when many writers
// commit to the same branch at the same time.
//
// A commit is built on GitHub from content-addressed objects on top of the
// branch's current head, and the branch is moved by a compare-and-swap from
// that head (see Guarantees). When another writer moved the branch first,
// GitHub refuses the update; the Committer re-reads the head, rebuilds
// the commit on it — re-running edit functions on the fresh content — and
// tries again. Nothing is ever force-pushed, and nothing another writer
// committed is lost.
//
// # Cost
//
// One attempt of a commit of small text files costs five requests whatever
// the size of the repository and the width of its directories: read the
// head (GET branches/{b}, which also gives the head's tree), one GraphQL
// query that says what is at every changed path and every directory above
// it (a put must go neither through a file nor onto a directory), create
// the tree with the content inline and base_tree set to the head's tree,
// create the commit, update the ref. An edit reads its file's blob by SHA;
// a directory delete or a sync lists that directory. What the trees a
// Committer created hold is remembered, so a path it wrote needs no query;
// where GraphQL is unavailable the directories on the paths are read over
// REST (cached by SHA across attempts). Text goes inline however much of it
// there is, in create-tree requests of at most 1 MB of content and 200
// inline entries, each on the last, so writes grow with the bytes sent,
// not the files. Binary or large files are hashed locally and uploaded
// once as blobs, however many attempts the commit takes, streaming from
// disk.
//
// # Guarantees
//
//   - The branch only moves by fast-forward. Nothing is force-pushed.
//   - A change set either lands exactly once or is reported as not landed.
//     When the final ref update gets no answer, the ref is read back to tell.
//     A cancelled context does not cancel a landing write already sent:
//     its reply is waited for (WithLandingGrace), and the outcome is
//     "not landed" only when proven, else ErrUnknownOutcome.
//   - Nothing another writer committed is lost: every attempt builds on the
//     head it read.
//   - Nothing is visible on the branch before the final ref update, with
//     one exception: GitHub's Git Data API does not work on an empty
//     repository, so its first commit is made through the contents API and
//     holds one of the change set's own plain files, exactly as asked; the
//     rest follows in a second commit (Result.Bootstrapped). Preconditions
//     are checked, and edits run, against the empty tree before anything is
//     written; a change set with no plain file is ErrInvalid there. Should
//     the rest then fail (another writer got in between), the error says
//     that the first commit landed.
//
// GitHub's REST ref update checks only that the move is a fast-forward, not
// that the head is still the one read: if someone resets the branch
// backwards to an ancestor of that head, it still succeeds. So the branch
// is moved with GraphQL updateRefs and beforeOid = the head the commit was
// built on, a strict compare-and-swap; where GitHub has no updateRefs (or
// with WithFastForwardRefUpdates) the REST fast-forward is used, and
// ExpectHead is then checked when the head is read only.
//
// # Engines
//
// WithEngine chooses the API a commit goes through. EngineGitData (the
// default) is described above: three writes per attempt, and it carries
// everything. EngineGraphQL commits with one GraphQL createCommitOnBranch,
// pinned to the head read (plain files only, up to MaxGraphQLBytes, no
// chosen author). EngineContents writes one plain file through the contents
// API, guarded by its blob SHA. Both make commits GitHub signs (Verified for
// any token), and settle a lost reply by the commit's EditIDTrailer, which
// they always add: the change set's own, as the message's last line, even
// when the message already holds one (that one is never searched for). EngineAuto picks, per attempt, the engine with the fewest
// writes that carries the change set. An explicit engine that cannot carry
// a change set refuses it with ErrInvalid before any write. See
// docs/engines.md.
//
// # Errors
//
// Every error of a Committer's work (its methods, NewQueue and
// Queue.Commit; New and the Validate functions return plain errors) is an
// *Error naming the repository, branch and path, whose
// Kind matches one of ErrConflict, ErrInvalid, ErrNotFound, ErrUnauthorized,
// ErrPermission, ErrProtected, ErrRateLimited or ErrUnknownOutcome (or,
// for CommitPullRequest's wait for the merge, ErrMergeTimeout,
// ErrPullRequestClosed, ErrDequeued, ErrCheckFailed or
// ErrPullRequestStale) with errors.Is, and which carries GitHub's HTTP status, message and
// X-GitHub-Request-Id whenever a reply caused the failure (REST, GraphQL,
// a rate limit the transport gave up on, a refused redirect); an
// ErrRateLimited also carries the wait GitHub asked for (RetryAfter). Only
// the answers that mean another writer moved the branch are lost races
// (ErrConflict once attempts run out), on every engine. A change set is
// validated as a whole before any request: an invalid one sends nothing.
//
// # Clients
//
// New takes the caller's *http.Client (WithHTTPClient: any authentication,
// proxy or tracing, including the Client() of any go-github version), and
// always has it carry ghclient's layers: GitHub-aware retries of the
// idempotent requests, rate-limit waits and a redirect policy that sends
// credentials only to the API's own host. The commit loop itself only
// settles the ref update, so the two never multiply. The client alone owns
// the API's URL, the GraphQL endpoint, the logger and the rate-limit
// handling: ghclient.NewHTTPClient builds an authenticated client from a
// token or GitHub App credentials with them (ghclient.WithBaseURL for
// GitHub Enterprise Server, ghclient.WithLogger, ghclient.WithRateLimits),
// ghclient.Wrap puts them on a client of the caller's, and the committer
// takes them from the client (the wait after a bare secondary limit too).
// The githubtest subpackage is a stateful fake of GitHub for tests.
// WithObserver reports each attempt, lost race, rate-limit wait and
// landing, and the uploads' progress; the package logs nothing above debug
// level, to the client's logger (ghclient.WithLogger, which logs the HTTP
// requests too).
//
// # Internals
//
// How the package is built (its stages, the commit loop's invariants, and
// where each answer of GitHub is classified) is described for maintainers
// in docs/architecture.md in the repository.
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
	"github.com/ghcommitter/ghcommitter/committer/internal/lfs"
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
	hc    *http.Client      // the client, with ghclient's layers
	api   string            // the REST API's base URL
	refs  *refs.Refs        // the branch's head, its moves and tags (internal/refs)
	lfs   tree.LFS          // Git LFS storage; nil with Uploads.NoLFS
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
	c := &Committer{rest: rc, refs: br, owner: owner, repo: repo, o: o, cache: cache, store: store, gql: gql, cred: cfg.Credential, hc: wrapped, api: base.String(), observing: new(sync.Mutex)}
	if !o.noLFS {
		endpoint, err := lfs.Endpoint(base.String(), owner, repo)
		if err != nil {
			return nil, fmt.Errorf("committer: %w", err)
		}
		c.lfs = lfs.NewStore(wrapped, o.lfsTransport, endpoint)
	}
	return c, nil
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
