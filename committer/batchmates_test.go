package committer_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/ghclient"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

// Batch-mates cannot harm each other (issue 32): on every batch path, one
// change set's failure, panic or slow edit, or its caller's deadline, is
// its own; the others land.

// commitFunc commits a change set through one batch path.
type commitFunc func(ctx context.Context, cs *committer.ChangeSet) (*committer.Result, error)

// batchPathNames are the ways change sets of one process share a batch:
// concurrent Commits (chained), a squashed Queue, a squashed GraphQL
// Queue, and concurrent CommitPullRequests' commits.
var batchPathNames = []string{"chain", "squash", "graphql-squash", "pull-request"}

// batchPath returns how path commits with c, and the branch it lands on.
func batchPath(t *testing.T, c *committer.Committer, path string) (commitFunc, string) {
	t.Helper()
	queue := func(opts ...committer.CommitOption) commitFunc {
		q, err := committer.NewQueue(c, "main", opts...)
		must(t, err)
		return q.Commit
	}
	switch path {
	case "chain":
		return func(ctx context.Context, cs *committer.ChangeSet) (*committer.Result, error) {
			return c.Commit(ctx, "main", cs)
		}, "main"
	case "squash":
		return queue(committer.Squash()), "main"
	case "graphql-squash":
		return queue(committer.Squash(), committer.WithEngine(committer.EngineGraphQL)), "main"
	}
	pr := func(ctx context.Context, cs *committer.ChangeSet) (*committer.Result, error) {
		res, err := c.CommitPullRequest(ctx, "main", "feature", cs, committer.PullRequestOptions{})
		if res == nil {
			return nil, err
		}
		return res.Commit, err
	}
	// The branch and its pull request exist before the batch.
	if _, err := pr(context.Background(), committer.NewChangeSet("open").Put("open.txt", []byte("open\n"))); err != nil {
		t.Fatal(err)
	}
	return pr, "feature"
}

type outcome struct {
	res *committer.Result
	err error
}

// member is a change set of a batch, with its caller's context.
type member struct {
	ctx context.Context
	cs  *committer.ChangeSet
}

// inOneBatch makes members one batch, in order: a first change set is
// committed through commit and its landing write held while the members
// are queued behind it one by one; then it is let go. Each member's
// outcome arrives on its channel.
func inOneBatch(t *testing.T, ts *githubtest.TestServer, c *committer.Committer, branch string, commit commitFunc, members []member) []chan outcome {
	t.Helper()
	received, release := ts.HoldNextWrite(githubtest.RouteGraphQL) // updateRefs, or createCommitOnBranch
	t.Cleanup(release)
	first := make(chan error, 1)
	go func() {
		_, err := commit(context.Background(), committer.NewChangeSet("first").Put("first.txt", []byte("first\n")))
		first <- err
	}()
	<-received
	outs := make([]chan outcome, len(members))
	for i, m := range members {
		outs[i] = make(chan outcome, 1)
		go func() {
			res, err := commit(m.ctx, m.cs)
			outs[i] <- outcome{res, err}
		}()
		for committer.Pending(c, branch) != i+1 {
			time.Sleep(time.Millisecond) // until it waits behind the held one
		}
	}
	release()
	must(t, <-first)
	return outs
}

// wait returns the outcome on ch, failing t if none comes in a minute.
func wait(t *testing.T, ch chan outcome) outcome {
	t.Helper()
	select {
	case o := <-ch:
		return o
	case <-time.After(time.Minute):
		t.Fatal("no outcome")
		return outcome{}
	}
}

// failingReader opens n times (the first when the change set is hashed),
// then fails as a file removed since would.
func failingReader(data []byte, n int32) func() (io.ReadCloser, error) {
	var opened atomic.Int32
	return func() (io.ReadCloser, error) {
		if opened.Add(1) > n {
			return nil, fmt.Errorf("open source: %w", fs.ErrNotExist)
		}
		return io.NopCloser(bytes.NewReader(data)), nil
	}
}

