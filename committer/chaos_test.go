package committer_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
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

// Run one package's chaos tests with a given seed:
//
//	go test -race -run Chaos ./committer/ -chaos.seed=1234 -chaos.trials=5000
var (
	chaosSeedFlag   = flag.Uint64("chaos.seed", 0, "seed of the chaos tests (0: from the clock)")
	chaosTrialsFlag = flag.Int("chaos.trials", 0, "trials per chaos test (0: 1000, or 48 with -short)")
)

// chaosSeed returns the seed for a chaos test and logs it; every failure
// message of the test repeats it (see chaosRun.fail).
func chaosSeed(t *testing.T) uint64 {
	t.Helper()
	seed := *chaosSeedFlag
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("chaos seed %d (rerun: go test -race -run '^%s$' ./committer/ -chaos.seed=%d)", seed, t.Name(), seed)
	return seed
}

func chaosTrials(full, short int) int {
	if *chaosTrialsFlag > 0 {
		return *chaosTrialsFlag
	}
	if testing.Short() {
		return short
	}
	return full
}

// Routes of the fake, as its request log and Fault.Route spell them.
const (
	rtBranch     = "GET /repos/{owner}/{repo}/branches/{branch...}"
	rtGetRef     = "GET /repos/{owner}/{repo}/git/ref/{ref...}"
	rtGetTree    = "GET /repos/{owner}/{repo}/git/trees/{sha...}"
	rtGetBlob    = "GET /repos/{owner}/{repo}/git/blobs/{sha}"
	rtGetCommit  = "GET /repos/{owner}/{repo}/git/commits/{sha}"
	rtBlobs      = "POST /repos/{owner}/{repo}/git/blobs"
	rtTrees      = "POST /repos/{owner}/{repo}/git/trees"
	rtCommits    = "POST /repos/{owner}/{repo}/git/commits"
	rtUpdateRef  = "PATCH /repos/{owner}/{repo}/git/refs/{ref...}"
	rtUpdateRefs = "POST /graphql (updateRefs)" // the strict ref update: a route of chaosRouteOf's own
	rtContentGet = "GET /repos/{owner}/{repo}/contents/{path...}"
	rtGraphQL    = "POST /graphql"
)

// chaosRouteOf maps a request on acme/mono to its route pattern ("" for
// anything else).
func chaosRouteOf(r *http.Request) string {
	if r.Method == http.MethodPost && r.URL.Path == "/graphql" && r.Body != nil {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if bytes.Contains(body, []byte(githubtest.MutationUpdateRefs)) {
			return rtUpdateRefs
		}
		return rtGraphQL // the one-write engines' mutations, path lookups
	}
	rest, ok := strings.CutPrefix(r.URL.Path, "/repos/"+owner+"/"+repo+"/")
	if !ok {
		return ""
	}
	switch m := r.Method; {
	case m == http.MethodGet && strings.HasPrefix(rest, "branches/"):
		return rtBranch
	case m == http.MethodGet && strings.HasPrefix(rest, "git/ref/"):
		return rtGetRef
	case m == http.MethodGet && strings.HasPrefix(rest, "git/trees/"):
		return rtGetTree
	case m == http.MethodGet && strings.HasPrefix(rest, "git/blobs/"):
		return rtGetBlob
	case m == http.MethodGet && strings.HasPrefix(rest, "git/commits/"):
		return rtGetCommit
	case m == http.MethodGet && strings.HasPrefix(rest, "contents/"):
		return rtContentGet
	case m == http.MethodPost && rest == "git/blobs":
		return rtBlobs
	case m == http.MethodPost && rest == "git/trees":
		return rtTrees
	case m == http.MethodPost && rest == "git/commits":
		return rtCommits
	case m == http.MethodPatch && strings.HasPrefix(rest, "git/refs/"):
		return rtUpdateRef
	}
	return ""
}

