package githubtest

import (
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/wire"
)

// fakeClock is a settable clock for WithNow.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{now: time.Unix(1_800_000_000, 0)} }
func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}
func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func isSecondary(t *testing.T, r reply) {
	t.Helper()
	if r.Status != 403 && r.Status != 429 {
		t.Fatalf("status %d, want 403 or 429: %s", r.Status, r.Raw)
	}
	if r.str(t, "message") != msgSecondary || !strings.HasSuffix(r.str(t, "documentation_url"), "secondary-rate-limits") {
		t.Fatalf("not GitHub's secondary-limit body: %s", r.Raw)
	}
	if r.Header.Get("X-RateLimit-Remaining") == "0" {
		t.Fatal("secondary limit with x-ratelimit-remaining 0 (reads as primary)")
	}
}

func blobBody(i int) map[string]any { return map[string]any{"content": "c" + strconv.Itoa(i)} }

func TestLimitsContentPerMinute(t *testing.T) {
	clk := newFakeClock()
	ts, _ := seeded(t, WithNow(clk.Now), WithLimits(Limits{ContentPerMinute: 80, ContentPerHour: 500, Seed: 1, RetryAfter: RetryAfterAlways}))
	for i := range 80 {
		expect(t, call(t, ts, "POST", "/repos/acme/mono/git/blobs", blobBody(i), "Authorization", "token a"), 201, "")
		clk.Add(100 * time.Millisecond)
	}
	r := call(t, ts, "POST", "/repos/acme/mono/git/blobs", blobBody(80), "Authorization", "token a")
	isSecondary(t, r)
	ra, err := strconv.Atoi(r.Header.Get("Retry-After"))
	if err != nil || ra < 50 || ra > 60 {
		t.Fatalf("retry-after %q: want the time until the first write leaves the minute", r.Header.Get("Retry-After"))
	}
	// Reads and other tokens are not content-creating or not this token.
	expect(t, call(t, ts, "GET", "/repos/acme/mono/branches/main", nil, "Authorization", "token a"), 200, "")
	expect(t, call(t, ts, "POST", "/repos/acme/mono/git/blobs", blobBody(81), "Authorization", "token b"), 201, "")
	// A write inside the told window is refused and counted.
	clk.Add(time.Second)
	isSecondary(t, call(t, ts, "POST", "/repos/acme/mono/git/blobs", blobBody(82), "Authorization", "token a"))
	st := ts.LimitStats("a")
	if st.Writes != 82 || st.Limited != 2 || st.WritesLimited != 2 || st.Secondary != 2 || st.WritesInRetryAfter != 1 {
		t.Fatalf("stats %+v", st)
	}
	clk.Add(time.Duration(ra) * time.Second)
	expect(t, call(t, ts, "POST", "/repos/acme/mono/git/blobs", blobBody(83), "Authorization", "token a"), 201, "")
	if st := ts.LimitStats("a"); st.WritesInRetryAfter != 1 {
		t.Fatalf("a write after the window counted inside it: %+v", st)
	}
	if got := ts.AllLimitStats()[TokenID("b")]; got.Writes != 1 || got.Limited != 0 {
		t.Fatalf("token b %+v", got)
	}
}

func TestLimitsContentPerHour(t *testing.T) {
	clk := newFakeClock()
	ts, _ := seeded(t, WithNow(clk.Now), WithLimits(GitHubLimits))
	for i := range 500 {
		expect(t, call(t, ts, "POST", "/repos/acme/mono/git/blobs", blobBody(i)), 201, "")
		clk.Add(time.Second) // 60 a minute: under the minute cap
	}
	isSecondary(t, call(t, ts, "POST", "/repos/acme/mono/git/blobs", blobBody(500)))
	clk.Add(time.Hour - 499*time.Second)
	expect(t, call(t, ts, "POST", "/repos/acme/mono/git/blobs", blobBody(501)), 201, "")
}

func TestLimitsPointsPerEndpoint(t *testing.T) {
	clk := newFakeClock()
	ts, head := seeded(t, WithNow(clk.Now), WithLimits(Limits{PointsPerMinute: 900}))
	for range 900 {
		expect(t, call(t, ts, "GET", "/repos/acme/mono/git/commits/"+head, nil), 200, "")
	}
	isSecondary(t, call(t, ts, "GET", "/repos/acme/mono/git/commits/"+head, nil))
	expect(t, call(t, ts, "GET", "/repos/acme/mono/branches/main", nil), 200, "") // another endpoint
	// Writes cost 5 points: 180 fill the endpoint.
	for i := range 180 {
		expect(t, call(t, ts, "POST", "/repos/acme/mono/git/blobs", blobBody(i)), 201, "")
	}
	isSecondary(t, call(t, ts, "POST", "/repos/acme/mono/git/blobs", blobBody(180)))
	clk.Add(time.Minute)
	expect(t, call(t, ts, "GET", "/repos/acme/mono/git/commits/"+head, nil), 200, "")
}