// TestBatchMateFailureIsItsOwn (issue 32.2): a change set whose content
// cannot be read again when its batch writes it fails with its own error;
// its batch-mates land. Git Data reads it again to upload its blob; a
// squashed GraphQL batch reads it to check it and again for its mutation.
func TestBatchMateFailureIsItsOwn(t *testing.T) {
	for _, path := range batchPathNames {
		t.Run(path, func(t *testing.T) {
			ts, c := setup(t)
			_, err := ts.Seed(owner, repo, "main", "seed", githubtest.File{Path: "counter", Content: []byte("0")},
				githubtest.File{Path: "run.sh", Content: []byte("#!/bin/sh\n"), Mode: "100755"})
			must(t, err)
			commit, branch := batchPath(t, c, path)
			bin := []byte("not text \xff\xfe\x00 so uploaded as a blob")
			opens := map[string]int32{"graphql-squash": 2}[path]
			bg := context.Background()
			outs := inOneBatch(t, ts, c, branch, commit, []member{
				{bg, committer.NewChangeSet("bad").PutReader("bad.bin", committer.ModeFile, int64(len(bin)), failingReader(bin, max(opens, 1)))},
				{bg, committer.NewChangeSet("good").Put("good.txt", []byte("good\n"))},
				{bg, committer.NewChangeSet("count").Edit("counter", incr)},
				// An executable file GraphQL cannot delete: refused on
				// that path alone; Git Data deletes it.
				{bg, committer.NewChangeSet("drop run.sh").Delete("run.sh").Put("run.txt", []byte("run\n"))},
			})
			if o := wait(t, outs[0]); !errors.Is(o.err, fs.ErrNotExist) {
				t.Errorf("the failing change set: err = %v, want its own (file does not exist)", o.err)
			}
			for i, ch := range outs[1:3] {
				if o := wait(t, ch); o.err != nil {
					t.Errorf("batch-mate %d: %v", i+1, o.err)
				}
			}
			want := map[string]string{"good.txt": "good\n", "counter": "1\n", "bad.bin": "", "run.sh": "", "run.txt": "run\n"}
			o := wait(t, outs[3])
			if path == "graphql-squash" {
				if !errors.Is(o.err, committer.ErrInvalid) {
					t.Errorf("the change set GraphQL cannot carry: err = %v, want its own ErrInvalid", o.err)
				}
				want["run.sh"], want["run.txt"] = "#!/bin/sh\n", ""
			} else if o.err != nil {
				t.Errorf("batch-mate 3: %v", o.err)
			}
			checkFiles(t, ts, branch, want)
		})
	}
}

// checkFiles checks the files of branch's head: "" means absent.
func checkFiles(t *testing.T, ts *githubtest.TestServer, branch string, want map[string]string) {
	t.Helper()
	files, err := ts.Files(owner, repo, branch)
	must(t, err)
	for p, w := range want {
		f, ok := files[p]
		switch {
		case w == "" && ok:
			t.Errorf("%s is on %s: a change set taken out of its batch landed", p, branch)
		case w != "" && string(f.Content) != w:
			t.Errorf("%s on %s = %q, want %q", p, branch, f.Content, w)
		}
	}
}

// TestBatchMateDeadlineIsItsOwn (issue 32.3): while a batch-mate's edit
// function blocks, a caller whose context ends gets its context's error
// at once, nothing of it lands, and the batch goes on without it; the
// blocking edit's change set is taken out after WithBatchEditGrace with
// ErrEditTooSlow, and its result, when it comes, is discarded.
func TestBatchMateDeadlineIsItsOwn(t *testing.T) {
	for _, path := range batchPathNames {
		t.Run(path, func(t *testing.T) {
			ts, c := setup(t, committer.WithBatchEditGrace(50*time.Millisecond))
			commit, branch := batchPath(t, c, path)
			started, unblock := make(chan struct{}), make(chan struct{})
			var once sync.Once
			t.Cleanup(func() { once.Do(func() { close(unblock) }) })
			blocking := func([]byte, bool) ([]byte, error) {
				close(started)
				<-unblock
				return []byte("late\n"), nil
			}
			ctxB, cancelB := context.WithCancel(context.Background())
			defer cancelB()
			bg := context.Background()
			outs := inOneBatch(t, ts, c, branch, commit, []member{
				{bg, committer.NewChangeSet("slow").Edit("slow.txt", blocking)},
				{ctxB, committer.NewChangeSet("gives up").Put("b.txt", []byte("b\n"))},
				{bg, committer.NewChangeSet("patient").Put("c.txt", []byte("c\n"))},
			})
			<-started
			cancelB()
			select {
			case o := <-outs[1]:
				if !errors.Is(o.err, context.Canceled) {
					t.Errorf("the caller that gave up: err = %v, want its context's", o.err)
				}
			case <-time.After(30 * time.Second):
				t.Error("the caller that gave up still waits for its batch-mate's blocked edit")
			}
			if o := wait(t, outs[2]); o.err != nil {
				t.Errorf("the patient batch-mate: %v", o.err)
			}
			if o := wait(t, outs[0]); !errors.Is(o.err, committer.ErrEditTooSlow) {
				t.Errorf("the slow edit's change set: err = %v, want ErrEditTooSlow", o.err)
			}
			once.Do(func() { close(unblock) })
			// One more commit: the slow edit's late result is not in it.
			if _, err := commit(bg, committer.NewChangeSet("after").Put("d.txt", []byte("d\n"))); err != nil {
				t.Fatal(err)
			}
			checkFiles(t, ts, branch, map[string]string{"c.txt": "c\n", "d.txt": "d\n", "b.txt": "", "slow.txt": ""})
		})
	}
}

