package ghclient

// Tests against the stateful fake GitHub (committer/githubtest).

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/githubtest"
	"github.com/google/go-github/v66/github"
)

const (
	fakeToken      = "ghp_fakeSecretToken0123456789"
	routeTrees     = "POST /repos/{owner}/{repo}/git/trees"
	routeBranch    = "GET /repos/{owner}/{repo}/branches/{branch...}"
	routeUpdateRef = "PATCH /repos/{owner}/{repo}/git/refs/{ref...}"
)

// fakeSetup starts the fake with one seeded repository o/r (branch main)
// and returns a ghclient for it whose waits go through clock, which is also
// the fake's clock.
func fakeSetup(t *testing.T, opts ...Option) (*githubtest.TestServer, *github.Client, *fakeClock) {
	t.Helper()
	clock := newFakeClock()
	clock.t = time.Now().Truncate(time.Second) // JWTs and token expiry use the real clock
	ts, gh := fakeOn(t, clock, nil, opts...)
	return ts, gh, clock
}

// fakeOn starts the fake (with serverOpts) on clock, holding o/r with one
// commit on main, and returns a client with opts on the same clock.
func fakeOn(t *testing.T, clock *fakeClock, serverOpts []githubtest.Option, opts ...Option) (*githubtest.TestServer, *github.Client) {
	t.Helper()
	ts := githubtest.NewServer(t, append([]githubtest.Option{githubtest.WithToken(fakeToken), githubtest.WithNow(clock.Now)}, serverOpts...)...)
	t.Cleanup(resetRegistry)
	if err := ts.CreateRepo("o", "r", false); err != nil {
		t.Fatal(err)
	}
	if _, err := ts.Seed("o", "r", "main", "seed", githubtest.File{Path: "README.md", Content: []byte("hi\n")}); err != nil {
		t.Fatal(err)
	}
	all := append([]Option{WithBaseURL(ts.URL), WithToken(fakeToken), withSleep(clock.Sleep), withNow(clock.Now)}, opts...)
	gh, err := New(context.Background(), all...)
	if err != nil {
		t.Fatal(err)
	}
	return ts, gh
}

// commitFile runs the commit loop once: branch → blob → tree → commit →
// ref update.
func commitFile(ctx context.Context, gh *github.Client, owner, repo, path, content string) error {
	br, _, err := gh.Repositories.GetBranch(ctx, owner, repo, "main", 0)
	if err != nil {
		return err
	}
	head := br.GetCommit().GetSHA()
	baseTree := br.GetCommit().GetCommit().GetTree().GetSHA()
	blob, _, err := gh.Git.CreateBlob(ctx, owner, repo, &github.Blob{Content: github.String(content), Encoding: github.String("utf-8")})
	if err != nil {
		return err
	}
	tree, _, err := gh.Git.CreateTree(ctx, owner, repo, baseTree, []*github.TreeEntry{
		{Path: github.String(path), Mode: github.String("100644"), Type: github.String("blob"), SHA: blob.SHA},
	})
	if err != nil {
		return err
	}
	c, _, err := gh.Git.CreateCommit(ctx, owner, repo, &github.Commit{
		Message: github.String("update " + path), Tree: tree, Parents: []*github.Commit{{SHA: github.String(head)}},
	}, nil)
	if err != nil {
		return err
	}
	_, _, err = gh.Git.UpdateRef(ctx, owner, repo, &github.Reference{Ref: github.String("heads/main"), Object: &github.GitObject{SHA: c.SHA}}, false)
	return err
}

