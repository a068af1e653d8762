package committer_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/ghclient"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

// tokenClient is a committer whose client is ghclient.NewHTTPClient's for
// token, as a program that makes one client per worker would have.
func tokenClient(t *testing.T, ts *githubtest.TestServer, token string, rt http.RoundTripper, opts ...committer.Option) *committer.Committer {
	t.Helper()
	base := &http.Client{Transport: rt}
	if rt == nil {
		base = nil // NewHTTPClient's own transport
	}
	copts := []ghclient.Option{ghclient.WithToken(token), ghclient.WithBaseURL(ts.URL), pacingOff, ghclient.WithHTTPClient(fast(base))}
	hc, err := ghclient.NewHTTPClient(context.Background(), copts...)
	must(t, err)
	// The coordinator's tests hold and count REST ref updates; the strict
	// update's own tests are in refswap_test.go.
	c, err := committer.New(owner, repo, append([]committer.Option{committer.WithHTTPClient(hc), committer.WithBackoffSleep(noSleep), committer.WithFastForwardRefUpdates()}, opts...)...)
	must(t, err)
	return c
}

// sentBy records, for every commit created and every ref update, the
// Authorization header it was sent with.
type sentBy struct {
	mu      sync.Mutex
	commits map[string]string // message's first line -> Authorization
	refs    []string          // Authorization of each ref update
}

func (s *sentBy) RoundTrip(req *http.Request) (*http.Response, error) {
	auth := req.Header.Get("Authorization")
	switch {
	case req.Method == http.MethodPost && strings.HasSuffix(req.URL.Path, "/git/commits"):
		body, _ := io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(body))
		var c struct{ Message string }
		_ = json.Unmarshal(body, &c)
		first, _, _ := strings.Cut(c.Message, "\n")
		s.mu.Lock()
		s.commits[first] = auth
		s.mu.Unlock()
	case req.Method == http.MethodPatch && strings.Contains(req.URL.Path, "/git/refs/"):
		s.mu.Lock()
		s.refs = append(s.refs, auth)
		s.mu.Unlock()
	}
	return http.DefaultTransport.RoundTrip(req)
}

// TestCoordinatorOneProcessNeverRaces (issue 19.1): 20 writers of one
// process, each with its own client for one token, each putting its own
// file and editing one shared counter, with library defaults. They must
// not race each other: no lost race, every change set lands exactly once
// as its own commit with its own message, and the ref updates are fewer
// than the change sets (batches). Without a coordinator they race at the
// ref update (the first one is held back, so that the others pile up).
func TestCoordinatorOneProcessNeverRaces(t *testing.T) {
	ts := githubtest.NewServer(t)
	must(t, ts.CreateRepo(owner, repo, true))
	seed(t, ts, map[string]string{"counter": "0"})
	ts.Inject(githubtest.Fault{Method: http.MethodPatch, Route: rtUpdateRef, Times: 1, Latency: 200 * time.Millisecond})
	var lost atomic.Int32
	const n = 20
	results := make([]*committer.Result, n)
	errs := make([]error, n)
	landedSeen := make([]atomic.Bool, n) // each caller's own observer sees its landing
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			own := committer.WithObserver(func(e committer.Event) {
				switch e.Kind {
				case committer.EventLanded:
					landedSeen[i].Store(true)
				case committer.EventLostRace:
					lost.Add(1)
				}
			})
			c := tokenClient(t, ts, "one-token", nil, own)
			cs := committer.NewChangeSet(fmt.Sprintf("stage %d", i)).
				Put(fmt.Sprintf("stages/%d.txt", i), []byte(fmt.Sprintf("stage %d\n", i))).
				Edit("counter", incr)
			results[i], errs[i] = c.Commit(context.Background(), "main", cs)
		}()
		time.Sleep(time.Millisecond) // the first one starts alone
	}
	wg.Wait()
	commits := map[string]bool{}
	for i, err := range errs {
		if err != nil {
			t.Fatalf("stage %d: %v", i, err)
		}
		r := results[i]
		if commits[r.Commit] || r.NoOp {
			t.Errorf("stage %d: result %+v is not a commit of its own", i, r)
		}
		commits[r.Commit] = true
		if r.Engine != "git-data" { // alone or batched, the Result names its engine
			t.Errorf("stage %d: Result.Engine %q, want git-data", i, r.Engine)
		}
		if !landedSeen[i].Load() {
			t.Errorf("stage %d: its observer saw no landing", i)
		}
		if got := readFile(t, ts, r.Commit, fmt.Sprintf("stages/%d.txt", i)); got != fmt.Sprintf("stage %d\n", i) {
			t.Errorf("stage %d: its commit holds %q", i, got)
		}
	}
	if got := readFile(t, ts, "main", "counter"); got != strconv.Itoa(n)+"\n" {
		t.Errorf("counter = %q, want %d: an edit was lost or ran twice", got, n)
	}
	if l := lost.Load(); l != 0 {
		t.Errorf("%d lost races between writers of one process", l)
	}
	if refs := ts.Count(rtUpdateRef); refs >= n/2 {
		t.Errorf("%d ref updates for %d change sets: they were not batched", refs, n)
	}
}

