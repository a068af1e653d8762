package committer_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

func TestConcurrentWritersOwnFiles(t *testing.T) {
	ts, c := setup(t, committer.WithRetries(100, nil))
	start := head(t, ts, "main")
	const n = 16
	var wg sync.WaitGroup
	results := make([]*committer.Result, n)
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cs := committer.NewChangeSet(fmt.Sprintf("writer %d", i)).
				Put(fmt.Sprintf("apps/w%02d/values.yaml", i), []byte(fmt.Sprintf("tag: v%d\n", i)))
			results[i], errs[i] = c.Commit(context.Background(), "main", cs)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("writer %d: %v", i, err)
		}
	}
	hist, err := ts.History(owner, repo, "main")
	if err != nil {
		t.Fatal(err)
	}
	// Linear history: n new commits on top of start, each with one parent.
	if len(hist) < n+1 || hist[n].SHA != start {
		t.Fatalf("history has %d commits; want %d new ones on top of %s", len(hist), n, start)
	}
	seen := map[string]bool{}
	for _, h := range hist[:n] {
		if len(h.Parents) != 1 {
			t.Errorf("commit %s has %d parents", h.SHA, len(h.Parents))
		}
		seen[h.SHA] = true
	}
	for i, r := range results {
		if !seen[r.Commit] {
			t.Errorf("writer %d reported commit %s, not on the branch", i, r.Commit)
		}
		if r.NoOp || r.Attempts < 1 {
			t.Errorf("writer %d: result %+v", i, r)
		}
		if got := readFile(t, ts, "main", fmt.Sprintf("apps/w%02d/values.yaml", i)); got != fmt.Sprintf("tag: v%d\n", i) {
			t.Errorf("writer %d's file = %q", i, got)
		}
	}
	if readFile(t, ts, "main", "README.md") == "" {
		t.Error("README.md from the initial commit was lost")
	}
	checkFastForwardOnly(t, ts)
}

func TestConcurrentEditsOfOneFile(t *testing.T) {
	ts, c := setup(t, committer.WithRetries(200, nil))
	seed(t, ts, map[string]string{"counter.txt": "0\n"})
	const n = 16
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cs := committer.NewChangeSet(fmt.Sprintf("increment %d", i)).Edit("counter.txt", func(old []byte, exists bool) ([]byte, error) {
				if !exists {
					return nil, errors.New("counter.txt vanished")
				}
				v, err := strconv.Atoi(strings.TrimSpace(string(old)))
				if err != nil {
					return nil, err
				}
				return []byte(strconv.Itoa(v+1) + "\n"), nil
			})
			_, err := c.Commit(context.Background(), "main", cs)
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := readFile(t, ts, "main", "counter.txt"); got != "16\n" {
		t.Fatalf("counter = %q, want 16", got)
	}
	checkFastForwardOnly(t, ts)
}

func TestBranchMovedBetweenReadAndUpdate(t *testing.T) {
	ts, c := setup(t)
	ts.MoveBranchBeforeNextUpdate(owner, repo, "main", githubtest.File{Path: "other.txt", Content: []byte("theirs\n")})
	res, err := c.Commit(context.Background(), "main", committer.NewChangeSet("ours").Put("ours.txt", []byte("ours\n")))
	if err != nil {
		t.Fatal(err)
	}
	if res.Attempts != 2 {
		t.Errorf("attempts = %d, want 2", res.Attempts)
	}
	if readFile(t, ts, "main", "other.txt") != "theirs\n" || readFile(t, ts, "main", "ours.txt") != "ours\n" {
		t.Fatal("one of the two commits is missing from the branch")
	}
	if head(t, ts, "main") != res.Commit {
		t.Fatalf("head is not our commit")
	}
	checkFastForwardOnly(t, ts)
}

