package committer_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/ghcommitter/ghcommitter/committer"
)

func incr(old []byte, exists bool) ([]byte, error) {
	n := 0
	if exists {
		var err error
		if n, err = strconv.Atoi(strings.TrimSpace(string(old))); err != nil {
			return nil, err
		}
	}
	return []byte(strconv.Itoa(n+1) + "\n"), nil
}

func runQueue(t *testing.T, squash bool) {
	ts, c := setup(t)
	var opts []committer.CommitOption
	if squash {
		opts = append(opts, committer.Squash())
	}
	q, err := committer.NewQueue(c, "main", opts...)
	must(t, err)
	start := head(t, ts, "main")
	ts.ResetRequests()
	const n = 64
	var wg sync.WaitGroup
	results := make([]*committer.Result, n)
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cs := committer.NewChangeSet(fmt.Sprintf("writer %d", i)).
				Put(fmt.Sprintf("w/%02d.txt", i), []byte(strconv.Itoa(i))).
				Edit("counter.txt", incr)
			if i == 7 {
				cs.ExpectAbsent("README.md") // fails: only this one is dropped
			}
			if i == 9 {
				cs.Edit("boom.txt", func([]byte, bool) ([]byte, error) { return nil, errors.New("boom") })
			}
			results[i], errs[i] = q.Commit(context.Background(), cs)
		}()
	}
	wg.Wait()
	landed := 0
	commits := map[string]bool{}
	for i := range n {
		switch i {
		case 7:
			if !errors.Is(errs[i], committer.ErrConflict) {
				t.Errorf("writer 7: err = %v, want ErrConflict", errs[i])
			}
			continue
		case 9:
			if errs[i] == nil || !strings.Contains(errs[i].Error(), "boom") {
				t.Errorf("writer 9: err = %v, want its edit error", errs[i])
			}
			continue
		}
		if errs[i] != nil {
			t.Fatalf("writer %d: %v", i, errs[i])
		}
		landed++
		commits[results[i].Commit] = true
		if results[i].Engine != "git-data" {
			t.Errorf("writer %d: Result.Engine %q, want git-data", i, results[i].Engine)
		}
		if got := readFile(t, ts, "main", fmt.Sprintf("w/%02d.txt", i)); got != strconv.Itoa(i) {
			t.Errorf("writer %d's file = %q", i, got)
		}
	}
	if got := readFile(t, ts, "main", "counter.txt"); got != strconv.Itoa(n-2)+"\n" {
		t.Errorf("counter = %q, want %d", got, n-2)
	}
	for _, i := range []int{7, 9} {
		if _, _, err := ts.ReadFile(owner, repo, "main", fmt.Sprintf("w/%02d.txt", i)); err == nil {
			t.Errorf("failed writer %d's file landed", i)
		}
	}
	if !squash && len(commits) != landed {
		t.Errorf("chain mode: %d distinct commits for %d landed change sets", len(commits), landed)
	}
	hist, _ := ts.History(owner, repo, "main")
	reached := false
	for _, h := range hist {
		if len(h.Parents) > 1 {
			t.Fatalf("merge commit %s in history", h.SHA)
		}
		if h.SHA == start {
			reached = true
		}
	}
	if !reached {
		t.Fatalf("the first-parent history no longer reaches the starting head %s", start)
	}
	for i, r := range results {
		if errs[i] != nil {
			continue
		}
		found := false
		for _, h := range hist {
			if h.SHA == r.Commit {
				found = true
			}
		}
		if !found {
			t.Errorf("writer %d's commit %s is not on the branch", i, r.Commit)
		}
	}
	checkFastForwardOnly(t, ts)
}

func TestQueueChain(t *testing.T)  { runQueue(t, false) }
func TestQueueSquash(t *testing.T) { runQueue(t, true) }

func TestQueueRequestsPerChange(t *testing.T) {
	for _, squash := range []bool{false, true} {
		t.Run(fmt.Sprintf("squash=%v", squash), func(t *testing.T) {
			ts, c := setup(t)
			var opts []committer.CommitOption
			if squash {
				opts = append(opts, committer.Squash())
			}
			q, err := committer.NewQueue(c, "main", opts...)
			must(t, err)
			// One commit to learn the head, then a single commit costs its
			// 3 writes and, for a path the Queue has not written, one
			// GraphQL lookup of it; for a path it wrote, the 3 writes.
			_, err = q.Commit(context.Background(), committer.NewChangeSet("first").Put("a", []byte("a")))
			must(t, err)
			ts.ResetRequests()
			_, err = q.Commit(context.Background(), committer.NewChangeSet("second").Put("b", []byte("b")))
			must(t, err)
			if n, g := len(ts.Requests()), lookups(ts); n != 4 || g != 1 {
				t.Fatalf("a commit of a new path after a known head sent %d requests (%d lookups), want 4 (1): %v", n, g, routes(ts))
			}
			ts.ResetRequests()
			_, err = q.Commit(context.Background(), committer.NewChangeSet("third").Put("a", []byte("A")).Put("b", []byte("B")))
			must(t, err)
			if n := len(ts.Requests()); n != 3 {
				t.Fatalf("a commit of written paths after a known head sent %d requests, want 3: %v", n, routes(ts))
			}
			// 64 writers at once.
			ts.SetLatency(2e6)
			ts.ResetRequests()
			var wg sync.WaitGroup
			for i := range 64 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if _, err := q.Commit(context.Background(), committer.NewChangeSet("m").Put(fmt.Sprintf("f%d", i), []byte("x"))); err != nil {
						t.Error(err)
					}
				}()
			}
			wg.Wait()
			per := float64(len(ts.Requests())) / 64
			limit := 3.0
			if squash {
				limit = 2.0
			}
			t.Logf("%.2f requests per landed change", per)
			if per > limit {
				t.Errorf("%.2f requests per landed change, want at most %.0f", per, limit)
			}
		})
	}
}

