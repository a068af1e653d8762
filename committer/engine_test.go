package committer_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
	"github.com/ghcommitter/ghcommitter/committer/internal/engine"
)

// The behaviour suite: every case runs against each engine that can carry
// it, against the stateful fake.

var allEngines = []committer.Engine{committer.EngineGitData, committer.EngineGraphQL, committer.EngineContents, committer.EngineAuto}

const (
	routeGraphQL     = "POST /graphql"
	routePutContents = "PUT /repos/{owner}/{repo}/contents/{path...}"
	routeDelContents = "DELETE /repos/{owner}/{repo}/contents/{path...}"
	routePatchRef    = "PATCH /repos/{owner}/{repo}/git/refs/{ref...}"
	// routeUpdateRefs names git-data's strict ref update: a GraphQL
	// updateRefs mutation (see routeOf and bodyOf).
	routeUpdateRefs = routeGraphQL + "#" + githubtest.MutationUpdateRefs
)

// routeOf is the route of a writeRoutes entry, bodyOf what its body
// contains ("" for any).
func routeOf(r string) string { route, _, _ := strings.Cut(r, "#"); return route }
func bodyOf(r string) string  { _, body, _ := strings.Cut(r, "#"); return body }

// writeRoutes are the routes of the one request that lands a commit
// through engine (for auto with a single file: contents).
func writeRoutes(e committer.Engine) []string {
	switch e {
	case committer.EngineGraphQL:
		return []string{routeGraphQL}
	case committer.EngineContents, committer.EngineAuto:
		return []string{routePutContents, routeDelContents}
	}
	return []string{routeUpdateRefs}
}

// mutationOf is the Fault.BodyContains that makes a fault on route hit
// only the request that lands a commit: on GraphQL, the mutation, not the
// queries that look paths up or settle an outcome.
func mutationOf(route string) string {
	if b := bodyOf(route); b != "" {
		return b
	}
	if routeOf(route) == routeGraphQL {
		return githubtest.MutationCreateCommit
	}
	return ""
}

// allWrites counts the requests that write: REST writes and GraphQL
// mutations (a GraphQL query that reads paths is not one).
func allWrites(ts *githubtest.TestServer) int {
	return ts.CountWrites()
}

// beforeNextWrite runs fn just before the next request that lands a commit
// through engine is handled.
func beforeNextWrite(ts *githubtest.TestServer, e committer.Engine, fn func()) {
	for _, r := range writeRoutes(e) {
		var once atomic.Bool
		ts.Inject(githubtest.Fault{Route: routeOf(r), BodyContains: mutationOf(r), Times: 1, Before: func(*http.Request) {
			if once.CompareAndSwap(false, true) {
				fn()
			}
		}})
	}
}

// dropNextWrite applies the next landing request through engine and
// loses its reply.
func dropNextWrite(ts *githubtest.TestServer, e committer.Engine) {
	for _, r := range writeRoutes(e) {
		ts.Inject(githubtest.Fault{Route: routeOf(r), BodyContains: mutationOf(r), Times: 1, DropResponse: true})
	}
}

func engineCommit(t *testing.T, c *committer.Committer, e committer.Engine, cs *committer.ChangeSet, opts ...committer.CommitOption) (*committer.Result, error) {
	t.Helper()
	return c.Commit(context.Background(), "main", cs, append([]committer.CommitOption{committer.WithEngine(e)}, opts...)...)
}

func wantEngine(t *testing.T, res *committer.Result, e committer.Engine) {
	t.Helper()
	want := e.String()
	if e == committer.EngineAuto {
		return
	}
	if res.Engine != want {
		t.Errorf("Result.Engine = %q, want %q", res.Engine, want)
	}
}