// TestCoordinatorCredentialsNeverShareABatch (issue 19.1): writers of two
// credentials on one branch are serialized, never batched together: every
// commit is created, and its ref updated, with its own writer's token, and
// none of them races another.
func TestCoordinatorCredentialsNeverShareABatch(t *testing.T) {
	ts := githubtest.NewServer(t)
	must(t, ts.CreateRepo(owner, repo, true))
	seed(t, ts, map[string]string{"counter": "0"})
	ts.Inject(githubtest.Fault{Method: http.MethodPatch, Route: rtUpdateRef, Times: 1, Latency: 200 * time.Millisecond})
	rec := &sentBy{commits: map[string]string{}}
	var lost atomic.Int32
	observe := committer.WithObserver(func(e committer.Event) {
		if e.Kind == committer.EventLostRace {
			lost.Add(1)
		}
	})
	const n = 12
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			token := []string{"token-a", "token-b"}[i%2]
			c := tokenClient(t, ts, token, rec, observe)
			cs := committer.NewChangeSet(fmt.Sprintf("%s writer %d", token, i)).Edit("counter", incr)
			_, errs[i] = c.Commit(context.Background(), "main", cs)
		}()
		time.Sleep(time.Millisecond)
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("writer %d: %v", i, err)
		}
	}
	if got := readFile(t, ts, "main", "counter"); got != strconv.Itoa(n)+"\n" {
		t.Errorf("counter = %q, want %d", got, n)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for msg, auth := range rec.commits {
		token, _, _ := strings.Cut(msg, " ")
		if !strings.HasSuffix(auth, " "+token) {
			t.Errorf("commit %q was created with %q, not its writer's token", msg, auth)
		}
	}
	if l := lost.Load(); l != 0 {
		t.Errorf("%d lost races between writers of one process", l)
	}
	if len(rec.refs) >= n {
		t.Errorf("%d ref updates for %d change sets of 2 credentials: not batched per credential", len(rec.refs), n)
	}
}

