package ghclient

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-github/v66/github"
)

// timedLog records when (on the fake clock) each request arrived, and with
// which token.
type timedLog struct {
	mu    sync.Mutex
	clock *fakeClock
	at    map[string][]time.Time // "METHOD path token"
}

func (l *timedLog) add(r *http.Request) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.at == nil {
		l.at = map[string][]time.Time{}
	}
	k := r.Method + " " + r.URL.Path + " " + strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	l.at[k] = append(l.at[k], l.clock.Now())
}

func (l *timedLog) get(k string) []time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]time.Time(nil), l.at[k]...)
}

// clientsOn returns one go-github client per option set, all on srv and
// on clock.
func clientsOn(t *testing.T, srvURL string, hc *http.Client, clock *fakeClock, sets ...[]Option) []*github.Client {
	t.Helper()
	var out []*github.Client
	for _, set := range sets {
		all := append([]Option{WithBaseURL(srvURL), WithHTTPClient(hc), withSleep(clock.Sleep), withNow(clock.Now)}, set...)
		gh, err := New(context.Background(), all...)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, gh)
	}
	return out
}

const refJSON = `{"ref":"refs/heads/x","object":{"sha":"abc","type":"commit"}}`

func createRef(gh *github.Client) error {
	_, _, err := gh.Git.CreateRef(context.Background(), "o", "r", &github.Reference{Ref: github.String("refs/heads/x"), Object: &github.GitObject{SHA: github.String("abc")}})
	return err
}

// TestRetryAfterWindowIsSharedByTheCredential: a secondary limit with
// Retry-After seen by one client holds back every client of the process
// that uses the same token on the same host, and only those.
func TestRetryAfterWindowIsSharedByTheCredential(t *testing.T) {
	clock := newFakeClock()
	log := &timedLog{clock: clock}
	var once sync.Once
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.add(r)
		limited := false
		if r.Method == "POST" && r.URL.Path == "/repos/o/r/git/refs" {
			once.Do(func() { limited = true })
		}
		if limited {
			w.Header().Set("Retry-After", "30")
			writeJSON(w, 403, secondaryBody)
			return
		}
		writeJSON(w, 201, refJSON)
	})
	srv := newServer(t, h)
	c := clientsOn(t, srv.URL, srv.Client(), clock,
		[]Option{WithToken("ghp_shared")}, []Option{WithToken("ghp_shared")}, []Option{WithToken("ghp_other")})
	t0 := clock.Now()
	var ab *github.AbuseRateLimitError
	if err := createRef(c[0]); !errors.As(err, &ab) {
		t.Fatalf("err = %v, want the 403 handed back (ref creation is never retried)", err)
	}
	// Another token is not held back.
	if err := createRef(c[2]); err != nil {
		t.Fatal(err)
	}
	if got := log.get("POST /repos/o/r/git/refs ghp_other"); len(got) != 1 || !got[0].Equal(t0) {
		t.Fatalf("other token sent at %v, want at once", got)
	}
	// The second client with the same token waits out the window first.
	if err := createRef(c[1]); err != nil {
		t.Fatal(err)
	}
	got := log.get("POST /repos/o/r/git/refs ghp_shared")
	if len(got) != 2 || got[1].Sub(t0) < 30*time.Second {
		t.Fatalf("writes of the limited token at %v: the second was sent inside the 30s window", got)
	}
	registry.mu.Lock()
	defer registry.mu.Unlock()
	for k := range registry.m {
		if strings.Contains(k, "ghp_") {
			t.Fatalf("registry key holds the token: %q", k)
		}
	}
}