func TestEnginesPutOneFile(t *testing.T) {
	for _, e := range allEngines {
		t.Run(e.String(), func(t *testing.T) {
			ts, c := setup(t)
			before := head(t, ts, "main")
			res, err := engineCommit(t, c, e, committer.NewChangeSet("add a").Put("dir/a.txt", []byte("A\n")))
			if err != nil {
				t.Fatal(err)
			}
			wantEngine(t, res, e)
			if got := readFile(t, ts, "main", "dir/a.txt"); got != "A\n" {
				t.Errorf("a.txt = %q", got)
			}
			if res.Commit != head(t, ts, "main") || res.Parent != before || res.NoOp || res.Attempts != 1 {
				t.Errorf("result %+v; head %s, before %s", res, head(t, ts, "main"), before)
			}
			cm, err := ts.Commit(owner, repo, res.Commit)
			if err != nil || cm.Tree != res.Tree {
				t.Errorf("commit %+v (%v): tree %s, Result.Tree %s", cm, err, cm.Tree, res.Tree)
			}
			if len(res.Changed) != 1 || res.Changed[0] != "dir/a.txt" {
				t.Errorf("Changed = %v", res.Changed)
			}
		})
	}
}

func TestEnginesEditRerunsAfterLostRace(t *testing.T) {
	for _, e := range allEngines {
		t.Run(e.String(), func(t *testing.T) {
			ts, c := setup(t)
			seed(t, ts, map[string]string{"count": "1"})
			beforeNextWrite(ts, e, func() {
				if _, err := ts.Seed(owner, repo, "main", "other writer", githubtest.File{Path: "count", Content: []byte("10")}); err != nil {
					t.Error(err)
				}
			})
			var calls atomic.Int32
			cs := committer.NewChangeSet("inc").Edit("count", func(old []byte, _ bool) ([]byte, error) {
				calls.Add(1)
				n, _ := strconv.Atoi(string(old))
				return []byte(strconv.Itoa(n + 1)), nil
			})
			res, err := engineCommit(t, c, e, cs)
			if err != nil {
				t.Fatal(err)
			}
			if got := readFile(t, ts, "main", "count"); got != "11" {
				t.Errorf("count = %q, want 11 (the edit re-run on the other writer's content)", got)
			}
			if calls.Load() < 2 || res.Attempts != 2 {
				t.Errorf("edit ran %d times over %d attempts, want a re-run", calls.Load(), res.Attempts)
			}
		})
	}
}

// Another writer changing another file is a lost race for Git Data and
// GraphQL, and for the contents API the 409 "is at X but expected Y".
func TestEnginesOtherWriterOtherFile(t *testing.T) {
	for _, e := range allEngines {
		t.Run(e.String(), func(t *testing.T) {
			ts, c := setup(t)
			if e == committer.EngineContents || e == committer.EngineAuto {
				ts.MoveBranchDuringNextContentsWrite(owner, repo, "main", githubtest.File{Path: "other", Content: []byte("o")})
			} else {
				beforeNextWrite(ts, e, func() {
					_, _ = ts.Seed(owner, repo, "main", "other writer", githubtest.File{Path: "other", Content: []byte("o")})
				})
			}
			if _, err := engineCommit(t, c, e, committer.NewChangeSet("mine").Put("mine", []byte("m"))); err != nil {
				t.Fatal(err)
			}
			if readFile(t, ts, "main", "other") != "o" || readFile(t, ts, "main", "mine") != "m" {
				t.Error("a writer's file was lost")
			}
		})
	}
}

func TestEnginesPreconditionFails(t *testing.T) {
	for _, e := range allEngines {
		t.Run(e.String(), func(t *testing.T) {
			ts, c := setup(t)
			seed(t, ts, map[string]string{"lock": "held"})
			before := head(t, ts, "main")
			_, err := engineCommit(t, c, e, committer.NewChangeSet("take").ExpectAbsent("lock").Put("lock", []byte("mine")))
			if !errors.Is(err, committer.ErrConflict) {
				t.Fatalf("err = %v, want ErrConflict", err)
			}
			if head(t, ts, "main") != before {
				t.Error("the branch moved")
			}
		})
	}
}

// A precondition that held when read and fails at the write (another
// writer created the file in between) is an ErrConflict, not a clobber.
func TestEnginesPreconditionRacedFails(t *testing.T) {
	for _, e := range allEngines {
		t.Run(e.String(), func(t *testing.T) {
			ts, c := setup(t)
			beforeNextWrite(ts, e, func() {
				_, _ = ts.Seed(owner, repo, "main", "other", githubtest.File{Path: "lock", Content: []byte("theirs")})
			})
			_, err := engineCommit(t, c, e, committer.NewChangeSet("take").ExpectAbsent("lock").Put("lock", []byte("mine")))
			if !errors.Is(err, committer.ErrConflict) {
				t.Fatalf("err = %v, want ErrConflict", err)
			}
			if got := readFile(t, ts, "main", "lock"); got != "theirs" {
				t.Errorf("lock = %q: the other writer's file was overwritten", got)
			}
		})
	}
}

