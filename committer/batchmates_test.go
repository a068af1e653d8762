package committer_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ghcommitter/ghcommitter/committer"
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

// failingReader opens once (when the change set is hashed), then fails
// as a file removed since would.
func failingReader(data []byte) func() (io.ReadCloser, error) {
	var opened atomic.Int32
	return func() (io.ReadCloser, error) {
		if opened.Add(1) > 1 {
			return nil, fmt.Errorf("open source: %w", fs.ErrNotExist)
		}
		return io.NopCloser(bytes.NewReader(data)), nil
	}
}

// TestBatchMateFailureIsItsOwn (issue 32.2): a change set whose content
// cannot be read again fails with its own error; its batch-mates land.
func TestBatchMateFailureIsItsOwn(t *testing.T) {
	for _, path := range batchPathNames {
		t.Run(path, func(t *testing.T) {
			ts, c := setup(t)
			seed(t, ts, map[string]string{"counter": "0"})
			commit, branch := batchPath(t, c, path)
			bin := []byte("not text \xff\xfe\x00 so uploaded as a blob")
			bg := context.Background()
			outs := inOneBatch(t, ts, c, branch, commit, []member{
				{bg, committer.NewChangeSet("bad").PutReader("bad.bin", committer.ModeFile, int64(len(bin)), failingReader(bin))},
				{bg, committer.NewChangeSet("good").Put("good.txt", []byte("good\n"))},
				{bg, committer.NewChangeSet("count").Edit("counter", incr)},
			})
			if o := wait(t, outs[0]); !errors.Is(o.err, fs.ErrNotExist) {
				t.Errorf("the failing change set: err = %v, want its own (file does not exist)", o.err)
			}
			for i, ch := range outs[1:] {
				if o := wait(t, ch); o.err != nil {
					t.Errorf("batch-mate %d: %v", i+1, o.err)
				}
			}
			checkFiles(t, ts, branch, map[string]string{"good.txt": "good\n", "counter": "1\n", "bad.bin": ""})
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
			blocking := func(old []byte, _ bool) ([]byte, error) {
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