// TestCoordinatorFailingChangeSetTakenOut (issue 19.1): in a batch of
// Commit calls, a change set whose precondition fails gets its own
// ErrConflict and the others land.
func TestCoordinatorFailingChangeSetTakenOut(t *testing.T) {
	ts := githubtest.NewServer(t)
	must(t, ts.CreateRepo(owner, repo, true))
	seed(t, ts, map[string]string{"counter": "0"})
	ts.Inject(githubtest.Fault{Method: http.MethodPatch, Route: rtUpdateRef, Times: 1, Latency: 200 * time.Millisecond})
	const n = 6
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := tokenClient(t, ts, "one-token", nil)
			cs := committer.NewChangeSet(fmt.Sprintf("writer %d", i)).Edit("counter", incr)
			if i == 3 {
				cs.ExpectAbsent("counter")
			}
			_, errs[i] = c.Commit(context.Background(), "main", cs)
		}()
		time.Sleep(time.Millisecond)
	}
	wg.Wait()
	for i, err := range errs {
		switch {
		case i == 3 && !errors.Is(err, committer.ErrConflict):
			t.Errorf("writer 3: err = %v, want its own ErrConflict", err)
		case i != 3 && err != nil:
			t.Errorf("writer %d: %v", i, err)
		}
	}
	if got := readFile(t, ts, "main", "counter"); got != strconv.Itoa(n-1)+"\n" {
		t.Errorf("counter = %q, want %d", got, n-1)
	}
}

// overlapCheck fails t when one create-tree request holds an entry at or
// under another entry of the same request: GitHub's result would then
// depend on the entries' order.
type overlapCheck struct {
	t      *testing.T
	mu     sync.Mutex
	checks int
}

func (o *overlapCheck) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodPost && strings.HasSuffix(req.URL.Path, "/git/trees") {
		body, _ := io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(body))
		var tr struct{ Tree []struct{ Path string } }
		_ = json.Unmarshal(body, &tr)
		o.mu.Lock()
		o.checks++
		o.mu.Unlock()
		for i, a := range tr.Tree {
			for j, b := range tr.Tree {
				if i != j && (a.Path == b.Path || strings.HasPrefix(b.Path, a.Path+"/")) {
					o.t.Errorf("one create-tree request holds %q and %q", a.Path, b.Path)
				}
			}
		}
	}
	return http.DefaultTransport.RoundTrip(req)
}

// TestBatchTreeRequestsNeverOverlap (issue 19.2): a batch whose change
// sets touch one path as a file and then as a directory (a put of a, then
// a's delete and a put of a/c) never sends a tree request holding both a
// and a/c (or a twice), chained or squashed, and the branch ends as the
// change sets applied in order give.
func TestBatchTreeRequestsNeverOverlap(t *testing.T) {
	for _, mode := range []string{"commit", "queue", "squash"} {
		t.Run(mode, func(t *testing.T) {
			ts := githubtest.NewServer(t)
			must(t, ts.CreateRepo(owner, repo, true))
			seed(t, ts, map[string]string{"counter": "0"})
			check := &overlapCheck{t: t}
			c := tokenClient(t, ts, "one-token", check)
			commit := func(cs *committer.ChangeSet) (*committer.Result, error) {
				return c.Commit(context.Background(), "main", cs)
			}
			if mode != "commit" {
				var opts []committer.CommitOption
				if mode == "squash" {
					opts = append(opts, committer.Squash())
				}
				q, err := committer.NewQueue(c, "main", opts...)
				must(t, err)
				commit = func(cs *committer.ChangeSet) (*committer.Result, error) { return q.Commit(context.Background(), cs) }
			}
			ts.Inject(githubtest.Fault{Method: http.MethodPatch, Route: rtUpdateRef, Times: 1, Latency: 200 * time.Millisecond})
			sets := []*committer.ChangeSet{
				committer.NewChangeSet("first").Edit("counter", incr),
				committer.NewChangeSet("a file").Put("a", []byte("file\n")).Put("d/x", []byte("x\n")),
				committer.NewChangeSet("a directory").Delete("a").Put("a/c", []byte("c\n")).Delete("d").Put("d", []byte("now a file\n")),
				committer.NewChangeSet("more").Put("a/e", []byte("e\n")),
			}
			errs := make([]error, len(sets))
			var wg sync.WaitGroup
			for i, cs := range sets {
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, errs[i] = commit(cs)
				}()
				time.Sleep(20 * time.Millisecond)
			}
			wg.Wait()
			for i, err := range errs {
				if err != nil {
					t.Fatalf("change set %d: %v", i, err)
				}
			}
			if ts.Count(rtUpdateRef) != 2 {
				t.Errorf("%d ref updates, want 2 (the first change set, then one batch)", ts.Count(rtUpdateRef))
			}
			for p, want := range map[string]string{"a/c": "c\n", "a/e": "e\n", "d": "now a file\n"} {
				if got := readFile(t, ts, "main", p); got != want {
					t.Errorf("%s = %q, want %q", p, got, want)
				}
			}
		})
	}
}

