package committer_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

// The promises every path keeps (issue 19.2), each tested on every engine
// for a single commit, a batch (change sets queued behind another one's
// write: batched on git-data, one after the other on the one-write
// engines, squashed through a Queue) and a pull request's commit.

// pathCase is one way into the coordinator.
type pathCase struct {
	name   string
	engine committer.Engine
	queue  []committer.CommitOption // batch through a Queue with these
}

func everyPath() []pathCase {
	var out []pathCase
	for _, e := range allEngines {
		out = append(out, pathCase{name: "commit/" + e.String(), engine: e})
		out = append(out, pathCase{name: "batch/" + e.String(), engine: e})
		out = append(out, pathCase{name: "pull request/" + e.String(), engine: e})
	}
	out = append(out,
		pathCase{name: "batch/queue squash git-data", engine: committer.EngineGitData, queue: []committer.CommitOption{committer.Squash()}},
		pathCase{name: "batch/queue squash graphql", engine: committer.EngineGraphQL, queue: []committer.CommitOption{committer.Squash(), committer.WithEngine(committer.EngineGraphQL)}})
	return out
}

// isLandingWrite reports whether req lands a commit through e (a branch
// creation at a new commit for git-data; the mutation, not a query, for
// GraphQL).
func isLandingWrite(req *http.Request, e committer.Engine) bool {
	p := req.URL.Path
	switch {
	case req.Method == http.MethodPatch && strings.Contains(p, "/git/refs/"):
		return e == committer.EngineGitData || e == committer.EngineAuto
	case req.Method == http.MethodPost && strings.HasSuffix(p, "/git/refs"):
		return e == committer.EngineGitData
	case req.Method == http.MethodPost && strings.HasSuffix(p, "/graphql"):
		body, _ := io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(body))
		if bytes.Contains(body, []byte(githubtest.MutationUpdateRefs)) {
			return e == committer.EngineGitData || e == committer.EngineAuto // git-data's strict ref update
		}
		return bytes.Contains(body, []byte("createCommitOnBranch"))
	case (req.Method == http.MethodPut || req.Method == http.MethodDelete) && strings.Contains(p, "/contents/"):
		return true
	}
	return false
}

// onLandingWrites runs fn(n) before the n-th landing write through e is
// handled (from 1).
func onLandingWrites(ts *githubtest.TestServer, e committer.Engine, fn func(n int)) {
	var n atomic.Int32
	for _, r := range []string{routePatchRef, routeCreateRef, routeGraphQL, routePutContents, routeDelContents} {
		ts.Inject(githubtest.Fault{Route: r, Before: func(req *http.Request) {
			if isLandingWrite(req, e) {
				fn(int(n.Add(1)))
			}
		}})
	}
}

// viaPath commits cs on path pc with ctx; for a batch, another change set
// is committed first and held at its landing write until cs is queued
// behind it (its own landing write is then the second).
func viaPath(ctx context.Context, t *testing.T, ts *githubtest.TestServer, c *committer.Committer, pc pathCase, cs *committer.ChangeSet) (*committer.Result, error) {
	t.Helper()
	opt := committer.WithEngine(pc.engine)
	switch {
	case strings.HasPrefix(pc.name, "pull request"):
		pr, err := c.CommitPullRequest(ctx, "main", "feature", cs, committer.PullRequestOptions{}, opt)
		if pr != nil && pr.Commit != nil {
			return pr.Commit, nil // the commit landed; only the pull request may have failed
		}
		return nil, err
	case strings.HasPrefix(pc.name, "commit"):
		return c.Commit(ctx, "main", cs, opt)
	}
	commit := func(ctx context.Context, cs *committer.ChangeSet) (*committer.Result, error) {
		return c.Commit(ctx, "main", cs, opt)
	}
	if pc.queue != nil {
		q, err := committer.NewQueue(c, "main", pc.queue...)
		must(t, err)
		commit = q.Commit
	}
	first := make(chan error, 1)
	go func() {
		_, err := commit(context.Background(), committer.NewChangeSet("first").Put("first.txt", []byte("first\n")))
		first <- err
	}()
	type out struct {
		res *committer.Result
		err error
	}
	mine := make(chan out, 1)
	go func() {
		time.Sleep(20 * time.Millisecond) // behind the first, which is held
		res, err := commit(ctx, cs)
		mine <- out{res, err}
	}()
	// A third change set, in the same batch as cs (on git-data and in a
	// squashed Queue), must land whatever becomes of cs.
	third := make(chan error, 1)
	go func() {
		// Well behind cs (a third that overtook it under load would take
		// the landing write the test cancels at), well before the first
		// is released.
		time.Sleep(60 * time.Millisecond)
		_, err := commit(context.Background(), committer.NewChangeSet("third").Put("third.txt", []byte("third\n")))
		third <- err
	}()
	if err := <-first; err != nil {
		t.Errorf("the first change set: %v", err)
	}
	if err := <-third; err != nil {
		t.Errorf("the third change set: %v", err)
	}
	if got := readFile(t, ts, "main", "third.txt"); got != "third\n" {
		t.Errorf("third.txt = %q: the change set behind did not land", got)
	}
	o := <-mine
	return o.res, o.err
}

