package ghclient

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-github/v66/github"
)

func TestRetryCreateTreeOn502(t *testing.T) {
	var c counter
	var mu sync.Mutex
	var bodies []string
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(b))
		mu.Unlock()
		if r.Method != http.MethodPost || r.URL.Path != "/repos/o/r/git/trees" {
			writeJSON(w, 404, `{"message":"Not Found"}`)
			return
		}
		if c.add(r) <= 2 {
			writeJSON(w, http.StatusBadGateway, `{"message":"Server Error"}`)
			return
		}
		writeJSON(w, http.StatusCreated, `{"sha":"0123456789abcdef0123456789abcdef01234567","tree":[]}`)
	})
	gh, clock, _ := setup(t, h)
	tree, resp, err := gh.Git.CreateTree(context.Background(), "o", "r", "base", []*github.TreeEntry{
		{Path: github.String("a.txt"), Mode: github.String("100644"), Type: github.String("blob"), Content: github.String("hi")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusCreated || tree.GetSHA() == "" {
		t.Fatalf("status %d sha %q", resp.StatusCode, tree.GetSHA())
	}
	if n := c.get("POST /repos/o/r/git/trees"); n != 3 {
		t.Fatalf("server saw %d requests, want 3", n)
	}
	if len(bodies) != 3 || bodies[0] == "" || bodies[1] != bodies[0] || bodies[2] != bodies[0] {
		t.Fatalf("request body not replayed on retries: %q", bodies)
	}
	if s := clock.Sleeps(); len(s) != 2 {
		t.Fatalf("sleeps %v, want 2", s)
	}
	for _, d := range clock.Sleeps() {
		if d < 0 || d > 10*time.Second {
			t.Fatalf("backoff %v out of [0, 10s]", d)
		}
	}
}

func TestSecondaryRateLimitHonoursRetryAfter(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		status     int
	}{
		{"403 abuse doc url", secondaryBody, 403},
		{"403 secondary-rate-limits doc url", secondaryBodyNew, 403},
		{"429", secondaryBody, 429},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c counter
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if c.add(r) == 1 {
					w.Header().Set("Retry-After", "1")
					writeJSON(w, tc.status, tc.body)
					return
				}
				writeJSON(w, 200, `{"ref":"refs/heads/main","object":{"sha":"abc","type":"commit"}}`)
			})
			gh, clock, _ := setup(t, h)
			ref, _, err := gh.Git.GetRef(context.Background(), "o", "r", "heads/main")
			if err != nil {
				t.Fatal(err)
			}
			if ref.GetObject().GetSHA() != "abc" {
				t.Fatalf("ref %v", ref)
			}
			if s := clock.Sleeps(); len(s) != 1 || s[0] != time.Second {
				t.Fatalf("sleeps %v, want [1s]", s)
			}
		})
	}
}

// TestSecondaryRateLimitWithoutHeadersWaitsAMinute: GitHub's guidance is
// at least a minute; the retry's wait and the gate's window are the same
// wait, never added up.
func TestSecondaryRateLimitWithoutHeadersWaitsAMinute(t *testing.T) {
	var c counter
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c.add(r) <= 2 {
			writeJSON(w, 403, secondaryBody)
			return
		}
		writeJSON(w, 200, `{}`)
	})
	gh, clock, _ := setup(t, h)
	if _, _, err := gh.Repositories.Get(context.Background(), "o", "r"); err != nil {
		t.Fatal(err)
	}
	s := clock.Sleeps()
	if len(s) != 2 {
		t.Fatalf("sleeps %v", s)
	}
	for _, d := range s {
		if d != time.Minute {
			t.Fatalf("secondary limit waits %v, want a minute each", s)
		}
	}
}

// primaryLimited answers 403 with x-ratelimit-remaining 0 until clock
// reaches reset.
func primaryLimited(clock func() time.Time, reset func() time.Time, c *counter) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		c.add(r)
		rs := reset()
		w.Header().Set("X-Ratelimit-Limit", "5000")
		w.Header().Set("X-Ratelimit-Reset", strconv.FormatInt(rs.Unix(), 10))
		if clock().Before(rs) {
			w.Header().Set("X-Ratelimit-Remaining", "0")
			writeJSON(w, 403, primaryBody)
			return
		}
		w.Header().Set("X-Ratelimit-Remaining", "4999")
		writeJSON(w, 200, `{"id":1,"name":"r"}`)
	}
}

