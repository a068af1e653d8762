package committer_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

const (
	routeCompare   = "GET /repos/{owner}/{repo}/compare/{basehead...}"
	routeCreateRef = "POST /repos/{owner}/{repo}/git/refs"
)

// lostReplyThen150 loses the reply to the next ref update (which is
// applied), then lands 150 commits of another writer before the committer
// reads the ref back.
func lostReplyThen150(t *testing.T, ts *githubtest.TestServer) {
	ts.Inject(githubtest.Fault{Method: http.MethodPatch, Route: rtUpdateRef, Times: 1, DropResponse: true})
	ts.Inject(githubtest.Fault{Method: http.MethodGet, Route: rtGetRef, Times: 1, Before: func(*http.Request) {
		for i := range 150 {
			if _, err := ts.Seed(owner, repo, "main", fmt.Sprintf("other writer %d", i),
				githubtest.File{Path: "other.txt", Content: []byte(fmt.Sprintf("theirs %d\n", i))}); err != nil {
				t.Error(err)
			}
		}
	}})
}

// 150 commits between a lost reply and its read-back: the commit is still
// found in the branch's history (one compare request), so the increment
// lands once, for Commit and both Queue modes.
func TestLostReplySettledAcross150Commits(t *testing.T) {
	for _, mode := range []string{"commit", "queue-chain", "queue-squash"} {
		t.Run(mode, func(t *testing.T) {
			ts, c := setupREST(t)
			commit := func(cs *committer.ChangeSet) (*committer.Result, error) {
				return c.Commit(context.Background(), "main", cs)
			}
			if mode != "commit" {
				var opts []committer.CommitOption
				if mode == "queue-squash" {
					opts = append(opts, committer.Squash())
				}
				q, err := committer.NewQueue(c, "main", opts...)
				must(t, err)
				commit = func(cs *committer.ChangeSet) (*committer.Result, error) { return q.Commit(context.Background(), cs) }
			}
			lostReplyThen150(t, ts)
			res, err := commit(committer.NewChangeSet("the one and only").Edit(chaosCounter, chaosIncr))
			must(t, err)
			if got := readFile(t, ts, "main", chaosCounter); got != "1\n" {
				t.Fatalf("counter = %q, want 1: the change set landed twice", got)
			}
			hist, _ := ts.History(owner, repo, "main")
			n := 0
			for _, h := range hist {
				if strings.Contains(h.Message, "the one and only") {
					n++
				}
			}
			if n != 1 || ts.Count(routeCompare) != 1 || ts.Count(rtUpdateRef) != 1 {
				t.Fatalf("%d commits of ours, %d compares, %d ref updates; result %+v", n, ts.Count(routeCompare), ts.Count(rtUpdateRef), res)
			}
			checkFastForwardOnly(t, ts)
		})
	}
}

// When the read-back cannot tell, the outcome is ErrUnknownOutcome (never a
// second landing), and the lost update's own cause stays reachable.
func TestLostReplyUnknownOutcome(t *testing.T) {
	ts, c := setupREST(t)
	lostReplyThen150(t, ts)
	ts.Inject(githubtest.Fault{Method: http.MethodGet, Route: routeCompare, Status: http.StatusInternalServerError})
	_, err := c.Commit(context.Background(), "main", committer.NewChangeSet("maybe").Edit(chaosCounter, chaosIncr))
	if !errors.Is(err, committer.ErrUnknownOutcome) {
		t.Fatalf("err = %v, want ErrUnknownOutcome", err)
	}
	// The message says so first: whoever reads only its start must not
	// take it for "not committed" (the CLI prints it as it is).
	if _, cause, _ := strings.Cut(err.Error(), ": "); !strings.HasPrefix(cause, "outcome unknown: ") {
		t.Errorf("message %q does not start its cause with \"outcome unknown: \"", err)
	}
	var ue *url.Error
	if !errors.As(err, &ue) {
		t.Fatalf("the ref update's cause is not in the chain: %v", err)
	}
	if n := ts.Count(rtUpdateRef); n != 1 {
		t.Fatalf("%d ref updates, want 1", n)
	}
}