func TestEnginesNoOp(t *testing.T) {
	for _, e := range allEngines {
		t.Run(e.String(), func(t *testing.T) {
			ts, c := setup(t)
			before := seed(t, ts, map[string]string{"a": "same"})
			w := allWrites(ts)
			res, err := engineCommit(t, c, e, committer.NewChangeSet("same").Put("a", []byte("same")).Delete("gone"))
			if e == committer.EngineContents {
				// Two operations: the contents engine refuses before any write.
				if !errors.Is(err, committer.ErrInvalid) {
					t.Fatalf("err = %v, want ErrInvalid", err)
				}
				res, err = engineCommit(t, c, e, committer.NewChangeSet("same").Put("a", []byte("same")))
			}
			if err != nil {
				t.Fatal(err)
			}
			if !res.NoOp || res.Commit != before || head(t, ts, "main") != before {
				t.Errorf("result %+v, want a no-op on %s", res, before)
			}
			if e != committer.EngineGitData && allWrites(ts) != w {
				t.Errorf("%d writes for a no-op", allWrites(ts)-w)
			}
		})
	}
}

func TestEnginesDelete(t *testing.T) {
	for _, e := range allEngines {
		t.Run(e.String(), func(t *testing.T) {
			ts, c := setup(t)
			seed(t, ts, map[string]string{"a": "1", "b": "2"})
			res, err := engineCommit(t, c, e, committer.NewChangeSet("rm").Delete("a"))
			if err != nil {
				t.Fatal(err)
			}
			files, _ := ts.Files(owner, repo, "main")
			if _, ok := files["a"]; ok || files["b"].Content == nil {
				t.Errorf("files after delete: %v", files)
			}
			if len(res.Changed) != 1 || res.Files[0].Action != committer.Deleted {
				t.Errorf("result %+v", res)
			}
		})
	}
}

// A lost reply is settled by the change set's Edit-Id trailer: the change
// lands exactly once.
func TestEnginesLostReplyLandsOnce(t *testing.T) {
	for _, e := range allEngines {
		t.Run(e.String(), func(t *testing.T) {
			ts, c := setup(t)
			seed(t, ts, map[string]string{"log": ""})
			dropNextWrite(ts, e)
			res, err := engineCommit(t, c, e, committer.NewChangeSet("append").Edit("log", appendLine("x")))
			if err != nil {
				t.Fatal(err)
			}
			if got := readFile(t, ts, "main", "log"); got != "x\n" {
				t.Errorf("log = %q, want one line", got)
			}
			if res.Commit != head(t, ts, "main") {
				t.Errorf("Result.Commit %s, head %s", res.Commit, head(t, ts, "main"))
			}
			if n := commitsWithMessage(t, ts, "append"); n != 1 {
				t.Errorf("%d commits of the change set on the branch, want 1", n)
			}
		})
	}
}

// A lost reply whose write did not land (the fake answers 502 without
// applying it) is tried again, and lands once.
func TestEnginesFailedWriteRetried(t *testing.T) {
	for _, e := range []committer.Engine{committer.EngineGraphQL, committer.EngineContents} {
		t.Run(e.String(), func(t *testing.T) {
			ts, c := setup(t)
			seed(t, ts, map[string]string{"log": ""})
			for _, r := range writeRoutes(e) {
				ts.Inject(githubtest.Fault{Route: routeOf(r), BodyContains: mutationOf(r), Times: 1, Status: 502})
			}
			res, err := engineCommit(t, c, e, committer.NewChangeSet("append").Edit("log", appendLine("x")))
			if err != nil {
				t.Fatal(err)
			}
			if got := readFile(t, ts, "main", "log"); got != "x\n" || res.Attempts != 2 {
				t.Errorf("log = %q after %d attempts", got, res.Attempts)
			}
		})
	}
}

func appendLine(s string) committer.EditFunc {
	return func(old []byte, _ bool) ([]byte, error) { return append(old, s+"\n"...), nil }
}