// TestBareSecondaryLimitWaitsAMinute: a secondary limit without
// Retry-After holds the credential back a minute (GitHub's guidance), or
// what RateLimits.SecondaryWait and the limit scale make of it.
func TestBareSecondaryLimitWaitsAMinute(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []Option
		want time.Duration
	}{
		{"default", nil, time.Minute},
		{"SecondaryWait", []Option{WithRateLimits(RateLimits{SecondaryWait: 5 * time.Second})}, 5 * time.Second},
		{"limit scale", []Option{withLimitScale(10)}, 6 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := newFakeClock()
			log := &timedLog{clock: clock}
			var n int
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				log.add(r)
				if n++; n == 1 {
					// x-ratelimit-reset here is the primary window's, far
					// away: not the wait to use.
					w.Header().Set("X-Ratelimit-Remaining", "4000")
					w.Header().Set("X-Ratelimit-Reset", strconv.FormatInt(clock.Now().Add(50*time.Minute).Unix(), 10))
					writeJSON(w, 403, secondaryBodyNew)
					return
				}
				writeJSON(w, 200, refJSON)
			})
			srv := newServer(t, h)
			gh := clientsOn(t, srv.URL, srv.Client(), clock, append([]Option{WithToken("t")}, tc.opts...))[0]
			upd := func() error {
				_, _, err := gh.Git.UpdateRef(context.Background(), "o", "r", &github.Reference{Ref: github.String("heads/main"), Object: &github.GitObject{SHA: github.String("abc")}}, false)
				return err
			}
			if err := upd(); err == nil {
				t.Fatal("the limited update reported success")
			}
			if err := upd(); err != nil {
				t.Fatal(err)
			}
			got := log.get("PATCH /repos/o/r/git/refs/heads/main t")
			if len(got) != 2 || got[1].Sub(got[0]) != tc.want {
				t.Fatalf("updates at %v, want %v apart", got, tc.want)
			}
		})
	}
}

// TestRemainingZeroHoldsUntilReset: a successful reply saying
// x-ratelimit-remaining: 0 means the next request would be refused: it
// waits until x-ratelimit-reset, or fails at once without being sent when
// that is later than RateLimits.MaxWait.
func TestRemainingZeroHoldsUntilReset(t *testing.T) {
	for _, tc := range []struct {
		name  string
		reset time.Duration
		sent  bool
	}{{"near", 20 * time.Second, true}, {"far", time.Hour, false}} {
		t.Run(tc.name, func(t *testing.T) {
			clock := newFakeClock()
			log := &timedLog{clock: clock}
			reset := clock.Now().Add(tc.reset)
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				log.add(r)
				w.Header().Set("X-Ratelimit-Remaining", "0")
				w.Header().Set("X-Ratelimit-Reset", strconv.FormatInt(reset.Unix(), 10))
				w.Header().Set("X-Ratelimit-Resource", "core")
				if !clock.Now().Before(reset) {
					w.Header().Set("X-Ratelimit-Remaining", "4999")
				}
				writeJSON(w, 200, refJSON)
			})
			srv := newServer(t, h)
			gh := clientsOn(t, srv.URL, srv.Client(), clock, []Option{WithToken("t")})[0]
			ctx := context.Background()
			if _, _, err := gh.Git.GetRef(ctx, "o", "r", "heads/a"); err != nil {
				t.Fatal(err)
			}
			// go-github remembers the header too; a new go-github client
			// on the same credential shows the transport's own gate.
			gh2 := clientsOn(t, srv.URL, srv.Client(), clock, []Option{WithToken("t")})[0]
			_, _, err := gh2.Git.GetRef(ctx, "o", "r", "heads/b")
			got := log.get("GET /repos/o/r/git/ref/heads/b t")
			if tc.sent {
				if err != nil || len(got) != 1 || got[0].Before(reset) {
					t.Fatalf("err %v, sent at %v, want after %v", err, got, reset)
				}
				return
			}
			var rle *RateLimitError
			if !errors.As(err, &rle) || rle.StatusCode != 0 || !rle.Reset.After(reset) {
				t.Fatalf("err = %v, want a *RateLimitError for a request not sent", err)
			}
			if !strings.Contains(err.Error(), "not sent") || !strings.Contains(err.Error(), rle.Reset.UTC().Format(time.RFC3339)) {
				t.Fatalf("error does not say it was not sent and when to retry: %v", err)
			}
			if len(got) != 0 {
				t.Fatalf("sent inside the window at %v", got)
			}
		})
	}
}

// TestWrapClientsShareTheirTransportsWindow: clients that Wrap made from
// the same *http.Client count as one credential.
func TestWrapClientsShareTheirTransportsWindow(t *testing.T) {
	clock := newFakeClock()
	log := &timedLog{clock: clock}
	var n int
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.add(r)
		if n++; n == 1 {
			w.Header().Set("Retry-After", "45")
			writeJSON(w, 429, `{"message":"Too many requests"}`)
			return
		}
		writeJSON(w, 201, refJSON)
	})
	srv := newServer(t, h)
	var ghs []*github.Client
	for range 2 {
		hc, err := Wrap(srv.Client(), srv.URL, withSleep(clock.Sleep), withNow(clock.Now))
		if err != nil {
			t.Fatal(err)
		}
		gh := github.NewClient(hc)
		gh.BaseURL = mustURL(t, srv.URL+"/")
		ghs = append(ghs, gh)
	}
	if err := createRef(ghs[0]); err == nil {
		t.Fatal("429 reported as success")
	}
	if err := createRef(ghs[1]); err != nil {
		t.Fatal(err)
	}
	got := log.get("POST /repos/o/r/git/refs ")
	if len(got) != 2 || got[1].Sub(got[0]) < 45*time.Second {
		t.Fatalf("writes at %v: the second client wrote inside the window", got)
	}
}