// TestAutoFallbackRunsEditsOncePerAttempt (issue 19.2): when auto finds on
// the head that only Git Data carries the change set (an edit of an
// executable file, a directory delete), its edit functions still run once
// per attempt, for a single commit and for a pull request's.
func TestAutoFallbackRunsEditsOncePerAttempt(t *testing.T) {
	for _, path := range []string{"commit", "pull request"} {
		for _, tc := range []struct {
			name string
			cs   func(edit committer.EditFunc) *committer.ChangeSet
		}{
			{"executable edit", func(edit committer.EditFunc) *committer.ChangeSet {
				return committer.NewChangeSet("edit").Edit("run.sh", edit)
			}},
			{"directory delete", func(edit committer.EditFunc) *committer.ChangeSet {
				return committer.NewChangeSet("edit").Edit("log", edit).Delete("dir")
			}},
		} {
			t.Run(path+"/"+tc.name, func(t *testing.T) {
				ts, c := setupREST(t)
				_, err := ts.Seed(owner, repo, "main", "seed",
					githubtest.File{Path: "run.sh", Content: []byte("#!/bin/sh\n"), Mode: "100755"},
					githubtest.File{Path: "log", Content: []byte("")},
					githubtest.File{Path: "dir/x", Content: []byte("x\n")})
				must(t, err)
				var calls atomic.Int32
				edit := func(old []byte, _ bool) ([]byte, error) {
					calls.Add(1)
					return append(old, "line\n"...), nil
				}
				var res *committer.Result
				if path == "commit" {
					res, err = engineCommit(t, c, committer.EngineAuto, tc.cs(edit))
				} else {
					var pr *committer.PullRequestResult
					pr, err = c.CommitPullRequest(context.Background(), "main", "feature", tc.cs(edit), committer.PullRequestOptions{}, committer.WithEngine(committer.EngineAuto))
					if pr != nil {
						res = pr.Commit
					}
				}
				must(t, err)
				if res.Engine != committer.EngineGitData.String() {
					t.Errorf("engine %q, want git-data", res.Engine)
				}
				if int(calls.Load()) != res.Attempts {
					t.Errorf("the edit ran %d times in %d attempts", calls.Load(), res.Attempts)
				}
			})
		}
	}
}

// TestCoordinatorExpectHeadGoesAlone (issue 19.1): a commit pinned with
// ExpectHead is never put in a batch (whose head it did not pin): queued
// behind another commit that moves the branch, it is an ErrConflict while
// the unpinned change set beside it lands.
func TestCoordinatorExpectHeadGoesAlone(t *testing.T) {
	ts, c := setupREST(t)
	seed(t, ts, map[string]string{"log": ""})
	pinned := head(t, ts, "main")
	release := make(chan struct{})
	var once sync.Once
	ts.Inject(githubtest.Fault{Method: http.MethodPatch, Route: rtUpdateRef, Before: func(*http.Request) { once.Do(func() { <-release }) }})
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i, opts := range [][]committer.CommitOption{nil, nil, {committer.ExpectHead(pinned)}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = c.Commit(context.Background(), "main", committer.NewChangeSet(fmt.Sprintf("w%d", i)).Edit("log", appendLine(fmt.Sprintf("w%d", i))), opts...)
		}()
		time.Sleep(20 * time.Millisecond)
	}
	close(release)
	wg.Wait()
	if errs[0] != nil || errs[1] != nil {
		t.Fatalf("unpinned: %v, %v", errs[0], errs[1])
	}
	if !errors.Is(errs[2], committer.ErrConflict) {
		t.Fatalf("pinned to a head the branch left: err = %v, want ErrConflict", errs[2])
	}
	if log := readFile(t, ts, "main", "log"); log != "w0\nw1\n" {
		t.Errorf("log = %q", log)
	}
}