func TestFakeCreateTreeRetriedOn502(t *testing.T) {
	ts, gh, clock := fakeSetup(t)
	ts.Inject(githubtest.Fault{Route: routeTrees, Times: 2, Status: http.StatusBadGateway})
	ctx := context.Background()
	br, _, err := gh.Repositories.GetBranch(ctx, "o", "r", "main", 0)
	if err != nil {
		t.Fatal(err)
	}
	tree, resp, err := gh.Git.CreateTree(ctx, "o", "r", br.GetCommit().GetCommit().GetTree().GetSHA(), []*github.TreeEntry{
		{Path: github.String("a.txt"), Mode: github.String("100644"), Type: github.String("blob"), Content: github.String("a\n")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusCreated || tree.GetSHA() == "" {
		t.Fatalf("status %d tree %q", resp.StatusCode, tree.GetSHA())
	}
	if n := ts.Count(routeTrees); n != 3 {
		t.Fatalf("trees POSTed %d times, want 3", n)
	}
	if len(clock.Sleeps()) != 2 {
		t.Fatalf("sleeps %v", clock.Sleeps())
	}
}

func TestFakeSecondaryRateLimit(t *testing.T) {
	for _, tc := range []struct {
		name   string
		inject func(ts *githubtest.TestServer) func()
	}{
		{"403", func(ts *githubtest.TestServer) func() { return ts.SecondaryRateLimit(routeBranch, 1, 1) }},
		{"429", func(ts *githubtest.TestServer) func() { return ts.TooManyRequests(routeBranch, 1, 1) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts, gh, clock := fakeSetup(t)
			tc.inject(ts)
			if _, _, err := gh.Repositories.GetBranch(context.Background(), "o", "r", "main", 0); err != nil {
				t.Fatal(err)
			}
			if s := clock.Sleeps(); len(s) != 1 || s[0] != time.Second {
				t.Fatalf("sleeps %v, want [1s]", s)
			}
			if n := ts.Count(routeBranch); n != 2 {
				t.Fatalf("requests %d, want 2", n)
			}
		})
	}
}

func TestFakePrimaryRateLimitWaitsForReset(t *testing.T) {
	ts, gh, clock := fakeSetup(t)
	ts.ExhaustRateLimit(clock.Now().Add(2 * time.Second))
	if err := commitFile(context.Background(), gh, "o", "r", "a.txt", "a\n"); err != nil {
		t.Fatal(err)
	}
	s := clock.Sleeps()
	if len(s) != 1 || s[0] < 2*time.Second || s[0] > 4*time.Second {
		t.Fatalf("sleeps %v, want one wait of about 2s", s)
	}
}

func TestFakePrimaryRateLimitTooFar(t *testing.T) {
	ts, gh, clock := fakeSetup(t)
	reset := clock.Now().Add(time.Hour)
	ts.ExhaustRateLimit(reset)
	_, _, err := gh.Repositories.GetBranch(context.Background(), "o", "r", "main", 0)
	var rle *RateLimitError
	if !errors.As(err, &rle) {
		t.Fatalf("err = %v, want *RateLimitError", err)
	}
	if rle.Reset.Before(reset) || rle.Reset.After(reset.Add(2*time.Second)) {
		t.Fatalf("Reset %v, want about %v", rle.Reset, reset)
	}
	if !strings.Contains(err.Error(), rle.Reset.UTC().Format(time.RFC3339)) {
		t.Fatalf("error does not say when: %v", err)
	}
	if len(clock.Sleeps()) != 0 || ts.Count(routeBranch) != 1 {
		t.Fatalf("sleeps %v requests %d", clock.Sleeps(), ts.Count(routeBranch))
	}
}

func TestFakeRefUpdateNeverRetried(t *testing.T) {
	ts, gh, clock := fakeSetup(t)
	ts.Inject(githubtest.Fault{Route: routeUpdateRef, Status: http.StatusBadGateway})
	err := commitFile(context.Background(), gh, "o", "r", "a.txt", "a\n")
	var er *github.ErrorResponse
	if !errors.As(err, &er) || er.Response.StatusCode != http.StatusBadGateway {
		t.Fatalf("err = %v, want *github.ErrorResponse 502", err)
	}
	if n := ts.Count(routeUpdateRef); n != 1 {
		t.Fatalf("PATCH git/refs sent %d times, want exactly 1", n)
	}
	if len(clock.Sleeps()) != 0 {
		t.Fatalf("slept %v", clock.Sleeps())
	}
}

func TestFakeDroppedRefUpdateNotResent(t *testing.T) {
	ts, gh, _ := fakeSetup(t)
	ts.Inject(githubtest.Fault{Route: routeUpdateRef, Times: 1, DropResponse: true})
	if err := commitFile(context.Background(), gh, "o", "r", "a.txt", "a\n"); err == nil {
		t.Fatal("lost response reported as success")
	}
	// The fake logs a dropped request after closing the connection, so the
	// entry can trail the client's error by a moment.
	for deadline := time.Now().Add(5 * time.Second); ts.Count(routeUpdateRef) == 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if n := ts.Count(routeUpdateRef); n != 1 {
		t.Fatalf("PATCH git/refs sent %d times, want exactly 1", n)
	}
}

func TestFakeRetriesExhausted(t *testing.T) {
	ts, gh, clock := fakeSetup(t)
	// (Not GetBranch: go-github v66 turns its non-200 replies into an
	// untyped "unexpected status code" error.)
	const routeGetRef = "GET /repos/{owner}/{repo}/git/ref/{ref...}"
	ts.Inject(githubtest.Fault{Route: routeGetRef, Status: http.StatusBadGateway})
	_, _, err := gh.Git.GetRef(context.Background(), "o", "r", "heads/main")
	var er *github.ErrorResponse
	if !errors.As(err, &er) || er.Response.StatusCode != http.StatusBadGateway {
		t.Fatalf("err = %v (%T), want *github.ErrorResponse 502", err, err)
	}
	if n := ts.Count(routeGetRef); n != 5 {
		t.Fatalf("requests %d, want 5 (1 + 4 retries)", n)
	}
	if len(clock.Sleeps()) != 4 {
		t.Fatalf("sleeps %v", clock.Sleeps())
	}
}

func TestFakeEnterpriseURLs(t *testing.T) {
	ts, _, _ := fakeSetup(t)
	addr := strings.TrimSuffix(strings.TrimPrefix(ts.URL, "http://"), "/")
	dialFake := &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, network, addr)
		},
	}}
	for _, base := range []string{ts.URL, ts.URL + "api/v3/", "http://ghe.example.com/", "http://ghe.example.com/api/v3"} {
		gh, err := New(context.Background(), WithBaseURL(base), WithToken(fakeToken), WithHTTPClient(dialFake))
		if err != nil {
			t.Fatal(err)
		}
		if err := commitFile(context.Background(), gh, "o", "r", "f.txt", base); err != nil {
			t.Fatalf("%s: %v", base, err)
		}
	}
	for _, r := range ts.Requests() {
		if r.Status >= 400 {
			t.Errorf("%s %s: %d", r.Method, r.Path, r.Status)
		}
	}
}