func TestEnginesEmptyRepository(t *testing.T) {
	for _, e := range allEngines {
		t.Run(e.String(), func(t *testing.T) {
			ts := githubtest.NewServer(t)
			if err := ts.CreateRepo(owner, repo, false); err != nil {
				t.Fatal(err)
			}
			c, err := newWith(ts.Client, owner, repo, committer.WithBackoffSleep(noSleep))
			if err != nil {
				t.Fatal(err)
			}
			res, err := engineCommit(t, c, e, committer.NewChangeSet("first").Put("README.md", []byte("hi\n")))
			if err != nil {
				t.Fatal(err)
			}
			if !res.Bootstrapped || readFile(t, ts, "main", "README.md") != "hi\n" {
				t.Errorf("result %+v", res)
			}
		})
	}
}

func TestEnginesCreateBranchFrom(t *testing.T) {
	for _, e := range allEngines {
		t.Run(e.String(), func(t *testing.T) {
			ts, c := setup(t)
			base := head(t, ts, "main")
			res, err := c.Commit(context.Background(), "feature", committer.NewChangeSet("f").Put("f", []byte("f")),
				committer.WithEngine(e), committer.CreateBranchFrom("main"))
			if err != nil {
				t.Fatal(err)
			}
			if !res.CreatedBranch || res.Parent != base || head(t, ts, "feature") != res.Commit {
				t.Errorf("result %+v, base %s", res, base)
			}
		})
	}
}

// TestEnginesCreateBranchLostReply: the reply to the branch creation that
// precedes a one-write commit is lost (the branch was created): the commit
// still lands, once, on the new branch.
func TestEnginesCreateBranchLostReply(t *testing.T) {
	for _, e := range allEngines {
		t.Run(e.String(), func(t *testing.T) {
			ts, c := setup(t)
			ts.Inject(githubtest.Fault{Method: "POST", Route: "POST /repos/{owner}/{repo}/git/refs", Times: 1, DropResponse: true})
			res, err := c.Commit(context.Background(), "feature", committer.NewChangeSet("f").Put("f", []byte("f")),
				committer.WithEngine(e), committer.CreateBranchFrom("main"))
			if err != nil {
				t.Fatalf("a lost reply to the branch creation ended the commit: %v", err)
			}
			if head(t, ts, "feature") != res.Commit || readFile(t, ts, "feature", "f") != "f" {
				t.Errorf("result %+v; feature is at %s", res, head(t, ts, "feature"))
			}
		})
	}
}

func TestEnginesExpectHead(t *testing.T) {
	for _, e := range []committer.Engine{committer.EngineGitData, committer.EngineGraphQL, committer.EngineAuto} {
		t.Run(e.String(), func(t *testing.T) {
			ts, c := setup(t)
			old := head(t, ts, "main")
			seed(t, ts, map[string]string{"x": "moved"})
			_, err := engineCommit(t, c, e, committer.NewChangeSet("f").Put("f", []byte("f")), committer.ExpectHead(old))
			if !errors.Is(err, committer.ErrConflict) {
				t.Fatalf("err = %v, want ErrConflict", err)
			}
			res, err := engineCommit(t, c, e, committer.NewChangeSet("f").Put("f", []byte("f")), committer.ExpectHead(head(t, ts, "main")))
			if err != nil || res.NoOp {
				t.Fatalf("%+v, %v", res, err)
			}
		})
	}
}