// TestCoordinatorQueueAfterCommitNoLostRace: a Queue's batch that follows
// a lone Commit of the same process builds on the head that Commit made,
// not on the head the Queue's own last batch made: no lost race inside
// the process.
func TestCoordinatorQueueAfterCommitNoLostRace(t *testing.T) {
	var lost atomic.Int32
	ts, c := setupREST(t, committer.WithObserver(func(e committer.Event) {
		if e.Kind == committer.EventLostRace {
			lost.Add(1)
		}
	}))
	q, err := committer.NewQueue(c, "main")
	must(t, err)
	for i := range 3 {
		if _, err := q.Commit(context.Background(), committer.NewChangeSet(fmt.Sprintf("q%d", i)).Put(fmt.Sprintf("q%d", i), []byte("q\n"))); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Commit(context.Background(), "main", committer.NewChangeSet(fmt.Sprintf("c%d", i)).Put(fmt.Sprintf("c%d", i), []byte("c\n"))); err != nil {
			t.Fatal(err)
		}
	}
	if n := lost.Load(); n != 0 {
		t.Errorf("%d lost races between one process's Queue and Commit", n)
	}
	if refs := ts.Count(rtUpdateRef); refs != 6 {
		t.Errorf("%d ref updates for 6 commits", refs)
	}
}

// hostSwitch sends every request to the server target names, whatever
// host the request was made for: two fakes behind one API URL, as a
// repository deleted and made anew (or a test's fake on a recycled port)
// looks to a process.
type hostSwitch struct{ target atomic.Pointer[string] }

func (h *hostSwitch) RoundTrip(r *http.Request) (*http.Response, error) {
	u, err := url.Parse(*h.target.Load())
	if err != nil {
		return nil, err
	}
	r = r.Clone(r.Context())
	r.URL.Scheme, r.URL.Host, r.Host = u.Scheme, u.Host, ""
	return http.DefaultTransport.RoundTrip(r)
}

// TestQueueRemembersNoGoneHead: the head a Queue's coordinator remembers
// is a hint; when it is gone from the repository (made anew under the
// same name and API), the next batch reads the branch and lands, instead
// of failing on the missing tree.
func TestQueueRemembersNoGoneHead(t *testing.T) {
	a, b := githubtest.NewServer(t), githubtest.NewServer(t)
	for _, ts := range []*githubtest.TestServer{a, b} {
		if err := ts.CreateRepo(owner, repo, true); err != nil {
			t.Fatal(err)
		}
	}
	sw := &hostSwitch{}
	sw.target.Store(&a.URL)
	const api = "http://api.fake.test/"
	hc, err := ghclient.Wrap(fast(&http.Client{Transport: sw}), api, pacingOff)
	if err != nil {
		t.Fatal(err)
	}
	c, err := committer.New(owner, repo, committer.WithHTTPClient(hc), committer.WithBackoffSleep(noSleep))
	if err != nil {
		t.Fatal(err)
	}
	q, err := committer.NewQueue(c, "main")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := q.Commit(ctx, committer.NewChangeSet("on a").Put("a.txt", []byte("a\n"))); err != nil {
		t.Fatal(err)
	}
	sw.target.Store(&b.URL)
	res, err := q.Commit(ctx, committer.NewChangeSet("on b").Put("b.txt", []byte("b\n")))
	if err != nil {
		t.Fatalf("the batch built on the remembered head, gone from the repository: %v", err)
	}
	if got := head(t, b, "main"); got != res.Commit {
		t.Fatalf("reported %s, head is %s", res.Commit, got)
	}
	if got := readFile(t, b, "main", "b.txt"); got != "b\n" {
		t.Fatalf("b.txt = %q", got)
	}
}