// chaosMonkey wraps the fake: before a request reaches it, it may arm a
// one-shot githubtest.Fault for that request's route (5xx, a dropped reply
// after the write applied, a secondary rate limit or 429 with Retry-After,
// latency, or another writer moving the branch just before a ref update).
// Concurrent requests on one route may take each other's fault; that is
// chaos too.
type chaosMonkey struct {
	srv  *githubtest.Server
	rate float64 // probability that a request gets a fault

	mu     sync.Mutex
	rng    *rand.Rand
	armed  map[string]int // fault kind -> count
	ext    []githubtest.File
	extErr []error
}

func newChaosMonkey(srv *githubtest.Server, seed uint64, rate float64) *chaosMonkey {
	return &chaosMonkey{srv: srv, rate: rate, rng: rand.New(rand.NewPCG(seed, 0x6d6f6e6b6579)), armed: map[string]int{}}
}

func (m *chaosMonkey) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if route := chaosRouteOf(r); route != "" {
		m.arm(r.Method, route)
	}
	m.srv.ServeHTTP(w, r)
}

func (m *chaosMonkey) arm(method, route string) {
	m.mu.Lock()
	if m.rng.Float64() >= m.rate {
		m.mu.Unlock()
		return
	}
	k := m.rng.IntN(100)
	status := []int{500, 502, 503, 504}[m.rng.IntN(4)]
	latency := time.Duration(1+m.rng.IntN(3)) * time.Millisecond
	write := method != http.MethodGet
	var kind string
	switch {
	case k < 25:
		kind = "5xx"
	case k < 50 && write:
		kind = "drop"
	// Rate limits on the ref update are left to TestRefUpdateSecondaryRateLimit:
	// go-github remembers a Retry-After it sees and then refuses every request
	// of that client locally until it passes, in wall time.
	case k < 60 && route != rtUpdateRef && route != rtUpdateRefs:
		kind = "secondary"
	case k < 65 && route != rtUpdateRef && route != rtUpdateRefs:
		kind = "429"
	case k < 85 && (route == rtUpdateRef || route == rtUpdateRefs):
		kind = "move"
	case k < 85:
		kind = "drop"
	default:
		kind = "latency"
	}
	m.armed[kind+" "+route]++
	m.mu.Unlock()

	on := githubtest.Fault{Method: method, Route: route, Times: 1}
	if route == rtUpdateRefs {
		on.Route, on.BodyContains = githubtest.RouteGraphQL, githubtest.MutationUpdateRefs
	}
	switch kind {
	case "5xx":
		f := on
		f.Status = status
		m.srv.Inject(f)
	case "drop":
		f := on
		f.DropResponse = true
		m.srv.Inject(f)
	case "secondary":
		m.srv.SecondaryRateLimit(route, 1, 1)
	case "429":
		m.srv.TooManyRequests(route, 1, 1)
	case "latency":
		f := on
		f.Latency = latency
		m.srv.Inject(f)
	case "move":
		f := on
		f.Before = func(*http.Request) {
			m.mu.Lock()
			f := githubtest.File{Path: fmt.Sprintf("ext/%04d.txt", len(m.ext)), Content: []byte(fmt.Sprintf("external writer %d\n", len(m.ext)))}
			m.ext = append(m.ext, f)
			m.mu.Unlock()
			// Seed takes the repository lock; the fault does not hold it.
			if _, err := m.srv.Seed(owner, repo, "main", "external "+f.Path, f); err != nil {
				m.mu.Lock()
				m.extErr = append(m.extErr, err)
				m.mu.Unlock()
			}
		}
		m.srv.Inject(f)
	}
}

func (m *chaosMonkey) summary() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	keys := make([]string, 0, len(m.armed))
	for k := range m.armed {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "\n  %5d  %s", m.armed[k], k)
	}
	return b.String()
}

