package ghclient

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/githubtest"
	"github.com/google/go-github/v66/github"
)

// TestWrapRetargetsADefaultClient: a client from NewHTTPClient made
// without WithBaseURL, wrapped for another API (a GHES host, the fake),
// sends its requests — and its token — there, keeping its options; with
// an explicit base URL of its own it is refused for another API and kept
// as it is for its own.
func TestWrapRetargetsADefaultClient(t *testing.T) {
	ts := githubtest.NewServer(t, githubtest.WithToken(fakeToken))
	t.Cleanup(resetRegistry)
	if err := ts.CreateRepo("o", "r", false); err != nil {
		t.Fatal(err)
	}
	if _, err := ts.Seed("o", "r", "main", "seed", githubtest.File{Path: "README.md", Content: []byte("hi\n")}); err != nil {
		t.Fatal(err)
	}
	clock := newFakeClock()
	nc, err := NewHTTPClient(context.Background(), WithToken(fakeToken), WithHTTPClient(ts.Client.Client()),
		withSleep(clock.Sleep), WithMaxRetries(1))
	if err != nil {
		t.Fatal(err)
	}
	// As it is, it refuses the fake's host.
	if _, err := nc.Get(ts.URL + "repos/o/r"); !errors.As(err, new(*ForeignHostError)) {
		t.Fatalf("default client sent to the fake: %v", err)
	}
	hc, err := Wrap(nc, ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	if hc == nc {
		t.Fatal("Wrap returned the client made for api.github.com")
	}
	if c, ok := ConfigOf(hc); !ok || c.BaseURL != ts.URL {
		t.Fatalf("ConfigOf = %+v, %v", c, ok)
	}
	gh := github.NewClient(hc)
	gh.BaseURL = mustURL(t, ts.URL)
	ts.Inject(githubtest.Fault{Route: routeTrees, Times: 1, Status: http.StatusBadGateway})
	if err := commitFile(context.Background(), gh, "o", "r", "a.txt", "a\n"); err != nil {
		t.Fatal(err) // the token reached the fake; one retry of the tree
	}
	ts.Inject(githubtest.Fault{Route: routeTrees, Times: 2, Status: http.StatusBadGateway})
	err = commitFile(context.Background(), gh, "o", "r", "b.txt", "b\n")
	var er *github.ErrorResponse
	if !errors.As(err, &er) || er.Response.StatusCode != http.StatusBadGateway {
		t.Fatalf("err = %v, want the 502 after WithMaxRetries(1) ran out", err)
	}

	ec, err := NewHTTPClient(context.Background(), WithToken(fakeToken), WithBaseURL("https://ghe.example.com/"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Wrap(ec, ts.URL); err == nil || !strings.Contains(err.Error(), "https://ghe.example.com/api/v3/") {
		t.Fatalf("a client made for GHES wrapped for the fake: %v", err)
	}
	if same, err := Wrap(ec, "https://ghe.example.com/api/v3"); err != nil || same != ec {
		t.Fatalf("Wrap for its own API: %v, %v", same, err)
	}
	if c, _ := ConfigOf(ec); c.BaseURL != "https://ghe.example.com/api/v3/" {
		t.Fatalf("ConfigOf = %+v", c)
	}
}

// TestWrapAddsALogger: Wrap(hc, "", WithLogger(l)) of a client that has
// the layers logs its requests to l (the committer's WithLogger does
// this).
func TestWrapAddsALogger(t *testing.T) {
	ts, gh, _ := fakeSetup(t)
	var buf syncBuffer
	l := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	hc, err := Wrap(gh.Client(), "", WithLogger(l))
	if err != nil {
		t.Fatal(err)
	}
	logged := github.NewClient(hc)
	logged.BaseURL = gh.BaseURL
	ts.Inject(githubtest.Fault{Route: routeTrees, Times: 1, Status: http.StatusBadGateway})
	if err := commitFile(context.Background(), logged, "o", "r", "a.txt", "a\n"); err != nil {
		t.Fatal(err)
	}
	out := strings.Join(buf.Lines(), "\n")
	for _, want := range []string{"github request", "route=/repos/o/r/git/trees", "github retrying", "status=502"} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, fakeToken) {
		t.Error("log holds the token")
	}
}

// TestConfigOf: the client's settings as the committer reads them.
func TestConfigOf(t *testing.T) {
	hc, err := NewHTTPClient(context.Background(), withLimitScale(60), WithRateLimits(RateLimits{MaxWait: 5 * time.Second}))
	if err != nil {
		t.Fatal(err)
	}
	c, ok := ConfigOf(hc)
	if !ok || c.BaseURL != "https://api.github.com/" || c.SecondaryLimitWait != time.Second || c.MaxRateLimitWait != 5*time.Second {
		t.Fatalf("ConfigOf = %+v, %v", c, ok)
	}
	if _, ok := ConfigOf(http.DefaultClient); ok {
		t.Fatal("ConfigOf of a plain client")
	}
	w, err := Wrap(&http.Client{}, "", WithRateLimits(RateLimits{SecondaryWait: 10 * time.Second}))
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := ConfigOf(w); c.SecondaryLimitWait != 10*time.Second {
		t.Fatalf("ConfigOf(Wrap) = %+v", c)
	}
}

// TestWrapOfALookedUpAppInstallation: an App client whose installation
// was looked up on github.com's API (its default) is not rebuilt for
// another API, where that installation means nothing; rebuilt for its own
// API (to add a logger) it keeps the installation without a new lookup.
func TestWrapOfALookedUpAppInstallation(t *testing.T) {
	var lookups int
	a := &appServer{t: t, appID: 12, instID: 34, ttl: time.Hour}
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/installation") {
			lookups++
		}
		a.ServeHTTP(w, r)
	}))
	// api.github.com, served by the test server.
	githubCom := &http.Client{Transport: roundTripperFunc(func(r *http.Request) (*http.Response, error) {
		r = r.Clone(r.Context())
		r.URL.Scheme, r.URL.Host = "http", srv.Listener.Addr().String()
		return srv.Client().Transport.RoundTrip(r)
	})}
	hc, err := NewHTTPClient(context.Background(), WithApp(App{ID: 12, PrivateKey: testKeyPEM(t), InstallationID: 0, Owner: "o", Repo: "r"}), WithHTTPClient(githubCom))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(resetRegistry)
	if _, err := Wrap(hc, "https://ghe.example.com/"); err == nil || !strings.Contains(err.Error(), "installation 34") {
		t.Fatalf("err = %v, want a refusal naming the installation", err)
	}
	var buf syncBuffer
	logged, err := Wrap(hc, "", WithLogger(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := logged.Get("https://api.github.com/repos/o/r")
	if err != nil {
		t.Fatal(err)
	}
	drain(resp)
	if resp.StatusCode != 200 || lookups != 1 || !strings.Contains(strings.Join(buf.Lines(), "\n"), "github request") {
		t.Fatalf("status %d, %d lookups, log %q", resp.StatusCode, lookups, buf.Lines())
	}
}