func TestRefUpdateResponseLost(t *testing.T) {
	ts, c := setupREST(t)
	before := head(t, ts, "main")
	ts.Inject(githubtest.Fault{Method: "PATCH", Route: "PATCH /repos/{owner}/{repo}/git/refs/{ref...}", Times: 1, DropResponse: true})
	res, err := c.Commit(context.Background(), "main", committer.NewChangeSet("lost reply").Put("a.txt", []byte("a\n")))
	if err != nil {
		t.Fatal(err)
	}
	if res.NoOp || head(t, ts, "main") != res.Commit {
		t.Fatalf("result %+v, head %s", res, head(t, ts, "main"))
	}
	hist, _ := ts.History(owner, repo, "main")
	if hist[1].SHA != before {
		t.Fatalf("want exactly one new commit on top of %s", before)
	}
	if n := ts.Count("PATCH /repos/{owner}/{repo}/git/refs/{ref...}"); n != 1 {
		t.Fatalf("PATCH sent %d times, want 1 (never re-sent blindly)", n)
	}
}

func TestRefUpdate502NotLanded(t *testing.T) {
	ts, c := setupREST(t)
	ts.Inject(githubtest.Fault{Method: "PATCH", Route: "PATCH /repos/{owner}/{repo}/git/refs/{ref...}", Times: 1, Status: 502})
	res, err := c.Commit(context.Background(), "main", committer.NewChangeSet("after 502").Put("a.txt", []byte("a\n")))
	if err != nil {
		t.Fatal(err)
	}
	if res.Attempts != 2 || head(t, ts, "main") != res.Commit {
		t.Fatalf("result %+v", res)
	}
	// The request right after the PATCH reads the ref back. (The next
	// attempt, after a write that did not land, reads it again before
	// writing: see TestMovedBranchSpendsNoWrites.)
	log := ts.Requests()
	readBack := false
	for i, r := range log[:len(log)-1] {
		if r.Method == "PATCH" {
			readBack = log[i+1].Route == "GET /repos/{owner}/{repo}/git/ref/{ref...}"
			break
		}
	}
	if !readBack {
		t.Errorf("the ref was not read back after the 502: %v", routes(ts))
	}
}

func TestPreconditionFailed(t *testing.T) {
	ts, c := setup(t)
	seed(t, ts, map[string]string{"lock.txt": "held\n"})
	before := head(t, ts, "main")
	cs := committer.NewChangeSet("guarded").ExpectAbsent("lock.txt").Put("x.txt", []byte("x"))
	_, err := c.Commit(context.Background(), "main", cs)
	if !errors.Is(err, committer.ErrConflict) {
		t.Fatalf("err = %v, want ErrConflict", err)
	}
	var ce *committer.Error
	if !errors.As(err, &ce) || ce.Path != "lock.txt" {
		t.Fatalf("error does not name the path: %v", err)
	}
	cs = committer.NewChangeSet("guarded").ExpectBlob("lock.txt", committer.BlobSHA([]byte("other\n"))).Put("x.txt", []byte("x"))
	if _, err := c.Commit(context.Background(), "main", cs); !errors.Is(err, committer.ErrConflict) {
		t.Fatalf("err = %v, want ErrConflict", err)
	}
	if head(t, ts, "main") != before {
		t.Fatal("branch moved")
	}
	if n := ts.Count("POST /repos/{owner}/{repo}/git/commits"); n != 0 {
		t.Fatalf("%d commits created", n)
	}
	// The matching precondition passes.
	cs = committer.NewChangeSet("guarded").ExpectBlob("lock.txt", committer.BlobSHA([]byte("held\n"))).Put("x.txt", []byte("x"))
	if _, err := c.Commit(context.Background(), "main", cs); err != nil {
		t.Fatal(err)
	}
}

func TestAttemptsExhausted(t *testing.T) {
	ts, c := setupREST(t, committer.WithRetries(3, nil))
	i := 0
	ts.Inject(githubtest.Fault{Method: "PATCH", Route: "PATCH /repos/{owner}/{repo}/git/refs/{ref...}", Before: func(*http.Request) {
		i++
		if _, err := ts.Seed(owner, repo, "main", "they win", githubtest.File{Path: fmt.Sprintf("win%d", i), Content: []byte("x")}); err != nil {
			t.Error(err)
		}
	}})
	_, err := c.Commit(context.Background(), "main", committer.NewChangeSet("loser").Put("mine.txt", []byte("m")))
	if !errors.Is(err, committer.ErrConflict) {
		t.Fatalf("err = %v, want ErrConflict", err)
	}
	var ce *committer.Error
	if !errors.As(err, &ce) || ce.Attempts != 3 || ce.Head == "" {
		t.Fatalf("error = %#v", ce)
	}
	if !strings.Contains(err.Error(), "3 attempts") {
		t.Errorf("message does not give the attempt count: %v", err)
	}
	if _, _, err := ts.ReadFile(owner, repo, "main", "mine.txt"); err == nil {
		t.Fatal("the losing change landed")
	}
	checkFastForwardOnly(t, ts)
}