// Refusals: what an engine cannot carry is ErrInvalid before any write,
// naming what it cannot do.
func TestEnginesRefuse(t *testing.T) {
	author := &committer.Signature{Name: "A", Email: "a@example.com"}
	cases := []struct {
		name   string
		engine committer.Engine
		cs     func() *committer.ChangeSet
		opts   []committer.CommitOption
		says   string
	}{
		{"graphql symlink", committer.EngineGraphQL, func() *committer.ChangeSet {
			return committer.NewChangeSet("l").Symlink("l", "target")
		}, nil, "mode 120000"},
		{"graphql executable", committer.EngineGraphQL, func() *committer.ChangeSet {
			return committer.NewChangeSet("x").PutMode("run.sh", []byte("#!/bin/sh\n"), committer.ModeExecutable)
		}, nil, "mode 100755"},
		{"graphql author", committer.EngineGraphQL, func() *committer.ChangeSet {
			cs := committer.NewChangeSet("a").Put("a", []byte("a"))
			cs.Author = author
			return cs
		}, nil, "author"},
		{"graphql omit edit id", committer.EngineGraphQL, func() *committer.ChangeSet {
			cs := committer.NewChangeSet("a").Put("a", []byte("a"))
			cs.OmitEditID = true
			return cs
		}, nil, "OmitEditID"},
		{"contents two files", committer.EngineContents, func() *committer.ChangeSet {
			return committer.NewChangeSet("ab").Put("a", []byte("a")).Put("b", []byte("b"))
		}, nil, "one file"},
		{"contents expect head", committer.EngineContents, func() *committer.ChangeSet {
			return committer.NewChangeSet("a").Put("a", []byte("a"))
		}, []committer.CommitOption{committer.ExpectHead(strings.Repeat("a", 40))}, "ExpectHead"},
		{"contents directory delete", committer.EngineContents, func() *committer.ChangeSet {
			return committer.NewChangeSet("rm").Delete("dir")
		}, nil, "directory"},
		{"graphql directory delete", committer.EngineGraphQL, func() *committer.ChangeSet {
			return committer.NewChangeSet("rm").Delete("dir")
		}, nil, "directory"},
		{"graphql edit of an executable", committer.EngineGraphQL, func() *committer.ChangeSet {
			return committer.NewChangeSet("e").Edit("bin/run", appendLine("x"))
		}, nil, "100755"},
		{"contents large file", committer.EngineContents, func() *committer.ChangeSet {
			return committer.NewChangeSet("big").Put("big", make([]byte, committer.MaxContentsFileBytes+1))
		}, nil, "at most"},
		{"contents edit output too large", committer.EngineContents, func() *committer.ChangeSet {
			return committer.NewChangeSet("grow").Edit("dir/x", func([]byte, bool) ([]byte, error) {
				return make([]byte, committer.MaxContentsFileBytes+1), nil
			})
		}, nil, "at most"},
		{"graphql file becomes a directory", committer.EngineGraphQL, func() *committer.ChangeSet {
			return committer.NewChangeSet("swap").Delete("dir/x").Put("dir/x/y", []byte("y"))
		}, nil, "directory"},
		{"contents signer", committer.EngineContents, func() *committer.ChangeSet {
			cs := committer.NewChangeSet("a").Put("a", []byte("a"))
			cs.Author = author
			return cs
		}, nil, "signature"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var opts []committer.Option
			if strings.Contains(tc.name, "signer") {
				opts = append(opts, committer.WithSigner(refuseSigner{}))
			}
			ts, c := setup(t, opts...)
			if _, err := ts.Seed(owner, repo, "main", "seed",
				githubtest.File{Path: "dir/x", Content: []byte("x")},
				githubtest.File{Path: "bin/run", Content: []byte("#!/bin/sh\n"), Mode: "100755"}); err != nil {
				t.Fatal(err)
			}
			before, w := head(t, ts, "main"), allWrites(ts)
			_, err := engineCommit(t, c, tc.engine, tc.cs(), tc.opts...)
			if !errors.Is(err, committer.ErrInvalid) || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("err = %v, want ErrInvalid saying %q", err, tc.says)
			}
			if allWrites(ts) != w || head(t, ts, "main") != before {
				t.Errorf("%d writes; the branch moved: %v", allWrites(ts)-w, head(t, ts, "main") != before)
			}
		})
	}
}

type refuseSigner struct{}

func (refuseSigner) Sign(io.Writer, io.Reader) error {
	return errors.New("unused")
}

