package ghclient

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/githubtest"
	"github.com/google/go-github/v66/github"
)

// paceSetup starts the fake on clock, behind a log of arrival times, and
// returns n clients with opts on the same token.
func paceSetup(t *testing.T, clock *fakeClock, n int, opts ...Option) ([]*github.Client, *timedLog) {
	t.Helper()
	_, ghs, log := paceFake(t, clock, n, opts...)
	return ghs, log
}

// paceFake is paceSetup, and the fake itself (for its faults).
func paceFake(t *testing.T, clock *fakeClock, n int, opts ...Option) (*githubtest.Server, []*github.Client, *timedLog) {
	t.Helper()
	fake := githubtest.New(githubtest.WithToken(fakeToken), githubtest.WithNow(clock.Now))
	if err := fake.CreateRepo("o", "r", false); err != nil {
		t.Fatal(err)
	}
	if _, err := fake.Seed("o", "r", "main", "seed", githubtest.File{Path: "README.md", Content: []byte("hi\n")}); err != nil {
		t.Fatal(err)
	}
	log := &timedLog{clock: clock}
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.add(r)
		fake.ServeHTTP(w, r)
	}))
	sets := make([][]Option, n)
	for i := range sets {
		sets[i] = append([]Option{WithToken(fakeToken)}, opts...)
	}
	return fake, clientsOn(t, srv.URL, srv.Client(), clock, sets...), log
}

func writeBlobs(t *testing.T, ghs []*github.Client, n int) {
	t.Helper()
	for i := range n {
		gh := ghs[i%len(ghs)]
		_, _, err := gh.Git.CreateBlob(context.Background(), "o", "r", &github.Blob{Content: github.String(fmt.Sprint(i)), Encoding: github.String("utf-8")})
		if err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
	}
}

// assertWindows fails if more than n of the sorted times fall in any
// window of length d.
func assertWindows(t *testing.T, at []time.Time, n int, d time.Duration) {
	t.Helper()
	for i := 0; i+n < len(at); i++ {
		if at[i+n].Sub(at[i]) < d {
			t.Fatalf("writes %d..%d within %v (%v to %v): more than %d in a %v window", i, i+n, at[i+n].Sub(at[i]), at[i], at[i+n], n, d)
		}
	}
}

// TestWritePacingDefaults runs the default pacer on a fake clock: no
// minute holds more than 80 writes, no hour more than 500, the first 8 go
// at once and the rest are spaced 60s/80 apart.
func TestWritePacingDefaults(t *testing.T) {
	clock := newFakeClock()
	ghs, log := paceSetup(t, clock, 1)
	t0 := clock.Now()
	writeBlobs(t, ghs, 620)
	at := log.get("POST /repos/o/r/git/blobs " + fakeToken)
	if len(at) != 620 {
		t.Fatalf("%d writes arrived", len(at))
	}
	for i := range 8 {
		if !at[i].Equal(t0) {
			t.Fatalf("write %d of the burst waited until %v", i, at[i])
		}
	}
	if d := at[9].Sub(at[8]); d != 750*time.Millisecond {
		t.Fatalf("writes after the burst %v apart, want 750ms", d)
	}
	assertWindows(t, at, 80, time.Minute)
	assertWindows(t, at, 500, time.Hour)
	if d := at[500].Sub(t0); d < time.Hour {
		t.Fatalf("write 501 after %v, want an hour", d)
	}
	t.Logf("simulated: writes 1-8 at 0s, write 80 at %v, write 500 at %v, write 501 at %v, write 620 at %v",
		at[79].Sub(t0), at[499].Sub(t0), at[500].Sub(t0), at[619].Sub(t0))
}

// TestWritePacingIsShared: writes of two clients with the same token count
// together.
func TestWritePacingIsShared(t *testing.T) {
	clock := newFakeClock()
	ghs, log := paceSetup(t, clock, 2)
	writeBlobs(t, ghs, 200)
	at := log.get("POST /repos/o/r/git/blobs " + fakeToken)
	if len(at) != 200 {
		t.Fatalf("%d writes", len(at))
	}
	assertWindows(t, at, 80, time.Minute)
}