// chaosTrial is one change set attempt by one writer, and what came of it.
type chaosTrial struct {
	writer, k int
	tag       string // unique; in the commit message and the marker file
	marker    string
	counter   bool              // increments shared/counter.txt
	puts      map[string][]byte // the writer's own files it writes
	deletes   []string          // the writer's own files it deletes

	res     *committer.Result
	err     error
	unknown bool // ErrUnknownOutcome: decided from the branch afterwards
	hung    bool // the call did not return long after its context ended
	landed  bool
}

const chaosCounter = "shared/counter.txt"

func chaosIncr(old []byte, exists bool) ([]byte, error) {
	n := 0
	if exists {
		var err error
		if n, err = strconv.Atoi(strings.TrimSpace(string(old))); err != nil {
			return nil, fmt.Errorf("counter holds %q: %w", old, err)
		}
	}
	return []byte(strconv.Itoa(n+1) + "\n"), nil
}

// next draws writer w's k-th change set. own holds the writer's files that
// are known to be on the branch (it deletes only those).
func chaosNext(rng *rand.Rand, w, k int, own map[string][]byte) (*chaosTrial, *committer.ChangeSet) {
	tr := &chaosTrial{writer: w, k: k, tag: fmt.Sprintf("[trial w%d k%d]", w, k), puts: map[string][]byte{}}
	tr.marker = fmt.Sprintf("markers/w%d/k%04d", w, k)
	cs := committer.NewChangeSet("chaos " + tr.tag)
	cs.Put(tr.marker, []byte(tr.tag+"\n"))
	if rng.IntN(100) < 40 {
		tr.counter = true
		cs.Edit(chaosCounter, chaosIncr)
	}
	if rng.IntN(100) < 50 {
		for j := range 1 + rng.IntN(3) {
			p := fmt.Sprintf("w%d/d%d/t%04d-%d.txt", w, rng.IntN(3), k, j)
			c := []byte(fmt.Sprintf("%s text %d %x\n", tr.tag, j, rng.Uint64()))
			tr.puts[p] = c
		}
	}
	if rng.IntN(100) < 35 {
		c := make([]byte, 16+rng.IntN(4096))
		for i := range c {
			c[i] = byte(rng.UintN(256))
		}
		c[0], c[1] = 0xff, 0xfe // never valid UTF-8: uploaded as a blob
		c = append(c, tr.tag...)
		tr.puts[fmt.Sprintf("w%d/bin/b%04d.bin", w, k)] = c
	}
	if len(own) > 0 && rng.IntN(100) < 35 {
		paths := make([]string, 0, len(own))
		for p := range own {
			paths = append(paths, p)
		}
		slices.Sort(paths)
		for range 1 + rng.IntN(2) {
			p := paths[rng.IntN(len(paths))]
			if !slices.Contains(tr.deletes, p) {
				tr.deletes = append(tr.deletes, p)
			}
		}
	}
	keys := mapsKeys(tr.puts)
	slices.Sort(keys)
	for _, p := range keys {
		cs.Put(p, tr.puts[p])
	}
	for _, p := range tr.deletes {
		cs.Delete(p)
	}
	return tr, cs
}

func mapsKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// chaosRun is one chaos test: a fake behind a chaos monkey, a ghclient
// client, and the trials made through it.
type chaosRun struct {
	t      *testing.T
	seed   uint64
	ts     *githubtest.Server
	url    string
	monkey *chaosMonkey
	base   string // the head before the first trial

	mu     sync.Mutex
	trials []*chaosTrial
}

// bug reports a broken invariant of the given kind ("twice": landed more
// than once; "hang": a call that never returned). Both once were real bugs,
// with deterministic tests of their own (TestLostRefReplyBranchMovedOnLandsOnce,
// TestQueueBuildErrorFinishesEveryJob); the chaos run fails on them.
func (r *chaosRun) bug(kind, format string, args ...any) {
	r.t.Helper()
	r.fail(kind+": "+format, args...)
}