func TestFakeAppAuth(t *testing.T) {
	for _, tc := range []struct {
		name      string
		ttl       time.Duration
		installID int64
		refresh   bool
	}{
		// ghinstallation refreshes a token one minute before it expires,
		// so a 30s TTL forces a new token for every request.
		{"short ttl refreshes", 30 * time.Second, 34, true},
		{"long ttl reuses", time.Hour, 34, false},
		{"lookup installation", time.Hour, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := newFakeClock()
			clock.t = time.Now()
			ts := githubtest.NewServer(t, githubtest.WithInstallationTokenTTL(tc.ttl), githubtest.WithToken("not-the-app"))
			if err := ts.CreateRepo("o", "r", false); err != nil {
				t.Fatal(err)
			}
			if _, err := ts.Seed("o", "r", "main", "seed", githubtest.File{Path: "README.md", Content: []byte("hi\n")}); err != nil {
				t.Fatal(err)
			}
			ts.RegisterApp(12, &testKey().PublicKey)
			ts.InstallApp(12, 34, "o", "r")
			var buf syncBuffer
			logger := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
			gh, err := New(context.Background(), WithBaseURL(ts.URL), WithApp(App{ID: 12, PrivateKey: testKeyPEM(t), InstallationID: tc.installID, Owner: "o", Repo: "r"}),
				withSleep(clock.Sleep), WithLogger(logger))
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			for i := 0; i < 2; i++ {
				if err := commitFile(ctx, gh, "o", "r", "a.txt", strings.Repeat("x", i+1)); err != nil {
					t.Fatal(err)
				}
			}
			issued := ts.TokensIssued(34)
			if tc.refresh && issued != 10 {
				t.Fatalf("tokens issued %d, want one per request (10)", issued)
			}
			if !tc.refresh && issued != 1 {
				t.Fatalf("tokens issued %d, want 1", issued)
			}
			if tc.installID == 0 && ts.Count("GET /repos/{owner}/{repo}/installation") != 1 {
				t.Fatal("installation not looked up")
			}
			// The commits are the app's (the fake attributes the token).
			h, err := ts.History("o", "r", "main")
			if err != nil || len(h) != 3 {
				t.Fatalf("history %d commits, err %v", len(h), err)
			}
			for _, l := range buf.Lines() {
				if strings.Contains(l, "ghs_") || strings.Contains(l, "eyJ") || strings.Contains(l, "Bearer") {
					t.Errorf("log leaks a credential: %s", l)
				}
			}
		})
	}
}

