package committer_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
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
	copts := []ghclient.Option{ghclient.WithToken(token), ghclient.WithBaseURL(ts.URL), ghclient.WithWritePacing(0, 0, 0), ghclient.WithSleep(noSleep)}
	if rt != nil {
		copts = append(copts, ghclient.WithHTTPClient(&http.Client{Transport: rt}))
	}
	hc, err := ghclient.NewHTTPClient(context.Background(), copts...)
	must(t, err)
	c, err := committer.New(owner, repo, append([]committer.Option{committer.WithHTTPClient(hc), committer.WithSleep(noSleep)}, opts...)...)
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
	observe := committer.WithObserver(func(e committer.Event) {
		if e.Kind == committer.EventLostRace {
			lost.Add(1)
		}
	})
	const n = 20
	results := make([]*committer.Result, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := tokenClient(t, ts, "one-token", nil, observe)
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