// TestWritePacingScaledAndOff: the limit scale shortens the windows (the
// counts stay), RateLimits{Pacing: &Pacing{}} turns pacing off, and reads are
// never paced.
func TestWritePacingScaledAndOff(t *testing.T) {
	t.Run("scaled", func(t *testing.T) {
		clock := newFakeClock()
		ghs, log := paceSetup(t, clock, 1, withLimitScale(100))
		writeBlobs(t, ghs, 520)
		at := log.get("POST /repos/o/r/git/blobs " + fakeToken)
		assertWindows(t, at, 80, 600*time.Millisecond)
		assertWindows(t, at, 500, 36*time.Second)
		if d := at[500].Sub(at[0]); d > 40*time.Second {
			t.Fatalf("scaled hour window took %v", d)
		}
	})
	t.Run("off", func(t *testing.T) {
		clock := newFakeClock()
		ghs, _ := paceSetup(t, clock, 1, WithRateLimits(RateLimits{Pacing: &Pacing{}}))
		writeBlobs(t, ghs, 200)
		if s := clock.Sleeps(); len(s) != 0 {
			t.Fatalf("slept %d times with pacing off", len(s))
		}
	})
	t.Run("reads", func(t *testing.T) {
		clock := newFakeClock()
		ghs, _ := paceSetup(t, clock, 1)
		for i := range 200 {
			if _, _, err := ghs[0].Git.GetRef(context.Background(), "o", "r", "heads/main"); err != nil {
				t.Fatalf("read %d: %v", i, err)
			}
		}
		if s := clock.Sleeps(); len(s) != 0 {
			t.Fatalf("reads paced: %d sleeps", len(s))
		}
	})
}

func TestWritePacingOptionValidation(t *testing.T) {
	for _, o := range []Option{pacing(-1, 1, 1), pacing(80, 0, 500), pacing(10, 11, 0),
		withLimitScale(0), withLimitScale(-1), WithETagCache(-1)} {
		if _, err := NewHTTPClient(context.Background(), o); err == nil {
			t.Errorf("option accepted")
		}
	}
}

func TestIsWrite(t *testing.T) {
	for _, tc := range []struct {
		method, rel, body string
		want              bool
	}{
		{"GET", "/repos/o/r/git/ref/heads/main", "", false},
		{"HEAD", "/repos/o/r", "", false},
		{"POST", "/repos/o/r/git/blobs", `{}`, true},
		{"PATCH", "/repos/o/r/git/refs/heads/main", `{}`, true},
		{"PUT", "/repos/o/r/contents/a", `{}`, true},
		{"DELETE", "/repos/o/r/git/refs/heads/x", "", true},
		{"POST", "/graphql", `{"query":"query { viewer { login } }"}`, false},
		{"POST", "/graphql", `{"query":"{ viewer { login } }"}`, false},
		{"POST", "/graphql", `{"query":"mutation ($input: CreateCommitOnBranchInput!) { createCommitOnBranch(input: $input) { commit { oid } } }"}`, true},
		{"POST", "/api/graphql", `{"query":"mutation { x }"}`, true},
		{"POST", "/api/graphql", `{"query":"query { x }"}`, false},
		// A path lookup whose variables name a file "mutation.yaml" is a
		// query; so is a query whose field names say mutation.
		{"POST", "/graphql", `{"query":"query Paths($p0: String!) { repository(owner: \"o\", name: \"r\") { object(expression: $p0) { id } } }","variables":{"p0":"main:deploy/mutation.yaml"}}`, false},
		{"POST", "/graphql", `{"query":"# a mutation follows? no\nquery { mutationCount: viewer { login } }"}`, false},
		{"POST", "/graphql", `{"variables":{"x":"mutation"},"query":"query Q { viewer { login } }"}`, false},
		// A document with a mutation after a fragment, or in lower case
		// anywhere at the top level, is a write; an unreadable one too.
		{"POST", "/graphql", `{"query":"fragment F on Commit { oid }\nmutation M { updateRefs(input: {}) { clientMutationId } }"}`, true},
		{"POST", "/graphql", `{"query":  "\n  mutation UpdateRefs($input: UpdateRefsInput!) { updateRefs(input: $input) { clientMutationId } }"}`, true},
		{"POST", "/graphql", `{"query":`, true},
		{"POST", "/graphql", `not json`, true},
	} {
		req, _ := http.NewRequest(tc.method, "https://api.github.com"+tc.rel, strings.NewReader(tc.body))
		if got := isWrite(req, tc.rel); got != tc.want {
			t.Errorf("%s %s %s: write %v, want %v", tc.method, tc.rel, tc.body, got, tc.want)
		}
	}
}

// TestConcurrentWritesShareOneCredential runs many writers on one
// credential at once, with pacing on and a sleep that returns at once:
// no race, no deadlock, and every write gets its own slot.
func TestConcurrentWritesShareOneCredential(t *testing.T) {
	clock := newFakeClock()
	ghs, log := paceSetup(t, clock, 4, withSleep(func(ctx context.Context, _ time.Duration) error { return ctx.Err() }))
	var wg sync.WaitGroup
	for i := range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _, err := ghs[i%4].Git.CreateBlob(context.Background(), "o", "r", &github.Blob{Content: github.String(fmt.Sprint(i)), Encoding: github.String("utf-8")})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if n := len(log.get("POST /repos/o/r/git/blobs " + fakeToken)); n != 200 {
		t.Fatalf("%d writes arrived", n)
	}
}

// pacing is WithRateLimits with only the write pacer set.
func pacing(perMinute, burst, perHour int) Option {
	return WithRateLimits(RateLimits{Pacing: &Pacing{PerMinute: perMinute, Burst: burst, PerHour: perHour}})
}