func TestNoOp(t *testing.T) {
	ts, c := setup(t)
	seed(t, ts, map[string]string{"a.txt": "same\n"})
	before := head(t, ts, "main")
	ts.ResetRequests()
	res, err := c.Commit(context.Background(), "main", committer.NewChangeSet("nothing").Put("a.txt", []byte("same\n")).Delete("absent.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if !res.NoOp || res.Commit != before || head(t, ts, "main") != before {
		t.Fatalf("result %+v", res)
	}
	if ts.Count("POST /repos/{owner}/{repo}/git/commits") != 0 || ts.CountMethod("PATCH") != 0 {
		t.Fatal("a no-op created a commit or updated the ref")
	}
}

func TestObserverReportsEachStep(t *testing.T) {
	var (
		mu     sync.Mutex
		events []committer.Event
	)
	// Waits of a second or more (the rate-limit wait) are real: go-github
	// refuses every request until a Retry-After has passed.
	sleep := func(ctx context.Context, d time.Duration) error {
		if d < time.Second {
			return ctx.Err()
		}
		select {
		case <-time.After(d):
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	ts, c := setupREST(t, committer.WithBackoffSleep(sleep), committer.WithObserver(func(e committer.Event) {
		mu.Lock()
		defer mu.Unlock()
		events = append(events, e)
	}))
	ts.SecondaryRateLimit(rtUpdateRef, 1, 1)
	// The second ref update loses the race to another writer.
	ts.Inject(githubtest.Fault{Route: rtUpdateRef, Skip: 1, Times: 1, Before: func(*http.Request) {
		_, _ = ts.Seed(owner, repo, "main", "concurrent writer", githubtest.File{Path: "other.txt", Content: []byte("theirs\n")})
	}})
	res, err := c.Commit(context.Background(), "main", committer.NewChangeSet("observed").Put("a.txt", []byte("a\n")))
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range events {
		if e.Kind == committer.EventTree || e.Kind == committer.EventUpload {
			continue // progress: TestProgressEvents
		}
		kinds = append(kinds, e.Kind.String())
		if e.Repository != owner+"/"+repo || e.Branch != "main" || e.Kind == committer.EventAttempt && e.Changes != 1 {
			t.Errorf("event %+v names another branch", e)
		}
		if e.Kind == committer.EventRateLimitWait && e.Wait < time.Second {
			t.Errorf("rate-limit wait %s, want at least 1s", e.Wait)
		}
		if e.Kind == committer.EventLanded && e.Commit != res.Commit {
			t.Errorf("landed %s, result %s", e.Commit, res.Commit)
		}
	}
	want := "attempt,rate-limit wait,attempt,lost race,attempt,landed"
	if got := strings.Join(kinds, ","); got != want {
		t.Fatalf("events %s, want %s", got, want)
	}
}

// A secondary rate limit without Retry-After is waited out for at least a
// minute before the next write, as GitHub's documentation asks.
func TestBareSecondaryLimitWaitsAMinute(t *testing.T) {
	var (
		mu    sync.Mutex
		slept []time.Duration
	)
	sleep := func(ctx context.Context, d time.Duration) error {
		mu.Lock()
		slept = append(slept, d)
		mu.Unlock()
		return ctx.Err()
	}
	ts, c := setupREST(t, committer.WithBackoffSleep(sleep))
	ts.SecondaryRateLimit(rtUpdateRef, 0, 1)
	_, _ = c.Commit(context.Background(), "main", committer.NewChangeSet("m").Put("a.txt", []byte("a\n")))
	mu.Lock()
	defer mu.Unlock()
	if len(slept) == 0 || slept[0] < time.Minute {
		t.Fatalf("waits %v, want at least a minute before the next attempt", slept)
	}
}