func (r *chaosRun) fail(format string, args ...any) {
	r.t.Helper()
	r.t.Errorf("chaos seed %d: "+format, append([]any{r.seed}, args...)...)
}

func newChaosRun(t *testing.T, rate float64) (*chaosRun, *committer.Committer) {
	t.Helper()
	seed := chaosSeed(t)
	srv := githubtest.New(githubtest.WithNow(aheadClock()))
	if err := srv.CreateRepo(owner, repo, true); err != nil {
		t.Fatal(err)
	}
	monkey := newChaosMonkey(srv, seed, rate)
	hs := httptest.NewServer(monkey)
	t.Cleanup(hs.Close)
	fast := func(ctx context.Context, _ time.Duration) error { return ctx.Err() }
	gh, err := ghclient.New(context.Background(),
		ghclient.WithBaseURL(hs.URL+"/"), ghclient.WithToken("chaos-token"), ghclient.WithHTTPClient(seamed(nil, testseam.Seams{Sleep: fast})),
		ghclient.WithConcurrency(8))
	if err != nil {
		t.Fatal(err)
	}
	c, err := newWith(gh, owner, repo, committer.WithBackoffSleep(fast), committer.WithRetries(12, nil))
	if err != nil {
		t.Fatal(err)
	}
	r := &chaosRun{t: t, seed: seed, ts: srv, url: hs.URL, monkey: monkey}
	r.base, _ = srv.Head(owner, repo, "main")
	return r, c
}

// Each trial's context ends after chaosTimeout; a call that has not returned
// chaosHang after it started is reported as hung.
const (
	chaosTimeout = 30 * time.Second
	chaosHang    = 2 * chaosTimeout
)

func chaosCall(commit func(context.Context, *committer.ChangeSet) (*committer.Result, error), cs *committer.ChangeSet) (*committer.Result, error, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), chaosTimeout)
	defer cancel()
	type out struct {
		res *committer.Result
		err error
	}
	done := make(chan out, 1)
	go func() {
		res, err := commit(ctx, cs)
		done <- out{res, err}
	}()
	timer := time.NewTimer(chaosHang)
	defer timer.Stop()
	select {
	case o := <-done:
		return o.res, o.err, false
	case <-timer.C:
		return nil, errors.New("hung: did not return after its context ended"), true
	}
}

// run makes writers goroutines commit trials change sets in all through
// commit.
func (r *chaosRun) run(writers, trials int, commit func(ctx context.Context, cs *committer.ChangeSet) (*committer.Result, error)) {
	var wg sync.WaitGroup
	for w := range writers {
		n := trials / writers
		if w < trials%writers {
			n++
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(r.seed, uint64(w)+1))
			own := map[string][]byte{} // files known on the branch
			for k := range n {
				tr, cs := chaosNext(rng, w, k, own)
				tr.res, tr.err, tr.hung = chaosCall(commit, cs)
				switch {
				case tr.hung:
					// Not landed (see check); its goroutine is leaked.
				case tr.err == nil:
					tr.landed = true
					for _, p := range tr.deletes {
						delete(own, p)
					}
					for p, c := range tr.puts {
						own[p] = c
					}
				case errors.Is(tr.err, committer.ErrUnknownOutcome):
					// The files it touched are now uncertain: never delete them.
					tr.unknown = true
					for _, p := range tr.deletes {
						delete(own, p)
					}
				}
				r.mu.Lock()
				r.trials = append(r.trials, tr)
				r.mu.Unlock()
			}
		}()
	}
	wg.Wait()
	r.ts.ClearFaults()
}

