package committer_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

// firstParents returns the messages of the newest n commits of branch's
// first-parent chain, oldest first.
func firstParents(t *testing.T, ts *githubtest.TestServer, branch string, n int) []string {
	t.Helper()
	h, err := ts.History(owner, repo, branch)
	if err != nil {
		t.Fatal(err)
	}
	if len(h) < n {
		t.Fatalf("%s has %d commits, want at least %d", branch, len(h), n)
	}
	out := make([]string, n)
	for i := range n {
		out[i] = strings.TrimSpace(h[n-1-i].Message)
	}
	return out
}

// TestCommitAllIsOneBatch: 16 change sets land as 16 commits, each with its
// own message and Result, in order on the first-parent chain, with one ref
// update: 2×16+1 writes on an idle branch (a first change set sent alone
// would cost one write more).
func TestCommitAllIsOneBatch(t *testing.T) {
	ts, c := setup(t)
	seed(t, ts, map[string]string{"README.md": "hi\n"})
	ts.ResetRequests()
	const n = 16
	css := make([]*committer.ChangeSet, n)
	for i := range css {
		css[i] = committer.NewChangeSet(fmt.Sprintf("change %02d", i)).Put(fmt.Sprintf("apps/%02d.yaml", i), []byte(fmt.Sprintf("n: %d\n", i)))
	}
	res, err := c.CommitAll(context.Background(), "main", css, committer.WithEngine(committer.EngineGitData))
	if err != nil {
		t.Fatal(err)
	}
	if w := ts.CountWrites(); w > 2*n+1 {
		t.Errorf("%d writes for %d change sets, want at most %d", w, n, 2*n+1)
	}
	got := firstParents(t, ts, "main", n)
	for i := range n {
		if want := fmt.Sprintf("change %02d", i); got[i] != want {
			t.Fatalf("commit %d of the chain is %q, want %q", i, got[i], want)
		}
		if res[i] == nil || res[i].NoOp {
			t.Fatalf("change set %d: result %+v", i, res[i])
		}
		if i > 0 && res[i].Commit == res[i-1].Commit {
			t.Fatalf("change sets %d and %d share a commit", i-1, i)
		}
	}
	if res[n-1].Commit != head(t, ts, "main") {
		t.Fatalf("the last change set's commit %s is not the head", res[n-1].Commit)
	}
}

// TestCommitAllTakesOutAFailedMember: a change set whose precondition fails
// gets its own ErrConflict; the others land.
func TestCommitAllTakesOutAFailedMember(t *testing.T) {
	ts, c := setup(t)
	seed(t, ts, map[string]string{"taken.txt": "here\n"})
	css := []*committer.ChangeSet{
		committer.NewChangeSet("one").Put("one.txt", []byte("1\n")),
		committer.NewChangeSet("two").ExpectAbsent("taken.txt").Put("taken.txt", []byte("2\n")),
		committer.NewChangeSet("three").Put("three.txt", []byte("3\n")),
	}
	res, err := c.CommitAll(context.Background(), "main", css)
	var be *committer.BatchError
	if !errors.As(err, &be) || len(be.Errs) != 3 {
		t.Fatalf("err %v, want a *BatchError of 3", err)
	}
	if be.Errs[0] != nil || be.Errs[2] != nil || !errors.Is(be.Errs[1], committer.ErrConflict) || !errors.Is(err, committer.ErrConflict) {
		t.Fatalf("errors %v: want only the second, a conflict", be.Errs)
	}
	if res[0] == nil || res[1] != nil || res[2] == nil {
		t.Fatalf("results %v: want the first and third", res)
	}
	if got := firstParents(t, ts, "main", 2); got[0] != "one" || got[1] != "three" {
		t.Fatalf("chain %q", got)
	}
	if readFile(t, ts, "main", "taken.txt") != "here\n" {
		t.Fatal("the failed change set's content landed")
	}
}

// TestCommitAllRefusesInvalidBeforeAnyRequest: one invalid change set
// refuses the call, names it, and nothing is sent.
func TestCommitAllRefusesInvalidBeforeAnyRequest(t *testing.T) {
	ts, c := setup(t)
	seed(t, ts, map[string]string{"a.txt": "a\n"})
	ts.ResetRequests()
	css := []*committer.ChangeSet{
		committer.NewChangeSet("ok").Put("ok.txt", []byte("ok\n")),
		committer.NewChangeSet("bad").Put("a/../b.txt", []byte("x\n")),
	}
	res, err := c.CommitAll(context.Background(), "main", css)
	if !errors.Is(err, committer.ErrInvalid) || !strings.Contains(err.Error(), "change set 2 of 2") || res != nil {
		t.Fatalf("res %v, err %v: want ErrInvalid naming change set 2", res, err)
	}
	if n := len(ts.Requests()); n != 0 {
		t.Fatalf("%d requests sent for an invalid call", n)
	}
	for _, bad := range [][]*committer.ChangeSet{nil, {committer.NewChangeSet("x").Put("x", nil)}} {
		opts := []committer.CommitOption{}
		if bad != nil {
			opts = append(opts, committer.ExpectHead(strings.Repeat("a", 40)))
		}
		if _, err := c.CommitAll(context.Background(), "main", bad, opts...); !errors.Is(err, committer.ErrInvalid) {
			t.Fatalf("%v with %d options: want ErrInvalid", err, len(opts))
		}
	}
}

// TestCommitAllSamePathInOrder: change sets that write one path land in
// the order given, each its own commit: the last one's content stays.
func TestCommitAllSamePathInOrder(t *testing.T) {
	ts, c := setup(t)
	seed(t, ts, map[string]string{"a.txt": "a\n"})
	css := []*committer.ChangeSet{
		committer.NewChangeSet("first").Put("app.yaml", []byte("v: 1\n")),
		committer.NewChangeSet("second").Put("app.yaml", []byte("v: 2\n")),
	}
	if _, err := c.CommitAll(context.Background(), "main", css); err != nil {
		t.Fatal(err)
	}
	if got := firstParents(t, ts, "main", 2); got[0] != "first" || got[1] != "second" {
		t.Fatalf("chain %q", got)
	}
	if got := readFile(t, ts, "main", "app.yaml"); got != "v: 2\n" {
		t.Fatalf("app.yaml holds %q", got)
	}
}