// TestBareSecondaryLimitDoesNotHoldGoGithub: go-github (v66) takes a
// secondary limit's x-ratelimit-reset as the secondary window's end and
// refuses every request of its client, unsent, until then; that header is
// the primary window's (up to an hour away). The transport drops it from a
// bare secondary limit, so the request after the floor is sent.
func TestBareSecondaryLimitDoesNotHoldGoGithub(t *testing.T) {
	clock := newFakeClock()
	log := &timedLog{clock: clock}
	var n int
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.add(r)
		if n++; n == 1 {
			w.Header().Set("X-Ratelimit-Remaining", "4000")
			w.Header().Set("X-Ratelimit-Reset", strconv.FormatInt(time.Now().Add(50*time.Minute).Unix(), 10)) // the real clock's: go-github reads it
			writeJSON(w, 403, secondaryBodyNew)
			return
		}
		writeJSON(w, 200, refJSON)
	})
	srv := newServer(t, h)
	gh := clientsOn(t, srv.URL, srv.Client(), clock, []Option{WithToken("t")})[0]
	upd := func() error {
		_, _, err := gh.Git.UpdateRef(context.Background(), "o", "r", &github.Reference{Ref: github.String("heads/main"), Object: &github.GitObject{SHA: github.String("abc")}}, false)
		return err
	}
	var ab *github.AbuseRateLimitError
	if err := upd(); !errors.As(err, &ab) {
		t.Fatalf("err = %v, want the secondary limit", err)
	}
	if ab.RetryAfter != nil {
		t.Errorf("go-github sees a wait of %v: it would hold its client back that long", *ab.RetryAfter)
	}
	if err := upd(); err != nil {
		t.Fatalf("the update after the floor: %v", err)
	}
	if got := log.get("PATCH /repos/o/r/git/refs/heads/main t"); len(got) != 2 {
		t.Fatalf("%d updates sent, want 2", len(got))
	}
}

// TestRefusedRedirectsAreTyped: a write's redirect that is not followed on
// the API's host (a loop, or one that would turn it into a GET) is a
// *RedirectError with the redirect's status and request ID, and a
// redirect to another host a *ForeignHostError with them.
func TestRefusedRedirectsAreTyped(t *testing.T) {
	var srvURL string
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-GitHub-Request-Id", "RID:"+r.URL.Path)
		switch r.URL.Path {
		case "/repos/o/r/git/refs/heads/loop":
			w.Header().Set("Location", r.URL.Path)
			w.WriteHeader(http.StatusTemporaryRedirect)
		case "/repos/o/r/git/refs/heads/get":
			w.Header().Set("Location", srvURL+"/elsewhere")
			w.WriteHeader(http.StatusFound)
		case "/repos/o/r/git/refs/heads/away":
			w.Header().Set("Location", "https://elsewhere.example/x")
			w.WriteHeader(http.StatusTemporaryRedirect)
		}
	})
	gh, _, srv := setup(t, h, WithToken("t"))
	srvURL = srv.URL
	upd := func(b string) error {
		_, _, err := gh.Git.UpdateRef(context.Background(), "o", "r", &github.Reference{Ref: github.String("heads/" + b), Object: &github.GitObject{SHA: github.String("abc")}}, false)
		return err
	}
	for b, status := range map[string]int{"loop": 307, "get": 302} {
		var re *RedirectError
		if err := upd(b); !errors.As(err, &re) || re.Status != status || re.RequestID != "RID:/repos/o/r/git/refs/heads/"+b || !strings.Contains(err.Error(), srv.Listener.Addr().String()) {
			t.Errorf("%s: err = %v (%+v), want a *RedirectError for %d naming the host", b, err, re, status)
		}
	}
	var fh *ForeignHostError
	if err := upd("away"); !errors.As(err, &fh) || fh.Status != 307 || fh.RequestID != "RID:/repos/o/r/git/refs/heads/away" || !strings.Contains(err.Error(), "elsewhere.example") {
		t.Errorf("err = %v, want a *ForeignHostError naming elsewhere.example", err)
	}
}