// landedOnce checks that log holds line exactly once on the branch the
// path commits to.
func landedOnce(t *testing.T, ts *githubtest.TestServer, pc pathCase, line string) {
	t.Helper()
	branch := "main"
	if strings.HasPrefix(pc.name, "pull request") {
		branch = "feature"
	}
	if got := strings.Count(readFile(t, ts, branch, "log"), line); got != 1 {
		t.Errorf("%q is on %s %d times, want once", line, branch, got)
	}
}

// TestEveryPathWaitsForASentWrite: the caller's context ends while its
// change set's landing write is with GitHub (which applies it): the caller
// is told it landed, never context.Canceled, on every engine and path.
func TestEveryPathWaitsForASentWrite(t *testing.T) {
	for _, pc := range everyPath() {
		t.Run(pc.name, func(t *testing.T) {
			ts, c := setup(t)
			seed(t, ts, map[string]string{"log": "start\n"})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			release := make(chan struct{})
			var once sync.Once
			batch := strings.HasPrefix(pc.name, "batch")
			onLandingWrites(ts, pc.engine, func(n int) {
				switch {
				case batch && n == 1:
					<-release // hold the first change set's write
				case !batch || n == 2:
					once.Do(cancel)
				}
			})
			go func() { time.Sleep(200 * time.Millisecond); close(release) }()
			res, err := viaPath(ctx, t, ts, c, pc, committer.NewChangeSet("mine").Edit("log", appendLine("mine")))
			if err != nil {
				t.Fatalf("err = %v, want the change reported as landed (its write was sent before the cancel): %v", err, routes(ts))
			}
			if res.NoOp || res.Commit == "" {
				t.Errorf("result %+v", res)
			}
			landedOnce(t, ts, pc, "mine\n")
		})
	}
}

// TestEveryPathRefusesBeforeAnyWrite: what an engine cannot carry, a
// failed precondition and a failing edit are refused with their own kind
// before any landing write of the change set, and the branch keeps
// everything else, on every path.
func TestEveryPathRefusesBeforeAnyWrite(t *testing.T) {
	for _, pc := range everyPath() {
		for _, tc := range []struct {
			name string
			cs   *committer.ChangeSet
			kind error
			skip func(committer.Engine) bool
		}{
			{"precondition", committer.NewChangeSet("mine").ExpectAbsent("log").Edit("log", appendLine("mine")), committer.ErrConflict, nil},
			{"edit error", committer.NewChangeSet("mine").Edit("log", func([]byte, bool) ([]byte, error) { return nil, errors.New("boom") }), nil, nil},
			{"what the engine cannot carry", committer.NewChangeSet("mine").Edit("log", appendLine("mine")).Delete("dir"), committer.ErrInvalid,
				func(e committer.Engine) bool { return e == committer.EngineGitData || e == committer.EngineAuto }},
		} {
			if tc.skip != nil && tc.skip(pc.engine) {
				continue
			}
			t.Run(pc.name+"/"+tc.name, func(t *testing.T) {
				ts, c := setup(t)
				seed(t, ts, map[string]string{"log": "start\n", "dir/x": "x\n"})
				release := make(chan struct{})
				var mine atomic.Int32
				batch := strings.HasPrefix(pc.name, "batch")
				onLandingWrites(ts, pc.engine, func(n int) {
					if batch && n == 1 {
						<-release
						return
					}
					mine.Add(1)
				})
				go func() { time.Sleep(200 * time.Millisecond); close(release) }()
				_, err := viaPath(context.Background(), t, ts, c, pc, tc.cs)
				switch {
				case err == nil:
					t.Fatal("err = nil, want a refusal")
				case tc.kind != nil && !errors.Is(err, tc.kind):
					t.Fatalf("err = %v, want %v", err, tc.kind)
				case tc.kind == nil && !strings.Contains(err.Error(), "boom"):
					t.Fatalf("err = %v, want the edit's error", err)
				}
				// The third change set of a batch sends one landing write
				// of its own (alone or in its batch); the refused one none.
				if n, want := mine.Load(), map[bool]int32{false: 0, true: 1}[batch]; n != want {
					t.Errorf("%d landing writes sent after the first, want %d: the refused change set sent one", n, want)
				}
				if got := readFile(t, ts, "main", "log"); got != "start\n" {
					t.Errorf("log = %q: the refused change set landed", got)
				}
				if strings.HasPrefix(pc.name, "pull request") {
					if _, ok := ts.Head(owner, repo, "feature"); ok {
						t.Error("the refused pull request's commit left its branch behind")
					}
				}
				if batch && readFile(t, ts, "main", "first.txt") != "first\n" {
					t.Error("the other change set of the batch did not land")
				}
			})
		}
	}
}