func TestFakeLogsNeverContainToken(t *testing.T) {
	var buf syncBuffer
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	ts, gh, _ := fakeSetup(t, WithLogger(logger))
	ts.Inject(githubtest.Fault{Route: routeTrees, Times: 1, Status: http.StatusInternalServerError})
	ts.SecondaryRateLimit("POST /repos/{owner}/{repo}/git/blobs", 1, 1)
	ts.Inject(githubtest.Fault{Route: "POST /repos/{owner}/{repo}/git/commits", Times: 1, DropResponse: true})
	ctx := context.Background()
	if err := commitFile(ctx, gh, "o", "r", "a.txt", "a\n"); err != nil {
		t.Fatal(err)
	}
	ts.Inject(githubtest.Fault{Route: routeUpdateRef, Status: 422})
	_ = commitFile(ctx, gh, "o", "r", "a.txt", "b\n")
	_, _, _ = gh.Repositories.Get(ctx, "o", "missing")
	lines := buf.Lines()
	if len(lines) < 12 {
		t.Fatalf("only %d log lines", len(lines))
	}
	for _, l := range lines {
		if strings.Contains(l, fakeToken) || strings.Contains(l, "Bearer") || strings.Contains(strings.ToLower(l), "authorization") {
			t.Errorf("log line leaks the token: %s", l)
		}
		if !strings.Contains(l, "level=DEBUG") {
			t.Errorf("non-debug log line: %s", l)
		}
	}
}

// inFlight wraps a handler and records the most requests it served at once
// per repository.
type inFlight struct {
	next      http.Handler
	mu        sync.Mutex
	cur, peak map[string]int
}

func (f *inFlight) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	key := repoKey(strings.TrimPrefix(r.URL.Path, "/api/v3"))
	f.mu.Lock()
	f.cur[key]++
	f.peak[key] = max(f.peak[key], f.cur[key])
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		f.cur[key]--
		f.mu.Unlock()
	}()
	f.next.ServeHTTP(w, r)
}

func TestFakeConcurrencyLimit(t *testing.T) {
	const limit = 3
	fake := githubtest.New(githubtest.WithLatency(2 * time.Millisecond))
	for _, name := range []string{"a", "b"} {
		if err := fake.CreateRepo("o", name, false); err != nil {
			t.Fatal(err)
		}
		if _, err := fake.Seed("o", name, "main", "seed", githubtest.File{Path: "x", Content: []byte("x")}); err != nil {
			t.Fatal(err)
		}
	}
	f := &inFlight{next: fake, cur: map[string]int{}, peak: map[string]int{}}
	srv := httptest.NewServer(f)
	defer srv.Close()
	gh, err := New(context.Background(), WithBaseURL(srv.URL), WithConcurrency(limit))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := 0; i < 40; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			repo := []string{"a", "b"}[i%2]
			if _, _, err := gh.Repositories.GetBranch(context.Background(), "o", repo, "main", 0); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	f.mu.Lock()
	defer f.mu.Unlock()
	for repo, p := range f.peak {
		if p > limit {
			t.Errorf("%s: %d requests in flight, limit %d", repo, p, limit)
		}
	}
	if len(f.peak) != 2 {
		t.Errorf("peaks %v", f.peak)
	}
}