func TestQueueStaleHeadRecovers(t *testing.T) {
	ts, c := setup(t)
	q, err := committer.NewQueue(c, "main")
	must(t, err)
	_, err = q.Commit(context.Background(), committer.NewChangeSet("first").Put("a", []byte("a")))
	must(t, err)
	seed(t, ts, map[string]string{"theirs": "t"}) // another process moves the branch
	res, err := q.Commit(context.Background(), committer.NewChangeSet("second").Put("b", []byte("b")))
	must(t, err)
	if res.Attempts != 2 {
		t.Errorf("attempts = %d, want 2", res.Attempts)
	}
	if readFile(t, ts, "main", "theirs") != "t" || readFile(t, ts, "main", "b") != "b" {
		t.Fatal("a commit was lost")
	}
	checkFastForwardOnly(t, ts)
}

// fakeSigner signs with a fixed text; enough to switch signing on.
type fakeSigner struct{}

func (fakeSigner) Sign(w io.Writer, _ io.Reader) error {
	_, err := io.WriteString(w, "-----BEGIN PGP SIGNATURE-----\n\nfake\n-----END PGP SIGNATURE-----\n")
	return err
}

// Queue.Commit refuses exactly what Commit refuses, with the same Kind,
// before any request.
func TestQueueRefusesWhatCommitRefuses(t *testing.T) {
	ts, c := setup(t, committer.WithSigner(fakeSigner{}))
	q, err := committer.NewQueue(c, "main")
	must(t, err)
	author := &committer.Signature{Name: "A", Email: "a@example.com"}
	for name, cs := range map[string]*committer.ChangeSet{
		"nil":                nil,
		"empty message":      committer.NewChangeSet(" ").Put("a", []byte("a")),
		"no change":          committer.NewChangeSet("m"),
		"bad path":           committer.NewChangeSet("m").Put("../a", []byte("a")),
		"signing, no author": committer.NewChangeSet("m").Put("a", []byte("a")),
		"bad mode":           committer.NewChangeSet("m").PutMode("a", []byte("a"), "100600"),
	} {
		t.Run(name, func(t *testing.T) {
			if cs != nil && cs.Author == nil && name != "signing, no author" {
				cs.Author = author
			}
			ts.ResetRequests()
			_, cerr := c.Commit(context.Background(), "main", cs)
			_, qerr := q.Commit(context.Background(), cs)
			var ce, qe *committer.Error
			if !errors.As(cerr, &ce) || !errors.As(qerr, &qe) {
				t.Fatalf("Commit: %v; Queue.Commit: %v", cerr, qerr)
			}
			if !errors.Is(ce.Kind, committer.ErrInvalid) || !errors.Is(qe.Kind, ce.Kind) {
				t.Fatalf("kinds: Commit %v, Queue.Commit %v", ce.Kind, qe.Kind)
			}
			if n := len(ts.Requests()); n != 0 {
				t.Fatalf("%d requests sent", n)
			}
		})
	}
}

func TestQueueOptions(t *testing.T) {
	_, c := setup(t)
	if _, err := committer.NewQueue(c, "main", committer.ExpectHead(strings.Repeat("a", 40))); !errors.Is(err, committer.ErrInvalid) {
		t.Fatalf("ExpectHead on a queue: err = %v", err)
	}
	if _, err := committer.NewQueue(c, "main", committer.WithMaxBatch(0)); !errors.Is(err, committer.ErrInvalid) {
		t.Fatalf("WithMaxBatch(0): err = %v", err)
	}
	cs := committer.NewChangeSet("m").Put("a", []byte("a"))
	if _, err := c.Commit(context.Background(), "main", cs, committer.Squash()); !errors.Is(err, committer.ErrInvalid) {
		t.Fatalf("Squash on Commit: err = %v", err)
	}
}