// TestSquashedGraphQLBatchSplitBySize (issue 19.1): change sets whose
// content together exceeds what one GraphQL mutation carries are split
// into batches that each fit: every one lands, none is ErrInvalid.
func TestSquashedGraphQLBatchSplitBySize(t *testing.T) {
	if testing.Short() {
		t.Skip("sends about 40 MB")
	}
	ts, c := setup(t)
	seed(t, ts, map[string]string{"log": ""})
	q, err := committer.NewQueue(c, "main", committer.Squash(), committer.WithEngine(committer.EngineGraphQL))
	must(t, err)
	release, held := make(chan struct{}), make(chan struct{})
	var once sync.Once
	onLandingWrites(ts, committer.EngineGraphQL, func(int) { once.Do(func() { close(held); <-release }) })
	first := make(chan error, 1)
	go func() {
		_, err := q.Commit(context.Background(), committer.NewChangeSet("first").Edit("log", appendLine("first")))
		first <- err
	}()
	<-held
	const n = 30
	errs := make(chan error, n)
	for i := range n {
		go func() {
			data := bytes.Repeat([]byte{byte('a' + i%26)}, 1<<20)
			_, err := q.Commit(context.Background(), committer.NewChangeSet("big").Put(fmt.Sprintf("big/%02d.txt", i), data))
			errs <- err
		}()
	}
	time.Sleep(100 * time.Millisecond)
	close(release)
	must(t, <-first)
	for range n {
		if err := <-errs; err != nil {
			t.Errorf("a 1 MiB change set: %v", err)
		}
	}
	if m := ts.Count(routeGraphQL); m < 3 {
		t.Errorf("%d GraphQL requests: the batch was not split", m)
	}
}

// TestEveryPathProtectedIsProtected: a branch protection rule refuses the
// landing write with the same kind, ErrProtected, whatever the engine, for
// a lone commit and for every change set of a batch, and nothing lands.
func TestEveryPathProtectedIsProtected(t *testing.T) {
	for _, pc := range everyPath() {
		if strings.HasPrefix(pc.name, "pull request") {
			continue // the head branch is a new one, outside the rule
		}
		t.Run(pc.name, func(t *testing.T) {
			ts, c := setup(t)
			seed(t, ts, map[string]string{"log": "start\n"})
			must(t, ts.ProtectBranch(owner, repo, "main", githubtest.BranchProtection{RequiredApprovingReviews: 1}))
			before := head(t, ts, "main")
			opt := committer.WithEngine(pc.engine)
			commit := func(cs *committer.ChangeSet) (*committer.Result, error) {
				return c.Commit(context.Background(), "main", cs, opt)
			}
			if pc.queue != nil {
				q, err := committer.NewQueue(c, "main", pc.queue...)
				must(t, err)
				commit = func(cs *committer.ChangeSet) (*committer.Result, error) { return q.Commit(context.Background(), cs) }
			}
			n := 1
			if strings.HasPrefix(pc.name, "batch") {
				n = 4
			}
			errs := make([]error, n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, errs[i] = commit(committer.NewChangeSet("mine").Edit("log", appendLine(fmt.Sprintf("w%d", i))))
				}()
			}
			wg.Wait()
			for i, err := range errs {
				var ce *committer.Error
				if !errors.Is(err, committer.ErrProtected) || !errors.As(err, &ce) || ce.Attempts > 1 {
					t.Errorf("change set %d: err = %v, want ErrProtected after one attempt", i, err)
				}
			}
			if head(t, ts, "main") != before {
				t.Error("the protected branch moved")
			}
		})
	}
}
