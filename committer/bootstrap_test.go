package committer_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

const (
	emptyName    = "empty"
	routePutFile = "PUT /repos/{owner}/{repo}/contents/{path...}"
)

// emptyRepo starts a fake with acme/empty, a repository with no commit.
func emptyRepo(t *testing.T, opts ...committer.Option) (*githubtest.TestServer, *committer.Committer) {
	t.Helper()
	ts := githubtest.NewServer(t)
	must(t, ts.CreateRepo(owner, emptyName, false))
	c, err := newWith(ts.Client, owner, emptyName, append([]committer.Option{committer.WithBackoffSleep(noSleep)}, opts...)...)
	must(t, err)
	return ts, c
}

// asked is what a change set asks for each path: content and mode.
type asked map[string]githubtest.File

// checkNothingUnasked fails if any commit of the history shows a file with a
// content or mode that the change set did not ask for.
func checkNothingUnasked(t *testing.T, ts *githubtest.TestServer, want asked) {
	t.Helper()
	hist, err := ts.History(owner, emptyName, "main")
	must(t, err)
	for _, h := range hist {
		files, err := ts.Files(owner, emptyName, h.SHA)
		must(t, err)
		for p, f := range files {
			w, ok := want[p]
			if !ok {
				t.Errorf("commit %s holds %s, which the change set never wrote", h.SHA[:8], p)
				continue
			}
			if mode := f.Mode; string(f.Content) != string(w.Content) || mode != w.Mode {
				t.Errorf("commit %s holds %s as %q mode %s; asked for %q mode %s", h.SHA[:8], p, f.Content, mode, w.Content, w.Mode)
			}
		}
	}
}

func TestBootstrapEditRunsOnce(t *testing.T) {
	ts, c := emptyRepo(t)
	cs := committer.NewChangeSet("count").Edit("counter.txt", incr)
	res, err := c.Commit(context.Background(), "main", cs)
	must(t, err)
	if got := readFileIn(t, ts, emptyName, "counter.txt"); got != "1\n" {
		t.Fatalf("counter = %q, want 1 (the edit's result must land once)", got)
	}
	hist, _ := ts.History(owner, emptyName, "main")
	if len(hist) != 1 || !res.Bootstrapped || res.Commit != hist[0].SHA || res.NoOp {
		t.Fatalf("history %d commits, result %+v", len(hist), res)
	}
	checkNothingUnasked(t, ts, asked{"counter.txt": {Content: []byte("1\n"), Mode: "100644"}})
}

func TestBootstrapEditWithOtherFiles(t *testing.T) {
	ts, c := emptyRepo(t)
	cs := committer.NewChangeSet("start").
		Edit("counter.txt", incr).
		Put("docs/guide.md", []byte("a longer guide than the counter\n")).
		Symlink("latest", "docs/guide.md").
		PutMode("run.sh", []byte("#!/bin/sh\n"), committer.ModeExecutable)
	res, err := c.Commit(context.Background(), "main", cs)
	must(t, err)
	want := asked{
		"counter.txt":   {Content: []byte("1\n"), Mode: "100644"},
		"docs/guide.md": {Content: []byte("a longer guide than the counter\n"), Mode: "100644"},
		"latest":        {Content: []byte("docs/guide.md"), Mode: "120000"},
		"run.sh":        {Content: []byte("#!/bin/sh\n"), Mode: "100755"},
	}
	checkNothingUnasked(t, ts, want)
	files, err := ts.Files(owner, emptyName, "main")
	must(t, err)
	if len(files) != len(want) {
		t.Fatalf("branch holds %d files, want %d", len(files), len(want))
	}
	hist, _ := ts.History(owner, emptyName, "main")
	if len(hist) != 2 || !res.Bootstrapped || res.Commit != hist[0].SHA || res.Parent != hist[1].SHA {
		t.Fatalf("history %d commits, result %+v", len(hist), res)
	}
	if len(res.Changed) != 4 {
		t.Errorf("Changed = %v, want the 4 paths", res.Changed)
	}
}