// renameBranch renames a branch through the fake's REST route.
func renameBranch(t *testing.T, ts *githubtest.TestServer, from, to string) {
	t.Helper()
	req, err := ts.Client.NewRequest(http.MethodPost, fmt.Sprintf("repos/%s/%s/branches/%s/rename", owner, repo, from), map[string]string{"new_name": to})
	must(t, err)
	if _, err := ts.Client.Do(context.Background(), req, nil); err != nil {
		t.Fatalf("rename %s to %s: %v", from, to, err)
	}
}

func TestRenamedBranchIsNeverCommittedTo(t *testing.T) {
	ctx := context.Background()
	ts, c := setup(t)
	if _, err := ts.Seed(owner, repo, "old", "start old", githubtest.File{Path: "o.txt", Content: []byte("o\n")}); err != nil {
		t.Fatal(err)
	}
	renameBranch(t, ts, "old", "new")
	newHead := head(t, ts, "new")
	ts.ResetRequests()
	_, err := c.Commit(ctx, "old", committer.NewChangeSet("to old").Put("a.txt", []byte("a\n")))
	if !errors.Is(err, committer.ErrNotFound) {
		t.Fatalf("err = %v, want ErrNotFound", err)
	}
	if head(t, ts, "new") != newHead || writes(ts) != 0 {
		t.Fatalf("the renamed branch moved, or %d writes were sent", writes(ts))
	}
	// Asked to create it, the committer creates a real branch of that name.
	res, err := c.Commit(ctx, "old", committer.NewChangeSet("to old").Put("a.txt", []byte("a\n")), committer.CreateBranchFrom("main"))
	must(t, err)
	if !res.CreatedBranch || head(t, ts, "old") != res.Commit || head(t, ts, "new") != newHead {
		t.Fatalf("result %+v", res)
	}
	if readFile(t, ts, "old", "a.txt") != "a\n" {
		t.Fatal("a.txt is not on the new branch")
	}
}

func TestMasterRedirectIsNotMain(t *testing.T) {
	ctx := context.Background()
	ts, c := setup(t)
	mainHead := head(t, ts, "main")
	_, err := c.Commit(ctx, "master", committer.NewChangeSet("to master").Put("a.txt", []byte("a\n")))
	if !errors.Is(err, committer.ErrNotFound) {
		t.Fatalf("err = %v, want ErrNotFound", err)
	}
	if head(t, ts, "main") != mainHead {
		t.Fatal("main moved")
	}
	if _, err := c.Plan(ctx, "master", committer.NewChangeSet("plan").Put("a.txt", []byte("a\n"))); !errors.Is(err, committer.ErrNotFound) {
		t.Fatalf("Plan: err = %v, want ErrNotFound", err)
	}
	res, err := c.Commit(ctx, "master", committer.NewChangeSet("to master").Put("a.txt", []byte("a\n")), committer.CreateBranchFrom("main"))
	must(t, err)
	if head(t, ts, "master") != res.Commit || head(t, ts, "main") != mainHead {
		t.Fatalf("result %+v", res)
	}
}

// The head read refuses a branch redirect itself, in its one request: an
// uncontended commit of text files reads the head once and nothing else
// about the branch (the rest is the tree read that TestRequestCounts
// counts, and the three writes).
func TestHeadReadIsOneRequest(t *testing.T) {
	ts, c := setup(t)
	ts.ResetRequests()
	_, err := c.Commit(context.Background(), "main", committer.NewChangeSet("m").Put("a.txt", []byte("a\n")))
	must(t, err)
	if ts.Count(routeBranch) != 1 || ts.Count(rtGetRef) != 0 || ts.Count("GET /repos/{owner}/{repo}/git/matching-refs/{ref...}") != 0 {
		t.Fatalf("head reads: %v", routes(ts))
	}
	if n := len(ts.Requests()); n != 5 {
		t.Fatalf("%d requests, want 5 (head, path lookup with the repository's node ID, tree, commit, ref): %v", n, routes(ts))
	}
}