func TestLimitsConcurrent(t *testing.T) {
	ts, _ := seeded(t, WithLimits(Limits{Concurrent: 2}))
	release := make(chan struct{})
	entered := make(chan struct{}, 2)
	ts.Inject(Fault{Route: "GET /repos/{owner}/{repo}/branches/{branch...}", Times: 2,
		Before: func(*http.Request) { entered <- struct{}{}; <-release }})
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			call(t, ts, "GET", "/repos/acme/mono/branches/main", nil)
		}()
	}
	<-entered
	<-entered
	isSecondary(t, call(t, ts, "GET", "/repos/acme/mono", nil))
	close(release)
	wg.Wait()
	expect(t, call(t, ts, "GET", "/repos/acme/mono", nil), 200, "")
}

func TestLimitsPrimaryAndConditional(t *testing.T) {
	clk := newFakeClock()
	ts, _ := seeded(t, WithNow(clk.Now), WithLimits(Limits{Primary: 3, Scale: 60, Seed: 7}))
	r := call(t, ts, "GET", "/repos/acme/mono", nil)
	if r.Header.Get("X-RateLimit-Limit") != "3" || r.Header.Get("X-RateLimit-Remaining") != "2" {
		t.Fatalf("headers %v", r.Header)
	}
	reset, _ := strconv.ParseInt(r.Header.Get("X-RateLimit-Reset"), 10, 64)
	if d := time.Unix(reset, 0).Sub(clk.Now()); d != time.Minute {
		t.Fatalf("reset in %v, want an hour scaled by 60", d)
	}
	etag := r.Header.Get("ETag")
	for range 5 { // 304s do not count
		if r := call(t, ts, "GET", "/repos/acme/mono", nil, "If-None-Match", etag); r.Status != 304 {
			t.Fatalf("status %d", r.Status)
		}
	}
	expect(t, call(t, ts, "GET", "/repos/acme/mono", nil), 200, "")
	expect(t, call(t, ts, "GET", "/repos/acme/mono", nil), 200, "")
	r = call(t, ts, "GET", "/repos/acme/mono", nil)
	if (r.Status != 403 && r.Status != 429) || r.Header.Get("X-RateLimit-Remaining") != "0" ||
		!strings.HasPrefix(r.str(t, "message"), "API rate limit exceeded for user ID") {
		t.Fatalf("primary: %d %v %s", r.Status, r.Header, r.Raw)
	}
	if st := ts.LimitStats(""); st.Primary != 1 {
		t.Fatalf("stats %+v", st)
	}
	clk.Add(time.Minute)
	expect(t, call(t, ts, "GET", "/repos/acme/mono", nil), 200, "")
}

func TestLimitsScaleAndSeed(t *testing.T) {
	run := func(seed uint64) string {
		clk := newFakeClock()
		ts, _ := seeded(t, WithNow(clk.Now), WithLimits(Limits{ContentPerMinute: 2, Scale: 60, Seed: seed}))
		var out []string
		for i := range 40 {
			r := call(t, ts, "POST", "/repos/acme/mono/git/blobs", blobBody(i))
			out = append(out, strconv.Itoa(r.Status)+"/"+r.Header.Get("Retry-After"))
			clk.Add(100 * time.Millisecond) // a scaled minute is 1 s
		}
		st := ts.LimitStats("")
		if st.WritesAfterBare+st.WritesInRetryAfter == 0 {
			t.Fatalf("no write counted inside a window: %+v", st)
		}
		return strings.Join(out, " ")
	}
	a, b := run(3), run(3)
	t.Log(a)
	if a != b {
		t.Fatalf("same seed, different answers:\n%s\n%s", a, b)
	}
	for _, want := range []string{"201/", "403/", "429/", "403/1", "429/1"} {
		if !strings.Contains(a+" ", want+" ") && !strings.Contains(a, want) {
			t.Fatalf("answers lack %q: %s", want, a)
		}
	}
	if !strings.Contains(a+" ", "403/ ") && !strings.Contains(a+" ", "429/ ") {
		t.Fatalf("retry-after always present: %s", a)
	}
}

func TestLimitsInjectedFaultsCounted(t *testing.T) {
	ts, _ := seeded(t)
	ts.SecondaryRateLimit("", 30, 1)
	r := call(t, ts, "POST", "/repos/acme/mono/git/blobs", blobBody(1))
	isSecondary(t, r)
	expect(t, call(t, ts, "POST", "/repos/acme/mono/git/blobs", blobBody(2)), 201, "")
	if st := ts.LimitStats(""); st.Secondary != 1 || st.WritesInRetryAfter != 1 {
		t.Fatalf("stats %+v", st)
	}
}

