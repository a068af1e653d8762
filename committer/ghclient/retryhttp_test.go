package ghclient

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/githubtest"
	"github.com/google/go-github/v66/github"
)

// A streamed blob upload: {"encoding":"base64","content":"AAAA…"}, the
// base64 of size zero bytes, generated as it is read, so the test itself
// never holds it.
const (
	blobPrefix = `{"encoding":"base64","content":"`
	blobSuffix = `"}`
)

type streamedBlob struct {
	size     int64 // content bytes, a multiple of 3
	getBody  atomic.Int64
	produced atomic.Int64 // body bytes read by the client, all attempts
	received *atomic.Int64
	slack    int64 // how far the client may read ahead of the server
}

func (s *streamedBlob) length() int64 {
	return int64(len(blobPrefix)+len(blobSuffix)) + s.size/3*4
}

// sha is the git blob SHA of size zero bytes.
func (s *streamedBlob) sha() string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", s.size)
	_, _ = io.CopyN(h, zeros{}, s.size)
	return hex.EncodeToString(h.Sum(nil))
}

func (s *streamedBlob) body() io.ReadCloser {
	return io.NopCloser(&lockstep{s: s, r: io.MultiReader(strings.NewReader(blobPrefix),
		io.LimitReader(repeatA{}, s.size/3*4), strings.NewReader(blobSuffix))})
}

// request is a POST git/blobs whose body is generated as it is read, with
// GetBody for retries.
func (s *streamedBlob) request(t testing.TB, gh *github.Client) *http.Request {
	req, err := gh.NewRequest(http.MethodPost, "repos/o/r/git/blobs", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Body = s.body()
	req.GetBody = func() (io.ReadCloser, error) {
		s.getBody.Add(1)
		return s.body(), nil
	}
	req.ContentLength = s.length()
	req.Header.Set("Content-Type", "application/json")
	return req
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

type repeatA struct{}

func (repeatA) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'A'
	}
	return len(p), nil
}

// lockstep hands out the body no further than slack bytes ahead of what
// the server has received: a client that reads the whole body before
// sending it (go-retryablehttp's FromRequest does, to rewind it) never
// gets past the first slack bytes and fails.
type lockstep struct {
	s *streamedBlob
	r io.Reader
}

func (l *lockstep) Read(p []byte) (int, error) {
	deadline := time.Now().Add(30 * time.Second)
	for l.s.produced.Load()-l.s.received.Load() > l.s.slack {
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("the client read %d bytes of the body while the server received %d: it buffers the body instead of streaming it",
				l.s.produced.Load(), l.s.received.Load())
		}
		time.Sleep(100 * time.Microsecond)
	}
	n, err := l.r.Read(p)
	l.s.produced.Add(int64(n))
	return n, err
}

// blobGateway counts the blob bytes the server receives and answers the
// first blob POST of every two with a 502 once it has read it whole (a
// gateway that timed out after the upload), handing the others to next.
func blobGateway(next http.Handler, received *atomic.Int64) http.Handler {
	var posts atomic.Int64
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/git/blobs") {
			next.ServeHTTP(w, r)
			return
		}
		r.Body = countingBody{r.Body, received}
		if posts.Add(1)%2 == 1 {
			_, _ = io.Copy(io.Discard, r.Body)
			writeJSON(w, http.StatusBadGateway, `{"message":"Server Error"}`)
			return
		}
		next.ServeHTTP(w, r)
	})
}