// TestBatchMateEditPanicIsItsOwn (issue 32.4): an edit function that
// panics fails its own change set with an error carrying the panic's
// value and stack; the process lives and the batch-mates land. Alone, the
// same panic is the commit's error too.
func TestBatchMateEditPanicIsItsOwn(t *testing.T) {
	panics := func([]byte, bool) ([]byte, error) { panic("boom") }
	checkPanic := func(t *testing.T, err error) {
		t.Helper()
		var p *committer.EditPanic
		if !errors.As(err, &p) || p.Value != "boom" || len(p.Stack) == 0 {
			t.Errorf("err = %v, want an EditPanic with the value and the stack", err)
		}
	}
	for _, path := range batchPathNames {
		t.Run(path, func(t *testing.T) {
			ts, c := setup(t)
			seed(t, ts, map[string]string{"counter": "0"})
			commit, branch := batchPath(t, c, path)
			bg := context.Background()
			outs := inOneBatch(t, ts, c, branch, commit, []member{
				{bg, committer.NewChangeSet("good").Put("good.txt", []byte("good\n"))},
				{bg, committer.NewChangeSet("panics").Put("p.txt", []byte("p\n")).Edit("counter", panics)},
				{bg, committer.NewChangeSet("count").Edit("counter", incr)},
			})
			checkPanic(t, wait(t, outs[1]).err)
			for _, i := range []int{0, 2} {
				if o := wait(t, outs[i]); o.err != nil {
					t.Errorf("batch-mate %d: %v", i, o.err)
				}
			}
			checkFiles(t, ts, branch, map[string]string{"good.txt": "good\n", "counter": "1\n", "p.txt": ""})
			_, err := commit(bg, committer.NewChangeSet("alone").Edit("counter", panics))
			checkPanic(t, err)
		})
	}
}

// resetUnder resets branch back one commit just before the first ref
// update whose request carries the commit created with message msg (as
// someone force-pushing between the batch's read and its write), and
// records the commit the reset removed.
type resetUnder struct {
	t       *testing.T
	ts      *githubtest.TestServer
	next    http.RoundTripper
	branch  string
	msg     string
	mu      sync.Mutex
	sha     string // msg's commit, once created
	removed string
}

func (r *resetUnder) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		body, _ = io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	isCommit := req.Method == http.MethodPost && strings.HasSuffix(req.URL.Path, "/git/commits")
	isRef := req.Method == http.MethodPatch && strings.Contains(req.URL.Path, "/git/refs/") ||
		strings.HasSuffix(req.URL.Path, "/graphql") && bytes.Contains(body, []byte(githubtest.MutationUpdateRefs))
	r.mu.Lock()
	if isRef && r.sha != "" && r.removed == "" && bytes.Contains(body, []byte(r.sha)) {
		h := head(r.t, r.ts, r.branch)
		c, err := r.ts.Commit(owner, repo, h)
		if err != nil || !forceRef(r.t, r.ts, "refs/heads/"+r.branch, h, c.Parents[0]) {
			r.t.Errorf("reset %s: %v", r.branch, err)
		}
		r.removed = h
	}
	r.mu.Unlock()
	resp, err := r.next.RoundTrip(req)
	if err != nil || !isCommit {
		return resp, err
	}
	var in, out struct{ Message, SHA string }
	_ = json.Unmarshal(body, &in)
	rb, _ := io.ReadAll(resp.Body)
	resp.Body = io.NopCloser(bytes.NewReader(rb))
	_ = json.Unmarshal(rb, &out)
	if first, _, _ := strings.Cut(in.Message, "\n"); first == r.msg {
		r.mu.Lock()
		r.sha = out.SHA
		r.mu.Unlock()
	}
	return resp, nil
}