// Auto picks the engine with the fewest writes that carries the change set.
func TestEngineAutoPicks(t *testing.T) {
	cases := []struct {
		name string
		cs   func() *committer.ChangeSet
		want committer.Engine
	}{
		{"one file", func() *committer.ChangeSet { return committer.NewChangeSet("a").Put("a", []byte("a")) }, committer.EngineContents},
		{"one delete", func() *committer.ChangeSet { return committer.NewChangeSet("d").Delete("dir/x") }, committer.EngineContents},
		{"two files", func() *committer.ChangeSet {
			return committer.NewChangeSet("ab").Put("a", []byte("a")).Put("b", []byte("b"))
		}, committer.EngineGraphQL},
		{"symlink", func() *committer.ChangeSet { return committer.NewChangeSet("l").Symlink("l", "a") }, committer.EngineGitData},
		{"directory delete", func() *committer.ChangeSet { return committer.NewChangeSet("rm").Delete("dir") }, committer.EngineGitData},
		{"edit of an executable", func() *committer.ChangeSet {
			return committer.NewChangeSet("e").Edit("bin/run", appendLine("x"))
		}, committer.EngineGitData},
		{"author", func() *committer.ChangeSet {
			cs := committer.NewChangeSet("a").Put("a", []byte("a")).Put("b", []byte("b"))
			cs.Author = &committer.Signature{Name: "A", Email: "a@example.com"}
			return cs
		}, committer.EngineGitData},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ts, c := setup(t)
			if _, err := ts.Seed(owner, repo, "main", "seed",
				githubtest.File{Path: "dir/x", Content: []byte("x")},
				githubtest.File{Path: "bin/run", Content: []byte("#!/bin/sh\n"), Mode: "100755"}); err != nil {
				t.Fatal(err)
			}
			res, err := engineCommit(t, c, committer.EngineAuto, tc.cs())
			if err != nil {
				t.Fatal(err)
			}
			if res.Engine != tc.want.String() {
				t.Errorf("auto picked %s, want %s", res.Engine, tc.want)
			}
		})
	}
}

// With a token, GraphQL and contents commits are signed by GitHub and
// shown as Verified; Git Data commits are not.
func TestEnginesVerified(t *testing.T) {
	for _, e := range []committer.Engine{committer.EngineGitData, committer.EngineGraphQL, committer.EngineContents} {
		t.Run(e.String(), func(t *testing.T) {
			ts := githubtest.NewServer(t, githubtest.WithToken("t0ken"))
			if err := ts.CreateRepo(owner, repo, true); err != nil {
				t.Fatal(err)
			}
			c, err := newWith(ts.Client, owner, repo, committer.WithBackoffSleep(noSleep))
			if err != nil {
				t.Fatal(err)
			}
			res, err := engineCommit(t, c, e, committer.NewChangeSet("v").Put("v", []byte("v")))
			if err != nil {
				t.Fatal(err)
			}
			got, _, err := ts.Client.Git.GetCommit(context.Background(), owner, repo, res.Commit)
			if err != nil {
				t.Fatal(err)
			}
			if want := e != committer.EngineGitData; got.GetVerification().GetVerified() != want {
				t.Errorf("verified = %v, want %v", got.GetVerification().GetVerified(), want)
			}
		})
	}
}

// The chaos run: concurrent writers, each with its own Committer, append
// their own line to one shared file while the fake loses replies of
// applied writes. Every line lands exactly once, or its writer is told the
// outcome is unknown (and then it is there at most once).
func TestEnginesChaosLostReplies(t *testing.T) {
	writers, drops := 12, 12
	if testing.Short() {
		writers, drops = 4, 4
	}
	for _, e := range []committer.Engine{committer.EngineGitData, committer.EngineGraphQL, committer.EngineContents, committer.EngineAuto} {
		t.Run(e.String(), func(t *testing.T) {
			ts, _ := setup(t)
			seed(t, ts, map[string]string{"log": ""})
			for i := range drops {
				for _, r := range writeRoutes(e) {
					ts.Inject(githubtest.Fault{Route: routeOf(r), BodyContains: mutationOf(r), Skip: 2 * i, Times: 1, DropResponse: true})
				}
			}
			errs := make([]error, writers)
			done := make(chan int)
			for w := range writers {
				go func() {
					defer func() { done <- w }()
					c, err := newWith(ts.Client, owner, repo, committer.WithRetries(50, nil))
					if err != nil {
						errs[w] = err
						return
					}
					_, errs[w] = engineCommit(t, c, e, committer.NewChangeSet(fmt.Sprintf("writer %d", w)).Edit("log", appendLine(fmt.Sprintf("w%d", w))))
				}()
			}
			for range writers {
				<-done
			}
			log := readFile(t, ts, "main", "log")
			for w, err := range errs {
				n := strings.Count(log, fmt.Sprintf("w%d\n", w))
				switch {
				case err == nil && n != 1:
					t.Errorf("writer %d landed %d times", w, n)
				case errors.Is(err, committer.ErrUnknownOutcome) && n > 1:
					t.Errorf("writer %d (unknown outcome) landed %d times", w, n)
				case err != nil && !errors.Is(err, committer.ErrUnknownOutcome):
					t.Errorf("writer %d: %v", w, err)
				}
			}
		})
	}
}