type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (c countingBody) Read(p []byte) (int, error) {
	n, err := c.ReadCloser.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// newBlobFake is the fake holding o/r behind blobGateway.
func newBlobFake(t testing.TB, received *atomic.Int64) (*githubtest.Server, string) {
	t.Helper()
	fake := githubtest.New(githubtest.WithToken(fakeToken))
	if err := fake.CreateRepo("o", "r", false); err != nil {
		t.Fatal(err)
	}
	if _, err := fake.Seed("o", "r", "main", "seed", githubtest.File{Path: "README.md", Content: []byte("hi\n")}); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(blobGateway(fake, received))
	t.Cleanup(srv.Close)
	t.Cleanup(resetRegistry)
	return fake, srv.URL + "/"
}

// TestStreamedUploadRetriedWithoutBuffering: a streamed blob upload
// answered 502 is sent again from GetBody, and neither attempt is read
// ahead of what the server received (go-retryablehttp would buffer a body
// that is not a ReaderFunc). The first attempt sends the request's own
// body; GetBody is called once, for the retry.
func TestStreamedUploadRetriedWithoutBuffering(t *testing.T) {
	size := int64(96 << 20) // 128 MiB on the wire
	if testing.Short() {
		size = 12 << 20
	}
	var received atomic.Int64
	fake, u := newBlobFake(t, &received)
	clock := newFakeClock()
	gh, err := New(context.Background(), WithBaseURL(u), WithToken(fakeToken), withSleep(clock.Sleep), withNow(clock.Now))
	if err != nil {
		t.Fatal(err)
	}
	s := &streamedBlob{size: size, received: &received, slack: 1 << 20}
	blob := new(github.Blob)
	resp, err := gh.Do(context.Background(), s.request(t, gh), blob)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusCreated || blob.GetSHA() != s.sha() || !fake.HasObject("o", "r", s.sha()) {
		t.Fatalf("status %d, blob %s, want %s stored", resp.StatusCode, blob.GetSHA(), s.sha())
	}
	if n := fake.Count("POST /repos/{owner}/{repo}/git/blobs"); n != 1 {
		t.Fatalf("the fake stored %d uploads, want 1 (after the gateway's 502)", n)
	}
	if got, want := received.Load(), 2*s.length(); got != want {
		t.Fatalf("server received %d bytes, want two whole bodies (%d)", got, want)
	}
	if n := s.getBody.Load(); n != 1 {
		t.Fatalf("GetBody called %d times, want once (for the retry)", n)
	}
	if sl := clock.Sleeps(); len(sl) != 1 || sl[0] > 200*time.Millisecond {
		t.Fatalf("sleeps %v, want one backoff of at most 200ms", sl)
	}
}

// closeCounter is a base transport that counts CloseIdleConnections.
type closeCounter struct {
	http.RoundTripper
	closed atomic.Int64
}

func (c *closeCounter) CloseIdleConnections() { c.closed.Add(1) }

// TestRetriesNeverCloseIdleConnections: go-retryablehttp calls
// CloseIdleConnections on its HTTPClient whenever it gives up (retries
// exhausted, a policy error, the context ending while it waits); none of
// that may reach the caller's transport, whose connections other requests
// share.
func TestRetriesNeverCloseIdleConnections(t *testing.T) {
	var c counter
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.add(r)
		switch r.URL.Path {
		case "/repos/o/r/git/commits/far":
			w.Header().Set("Retry-After", "3600")
			writeJSON(w, 403, secondaryBody)
		case "/repos/o/r/git/commits/gone":
			conn, _, _ := w.(http.Hijacker).Hijack()
			_ = conn.Close()
		default:
			writeJSON(w, 502, `{"message":"Server Error"}`)
		}
	})
	srv := newServer(t, h)
	base := &closeCounter{RoundTripper: srv.Client().Transport}
	clock := newFakeClock()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sleep := func(sctx context.Context, d time.Duration) error {
		if c.get("GET /repos/o/r/git/commits/cancel") > 0 {
			cancel()
			return sctx.Err()
		}
		return clock.Sleep(sctx, d)
	}
	for _, wrap := range []bool{false, true} {
		var gh *github.Client
		if wrap {
			hc, err := Wrap(&http.Client{Transport: base}, srv.URL, WithMaxRetries(2), withSleep(sleep), withNow(clock.Now))
			if err != nil {
				t.Fatal(err)
			}
			gh = github.NewClient(hc)
			gh.BaseURL = mustURL(t, srv.URL+"/")
		} else {
			var err error
			gh, err = New(context.Background(), WithBaseURL(srv.URL), WithHTTPClient(&http.Client{Transport: base}),
				WithToken(fakeToken), WithMaxRetries(2), withSleep(sleep), withNow(clock.Now))
			if err != nil {
				t.Fatal(err)
			}
		}
		for _, sha := range []string{"exhausted", "far", "gone", "cancel"} {
			rctx := context.Background()
			if sha == "cancel" {
				rctx = ctx
			}
			if _, _, err := gh.Git.GetCommit(rctx, "o", "r", sha); err == nil {
				t.Fatalf("%s: no error", sha)
			}
			resetRegistry()
		}
	}
	if n := base.closed.Load(); n != 0 {
		t.Fatalf("the caller's transport had its idle connections closed %d times", n)
	}
	if c.get("GET /repos/o/r/git/commits/exhausted") != 6 || c.get("GET /repos/o/r/git/commits/far") != 2 {
		t.Fatalf("requests: %v", c.n)
	}
}