// Which 422 is a lost race: only "Update is not a fast forward" and
// "Reference cannot be updated" on the update, only "Reference already
// exists" on the creation.
func TestRefReplies422(t *testing.T) {
	const attempts = 3
	for _, tc := range []struct {
		route, message string
		create         bool
		lost           bool
		kind           error
	}{
		{routeUpdateRef, "Update is not a fast forward", false, true, committer.ErrConflict},
		{routeUpdateRef, "Reference cannot be updated", false, true, committer.ErrConflict},
		{routeUpdateRef, "Reference does not exist", false, false, committer.ErrNotFound},
		{routeUpdateRef, "Object does not exist", false, false, nil},
		{routeUpdateRef, "Repository rule violations found\n\nChanges must be made through a pull request.", false, false, committer.ErrProtected},
		{routeUpdateRef, "Something new", false, false, nil},
		{routeCreateRef, "Reference already exists", true, true, committer.ErrConflict},
		{routeCreateRef, "Reference update failed", true, false, nil},
		{routeCreateRef, "Reference name is invalid", true, false, committer.ErrInvalid},
	} {
		t.Run(tc.message, func(t *testing.T) {
			ts, c := setupREST(t, committer.WithRetries(attempts, nil))
			body := fmt.Sprintf(`{"message":%q,"documentation_url":"https://docs.github.com/rest/git/refs","status":"422"}`, tc.message)
			ts.Inject(githubtest.Fault{Route: tc.route, Status: http.StatusUnprocessableEntity, Body: body,
				Header: http.Header{"X-Github-Request-Id": {"ABCD:1234"}}})
			var opts []committer.CommitOption
			branch := "main"
			if tc.create {
				branch, opts = "fresh", append(opts, committer.CreateBranchFrom("main"))
			}
			_, err := c.Commit(context.Background(), branch, committer.NewChangeSet("m").Put("a.txt", []byte("a\n")), opts...)
			var e *committer.Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v", err)
			}
			want := 1
			if tc.lost {
				want = attempts
			}
			if n := ts.Count(tc.route); n != want {
				t.Errorf("%d ref writes, want %d: %v", n, want, err)
			}
			if tc.kind != nil && !errors.Is(err, tc.kind) || tc.kind == nil && errors.Is(err, committer.ErrConflict) {
				t.Errorf("err = %v (kind %v), want kind %v", err, e.Kind, tc.kind)
			}
			if !tc.lost && (e.Status != 422 || e.Message != tc.message || e.RequestID != "ABCD:1234") {
				t.Errorf("Status %d, Message %q, RequestID %q", e.Status, e.Message, e.RequestID)
			}
		})
	}
}

// The fake refuses refs/heads/main/sub beside refs/heads/main, as git and
// GitHub do; creating such a branch is an error, not a lost race.
func TestBranchNameClash(t *testing.T) {
	ts, c := setup(t)
	_, err := c.Commit(context.Background(), "main/sub", committer.NewChangeSet("m").Put("a.txt", []byte("a\n")), committer.CreateBranchFrom("main"))
	if err == nil || errors.Is(err, committer.ErrConflict) {
		t.Fatalf("err = %v, want an error that is not a lost race", err)
	}
	if n := ts.Count(routeCreateRef); n != 1 {
		t.Fatalf("%d ref creations, want 1", n)
	}
	if _, ok := ts.Head(owner, repo, "main/sub"); ok {
		t.Fatal("main/sub exists")
	}
}

// A renamed repository's redirects (301 for GET, 307 for the writes) are
// followed: the branch keeps its name, so the head read follows it too.
func TestRenamedRepositoryIsFollowed(t *testing.T) {
	ts, c := setup(t)
	must(t, ts.RenameRepo(owner, repo, "mono2"))
	res, err := c.Commit(context.Background(), "main", committer.NewChangeSet("m").Put("a.txt", []byte("a\n")))
	must(t, err)
	if h, _ := ts.Head(owner, "mono2", "main"); h != res.Commit {
		t.Fatalf("head of the renamed repository %s, result %+v", h, res)
	}
}

func TestQueueRedirectedBranch(t *testing.T) {
	ts, c := setup(t)
	q, err := committer.NewQueue(c, "master")
	must(t, err)
	mainHead := head(t, ts, "main")
	if _, err := q.Commit(context.Background(), committer.NewChangeSet("m").Put("a.txt", []byte("a\n"))); !errors.Is(err, committer.ErrNotFound) {
		t.Fatalf("err = %v, want ErrNotFound", err)
	}
	q, err = committer.NewQueue(c, "master", committer.CreateBranchFrom("main"))
	must(t, err)
	res, err := q.Commit(context.Background(), committer.NewChangeSet("m").Put("a.txt", []byte("a\n")))
	must(t, err)
	if !res.CreatedBranch || head(t, ts, "master") != res.Commit || head(t, ts, "main") != mainHead {
		t.Fatalf("result %+v", res)
	}
}