func TestBootstrapPreconditions(t *testing.T) {
	ctx := context.Background()
	t.Run("absent holds", func(t *testing.T) {
		ts, c := emptyRepo(t)
		res, err := c.Commit(ctx, "main", committer.NewChangeSet("create").ExpectAbsent("x").Put("x", []byte("x\n")))
		if err != nil {
			t.Fatalf("ExpectAbsent on an empty repository: %v", err)
		}
		if readFileIn(t, ts, emptyName, "x") != "x\n" || !res.Bootstrapped {
			t.Fatalf("result %+v", res)
		}
	})
	t.Run("blob can never hold", func(t *testing.T) {
		ts, c := emptyRepo(t)
		cs := committer.NewChangeSet("guarded").ExpectBlob("y", strings.Repeat("a", 40)).Put("z", []byte("z\n"))
		_, err := c.Commit(ctx, "main", cs)
		if !errors.Is(err, committer.ErrConflict) {
			t.Fatalf("err = %v, want ErrConflict", err)
		}
		if n := writes(ts); n != 0 {
			t.Fatalf("%d writes after a failed precondition", n)
		}
		if _, ok := ts.Head(owner, emptyName, "main"); ok {
			t.Fatal("the repository is no longer empty")
		}
	})
}

func TestBootstrapNeedsAPlainFile(t *testing.T) {
	ctx := context.Background()
	for name, cs := range map[string]*committer.ChangeSet{
		"symlink":    committer.NewChangeSet("m").Symlink("l", "target"),
		"executable": committer.NewChangeSet("m").PutMode("run.sh", []byte("#!/bin/sh\n"), committer.ModeExecutable),
		"delete":     committer.NewChangeSet("m").Delete("gone.txt"),
	} {
		t.Run(name, func(t *testing.T) {
			ts, c := emptyRepo(t)
			if _, err := c.Commit(ctx, "main", cs); !errors.Is(err, committer.ErrInvalid) {
				t.Fatalf("Commit: err = %v, want ErrInvalid", err)
			}
			if _, err := c.Plan(ctx, "main", cs); !errors.Is(err, committer.ErrInvalid) {
				t.Fatalf("Plan: err = %v, want ErrInvalid", err)
			}
			if n := writes(ts); n != 0 {
				t.Fatalf("%d writes", n)
			}
		})
	}
}

// A lost reply to the bootstrap write is settled by reading the branch: the
// commit carries the change set's Edit-Id trailer, so it is known as ours
// and the edit does not run on its own result.
func TestBootstrapLostReply(t *testing.T) {
	ts, c := emptyRepo(t)
	ts.Inject(githubtest.Fault{Method: http.MethodPut, Route: routePutFile, Times: 1, DropResponse: true})
	res, err := c.Commit(context.Background(), "main", committer.NewChangeSet("count").Edit("counter.txt", incr).Put("b.txt", []byte("a much longer file\n")))
	must(t, err)
	if got := readFileIn(t, ts, emptyName, "counter.txt"); got != "1\n" {
		t.Fatalf("counter = %q, want 1", got)
	}
	if ts.Count(routePutFile) != 1 || !res.Bootstrapped {
		t.Fatalf("%d contents writes, result %+v", ts.Count(routePutFile), res)
	}
}

// Another writer starting the repository first is not us: the whole change
// set, edit included, is built on its commit.
func TestBootstrapLostToAnotherWriter(t *testing.T) {
	ts, c := emptyRepo(t)
	ts.Inject(githubtest.Fault{Method: http.MethodPut, Route: routePutFile, Times: 1,
		Before: func(*http.Request) {
			_, _ = ts.Seed(owner, emptyName, "main", "other writer", githubtest.File{Path: "counter.txt", Content: []byte("5\n")})
		}})
	res, err := c.Commit(context.Background(), "main", committer.NewChangeSet("count").Edit("counter.txt", incr))
	must(t, err)
	if got := readFileIn(t, ts, emptyName, "counter.txt"); got != "6\n" {
		t.Fatalf("counter = %q, want 6", got)
	}
	if res.Bootstrapped {
		t.Fatalf("result %+v: another writer started the repository", res)
	}
}