func commitsWithMessage(t *testing.T, ts *githubtest.TestServer, prefix string) int {
	t.Helper()
	h, err := ts.History(owner, repo, "main")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range h {
		if strings.HasPrefix(c.Message, prefix) {
			n++
		}
	}
	return n
}

// A squashed Queue lands each batch with one GraphQL mutation; chained,
// GraphQL is refused.
func TestEngineQueueGraphQL(t *testing.T) {
	ts, c := setup(t)
	seed(t, ts, map[string]string{"log": "", "gone": "x"})
	if _, err := committer.NewQueue(c, "main", committer.WithEngine(committer.EngineGraphQL)); !errors.Is(err, committer.ErrInvalid) {
		t.Fatalf("chained queue with graphql: err = %v, want ErrInvalid", err)
	}
	q, err := committer.NewQueue(c, "main", committer.WithEngine(committer.EngineGraphQL), committer.Squash())
	if err != nil {
		t.Fatal(err)
	}
	// Hold the first batch at its write so that the rest queue up behind it.
	release, held := make(chan struct{}), make(chan struct{})
	ts.Inject(githubtest.Fault{Route: routeGraphQL, BodyContains: githubtest.MutationCreateCommit, Times: 1, Before: func(*http.Request) { close(held); <-release }})
	const n = 6
	errs := make(chan error, n+1)
	go func() {
		_, err := q.Commit(context.Background(), committer.NewChangeSet("first").Edit("log", appendLine("first")))
		errs <- err
	}()
	<-held
	var results [n]*committer.Result
	for i := range n {
		go func() {
			cs := committer.NewChangeSet(fmt.Sprintf("w%d", i)).Edit("log", appendLine(fmt.Sprintf("w%d", i)))
			if i == 0 {
				cs.Delete("gone")
			}
			var err error
			results[i], err = q.Commit(context.Background(), cs)
			errs <- err
		}()
	}
	time.Sleep(20 * time.Millisecond) // let them queue; correctness does not depend on it
	close(release)
	for range n + 1 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	log := readFile(t, ts, "main", "log")
	for i := range n {
		if strings.Count(log, fmt.Sprintf("w%d\n", i)) != 1 {
			t.Errorf("log %q: w%d not there exactly once", log, i)
		}
		if results[i].Engine != "graphql" || results[i].Commit == "" {
			t.Errorf("result %d: %+v", i, results[i])
		}
	}
	if files, _ := ts.Files(owner, repo, "main"); files["gone"].Content != nil {
		t.Error("gone was not deleted")
	}
	if m := ts.Count(routeGraphQL); m > n {
		t.Errorf("%d GraphQL requests for %d queued change sets: not batched", m, n+1)
	}
}

// A commit that landed is reported as landed even when reading its tree
// afterwards fails.
func TestEngineGraphQLLandedDespiteFailedRead(t *testing.T) {
	ts, c := setup(t)
	ts.Inject(githubtest.Fault{Route: "GET /repos/{owner}/{repo}/git/commits/{sha}", Times: 1, Status: 404})
	res, err := engineCommit(t, c, committer.EngineGraphQL, committer.NewChangeSet("a").Put("a", []byte("a")))
	if err != nil {
		t.Fatalf("the commit landed, but Commit says %v", err)
	}
	if res.Commit != head(t, ts, "main") {
		t.Errorf("Result.Commit %s, head %s", res.Commit, head(t, ts, "main"))
	}
}

