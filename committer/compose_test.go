package committer_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/ghclient"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
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
// ghclient.NewHTTPClient with a token and nothing else, and one
// WithBaseURL on the committer (a GHES host; here the fake) — commits.
// So does the other way round: the base URL on the client only.
func TestReadmeLibraryExample(t *testing.T) {
	ctx := context.Background()
	ts := composeFake(t)
	for _, tc := range []struct {
		name       string
		client     []ghclient.Option
		committer  []committer.Option
		wantOnFake bool
	}{
		{"WithBaseURL on the committer", nil, []committer.Option{committer.WithBaseURL(ts.URL)}, true},
		{"WithBaseURL on the client", []ghclient.Option{ghclient.WithBaseURL(ts.URL)}, nil, true},
		{"both, the same API", []ghclient.Option{ghclient.WithBaseURL(ts.URL)}, []committer.Option{committer.WithBaseURL(ts.URL)}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hc, err := ghclient.NewHTTPClient(ctx, append([]ghclient.Option{ghclient.WithToken(composeToken)}, tc.client...)...)
			if err != nil {
				t.Fatal(err)
			}
			c, err := committer.New(owner, repo, append([]committer.Option{committer.WithHTTPClient(hc)}, tc.committer...)...)
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
	// A client made for another API (explicitly) is refused before any
	// request: its token must not go to the committer's host.
	hc, err := ghclient.NewHTTPClient(ctx, ghclient.WithToken(composeToken), ghclient.WithBaseURL("https://ghe.example.com/"))
	if err != nil {
		t.Fatal(err)
	}
	before := len(ts.Requests())
	if _, err := committer.New(owner, repo, committer.WithHTTPClient(hc), committer.WithBaseURL(ts.URL)); err == nil {
		t.Fatal("a client made for ghe.example.com accepted for the fake")
	}
	if len(ts.Requests()) != before {
		t.Fatal("requests sent")
	}
}

// TestWithLoggerReachesTheRequestLog: the committer's WithLogger logs the
// HTTP layer's request lines too, for a plain client and for one from
// ghclient (which has its own layers), and never the token.
func TestWithLoggerReachesTheRequestLog(t *testing.T) {
	ctx := context.Background()
	ts := composeFake(t)
	nc, err := ghclient.NewHTTPClient(ctx, ghclient.WithToken(composeToken), ghclient.WithWritePacing(0, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	for name, hc := range map[string]*http.Client{"ghclient": nc, "plain": ts.Client.Client()} {
		t.Run(name, func(t *testing.T) {
			var buf lockedBuffer
			l := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
			c := mustNew(t, committer.WithHTTPClient(hc), committer.WithBaseURL(ts.URL), committer.WithLogger(l))
			if _, err := c.Commit(ctx, "main", committer.NewChangeSet("m").Put(name+".txt", []byte("x\n"))); err != nil {
				t.Fatal(err)
			}
			out := buf.String()
			if !strings.Contains(out, "github request") || !strings.Contains(out, "route=/repos/acme/mono/git/trees") {
				t.Fatalf("no request lines in the committer's log:\n%s", out)
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
// secondary limit is the one set on the client (ghclient.WithLimitScale
// or WithSecondaryLimitWait), not a second setting of the committer.
func TestBareSecondaryWaitIsTheClients(t *testing.T) {
	for _, tc := range []struct {
		opt  ghclient.Option
		want time.Duration
	}{
		{nil, time.Minute},
		{ghclient.WithLimitScale(600), 100 * time.Millisecond},
		{ghclient.WithSecondaryLimitWait(3 * time.Second), 3 * time.Second},
	} {
		ts := composeFake(t)
		hc, err := ghclient.NewHTTPClient(context.Background(), ghclient.WithToken(composeToken), ghclient.WithBaseURL(ts.URL),
			ghclient.WithWritePacing(0, 0, 0), ghclient.WithSleep(noSleep), tc.opt)
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
			t.Errorf("%v: waits %v, want the first to be %v", tc.opt, waits, tc.want)
		}
		for _, w := range waits[min(1, len(waits)):] {
			if w > tc.want {
				t.Errorf("%v: waits %v: the gate waited longer than the window", tc.opt, waits)
			}
		}
		mu.Unlock()
	}
}

// TestCommitterKeepsAClientWithItsLogger: a client that already logs to
// the committer's logger (as the CLI builds them) is used as it is; one
// with another logger is rebuilt with the committer's, and a rebuilt App
// client reuses the installation it looked up (a fresh token, no second
// lookup).
func TestCommitterKeepsAClientWithItsLogger(t *testing.T) {
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
	hc, err := ghclient.NewHTTPClient(ctx, ghclient.WithApp(appID, keyPEM, 0), ghclient.WithRepository(owner, repo),
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
	commit(mustNew(t, committer.WithHTTPClient(hc), committer.WithLogger(l)), "a.txt")
	commit(mustNew(t, committer.WithHTTPClient(hc), committer.WithLogger(l)), "b.txt")
	if n := ts.TokensIssued(installationID); n != 1 {
		t.Fatalf("%d installation tokens issued, want 1: the client was rebuilt for the logger it already has", n)
	}
	lookups := ts.Count("GET /repos/{owner}/{repo}/installation")
	if lookups != 1 {
		t.Fatalf("installation looked up %d times, want once", lookups)
	}
	var other lockedBuffer
	commit(mustNew(t, committer.WithHTTPClient(hc), committer.WithLogger(slog.New(slog.NewTextHandler(&other, &slog.HandlerOptions{Level: slog.LevelDebug})))), "c.txt")
	if !strings.Contains(other.String(), "github request") {
		t.Fatal("the committer's other logger has no request lines")
	}
	if n := ts.Count("GET /repos/{owner}/{repo}/installation"); n != lookups {
		t.Fatalf("installation looked up again (%d, then %d)", lookups, n)
	}
}
