package ghclient

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	neturl "net/url"
	"os"
	"os/exec"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/githubtest"
	"github.com/google/go-github/v66/github"
	"github.com/hashicorp/go-retryablehttp"
)

// fakeChildEnv makes the test binary serve the fake (behind blobGateway)
// instead of running tests, so that a benchmark measures the client's
// heap alone.
const fakeChildEnv = "GHCLIENT_TEST_FAKE_CHILD"

// testChildren are other roles the test binary plays, as a child process
// of a test, when their environment variable is set.
var testChildren = map[string]func(){}

func TestMain(m *testing.M) {
	if os.Getenv(fakeChildEnv) == "1" {
		serveFakeChild()
		return
	}
	for env, run := range testChildren {
		if os.Getenv(env) != "" {
			run()
			return
		}
	}
	os.Exit(m.Run())
}

// serveFakeChild serves the fake holding o/r on a loopback port, prints
// its URL and serves until stdin closes.
func serveFakeChild() {
	fake := githubtest.New(githubtest.WithToken(fakeToken))
	if err := fake.CreateRepo("o", "r", false); err != nil {
		panic(err)
	}
	if _, err := fake.Seed("o", "r", "main", "seed", githubtest.File{Path: "README.md", Content: []byte("hi\n")}); err != nil {
		panic(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	var received atomic.Int64
	go func() { _ = http.Serve(ln, blobGateway(fake, &received)) }()
	fmt.Printf("http://%s/\n", ln.Addr())
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
}

// startFakeProcess runs serveFakeChild in a child process.
func startFakeProcess(b *testing.B) string {
	b.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), fakeChildEnv+"=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = stdin.Close(); _ = cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		b.Fatalf("fake child: %v", err)
	}
	return strings.TrimSpace(line)
}

// peakHeap runs f and returns the most heap it saw in use above what was
// in use before, sampled every millisecond.
func peakHeap(f func()) uint64 {
	runtime.GC()
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	base := s[0].Value.Uint64()
	var peak atomic.Uint64
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		for {
			metrics.Read(s)
			if v := s[0].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	f()
	close(done)
	<-stopped
	if p := peak.Load(); p > base {
		return p - base
	}
	return 0
}

// BenchmarkStreamedUploadRetried uploads a 100 MB blob, streamed from
// GetBody, to the fake running in another process, which answers the
// first attempt 502 after reading it whole; the retry lands. It reports
// the client's peak heap above its baseline (peak-heap-MB). The
// "FromRequest" case is go-retryablehttp used as its own RoundTripper
// would use it (FromRequest reads the body into memory to rewind it), to
// show what the ghclient layer avoids.
//
//	go test -run '^$' -bench StreamedUploadRetried -benchtime 3x ./committer/ghclient/
func BenchmarkStreamedUploadRetried(b *testing.B) {
	url := startFakeProcess(b)
	const size = 100_000_002 // content bytes, a multiple of 3: 133 MB on the wire
	ghc, err := New(context.Background(), WithBaseURL(url), WithToken(fakeToken), WithRateLimits(RateLimits{Pacing: &Pacing{}}),
		withSleep(func(context.Context, time.Duration) error { return nil }))
	if err != nil {
		b.Fatal(err)
	}
	rc := &retryablehttp.Client{HTTPClient: &http.Client{}, RetryMax: 4, CheckRetry: CheckRetry,
		Backoff: func(time.Duration, time.Duration, int, *http.Response) time.Duration { return 0 }}
	naive := github.NewClient(&http.Client{Transport: &retryablehttp.RoundTripper{Client: rc}}).WithAuthToken(fakeToken)
	if naive.BaseURL, err = neturl.Parse(url); err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		gh   *github.Client
	}{{"ghclient", ghc}, {"FromRequest", naive}} {
		b.Run(tc.name, func(b *testing.B) {
			var peak uint64
			var received atomic.Int64 // unused: the child counts its own
			for b.Loop() {
				s := &streamedBlob{size: size, received: &received, slack: 1 << 62}
				var blob github.Blob
				var err error
				p := peakHeap(func() { _, err = tc.gh.Do(context.Background(), s.request(b, tc.gh), &blob) })
				if err != nil {
					b.Fatal(err)
				}
				if blob.GetSHA() != s.sha() {
					b.Fatalf("blob %s, want %s", blob.GetSHA(), s.sha())
				}
				if s.getBody.Load() < 1 && tc.name == "ghclient" {
					b.Fatal("not retried")
				}
				peak = max(peak, p)
			}
			b.ReportMetric(float64(peak)/1e6, "peak-heap-MB")
			b.SetBytes(2 * s0(size))
		})
	}
}

func s0(size int64) int64 { return (&streamedBlob{size: size}).length() }