// check verifies the invariants on the branch after all trials.
func (r *chaosRun) check(squash bool) {
	t := r.t
	t.Helper()
	files, err := r.ts.Files(owner, repo, "main")
	if err != nil {
		t.Fatalf("chaos seed %d: %v", r.seed, err)
	}
	hist, err := r.ts.History(owner, repo, "main")
	if err != nil {
		t.Fatalf("chaos seed %d: %v", r.seed, err)
	}
	inHist := map[string]githubtest.Commit{}
	var msgs strings.Builder
	for _, c := range hist {
		inHist[c.SHA] = c
		msgs.WriteString(c.Message)
		msgs.WriteByte(0)
	}
	all := msgs.String()
	if _, ok := inHist[r.base]; !ok {
		r.fail("the initial head %s is not in the branch's first-parent history: history was rewritten", r.base)
	}

	// Unknown outcomes are decided by the marker; then the model is exact.
	byWriter := map[int][]*chaosTrial{}
	landed, failed, unknown, noops, counter := 0, 0, 0, 0, 0
	for _, tr := range r.trials {
		if tr.unknown {
			_, tr.landed = files[tr.marker]
			unknown++
		}
		byWriter[tr.writer] = append(byWriter[tr.writer], tr)
		if tr.landed {
			landed++
			if tr.counter {
				counter++
			}
		} else {
			failed++
		}
	}
	for _, tr := range r.trials {
		n := strings.Count(all, tr.tag)
		_, hasMarker := files[tr.marker]
		switch {
		case tr.landed:
			if n > 1 {
				r.bug("twice", "%s reported landed (result %+v) but is in %d commits of the first-parent history, want exactly 1", tr.tag, tr.res, n)
			} else if n != 1 {
				r.fail("%s reported landed (result %+v) but is in %d commits of the first-parent history, want exactly 1", tr.tag, tr.res, n)
			}
			if !hasMarker {
				r.fail("%s reported landed but its marker %s is not on the branch", tr.tag, tr.marker)
			}
			if tr.res != nil {
				c, ok := inHist[tr.res.Commit]
				switch {
				case !ok:
					r.fail("%s reported landed as %s, which is not in the branch's first-parent history", tr.tag, tr.res.Commit)
				case tr.res.NoOp:
					noops++
					t.Logf("%s: reported as a no-op (head %s) though this call landed it", tr.tag, tr.res.Commit)
				case !strings.Contains(c.Message, tr.tag):
					r.fail("%s reported landed as %s whose message is %q", tr.tag, tr.res.Commit, c.Message)
				case !squash && len(c.Parents) != 1:
					r.fail("%s: commit %s has parents %v", tr.tag, c.SHA, c.Parents)
				}
			}
		case tr.hung:
			r.bug("hang", "%s: the call never returned, %v after it started, though its context ended after %v (the change set is in %d commits, marker present=%v)", tr.tag, chaosHang, chaosTimeout, n, hasMarker)
		default:
			if n != 0 || hasMarker {
				r.fail("%s reported not landed (%v) but is in %d commits and marker present=%v", tr.tag, tr.err, n, hasMarker)
			}
		}
	}

	// Each writer's own files: replay its landed trials in order.
	for w, trs := range byWriter {
		slices.SortFunc(trs, func(a, b *chaosTrial) int { return a.k - b.k })
		want := map[string][]byte{}
		for _, tr := range trs {
			if !tr.landed {
				continue
			}
			for _, p := range tr.deletes {
				delete(want, p)
			}
			for p, c := range tr.puts {
				want[p] = c
			}
		}
		prefix := fmt.Sprintf("w%d/", w)
		for p, f := range files {
			if strings.HasPrefix(p, prefix) {
				if c, ok := want[p]; !ok {
					r.fail("writer %d: %s is on the branch but no landed trial left it there", w, p)
				} else if string(c) != string(f.Content) {
					r.fail("writer %d: %s has the wrong content", w, p)
				}
			}
		}
		for p := range want {
			if _, ok := files[p]; !ok {
				r.fail("writer %d: %s was written by a landed trial and not deleted, but is missing: lost", w, p)
			}
		}
	}

	// The shared counter counts the landed increments exactly.
	got := 0
	if f, ok := files[chaosCounter]; ok {
		got, err = strconv.Atoi(strings.TrimSpace(string(f.Content)))
		if err != nil {
			r.fail("counter holds %q", f.Content)
		}
	}
	if got != counter {
		r.fail("shared counter = %d, want %d (the number of landed increments)", got, counter)
	}

	// Nothing the external writer committed is lost.
	r.monkey.mu.Lock()
	ext, extErr := slices.Clone(r.monkey.ext), slices.Clone(r.monkey.extErr)
	r.monkey.mu.Unlock()
	for _, err := range extErr {
		r.fail("external writer: %v", err)
	}
	for _, f := range ext {
		if g, ok := files[f.Path]; !ok || string(g.Content) != string(f.Content) {
			r.fail("the external writer's %s is lost", f.Path)
		}
	}
	if _, ok := files["README.md"]; !ok {
		r.fail("README.md from the initial commit is lost")
	}

	// The branch moved only by fast-forward, and only forward.
	for _, u := range r.ts.RefUpdates(owner, repo) {
		if u.Ref == "refs/heads/main" && u.Old != "" && (u.Forced || !u.FastForward || u.New == "") {
			r.fail("refs/heads/main moved %s -> %s: forced=%v fast-forward=%v", u.Old, u.New, u.Forced, u.FastForward)
		}
	}
	t.Logf("trials %d: landed %d, not landed %d (of which unknown %d: decided by marker), reported no-op %d; counter %d; external moves %d; %d commits on main; requests %d",
		len(r.trials), landed, failed, unknown, noops, got, len(ext), len(hist), len(r.ts.Requests()))
	t.Logf("faults armed:%s", r.monkey.summary())
	if landed == 0 {
		r.fail("no trial landed: the fault rate is too high to test anything")
	}
}