func TestPrimaryRateLimitWaitsForReset(t *testing.T) {
	var c counter
	var clock *fakeClock
	var reset time.Time
	h := primaryLimited(func() time.Time { return clock.Now() }, func() time.Time { return reset }, &c)
	gh, clk, _ := setup(t, h)
	clock = clk
	reset = clock.Now().Add(2 * time.Second)
	repo, _, err := gh.Repositories.Get(context.Background(), "o", "r")
	if err != nil {
		t.Fatal(err)
	}
	if repo.GetName() != "r" {
		t.Fatalf("repo %v", repo)
	}
	s := clock.Sleeps()
	if len(s) != 1 || s[0] < 2*time.Second || s[0] > 4*time.Second {
		t.Fatalf("sleeps %v, want one wait of 2s plus a small margin", s)
	}
	if n := c.get("GET /repos/o/r"); n != 2 {
		t.Fatalf("server saw %d requests, want 2", n)
	}
}

func TestPrimaryRateLimitTooFarFailsAtOnce(t *testing.T) {
	var c counter
	var clock *fakeClock
	var reset time.Time
	h := primaryLimited(func() time.Time { return clock.Now() }, func() time.Time { return reset }, &c)
	gh, clk, _ := setup(t, h)
	clock = clk
	reset = clock.Now().Add(time.Hour)
	_, _, err := gh.Repositories.Get(context.Background(), "o", "r")
	var rle *RateLimitError
	if !errors.As(err, &rle) {
		t.Fatalf("err = %v (%T), want *RateLimitError", err, err)
	}
	if !rle.Reset.Equal(reset.Add(resetMargin)) {
		t.Errorf("Reset = %v, want %v", rle.Reset, reset.Add(resetMargin))
	}
	if rle.Secondary || rle.StatusCode != 403 {
		t.Errorf("got %+v", rle)
	}
	msg := err.Error()
	if !strings.Contains(msg, rle.Reset.UTC().Format(time.RFC3339)) || !strings.Contains(msg, "1h0m1s") {
		t.Errorf("error does not say when the limit resets: %s", msg)
	}
	if s := clock.Sleeps(); len(s) != 0 {
		t.Errorf("slept %v", s)
	}
	if n := c.get("GET /repos/o/r"); n != 1 {
		t.Errorf("server saw %d requests, want 1", n)
	}
}

func TestSecondaryRetryAfterTooFarFailsAtOnce(t *testing.T) {
	var c counter
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.add(r)
		w.Header().Set("Retry-After", "600")
		writeJSON(w, 403, secondaryBody)
	})
	gh, clock, _ := setup(t, h, WithRateLimits(RateLimits{MaxWait: time.Minute}))
	_, _, err := gh.Repositories.Get(context.Background(), "o", "r")
	var rle *RateLimitError
	if !errors.As(err, &rle) || !rle.Secondary || rle.Wait != 10*time.Minute {
		t.Fatalf("err = %v, want a secondary *RateLimitError of 10m", err)
	}
	if len(clock.Sleeps()) != 0 || c.get("GET /repos/o/r") != 1 {
		t.Fatalf("sleeps %v requests %d", clock.Sleeps(), c.get("GET /repos/o/r"))
	}
}