// Concurrent queued edits of an empty repository: each lands exactly once.
func TestQueueBootstrap(t *testing.T) {
	for _, squash := range []bool{false, true} {
		t.Run(fmt.Sprint("squash=", squash), func(t *testing.T) {
			ts, c := emptyRepo(t)
			var opts []committer.CommitOption
			if squash {
				opts = append(opts, committer.Squash())
			}
			q, err := committer.NewQueue(c, "main", opts...)
			must(t, err)
			const n = 8
			var wg sync.WaitGroup
			errs := make(chan error, n)
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					cs := committer.NewChangeSet(fmt.Sprintf("count %d", i)).Edit("counter.txt", incr)
					if i%2 == 0 {
						cs.Symlink(fmt.Sprintf("links/l%d", i), "../counter.txt")
					}
					_, err := q.Commit(context.Background(), cs)
					errs <- err
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				must(t, err)
			}
			if got := readFileIn(t, ts, emptyName, "counter.txt"); got != fmt.Sprintf("%d\n", n) {
				t.Fatalf("counter = %q, want %d", got, n)
			}
		})
	}
}

func TestEmptyRepositoryBootstrap(t *testing.T) {
	ts, c := emptyRepo(t)
	cs := committer.NewChangeSet("first").Put("README.md", []byte("# hi\n")).PutMode("run.sh", []byte("#!/bin/sh\n"), committer.ModeExecutable)
	res, err := c.Commit(context.Background(), "main", cs)
	must(t, err)
	if res.NoOp || !res.Bootstrapped {
		t.Fatalf("result %+v", res)
	}
	files, err := ts.Files(owner, emptyName, "main")
	must(t, err)
	if string(files["README.md"].Content) != "# hi\n" || files["run.sh"].Mode != "100755" {
		t.Fatalf("files = %+v", files)
	}
	hist, _ := ts.History(owner, emptyName, "main")
	if len(hist[len(hist)-1].Parents) != 0 {
		t.Fatal("history does not start with a root commit")
	}
	checkNothingUnasked(t, ts, asked{"README.md": {Content: []byte("# hi\n"), Mode: "100644"}, "run.sh": {Content: []byte("#!/bin/sh\n"), Mode: "100755"}})
}

func readFileIn(t *testing.T, ts *githubtest.TestServer, name, path string) string {
	t.Helper()
	b, _, err := ts.ReadFile(owner, name, "main", path)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return string(b)
}

// A bootstrap write with no answer, and a branch that cannot be read back:
// the outcome is unknown, never guessed.
func TestBootstrapUnknownOutcome(t *testing.T) {
	ts, c := emptyRepo(t)
	ts.Inject(githubtest.Fault{Method: http.MethodPut, Route: routePutFile, Times: 1, DropResponse: true})
	ts.Inject(githubtest.Fault{Method: http.MethodGet, Route: routeBranch, Skip: 1, Status: http.StatusInternalServerError})
	_, err := c.Commit(context.Background(), "main", committer.NewChangeSet("count").Edit("counter.txt", incr))
	if !errors.Is(err, committer.ErrUnknownOutcome) {
		t.Fatalf("err = %v, want ErrUnknownOutcome", err)
	}
	if n := ts.Count(routePutFile); n != 1 {
		t.Fatalf("%d contents writes, want 1", n)
	}
}

// When the rest of a bootstrapped change set fails (here another writer
// creates a path it expects absent), the error says that the first commit
// landed.
func TestBootstrapRestFailsSaysFirstLanded(t *testing.T) {
	ts, c := emptyRepo(t)
	ts.MoveBranchBeforeNextUpdate(owner, emptyName, "main", githubtest.File{Path: "b.txt", Content: []byte("theirs\n")})
	cs := committer.NewChangeSet("start").Put("a.txt", []byte("a\n")).ExpectAbsent("b.txt").Put("b.txt", []byte("a longer file\n"))
	_, err := c.Commit(context.Background(), "main", cs)
	if !errors.Is(err, committer.ErrConflict) || !strings.Contains(err.Error(), "first commit") || !strings.Contains(err.Error(), "a.txt") {
		t.Fatalf("err = %v, want ErrConflict saying the first commit (a.txt) landed", err)
	}
	if readFileIn(t, ts, emptyName, "b.txt") != "theirs\n" {
		t.Fatal("the other writer's file was overwritten")
	}
}