// failures lists the errors of trials that did not land, by kind, for the log.
func (r *chaosRun) logFailures() {
	kinds := map[string]int{}
	for _, tr := range r.trials {
		if tr.err == nil {
			continue
		}
		k := "other"
		for _, e := range []error{committer.ErrConflict, committer.ErrUnknownOutcome, committer.ErrPermission, committer.ErrNotFound} {
			if errors.Is(tr.err, e) {
				k = e.Error()
			}
		}
		if kinds[k] == 0 {
			r.t.Logf("first %s failure: %v", k, tr.err)
		}
		kinds[k]++
	}
	r.t.Logf("failures by kind: %v", kinds)
}

func TestChaosCommitter(t *testing.T) {
	r, c := newChaosRun(t, 0.12)
	r.run(4, chaosTrials(1000, 48), func(ctx context.Context, cs *committer.ChangeSet) (*committer.Result, error) {
		return c.Commit(ctx, "main", cs)
	})
	r.logFailures()
	r.check(false)
}

func testChaosQueue(t *testing.T, squash bool) {
	r, c := newChaosRun(t, 0.12)
	var opts []committer.CommitOption
	if squash {
		opts = append(opts, committer.Squash())
	}
	q, err := committer.NewQueue(c, "main", opts...)
	if err != nil {
		t.Fatal(err)
	}
	r.run(6, chaosTrials(1000, 36), q.Commit)
	r.logFailures()
	r.check(squash)
}

func TestChaosQueueChain(t *testing.T)  { testChaosQueue(t, false) }
func TestChaosQueueSquash(t *testing.T) { testChaosQueue(t, true) }

// lostReplyThenBuiltOn arms the race the chaos tests can hit: the ref
// update is applied but its reply is lost, and another writer commits on top
// of it before the committer reads the ref back to settle the outcome.
func lostReplyThenBuiltOn(ts *githubtest.TestServer) {
	ts.Inject(githubtest.Fault{Method: http.MethodPatch, Route: rtUpdateRef, Times: 1, DropResponse: true})
	ts.Inject(githubtest.Fault{Method: http.MethodGet, Route: rtGetRef, Times: 1, Before: func(*http.Request) {
		_, _ = ts.Seed(owner, repo, "main", "another writer, on top of ours", githubtest.File{Path: "other.txt", Content: []byte("theirs\n")})
	}})
}