func TestWritesAreNeverRetried(t *testing.T) {
	ctx := context.Background()
	calls := []struct {
		route string
		call  func(gh *github.Client) error
	}{
		{"PATCH /repos/o/r/git/refs/heads/main", func(gh *github.Client) error {
			_, _, err := gh.Git.UpdateRef(ctx, "o", "r", &github.Reference{Ref: github.String("heads/main"), Object: &github.GitObject{SHA: github.String("abc")}}, false)
			return err
		}},
		{"POST /repos/o/r/git/refs", func(gh *github.Client) error {
			_, _, err := gh.Git.CreateRef(ctx, "o", "r", &github.Reference{Ref: github.String("refs/heads/x"), Object: &github.GitObject{SHA: github.String("abc")}})
			return err
		}},
		{"DELETE /repos/o/r/git/refs/heads/x", func(gh *github.Client) error {
			_, err := gh.Git.DeleteRef(ctx, "o", "r", "heads/x")
			return err
		}},
		{"PUT /repos/o/r/contents/a.txt", func(gh *github.Client) error {
			_, _, err := gh.Repositories.CreateFile(ctx, "o", "r", "a.txt", &github.RepositoryContentFileOptions{Message: github.String("m"), Content: []byte("x")})
			return err
		}},
		{"DELETE /repos/o/r/contents/a.txt", func(gh *github.Client) error {
			_, _, err := gh.Repositories.DeleteFile(ctx, "o", "r", "a.txt", &github.RepositoryContentFileOptions{Message: github.String("m"), SHA: github.String("abc")})
			return err
		}},
		{"POST /repos/o/r/pulls", func(gh *github.Client) error {
			_, _, err := gh.PullRequests.Create(ctx, "o", "r", &github.NewPullRequest{Title: github.String("t")})
			return err
		}},
		{"POST /repos/o/r/git/tags", func(gh *github.Client) error {
			_, _, err := gh.Git.CreateTag(ctx, "o", "r", &github.Tag{Tag: github.String("v1")})
			return err
		}},
	}
	for _, status := range []int{502, 500, 429} {
		for _, tc := range calls {
			t.Run(strconv.Itoa(status)+" "+tc.route, func(t *testing.T) {
				var c counter
				h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					c.add(r)
					w.Header().Set("Retry-After", "1")
					writeJSON(w, status, `{"message":"Server Error"}`)
				})
				gh, clock, _ := setup(t, h)
				err := tc.call(gh)
				var er *github.ErrorResponse
				if !errors.As(err, &er) || er.Response.StatusCode != status {
					t.Fatalf("err = %v, want *github.ErrorResponse %d", err, status)
				}
				if n := c.get(tc.route); n != 1 {
					t.Fatalf("%s sent %d times, want exactly once", tc.route, n)
				}
				if len(clock.Sleeps()) != 0 {
					t.Fatalf("slept %v", clock.Sleeps())
				}
			})
		}
	}
}

func TestRetriesExhaustedReturnsTypedError(t *testing.T) {
	for _, tc := range []struct {
		name    string
		status  int
		body    string
		header  http.Header
		checkEr func(error) bool
	}{
		{"502", 502, `{"message":"Server Error"}`, nil, func(err error) bool {
			var er *github.ErrorResponse
			return errors.As(err, &er) && er.Response.StatusCode == 502 && er.Message == "Server Error"
		}},
		{"bodiless 500", 500, ``, nil, func(err error) bool {
			var er *github.ErrorResponse
			return errors.As(err, &er) && er.Response.StatusCode == 500
		}},
		{"429", 429, `{"message":"Too Many Requests"}`, nil, func(err error) bool {
			var er *github.ErrorResponse
			return errors.As(err, &er) && er.Response.StatusCode == 429
		}},
		{"secondary", 403, secondaryBody, http.Header{"Retry-After": {"2"}}, func(err error) bool {
			var ae *github.AbuseRateLimitError
			return errors.As(err, &ae) && ae.Response.StatusCode == 403 && ae.GetRetryAfter() == 2*time.Second
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c counter
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				c.add(r)
				for k, v := range tc.header {
					w.Header()[k] = v
				}
				writeJSON(w, tc.status, tc.body)
			})
			gh, clock, _ := setup(t, h, WithMaxRetries(3))
			_, _, err := gh.Git.GetCommit(context.Background(), "o", "r", "abc")
			if !tc.checkEr(err) {
				t.Fatalf("err = %v (%T)", err, err)
			}
			if strings.Contains(err.Error(), "giving up") {
				t.Errorf("error wrapped: %v", err)
			}
			if n := c.get("GET /repos/o/r/git/commits/abc"); n != 4 {
				t.Fatalf("server saw %d requests, want 4", n)
			}
			if len(clock.Sleeps()) != 3 {
				t.Fatalf("sleeps %v", clock.Sleeps())
			}
		})
	}
}