// TestBatchKeepsEachRefUpdateMode (issue 32.1): a Committer with
// WithFastForwardRefUpdates and a strict one share a credential and a
// branch; the fast-forward one's change set queued first must not make
// the strict one's land by a fast-forward: a reset backwards just before
// the strict change set's ref update is refused, never undone. (A Queue
// is one Committer's, so a squashed batch holds one mode by construction.)
func TestBatchKeepsEachRefUpdateMode(t *testing.T) {
	for _, path := range []string{"chain", "pull-request"} {
		t.Run(path, func(t *testing.T) {
			ts := githubtest.NewServer(t)
			must(t, ts.CreateRepo(owner, repo, true))
			seed(t, ts, map[string]string{"counter": "0"})
			branch := map[string]string{"chain": "main", "pull-request": "feature"}[path]
			rt := &resetUnder{t: t, ts: ts, next: http.DefaultTransport, branch: branch, msg: "strict"}
			client := func(opts ...committer.Option) *committer.Committer {
				hc, err := ghclient.NewHTTPClient(context.Background(), ghclient.WithToken("one-token"), ghclient.WithBaseURL(ts.URL),
					ghclient.WithRateLimits(ghclient.RateLimits{Pacing: &ghclient.Pacing{}}), ghclient.WithHTTPClient(fast(&http.Client{Transport: rt})))
				must(t, err)
				c, err := committer.New(owner, repo, append([]committer.Option{committer.WithHTTPClient(hc), committer.WithBackoffSleep(noSleep)}, opts...)...)
				must(t, err)
				return c
			}
			strict, ff := client(), client(committer.WithFastForwardRefUpdates())
			commitStrict, _ := batchPath(t, strict, path)
			commitFF, _ := batchPath(t, ff, path)
			received, release := ts.HoldNextWrite(githubtest.RouteGraphQL)
			t.Cleanup(release)
			first := make(chan error, 1)
			go func() {
				_, err := commitStrict(context.Background(), committer.NewChangeSet("first").Put("first.txt", []byte("first\n")))
				first <- err
			}()
			<-received
			outs := make([]chan outcome, 2)
			for i, step := range []struct {
				commit commitFunc
				cs     *committer.ChangeSet
			}{
				{commitFF, committer.NewChangeSet("fast-forward").Put("ff.txt", []byte("ff\n"))},
				{commitStrict, committer.NewChangeSet("strict").Put("strict.txt", []byte("strict\n"))},
			} {
				outs[i] = make(chan outcome, 1)
				go func() {
					res, err := step.commit(context.Background(), step.cs)
					outs[i] <- outcome{res, err}
				}()
				for committer.Pending(strict, branch) != i+1 {
					time.Sleep(time.Millisecond)
				}
			}
			release()
			must(t, <-first)
			for i, ch := range outs {
				if o := wait(t, ch); o.err != nil {
					t.Fatalf("change set %d: %v", i, o.err)
				}
			}
			rt.mu.Lock()
			removed := rt.removed
			rt.mu.Unlock()
			if removed == "" {
				t.Fatal("the strict change set's ref update was never seen")
			}
			hist, err := ts.History(owner, repo, branch)
			must(t, err)
			for _, c := range hist {
				if c.SHA == removed {
					t.Fatalf("the commit a reset removed just before the strict change set's ref update is back on %s: it landed by a fast-forward", branch)
				}
			}
			checkFiles(t, ts, branch, map[string]string{"strict.txt": "strict\n"})
		})
	}
}

// WithBatchEditGrace refuses a bound that is not positive.
func TestWithBatchEditGraceRefusesNonPositive(t *testing.T) {
	for _, d := range []time.Duration{0, -time.Second} {
		if _, err := committer.New(owner, repo, committer.WithBatchEditGrace(d)); err == nil {
			t.Errorf("WithBatchEditGrace(%v) was accepted", d)
		}
	}
}
