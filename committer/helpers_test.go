package committer_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-github/v66/github"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/ghclient"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
	"github.com/ghcommitter/ghcommitter/internal/testseam"
)

const (
	owner = "acme"
	repo  = "mono"
)

func noSleep(ctx context.Context, _ time.Duration) error { return ctx.Err() }

// setup starts a fake GitHub with acme/mono (initial commit on main) and a
// Committer that does not sleep between attempts.
func setup(t *testing.T, opts ...committer.Option) (*githubtest.TestServer, *committer.Committer) {
	t.Helper()
	return setupClient(t, nil, opts...)
}

// setupClient is setup with copts added to the HTTP client's options.
func setupClient(t *testing.T, copts []ghclient.Option, opts ...committer.Option) (*githubtest.TestServer, *committer.Committer) {
	t.Helper()
	ts := githubtest.NewServer(t)
	if err := ts.CreateRepo(owner, repo, true); err != nil {
		t.Fatal(err)
	}
	ts.Pass(time.Minute) // created a minute ago: not a busy branch (see seed)
	opts = append([]committer.Option{committer.WithBackoffSleep(noSleep)}, opts...)
	c, err := newWithClient(ts.Client, owner, repo, copts, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return ts, c
}

// setupREST is setup with branches moved by REST's fast-forward update
// (WithFastForwardRefUpdates): the path where GitHub has no updateRefs.
func setupREST(t *testing.T, opts ...committer.Option) (*githubtest.TestServer, *committer.Committer) {
	t.Helper()
	return setup(t, append(opts, committer.WithFastForwardRefUpdates())...)
}

// restFor moves git-data's branches by REST fast-forward, for tables whose
// git-data rows are REST PATCH answers (updateRefs' are in refswap_test.go).
func restFor(e committer.Engine) committer.Option {
	if e == committer.EngineGitData {
		return committer.WithFastForwardRefUpdates()
	}
	return nil
}

// newWith returns a Committer whose requests go through gh's HTTP client to
// gh's base URL. A client without ghclient's layers gets them here with
// write pacing off and waits skipped (tests against a fake); New keeps a
// client that has them as it is.
func newWith(gh *github.Client, o, r string, opts ...committer.Option) (*committer.Committer, error) {
	return newWithClient(gh, o, r, nil, opts...)
}

// newWithClient is newWith with copts added to the HTTP client's options.
func newWithClient(gh *github.Client, o, r string, copts []ghclient.Option, opts ...committer.Option) (*committer.Committer, error) {
	copts = append([]ghclient.Option{pacingOff}, copts...)
	hc := gh.Client()
	if _, layered := ghclient.ConfigOf(hc); !layered {
		hc = fast(hc) // a client from ghclient brings its own seams
	}
	hc, err := ghclient.Wrap(hc, gh.BaseURL.String(), copts...)
	if err != nil {
		return nil, err
	}
	return committer.New(o, r, append([]committer.Option{committer.WithHTTPClient(hc)}, opts...)...)
}

// pacingOff turns the client's write pacing off (tests against a fake
// without limits).
var pacingOff = ghclient.WithRateLimits(ghclient.RateLimits{Pacing: &ghclient.Pacing{}})

// fast returns hc with the waits of the ghclient layers put over it
// skipped (noSleep).
func fast(hc *http.Client) *http.Client { return seamed(hc, testseam.Seams{Sleep: noSleep}) }

// seamed returns hc carrying s to the ghclient layers put over it.
func seamed(hc *http.Client, s testseam.Seams) *http.Client { return testseam.Client(hc, s) }

func head(t *testing.T, ts *githubtest.TestServer, branch string) string {
	t.Helper()
	sha, ok := ts.Head(owner, repo, branch)
	if !ok {
		t.Fatalf("branch %s does not exist", branch)
	}
	return sha
}

func readFile(t *testing.T, ts *githubtest.TestServer, ref, path string) string {
	t.Helper()
	b, _, err := ts.ReadFile(owner, repo, ref, path)
	if err != nil {
		t.Fatalf("read %s at %s: %v", path, ref, err)
	}
	return string(b)
}

func seed(t *testing.T, ts *githubtest.TestServer, files map[string]string) string {
	t.Helper()
	var fs []githubtest.File
	for p, c := range files {
		fs = append(fs, githubtest.File{Path: p, Content: []byte(c)})
	}
	sha, err := ts.Seed(owner, repo, "main", "seed", fs...)
	if err != nil {
		t.Fatal(err)
	}
	// Seeded a minute ago: a branch nobody just committed to (see
	// loop.BusyHead), unless a test commits to it again meanwhile.
	ts.Pass(time.Minute)
	return sha
}

// checkFastForwardOnly fails if any ref of acme/mono ever moved other than
// by fast-forward (creates and deletes aside).
func checkFastForwardOnly(t *testing.T, ts *githubtest.TestServer) {
	t.Helper()
	for _, u := range ts.RefUpdates(owner, repo) {
		if u.Old != "" && u.New != "" && (u.Forced || !u.FastForward) {
			t.Errorf("ref %s moved %s -> %s without fast-forward (forced=%v)", u.Ref, u.Old, u.New, u.Forced)
		}
	}
}

// writes counts the write requests in the fake's log.
func writes(ts *githubtest.TestServer) int {
	return ts.CountWrites() // REST writes and GraphQL mutations, not GraphQL queries
}

// lookups counts the GraphQL queries (path lookups, settle reads) the fake
// logged; mutations the GraphQL writes (updateRefs, createCommitOnBranch):
// both go to POST /graphql.
func lookups(ts *githubtest.TestServer) int { return countGraphQL(ts, false) }
func mutations(ts *githubtest.TestServer) int {
	return countGraphQL(ts, true)
}

func countGraphQL(ts *githubtest.TestServer, write bool) int {
	n := 0
	for _, r := range ts.Requests() {
		if r.Route == githubtest.RouteGraphQL && r.Write == write {
			n++
		}
	}
	return n
}
