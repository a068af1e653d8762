package ghclient

import (
	"context"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/githubtest"
	"github.com/ghcommitter/ghcommitter/internal/testseam"
	"github.com/google/go-github/v66/github"
)

func TestWrapNeverStacks(t *testing.T) {
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Jar: jar, Timeout: 7 * time.Second}
	w, err := Wrap(hc, "https://api.github.com/")
	if err != nil {
		t.Fatal(err)
	}
	if w == hc || w.Jar != jar || w.Timeout != 7*time.Second || w.CheckRedirect == nil {
		t.Fatalf("wrapped client %+v", w)
	}
	if hc.Transport != nil || hc.CheckRedirect != nil {
		t.Fatal("Wrap changed the caller's client")
	}
	again, err := Wrap(w, "https://api.github.com/")
	if err != nil || again != w {
		t.Fatalf("Wrap of a wrapped client: %v, %v", again, err)
	}
	nc, err := NewHTTPClient(context.Background(), WithToken("t"))
	if err != nil {
		t.Fatal(err)
	}
	if w2, err := Wrap(nc, "https://api.github.com/"); err != nil || w2 != nc {
		t.Fatalf("Wrap of a NewHTTPClient client: %v", err)
	}
	gh, err := New(context.Background(), WithToken("t"))
	if err != nil {
		t.Fatal(err)
	}
	if gc := gh.Client(); func() bool { w3, _ := Wrap(gc, ""); return w3 != gc }() {
		t.Fatal("Wrap of New's client stacked")
	}
	for _, bad := range []Option{WithToken("t"), WithApp(App{ID: 1, PrivateKey: testKeyPEM(t), InstallationID: 2}), WithHTTPClient(hc)} {
		if _, err := Wrap(hc, "https://api.github.com/", bad); err == nil {
			t.Error("Wrap accepted an auth or client option")
		}
	}
	if _, err := NewHTTPClient(context.Background(), WithHTTPClient(w)); err == nil {
		t.Error("NewHTTPClient stacked its layers on a wrapped client")
	}
	if _, err := Wrap(nil, ""); err == nil {
		t.Error("Wrap(nil)")
	}
	if _, err := Wrap(hc, "ftp://x/"); err == nil {
		t.Error("Wrap accepted a bad base URL")
	}
}

// TestWrapRetriesAgainstTheFake: a caller's plain client, wrapped, commits
// through faults; WithMaxRetries(0) opts out of the retries.
func TestWrapRetriesAgainstTheFake(t *testing.T) {
	ts := githubtest.NewServer(t, githubtest.WithToken(fakeToken))
	t.Cleanup(resetRegistry)
	if err := ts.CreateRepo("o", "r", false); err != nil {
		t.Fatal(err)
	}
	if _, err := ts.Seed("o", "r", "main", "seed", githubtest.File{Path: "README.md", Content: []byte("hi\n")}); err != nil {
		t.Fatal(err)
	}
	base := ts.Client.Client().Transport
	authed := &http.Client{Transport: roundTripperFunc(func(r *http.Request) (*http.Response, error) {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "token "+fakeToken)
		return base.RoundTrip(r)
	})}
	clock := newFakeClock()
	for _, tc := range []struct {
		opts []Option
		want int
	}{{nil, 3}, {[]Option{WithMaxRetries(0)}, 1}} {
		hc, err := Wrap(authed, ts.URL, append([]Option{withSleep(clock.Sleep)}, tc.opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		gh := github.NewClient(hc)
		gh.BaseURL = mustURL(t, ts.URL)
		ts.ResetRequests()
		ts.Inject(githubtest.Fault{Route: routeTrees, Times: 2, Status: http.StatusBadGateway})
		err = commitFile(context.Background(), gh, "o", "r", "a.txt", time.Now().String())
		if n := ts.Count(routeTrees); n != tc.want {
			t.Fatalf("trees sent %d times, want %d (err %v)", n, tc.want, err)
		}
		if (err == nil) != (tc.want == 3) {
			t.Fatalf("err = %v", err)
		}
		ts.ClearFaults()
	}
}

func TestWithHeader(t *testing.T) {
	var got []string
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Header.Get("X-Githubtest-Client"))
		writeJSON(w, 200, `{}`)
	})
	gh, _, _ := setup(t, h, WithHeader("x-githubtest-client", "worker-7"))
	if _, _, err := gh.Repositories.Get(context.Background(), "o", "r"); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != "worker-7" {
		t.Fatalf("header %q", got)
	}
	for _, bad := range []Option{WithHeader("Authorization", "x"), WithHeader("a b", "x"), WithHeader("X-A", "1\r\nX-B: 2"), WithHeader("", "x")} {
		if _, err := NewHTTPClient(context.Background(), bad); err == nil {
			t.Error("bad header accepted")
		}
	}
}

// TestTestSeams: a client whose transport is a testseam.Transport gets its
// seams (here the sleep of a retry's backoff and the limit scale) from
// Wrap and from NewHTTPClient, and sends through the transport beneath;
// seams put over a client that already has the layers are refused.
func TestTestSeams(t *testing.T) {
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		calls++
		if calls == 1 {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		_, _ = w.Write([]byte(`{}`))
	}))
	defer srv.Close()
	var slept []time.Duration
	sleep := func(ctx context.Context, d time.Duration) error { slept = append(slept, d); return ctx.Err() }
	seams := testseam.Seams{Sleep: sleep, LimitScale: 60}
	w, err := Wrap(testseam.Client(srv.Client(), seams), srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := w.Get(srv.URL + "/repos/o/r")
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != 200 || len(slept) == 0 {
		t.Fatalf("status %d, sleeps %v: the retry's wait did not go through the seam", resp.StatusCode, slept)
	}
	if cfg, _ := ConfigOf(w); cfg.SecondaryLimitWait != time.Second {
		t.Fatalf("bare secondary wait %v, want a minute scaled 60 times", cfg.SecondaryLimitWait)
	}
	n, err := NewHTTPClient(context.Background(), WithBaseURL(srv.URL), WithHTTPClient(testseam.Client(nil, seams)))
	if err != nil {
		t.Fatal(err)
	}
	if cfg, _ := ConfigOf(n); cfg.SecondaryLimitWait != time.Second {
		t.Fatalf("NewHTTPClient: bare secondary wait %v", cfg.SecondaryLimitWait)
	}
	if _, err := Wrap(testseam.Client(w, seams), srv.URL); err == nil {
		t.Fatal("seams over a layered client accepted")
	}
	if _, err := Wrap(testseam.Client(nil, testseam.Seams{LimitScale: -1}), srv.URL); err == nil {
		t.Fatal("a negative limit scale accepted")
	}
}
