package committer_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/ghclient"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
	"github.com/ghcommitter/ghcommitter/internal/testseam"
)

const composeToken = "ghp_composeToken0123456789"

func composeFake(t *testing.T) *githubtest.TestServer {
	t.Helper()
	ts := githubtest.NewServer(t, githubtest.WithToken(composeToken))
	if err := ts.CreateRepo(owner, repo, true); err != nil {
		t.Fatal(err)
	}
	return ts
}

// TestReadmeLibraryExample: the README's example — a client from
// ghclient.NewHTTPClient with a token and the API's base URL (a GHES host;
// here the fake) — commits; so does a plain client wrapped for the API,
// and the committer sends nothing anywhere else.
func TestReadmeLibraryExample(t *testing.T) {
	ctx := context.Background()
	ts := composeFake(t)
	fromNew, err := ghclient.NewHTTPClient(ctx, ghclient.WithToken(composeToken), ghclient.WithBaseURL(ts.URL))
	if err != nil {
		t.Fatal(err)
	}
	wrapped, err := ghclient.Wrap(&http.Client{Transport: &tokenTransport{composeToken}}, ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	for name, hc := range map[string]*http.Client{"NewHTTPClient": fromNew, "Wrap": wrapped} {
		t.Run(name, func(t *testing.T) {
			c, err := committer.New(owner, repo, committer.WithHTTPClient(hc))
			if err != nil {
				t.Fatal(err)
			}
			res, err := c.Commit(ctx, "main", committer.NewChangeSet("Promote api to v1.4.2").
				Put("deploy/prod/api/values.yaml", []byte("image:\n  tag: v1.4.2\n")))
			if err != nil {
				t.Fatal(err)
			}
			if head(t, ts, "main") != res.Commit {
				t.Fatalf("reported %s, head is %s", res.Commit, head(t, ts, "main"))
			}
		})
	}
}

// tokenTransport adds a bearer token, as a caller's own auth transport
// does.
type tokenTransport struct{ token string }

func (tt *tokenTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	r.Header.Set("Authorization", "Bearer "+tt.token)
	return http.DefaultTransport.RoundTrip(r)
}

// TestTheClientsLoggerLogsTheCommit: the client's logger
// (ghclient.WithLogger) gets the committer's debug lines and the HTTP
// layer's request lines, for a client from NewHTTPClient and for a plain
// one wrapped by Wrap, and never the token.
func TestTheClientsLoggerLogsTheCommit(t *testing.T) {
	ctx := context.Background()
	ts := composeFake(t)
	for _, name := range []string{"ghclient", "wrapped"} {
		t.Run(name, func(t *testing.T) {
			var buf lockedBuffer
			l := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
			var hc *http.Client
			var err error
			if name == "ghclient" {
				hc, err = ghclient.NewHTTPClient(ctx, ghclient.WithToken(composeToken), ghclient.WithBaseURL(ts.URL), pacingOff, ghclient.WithLogger(l))
			} else {
				hc, err = ghclient.Wrap(ts.Client.Client(), ts.URL, pacingOff, ghclient.WithLogger(l))
			}
			if err != nil {
				t.Fatal(err)
			}
			// Every file a blob: the committer logs each upload.
			c := mustNew(t, committer.WithHTTPClient(hc), committer.WithUploads(committer.Uploads{InlineLimit: -1}))
			if _, err := c.Commit(ctx, "main", committer.NewChangeSet("m").Put(name+".txt", []byte("x\n"))); err != nil {
				t.Fatal(err)
			}
			out := buf.String()
			if !strings.Contains(out, "github request") || !strings.Contains(out, "route=/repos/acme/mono/git/trees") {
				t.Fatalf("no request lines in the client's log:\n%s", out)
			}
			if !strings.Contains(out, "upload blob") {
				t.Fatalf("no committer lines in the client's log:\n%s", out)
			}
			if strings.Contains(out, composeToken) {
				t.Fatal("the log holds the token")
			}
		})
	}
}

func mustNew(t *testing.T, opts ...committer.Option) *committer.Committer {
	t.Helper()
	c, err := committer.New(owner, repo, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestBareSecondaryWaitIsTheClients: the commit loop's wait after a bare
// secondary limit is the one set on the client (the limit scale seam, or
// RateLimits.SecondaryWait), not a second setting of the committer.
func TestBareSecondaryWaitIsTheClients(t *testing.T) {
	for _, tc := range []struct {
		name  string
		scale float64
		opt   ghclient.Option
		want  time.Duration
	}{
		{"default", 0, nil, time.Minute},
		{"scale 600", 600, nil, 100 * time.Millisecond},
		{"SecondaryWait", 0, ghclient.WithRateLimits(ghclient.RateLimits{SecondaryWait: 3 * time.Second}), 3 * time.Second},
	} {
		ts := composeFake(t)
		hc, err := ghclient.NewHTTPClient(context.Background(), ghclient.WithToken(composeToken), ghclient.WithBaseURL(ts.URL),
			pacingOff, ghclient.WithHTTPClient(seamed(nil, testseam.Seams{Sleep: noSleep, LimitScale: tc.scale})), tc.opt)
		if err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		var waits []time.Duration
		c, err := committer.New(owner, repo, committer.WithFastForwardRefUpdates(), committer.WithHTTPClient(hc), committer.WithObserver(func(e committer.Event) {
			if e.Kind == committer.EventRateLimitWait {
				mu.Lock()
				waits = append(waits, e.Wait)
				mu.Unlock()
			}
		}), committer.WithBackoffSleep(noSleep))
		if err != nil {
			t.Fatal(err)
		}
		ts.TooManyRequests(rtUpdateRef, 0, 1)
		if _, err := c.Commit(context.Background(), "main", committer.NewChangeSet("w").Put("w.txt", []byte("w\n"))); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		// The first is the commit loop's wait; then (sleeps are skipped,
		// so the window is still open) the gate holds the next attempt's
		// requests back for what is left of the same window.
		if len(waits) == 0 || waits[0] != tc.want {
			t.Errorf("%s: waits %v, want the first to be %v", tc.name, waits, tc.want)
		}
		for _, w := range waits[min(1, len(waits)):] {
			if w > tc.want {
				t.Errorf("%s: waits %v: the gate waited longer than the window", tc.name, waits)
			}
		}
		mu.Unlock()
	}
}

// TestCommittersShareTheClient: committers built on one GitHub App client
// use it as it is (one installation lookup, one token), and log to its
// logger.
func TestCommittersShareTheClient(t *testing.T) {
	ctx := context.Background()
	ts := composeFake(t)
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	const appID, installationID = 4242, 77
	ts.RegisterApp(appID, &key.PublicKey)
	ts.InstallApp(appID, installationID, owner, repo)
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	var buf lockedBuffer
	l := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	hc, err := ghclient.NewHTTPClient(ctx, ghclient.WithApp(ghclient.App{ID: appID, PrivateKey: keyPEM, Owner: owner, Repo: repo}),
		ghclient.WithBaseURL(ts.URL), ghclient.WithLogger(l))
	if err != nil {
		t.Fatal(err)
	}
	commit := func(c *committer.Committer, path string) {
		t.Helper()
		if _, err := c.Commit(ctx, "main", committer.NewChangeSet("m").Put(path, []byte("a\n"))); err != nil {
			t.Fatal(err)
		}
	}
	commit(mustNew(t, committer.WithHTTPClient(hc)), "a.txt")
	commit(mustNew(t, committer.WithHTTPClient(hc)), "b.txt")
	if n := ts.TokensIssued(installationID); n != 1 {
		t.Fatalf("%d installation tokens issued, want 1: the client was rebuilt", n)
	}
	if n := ts.Count("GET /repos/{owner}/{repo}/installation"); n != 1 {
		t.Fatalf("installation looked up %d times, want once", n)
	}
	if !strings.Contains(buf.String(), "github request") {
		t.Fatal("the client's logger has no request lines")
	}
}

// TestGraphQLURLIsTheClients: the GraphQL engine sends its mutation to
// the client's GraphQL endpoint (ghclient.WithGraphQLURL), not to the one
// derived from the base URL.
func TestGraphQLURLIsTheClients(t *testing.T) {
	ts := composeFake(t)
	mv := &movedGraphQL{next: ts.Client.Client().Transport}
	hc, err := ghclient.Wrap(fast(&http.Client{Transport: mv}), ts.URL, pacingOff, ghclient.WithGraphQLURL(ts.URL+"custom/graphql"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg, _ := ghclient.ConfigOf(hc); cfg.GraphQLURL != ts.URL+"custom/graphql" {
		t.Fatalf("ConfigOf: GraphQLURL %q", cfg.GraphQLURL)
	}
	c := mustNew(t, committer.WithHTTPClient(hc), committer.WithBackoffSleep(noSleep))
	res, err := c.Commit(context.Background(), "main", committer.NewChangeSet("m").Put("g.txt", []byte("g\n")), committer.WithEngine(committer.EngineGraphQL))
	if err != nil {
		t.Fatal(err)
	}
	if head(t, ts, "main") != res.Commit || mv.moved.Load() == 0 {
		t.Fatalf("landed %s (head %s); %d requests to the client's endpoint", res.Commit, head(t, ts, "main"), mv.moved.Load())
	}
}

// movedGraphQL serves the fake's GraphQL endpoint at /custom/graphql, and
// refuses it at /graphql.
type movedGraphQL struct {
	next  http.RoundTripper
	moved atomic.Int32
}

func (m *movedGraphQL) RoundTrip(req *http.Request) (*http.Response, error) {
	switch req.URL.Path {
	case "/graphql":
		return nil, errors.New("GraphQL request to the derived endpoint")
	case "/custom/graphql":
		m.moved.Add(1)
		r := req.Clone(req.Context())
		r.URL.Path = "/graphql"
		req = r
	}
	return m.next.RoundTrip(req)
}