func TestConnectionErrorsAreRetried(t *testing.T) {
	var c counter
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c.add(r) == 1 {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close() // drop the response
			}
			return
		}
		writeJSON(w, 201, `{"sha":"abc"}`)
	})
	gh, _, _ := setup(t, h)
	blob, _, err := gh.Git.CreateBlob(context.Background(), "o", "r", &github.Blob{Content: github.String("x"), Encoding: github.String("utf-8")})
	if err != nil {
		t.Fatal(err)
	}
	if blob.GetSHA() != "abc" || c.get("POST /repos/o/r/git/blobs") != 2 {
		t.Fatalf("sha %q, requests %d", blob.GetSHA(), c.get("POST /repos/o/r/git/blobs"))
	}
}

func TestWithoutRetriesSendsOnce(t *testing.T) {
	var c counter
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.add(r)
		writeJSON(w, 502, `{"message":"Server Error"}`)
	})
	gh, clock, _ := setup(t, h)
	_, _, err := gh.Git.GetCommit(WithoutRetries(context.Background()), "o", "r", "abc")
	var er *github.ErrorResponse
	if !errors.As(err, &er) || er.Response.StatusCode != 502 {
		t.Fatalf("err = %v", err)
	}
	if n := c.get("GET /repos/o/r/git/commits/abc"); n != 1 || len(clock.Sleeps()) != 0 {
		t.Fatalf("requests %d sleeps %v", n, clock.Sleeps())
	}
}

func TestMaxRetriesZero(t *testing.T) {
	var c counter
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.add(r)
		writeJSON(w, 503, `{"message":"unavailable"}`)
	})
	gh, _, _ := setup(t, h, WithMaxRetries(0))
	if _, _, err := gh.Git.GetCommit(context.Background(), "o", "r", "abc"); err == nil {
		t.Fatal("no error")
	}
	if n := c.get("GET /repos/o/r/git/commits/abc"); n != 1 {
		t.Fatalf("requests %d", n)
	}
}

func TestContextCancelEndsWait(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		cancel() // the caller gives up while the client would wait 30s
		w.Header().Set("Retry-After", "30")
		writeJSON(w, 503, `{"message":"unavailable"}`)
	})
	srv := newServer(t, h)
	// The real sleep: it must return on ctx.Done, not after 30s.
	gh, err := New(context.Background(), WithBaseURL(srv.URL), WithHTTPClient(srv.Client()))
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = gh.Git.GetCommit(ctx, "o", "r", "abc")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestSleepErrorStopsRetries(t *testing.T) {
	var c counter
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.add(r)
		writeJSON(w, 502, `{}`)
	})
	boom := errors.New("deadline would pass")
	gh, _, _ := setup(t, h, withSleep(func(context.Context, time.Duration) error { return boom }))
	_, _, err := gh.Git.GetCommit(context.Background(), "o", "r", "abc")
	if !errors.Is(err, boom) || c.get("GET /repos/o/r/git/commits/abc") != 1 {
		t.Fatalf("err %v, requests %d", err, c.get("GET /repos/o/r/git/commits/abc"))
	}
}

func TestDefaultSleep(t *testing.T) {
	if err := sleepCtx(context.Background(), 0); err != nil {
		t.Fatal(err)
	}
	if err := sleepCtx(context.Background(), time.Millisecond); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go cancel()
	if err := sleepCtx(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
}

func TestContextCancelDuringBackoff(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	answered := make(chan struct{}, 1)
	h := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Retry-After", "30")
		writeJSON(w, 503, `{"message":"unavailable"}`)
		answered <- struct{}{}
	})
	srv := newServer(t, h)
	go func() { <-answered; cancel() }()
	gh, err := New(context.Background(), WithBaseURL(srv.URL), WithHTTPClient(srv.Client()))
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = gh.Git.GetCommit(ctx, "o", "r", "abc")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}