// TestRetryWaitsGoThroughTheSleepHook: go-retryablehttp's own timer never
// waits; a 503's Retry-After and the exponential backoff go through
// WithSleep, a rate limit's wait through the gate (once, not twice).
func TestRetryWaitsGoThroughTheSleepHook(t *testing.T) {
	var c counter
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch c.add(r) {
		case 1:
			w.Header().Set("Retry-After", "7")
			writeJSON(w, 503, `{"message":"unavailable"}`)
		case 2:
			w.Header().Set("Retry-After", "5")
			writeJSON(w, 429, `{"message":"Too Many Requests"}`)
		case 3:
			writeJSON(w, 502, `{}`)
		default:
			writeJSON(w, 200, `{"sha":"abc"}`)
		}
	})
	gh, clock, _ := setup(t, h, WithMaxRetries(5))
	start := time.Now()
	if _, _, err := gh.Git.GetCommit(context.Background(), "o", "r", "abc"); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("took %v of real time: a wait bypassed the sleep hook", d)
	}
	s := clock.Sleeps()
	if len(s) != 3 || s[0] != 7*time.Second || s[1] != 5*time.Second || s[2] > 800*time.Millisecond {
		t.Fatalf("sleeps %v, want [7s 5s ≤800ms]", s)
	}
	if n := c.get("GET /repos/o/r/git/commits/abc"); n != 4 {
		t.Fatalf("requests %d", n)
	}
}

// TestRateLimitTooFarOnRetryableRequest: a rate limit lifting later than
// RateLimits.MaxWait ends the loop with a *RateLimitError naming the
// reply's status, and the reply's body is closed.
func TestRateLimitTooFarOnRetryableRequest(t *testing.T) {
	var c counter
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.add(r)
		w.Header().Set("Retry-After", strconv.Itoa(3600))
		writeJSON(w, 429, `{"message":"Too Many Requests"}`)
	})
	gh, clock, _ := setup(t, h)
	_, _, err := gh.Git.CreateBlob(context.Background(), "o", "r", &github.Blob{Content: github.String("x"), Encoding: github.String("utf-8")})
	var rle *RateLimitError
	if !errors.As(err, &rle) || rle.StatusCode != 429 || rle.Wait != time.Hour || !rle.Secondary {
		t.Fatalf("err = %v, want a secondary *RateLimitError of 1h from a 429", err)
	}
	if len(clock.Sleeps()) != 0 || c.get("POST /repos/o/r/git/blobs") != 1 {
		t.Fatalf("sleeps %v, requests %d", clock.Sleeps(), c.get("POST /repos/o/r/git/blobs"))
	}
}

// TestAppTokenRetriesNeverCloseIdleConnections: the App's token requests
// are retried right above the caller's transport (no layer between hides
// its methods), so this is where a CloseIdleConnections from
// go-retryablehttp giving up would land.
func TestAppTokenRetriesNeverCloseIdleConnections(t *testing.T) {
	a := &appServer{t: t, appID: 12, instID: 34, ttl: time.Hour, failTokenTimes: 100}
	srv := newServer(t, a)
	base := &closeCounter{RoundTripper: srv.Client().Transport}
	clock := newFakeClock()
	gh, err := New(context.Background(), WithBaseURL(srv.URL), WithHTTPClient(&http.Client{Transport: base}),
		WithApp(App{ID: 12, PrivateKey: testKeyPEM(t), InstallationID: 34}), WithMaxRetries(2), withSleep(clock.Sleep), withNow(clock.Now))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := gh.Repositories.Get(context.Background(), "o", "r"); err == nil || !strings.Contains(err.Error(), "installation 34") {
		t.Fatalf("err = %v, want the token exchange's failure", err)
	}
	if a.failTokenTimes != 97 {
		t.Fatalf("token requests: %d, want 3", 100-a.failTokenTimes)
	}
	if n := base.closed.Load(); n != 0 {
		t.Fatalf("the caller's transport had its idle connections closed %d times", n)
	}
}