func TestChargeMutation(t *testing.T) {
	clk := newFakeClock()
	ts, _ := seeded(t, WithNow(clk.Now), WithLimits(Limits{ContentPerMinute: 1}))
	// Registered apart from the real GraphQL route (helper-free): any route
	// ending in /graphql draws on the GraphQL budgets.
	ts.mux.HandleFunc("POST /_test/graphql", func(w http.ResponseWriter, r *http.Request) {
		if !ts.chargeMutation(w, r) {
			return
		}
		wire.WriteJSON(w, r, 200, obj{"data": obj{}})
	})
	r := call(t, ts, "POST", "/_test/graphql", `{"query":"mutation{}"}`)
	expect(t, r, 200, "")
	if r.Header.Get("X-RateLimit-Resource") != "graphql" {
		t.Fatalf("resource %q", r.Header.Get("X-RateLimit-Resource"))
	}
	isSecondary(t, call(t, ts, "POST", "/_test/graphql", `{"query":"mutation{}"}`))
	if st := ts.LimitStats(""); st.Writes != 2 || st.WritesLimited != 1 {
		t.Fatalf("stats %+v", st)
	}
	// A REST write is content-creating too and finds the budget spent.
	isSecondary(t, call(t, ts, "POST", "/repos/acme/mono/git/blobs", blobBody(1)))
}

func TestLimitStatsRoute(t *testing.T) {
	ts, _ := seeded(t, WithToken("secret"))
	call(t, ts, "POST", "/repos/acme/mono/git/blobs", blobBody(1), "Authorization", "token secret")
	r := call(t, ts, "GET", "/_githubtest/limits", nil)
	expect(t, r, 200, "")
	if strings.Contains(string(r.Raw), "secret") || r.obj(t)[TokenID("secret")] == nil {
		t.Fatalf("stats %s", r.Raw)
	}
}

func TestLimitsScaledRetryAfterIsRealTime(t *testing.T) {
	clk := newFakeClock()
	ts, _ := seeded(t, WithNow(clk.Now), WithLimits(Limits{ContentPerMinute: 1, ContentPerHour: 2, Scale: 60, RetryAfter: RetryAfterAlways}))
	expect(t, call(t, ts, "POST", "/repos/acme/mono/git/blobs", blobBody(0)), 201, "")
	clk.Add(250 * time.Millisecond) // a quarter of the scaled minute
	r := call(t, ts, "POST", "/repos/acme/mono/git/blobs", blobBody(1))
	isSecondary(t, r)
	if ra := r.Header.Get("Retry-After"); ra != "1" {
		t.Fatalf("retry-after %q, want 1 (0.75 s rounded up)", ra)
	}
	clk.Add(900 * time.Millisecond) // the window has room, but inside the second told
	expect(t, call(t, ts, "POST", "/repos/acme/mono/git/blobs", blobBody(2)), 201, "")
	if st := ts.LimitStats(""); st.WritesInRetryAfter != 1 {
		t.Fatalf("stats %+v", st)
	}
	// The hour cap (2) is full for a scaled hour, 60 s: retry-after says so.
	clk.Add(2 * time.Second)
	r = call(t, ts, "POST", "/repos/acme/mono/git/blobs", blobBody(3))
	isSecondary(t, r)
	if ra, _ := strconv.Atoi(r.Header.Get("Retry-After")); ra < 55 || ra > 60 {
		t.Fatalf("retry-after %q, want the rest of the 60 s scaled hour", r.Header.Get("Retry-After"))
	}
}

func TestLimitsOwnRetryAfterPerClient(t *testing.T) {
	clk := newFakeClock()
	ts, _ := seeded(t, WithNow(clk.Now), WithLimits(Limits{ContentPerMinute: 1, RetryAfter: RetryAfterAlways}))
	write := func(client string, i int) reply {
		return call(t, ts, "POST", "/repos/acme/mono/git/blobs", blobBody(i), "X-Githubtest-Client", client)
	}
	expect(t, write("p1", 0), 201, "")
	isSecondary(t, write("p1", 1)) // p1 is told to wait
	isSecondary(t, write("p2", 2)) // p2 could not know: told too
	isSecondary(t, write("p3", 3))
	isSecondary(t, write("p1", 4)) // p1 ignores what it was told
	st := ts.LimitStats("")
	if st.WritesInRetryAfter != 3 || st.WritesInOwnRetryAfter != 1 {
		t.Fatalf("stats %+v", st)
	}
}