// TestPlanRefusesWhatTheEngineCannotCarry: a dry run with an engine refuses
// what a commit through it would, before any request.
func TestPlanRefusesWhatTheEngineCannotCarry(t *testing.T) {
	ts, c := setup(t)
	for _, tc := range []struct {
		engine committer.Engine
		cs     *committer.ChangeSet
	}{
		{committer.EngineGraphQL, committer.NewChangeSet("l").Symlink("l", "target")},
		{committer.EngineContents, committer.NewChangeSet("ab").Put("a", []byte("a")).Put("b", []byte("b"))},
	} {
		n := len(ts.Requests())
		if _, err := c.Plan(context.Background(), "main", tc.cs, committer.WithEngine(tc.engine)); !errors.Is(err, committer.ErrInvalid) {
			t.Errorf("plan with %s: err = %v, want ErrInvalid", tc.engine, err)
		}
		if got := len(ts.Requests()) - n; got != 0 {
			t.Errorf("plan with %s sent %d requests before refusing", tc.engine, got)
		}
	}
}

// A commit with CreateBranchFrom that is refused for what can be known
// before any write — what the engine cannot carry on the base's head, a
// failed precondition, a failing edit — leaves no branch behind, on every
// engine: the change set is resolved on the base first, then the branch is
// created.
func TestEnginesRefusedCreateBranchLeavesNoBranch(t *testing.T) {
	failing := func([]byte, bool) ([]byte, error) { return nil, errors.New("edit refuses") }
	for _, tc := range []struct {
		name    string
		engines []committer.Engine
		cs      func() *committer.ChangeSet
		want    error // nil: any error
	}{
		{"mode-on-branch", []committer.Engine{committer.EngineGraphQL, committer.EngineContents},
			func() *committer.ChangeSet { return committer.NewChangeSet("x").Edit("run.sh", appendLine("x")) }, committer.ErrInvalid},
		{"directory-delete", []committer.Engine{committer.EngineGraphQL, committer.EngineContents},
			func() *committer.ChangeSet { return committer.NewChangeSet("x").Delete("dir") }, committer.ErrInvalid},
		{"too-large", []committer.Engine{committer.EngineContents},
			func() *committer.ChangeSet {
				return committer.NewChangeSet("x").Edit("a.txt", func([]byte, bool) ([]byte, error) {
					return bytes.Repeat([]byte("x"), committer.MaxContentsFileBytes+1), nil
				})
			}, committer.ErrInvalid},
		{"precondition", allEngines,
			func() *committer.ChangeSet {
				return committer.NewChangeSet("x").Put("a.txt", []byte("new\n")).ExpectAbsent("a.txt")
			}, committer.ErrConflict},
		{"edit-fails", allEngines,
			func() *committer.ChangeSet { return committer.NewChangeSet("x").Edit("a.txt", failing) }, nil},
	} {
		for _, e := range tc.engines {
			t.Run(tc.name+"/"+e.String(), func(t *testing.T) {
				ts, c := setup(t)
				if _, err := ts.Seed(owner, repo, "main", "seed",
					githubtest.File{Path: "run.sh", Content: []byte("#!/bin/sh\n"), Mode: "100755"},
					githubtest.File{Path: "a.txt", Content: []byte("a\n")},
					githubtest.File{Path: "dir/x.txt", Content: []byte("x\n")}); err != nil {
					t.Fatal(err)
				}
				ts.ResetRequests()
				_, err := c.Commit(context.Background(), "feature", tc.cs(), committer.WithEngine(e), committer.CreateBranchFrom("main"))
				if err == nil || (tc.want != nil && !errors.Is(err, tc.want)) {
					t.Fatalf("err = %v, want a refusal (%v)", err, tc.want)
				}
				if _, ok := ts.Head(owner, repo, "feature"); ok {
					t.Fatalf("the refused commit (%v) left branch feature behind", err)
				}
				if n := ts.Count(routeCreateRef); n != 0 {
					t.Errorf("%d branch creations sent for a refused commit", n)
				}
			})
		}
	}
}

// The public limits are the ones the engines apply.
func TestEngineLimits(t *testing.T) {
	if committer.MaxGraphQLBytes != engine.MaxGraphQLBytes || committer.MaxContentsFileBytes != engine.MaxContentsFileBytes {
		t.Fatalf("MaxGraphQLBytes %d / %d, MaxContentsFileBytes %d / %d: the public constants differ from internal/engine's",
			committer.MaxGraphQLBytes, engine.MaxGraphQLBytes, committer.MaxContentsFileBytes, engine.MaxContentsFileBytes)
	}
}