// checkLandedOnce checks that the commit with message msg is in main's
// first-parent history exactly once and the counter was incremented once.
func checkLandedOnce(t *testing.T, ts *githubtest.TestServer, msg string) {
	t.Helper()
	hist, err := ts.History(owner, repo, "main")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range hist {
		if strings.Contains(c.Message, msg) {
			n++
		}
	}
	if n != 1 {
		t.Errorf("the change set is in %d commits of main's history, want exactly 1", n)
	}
	if got := readFile(t, ts, "main", chaosCounter); got != "1\n" {
		t.Errorf("counter = %q, want \"1\\n\": the edit was applied more than once", got)
	}
	if got := readFile(t, ts, "main", "other.txt"); got != "theirs\n" {
		t.Errorf("the other writer's file is lost")
	}
}

// TestLostRefReplyBranchMovedOnLandsOnce: when the ref update's reply is
// lost, the committer reads the ref back; if another writer has already
// committed on top of ours, the ref holds a descendant of our commit, not
// our commit, and the change set has landed. Treating it as a lost race
// rebuilds the change set on the new head and lands it a second time.
func TestLostRefReplyBranchMovedOnLandsOnce(t *testing.T) {
	ts, c := setupREST(t)
	lostReplyThenBuiltOn(ts)
	res, err := c.Commit(context.Background(), "main", committer.NewChangeSet("the one and only").Edit(chaosCounter, chaosIncr))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("result: %+v", res)
	checkLandedOnce(t, ts, "the one and only")
	checkFastForwardOnly(t, ts)
}

// TestQueueLostRefReplyBranchMovedOnLandsOnce is the same race through a
// Queue batch.
func TestQueueLostRefReplyBranchMovedOnLandsOnce(t *testing.T) {
	ts, c := setupREST(t)
	q, err := committer.NewQueue(c, "main")
	if err != nil {
		t.Fatal(err)
	}
	lostReplyThenBuiltOn(ts)
	res, err := q.Commit(context.Background(), committer.NewChangeSet("the one and only").Edit(chaosCounter, chaosIncr))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("result: %+v", res)
	checkLandedOnce(t, ts, "the one and only")
	checkFastForwardOnly(t, ts)
}

// TestQueueBuildErrorFinishesEveryJob: when a batch fails part-way through
// building (a tree read, tree creation or commit creation fails after the
// transport's retries), every change set of the batch must get that error.
func TestQueueBuildErrorFinishesEveryJob(t *testing.T) {
	for _, tc := range []struct {
		name   string
		squash bool
		fault  githubtest.Fault
	}{
		// The first job of the second batch fails; the second is stranded.
		{"chain/create-tree", false, githubtest.Fault{Method: http.MethodPost, Route: rtTrees, Skip: 1, Times: 1, Status: 500}},
		{"chain/create-commit", false, githubtest.Fault{Method: http.MethodPost, Route: rtCommits, Skip: 1, Times: 1, Status: 500}},
		// Reading the tree for a delete fails: the whole batch is stranded.
		{"chain/read-tree", false, githubtest.Fault{Method: http.MethodGet, Route: rtGetTree, Times: 1, Status: 500}},
		{"squash/read-tree", true, githubtest.Fault{Method: http.MethodGet, Route: rtGetTree, Times: 1, Status: 500}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts, c := setup(t)
			seed(t, ts, map[string]string{"dir/x.txt": "x\n", "dir/y.txt": "y\n"})
			var opts []committer.CommitOption
			if tc.squash {
				opts = append(opts, committer.Squash())
			}
			q, err := committer.NewQueue(c, "main", opts...)
			if err != nil {
				t.Fatal(err)
			}
			// The first change set's ref update waits until the other two
			// are queued, so that they form the second batch.
			queued := make(chan struct{}, 2)
			ts.Inject(githubtest.Fault{Route: githubtest.RouteGraphQL, BodyContains: githubtest.MutationUpdateRefs, Times: 1, Before: func(*http.Request) {
				<-queued
				<-queued
				time.Sleep(50 * time.Millisecond) // let them reach the queue
			}})
			ts.Inject(tc.fault)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			done := make(chan error, 3)
			commit := func(cs *committer.ChangeSet) {
				_, err := q.Commit(ctx, cs)
				done <- err
			}
			go commit(committer.NewChangeSet("first").Put("first.txt", []byte("1\n")))
			for i, p := range []string{"dir/x.txt", "dir/y.txt"} {
				go func() {
					queued <- struct{}{}
					commit(committer.NewChangeSet(fmt.Sprintf("second batch %d", i)).Delete(p).Put(fmt.Sprintf("n%d.txt", i), []byte("n\n")))
				}()
			}
			timeout := time.After(30 * time.Second)
			for i := range 3 {
				select {
				case err := <-done:
					// Any outcome will do (the contexts end): the test is
					// that every call returns.
					t.Logf("Queue.Commit returned: %v", err)
				case <-timeout:
					t.Fatalf("%d of 3 Queue.Commit calls never returned, though their contexts ended (hung)", 3-i)
				}
			}
			checkFastForwardOnly(t, ts)
		})
	}
}

// TestRefUpdateSecondaryRateLimit: GitHub refused the ref update with a
// secondary rate limit (403 with Retry-After): nothing was applied, so the
// outcome is known (not landed, or landed after waiting) and must not be
// reported as ErrUnknownOutcome.
func TestRefUpdateSecondaryRateLimit(t *testing.T) {
	ts := githubtest.NewServer(t)
	if err := ts.CreateRepo(owner, repo, true); err != nil {
		t.Fatal(err)
	}
	fast := func(ctx context.Context, _ time.Duration) error { return ctx.Err() }
	gh, err := ghclient.New(context.Background(), ghclient.WithBaseURL(ts.URL), ghclient.WithToken("t"), ghclient.WithHTTPClient(seamed(nil, testseam.Seams{Sleep: fast})))
	if err != nil {
		t.Fatal(err)
	}
	c, err := newWith(gh, owner, repo, committer.WithBackoffSleep(fast))
	if err != nil {
		t.Fatal(err)
	}
	before := head(t, ts, "main")
	ts.Inject(githubtest.SecondaryLimitFault(githubtest.Fault{Route: githubtest.RouteGraphQL, BodyContains: githubtest.MutationUpdateRefs, Times: 1}, http.StatusForbidden, 1))
	res, err := c.Commit(context.Background(), "main", committer.NewChangeSet("limited").Put("a.txt", []byte("a\n")))
	switch {
	case err == nil:
		if head(t, ts, "main") != res.Commit {
			t.Fatalf("reported landed as %s but head is %s", res.Commit, head(t, ts, "main"))
		}
	case errors.Is(err, committer.ErrUnknownOutcome):
		t.Fatalf("a ref update refused by a secondary rate limit was reported as an unknown outcome: %v", err)
	default:
		if head(t, ts, "main") != before {
			t.Fatalf("reported not landed (%v) but the branch moved", err)
		}
	}
	checkFastForwardOnly(t, ts)
}

// aheadClock runs a second ahead on every reading, so that the fake's hourly
// primary rate limit (5,000 requests) resets long before a long chaos or
// fuzzing run exhausts it.
func aheadClock() func() time.Time {
	var n atomic.Int64
	start := time.Now()
	return func() time.Time { return start.Add(time.Duration(n.Add(1)) * time.Second) }
}
