package committer_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

// An attempt after a lost race (the branch is busy) whose branch moved
// again after its head was read sends none of the writes that would be
// lost: moved before its first write, it sends none; moved while its tree
// is created, it sends no ref update, and no commit either when the look
// that goes out alongside the tree's request is answered after the move
// (the two race: either count is right, the ref update never is). The
// change lands on the next attempt, once; an attempt that sent nothing is
// not counted. (An uncontended Git Data commit reads nothing more.)
func TestMovedBranchSpendsNoWrites(t *testing.T) {
	other := func(ts *githubtest.TestServer, name string) func(*http.Request) {
		return func(*http.Request) {
			if _, err := ts.Seed(owner, repo, "main", "other writer", githubtest.File{Path: name, Content: []byte("o\n")}); err != nil {
				t.Error(err)
			}
		}
	}
	const lookup = "query Paths(" // the GraphQL path lookup, not a mutation or a settling read
	for _, tc := range []struct {
		name     string
		engine   committer.Engine
		fault    func(ts *githubtest.TestServer) githubtest.Fault // on the second attempt
		writes   int                                              // of all attempts
		or       int                                              // also right: the look answered before the move
		before   int                                              // without the look
		attempts int                                              // counted: one lost before any write is not
		queue    bool                                             // through a Queue: a batch, which looks the same way
	}{
		// Moved during the path lookup: nothing sent in attempt 2.
		{"git-data/before the tree", committer.EngineGitData, func(ts *githubtest.TestServer) githubtest.Fault {
			return githubtest.Fault{Route: routeGraphQL, BodyContains: lookup, Skip: 1, Times: 1, Before: other(ts, "o1")}
		}, 6, 6, 9, 2, false},
		// Moved while the tree is created: the tree and, when the look
		// alongside it was answered first, the commit; no ref update (the
		// look alongside the commit sees the move).
		{"git-data/while the tree is created", committer.EngineGitData, func(ts *githubtest.TestServer) githubtest.Fault {
			return githubtest.Fault{Route: routeTrees, Skip: 1, Times: 1, Before: other(ts, "o2")}
		}, 7, 8, 9, 3, false},
		{"queue/git-data/before the tree", committer.EngineGitData, func(ts *githubtest.TestServer) githubtest.Fault {
			return githubtest.Fault{Route: routeGraphQL, BodyContains: lookup, Skip: 1, Times: 1, Before: other(ts, "o1")}
		}, 6, 6, 9, 2, true},
		{"queue/git-data/while the tree is created", committer.EngineGitData, func(ts *githubtest.TestServer) githubtest.Fault {
			return githubtest.Fault{Route: routeTrees, Skip: 1, Times: 1, Before: other(ts, "o2")}
		}, 7, 8, 9, 3, true},
		{"graphql/before the mutation", committer.EngineGraphQL, func(ts *githubtest.TestServer) githubtest.Fault {
			return githubtest.Fault{Route: routeGraphQL, BodyContains: lookup, Skip: 1, Times: 1, Before: other(ts, "o3")}
		}, 2, 2, 3, 2, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts, c := setup(t)
			seed(t, ts, map[string]string{"log": "start\n"})
			// Attempt 1 loses an ordinary race at its landing write.
			landing := githubtest.Fault{Route: routeGraphQL, BodyContains: githubtest.MutationUpdateRefs, Times: 1, Before: other(ts, "first")}
			if tc.engine == committer.EngineGraphQL {
				landing.Route, landing.BodyContains = routeGraphQL, githubtest.MutationCreateCommit
			}
			ts.Inject(landing)
			ts.Inject(tc.fault(ts))
			ts.ResetRequests()
			cs := committer.NewChangeSet("append").Edit("log", appendLine("x"))
			res, err := commitVia(t, c, tc.queue, cs, tc.engine)
			if err != nil {
				t.Fatal(err)
			}
			if n := ts.CountWrites(); res.Attempts != tc.attempts || n != tc.writes && n != tc.or {
				t.Errorf("%d attempts, %d writes; want %d and %d or %d (%d without looking): %v", res.Attempts, n, tc.attempts, tc.writes, tc.or, tc.before, routes(ts))
			}
			if got := readFile(t, ts, "main", "log"); got != "start\nx\n" || commitsWithMessage(t, ts, "append") != 1 {
				t.Errorf("log = %q, %d commits of the change", got, commitsWithMessage(t, ts, "append"))
			}
			checkFastForwardOnly(t, ts)
		})
	}
}

// A branch whose head another writer committed seconds ago is busy
// (loop.BusyHead): the first attempt yields (the Backoff's wait for
// Contention{Attempt: 1}, before any write) and looks at the branch before
// its writes, so a move during its resolution costs it nothing; on a quiet
// branch (the same head, a minute old) the first attempt does not look,
// and the same move costs its three writes. A head this process committed
// itself does not make the branch busy.
func TestBusyBranchFirstAttemptLooks(t *testing.T) {
	const lookup = "query Paths("
	for _, tc := range []struct {
		name     string
		quiet    bool
		writes   int
		attempts int
		yields   bool
		// Ref reads: busy, the look after the yield that sees the move
		// (its head is where the wait starts listening from), one quiet
		// slot, and the second attempt's two looks alongside its tree
		// and its commit (its look before them comes with its path
		// lookup); quiet, the wait's first read after the lost update
		// instead of the look. Branch reads: each attempt's head.
		refs, branches int
	}{
		{"busy", false, 3, 1, true, 4, 2},
		{"quiet", true, 6, 2, false, 4, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var firstSleep = -1 // requests sent before the first wait
			var contention []committer.Contention
			var ts *githubtest.TestServer
			sleep := func(ctx context.Context, _ time.Duration) error {
				mu.Lock()
				if firstSleep < 0 {
					firstSleep = len(ts.Requests())
				}
				mu.Unlock()
				return ctx.Err()
			}
			backoff := func(c committer.Contention) time.Duration {
				mu.Lock()
				contention = append(contention, c)
				mu.Unlock()
				return 0
			}
			ts, c := setup(t, committer.WithBackoffSleep(sleep), committer.WithRetries(0, backoff))
			if _, err := ts.Seed(owner, repo, "main", "another writer", githubtest.File{Path: "log", Content: []byte("start\n")}); err != nil {
				t.Fatal(err)
			}
			if tc.quiet {
				ts.Pass(time.Minute)
			}
			ts.Inject(githubtest.Fault{Route: routeGraphQL, BodyContains: lookup, Times: 1, Before: func(*http.Request) {
				if _, err := ts.Seed(owner, repo, "main", "a third writer", githubtest.File{Path: "o", Content: []byte("o\n")}); err != nil {
					t.Error(err)
				}
			}})
			ts.ResetRequests()
			res, err := c.Commit(context.Background(), "main", committer.NewChangeSet("append").Edit("log", appendLine("x")))
			if err != nil {
				t.Fatal(err)
			}
			reqs := ts.Requests()
			if n, b := ts.Count(rtGetRef), ts.Count(routeBranch); n != tc.refs || b != tc.branches {
				t.Errorf("%d ref reads and %d branch reads, want %d and %d: %v", n, b, tc.refs, tc.branches, routes(ts))
			}
			if ts.CountWrites() != tc.writes || res.Attempts != tc.attempts {
				t.Errorf("%d writes, %d attempts; want %d and %d: %v", ts.CountWrites(), res.Attempts, tc.writes, tc.attempts, routes(ts))
			}
			mu.Lock()
			yielded := len(contention) > 0 && contention[0].Attempt == 1
			before := firstSleep
			mu.Unlock()
			if yielded != tc.yields {
				t.Errorf("first attempt yielded: %v, want %v (backoff asked for %+v)", yielded, tc.yields, contention)
			}
			if tc.yields {
				for _, r := range reqs[:before] {
					if r.Write {
						t.Errorf("a write (%s) before the yield: %v", r.Route, routes(ts))
					}
				}
			}
			if got := readFile(t, ts, "main", "log"); got != "start\nx\n" {
				t.Errorf("log = %q", got)
			}
			// The branch's head is now this process's own commit, seconds
			// old: the next commit does not yield nor look.
			ts.ResetRequests()
			if _, err := c.Commit(context.Background(), "main", committer.NewChangeSet("again").Put("b", []byte("b\n"))); err != nil {
				t.Fatal(err)
			}
			if n := ts.Count(rtGetRef); n != 0 {
				t.Errorf("a commit after our own read the ref %d times: %v", n, routes(ts))
			}
		})
	}
}

// After a lost race a writer listens before it talks: it reads the
// branch's ref once a slot (conditionally), waits while the branch keeps
// moving (each move counts as contention, Contention.Landed), and starts
// after a quiet slot; the attempt then reads the head itself (after the
// pacer's wait for its writes). Scripted: the branch moves on the
// first two reads of the wait, then stays; the second attempt loses again,
// so the third's Backoff sees every move: two lost races and two moves
// heard while listening.
func TestListenBeforeTalk(t *testing.T) {
	var mu sync.Mutex
	var contention []committer.Contention
	backoff := func(c committer.Contention) time.Duration {
		mu.Lock()
		contention = append(contention, c)
		mu.Unlock()
		return 0
	}
	ts, c := setup(t, committer.WithRetries(0, backoff))
	seed(t, ts, map[string]string{"log": "start\n"})
	n := 0
	move := func(*http.Request) {
		n++
		if _, err := ts.Seed(owner, repo, "main", fmt.Sprintf("other %d", n), githubtest.File{Path: "o", Content: []byte(fmt.Sprintf("%d\n", n))}); err != nil {
			t.Error(err)
		}
	}
	ts.Inject(githubtest.Fault{Route: routeGraphQL, BodyContains: githubtest.MutationUpdateRefs, Times: 2, Before: move})
	// The first ref read after the loss learns the head; the next two hear moves.
	ts.Inject(githubtest.Fault{Route: rtGetRef, Skip: 1, Times: 2, Before: move})
	ts.ResetRequests()
	res, err := c.Commit(context.Background(), "main", committer.NewChangeSet("append").Edit("log", appendLine("x")))
	if err != nil {
		t.Fatal(err)
	}
	if res.Attempts != 3 {
		t.Errorf("%d attempts, want 3: %v", res.Attempts, routes(ts))
	}
	// Between the first lost update and the second attempt's path lookup:
	// the head learnt, two busy slots, one quiet slot (ref reads), and the
	// attempt's own head read.
	var wait []string
	lost := false
	for _, r := range ts.Requests() {
		if !lost {
			lost = r.Route == routeGraphQL && r.Write
			continue
		}
		if r.Route == routeGraphQL {
			break
		}
		wait = append(wait, r.Route)
	}
	if want := []string{rtGetRef, rtGetRef, rtGetRef, rtGetRef, routeBranch}; !slices.Equal(wait, want) {
		t.Errorf("the first wait read %v, want %v (the head, two moves, a quiet slot): %v", wait, want, routes(ts))
	}
	mu.Lock()
	defer mu.Unlock()
	if len(contention) != 2 || contention[0].Attempt != 2 || contention[0].Landed != 1 || contention[1].Attempt != 3 || contention[1].Landed != 4 {
		t.Errorf("backoff asked for %+v, want attempt 2 with 1 move seen, then attempt 3 with 4", contention)
	}
	for _, c := range contention {
		if c.Writes != 3 { // Git Data: a tree, a commit, the ref update
			t.Errorf("backoff asked for %+v, want 3 writes an attempt", c)
		}
	}
	if got := readFile(t, ts, "main", "log"); got != "start\nx\n" || commitsWithMessage(t, ts, "append") != 1 {
		t.Errorf("log = %q, %d commits of the change", got, commitsWithMessage(t, ts, "append"))
	}
}

// What a collision costs decides how a writer waits (see the loop's
// spread): Git Data's attempt sends three writes, so it listens while it
// waits and starts only after a quiet step. Scripted: the wait's backoff
// is spent by its first step, and the branch moves on the wait's first
// two reads.
// A one-write engine listens once: lost at its write, it reads where the
// branch went, and four slots into the wait (the lost attempt's duration)
// reads it again; the branch stayed there, so it starts then, not after
// the backoff's hour. The attempt reads the head itself and looks before
// its write.
func TestListenCountsBusyStepsByWhatAMoveCosts(t *testing.T) {
	for _, tc := range []struct {
		engine  committer.Engine
		landing string
		backoff time.Duration
		moves   int // the branch moves on the wait's first reads after the first
		wait    []string
		// GraphQL: the wait's sleeps of four slots each, and whether it
		// then slept the hour's rest.
		short int
		rest  bool
	}{
		{committer.EngineGraphQL, githubtest.MutationCreateCommit, time.Hour, 0, []string{rtGetRef, rtGetRef, routeBranch}, 1, false},
		// It listens every four slots, up to three times: a quiet one
		// starts the attempt; after three moves heard it sleeps the rest.
		// (The first move is the one the read after the loss learns.)
		{committer.EngineGraphQL, githubtest.MutationCreateCommit, time.Hour, 3, []string{rtGetRef, rtGetRef, rtGetRef, rtGetRef, routeBranch}, 3, false},
		{committer.EngineGraphQL, githubtest.MutationCreateCommit, time.Hour, 4, []string{rtGetRef, rtGetRef, rtGetRef, rtGetRef, routeBranch}, 3, true},
		{committer.EngineGitData, githubtest.MutationUpdateRefs, time.Nanosecond, 2, []string{rtGetRef, rtGetRef, rtGetRef, rtGetRef, routeBranch}, 0, false},
		// Four quiet slots (a read each) end an hour's wait.
		{committer.EngineGitData, githubtest.MutationUpdateRefs, time.Hour, 0, []string{rtGetRef, rtGetRef, rtGetRef, rtGetRef, rtGetRef, routeBranch}, 0, false},
	} {
		t.Run(fmt.Sprintf("%s/%s/moves=%d", tc.engine, tc.backoff, tc.moves), func(t *testing.T) {
			sleepOpt, slept := recordSleeps()
			ts, c := setup(t, sleepOpt, committer.WithRetries(0, func(committer.Contention) time.Duration { return tc.backoff }))
			seed(t, ts, map[string]string{"log": "start\n"})
			n := 0
			move := func(*http.Request) {
				n++
				if _, err := ts.Seed(owner, repo, "main", fmt.Sprintf("other %d", n), githubtest.File{Path: "o", Content: []byte(fmt.Sprintf("%d\n", n))}); err != nil {
					t.Error(err)
				}
			}
			ts.Inject(githubtest.Fault{Route: routeGraphQL, BodyContains: tc.landing, Times: 1, Before: move})
			if tc.moves > 0 {
				// The ref read after the loss learns the head; the wait's
				// next ones hear moves.
				ts.Inject(githubtest.Fault{Route: rtGetRef, Skip: 1, Times: tc.moves, Before: move})
			}
			ts.ResetRequests()
			res, err := c.Commit(context.Background(), "main", committer.NewChangeSet("append").Edit("log", appendLine("x")), committer.WithEngine(tc.engine))
			if err != nil {
				t.Fatal(err)
			}
			var wait []string
			lost := false
			for _, r := range ts.Requests() {
				if !lost {
					lost = r.Route == routeGraphQL && r.Write
					continue
				}
				if r.Route == routeGraphQL {
					break
				}
				wait = append(wait, r.Route)
			}
			if !slices.Equal(wait, tc.wait) || res.Attempts != 2 {
				t.Errorf("the wait read %v and %d attempts, want %v and 2: %v", wait, res.Attempts, tc.wait, routes(ts))
			}
			if tc.engine == committer.EngineGraphQL {
				sleeps := slept()
				want := tc.short
				if tc.rest {
					want++
				}
				ok := len(sleeps) == want
				for i, d := range sleeps {
					ok = ok && (d < time.Minute) == (i < tc.short)
				}
				if !ok {
					t.Errorf("the wait slept %v, want %d of four slots of the lost attempt, then the hour's rest: %v", sleeps, tc.short, tc.rest)
				}
			}
			if got := readFile(t, ts, "main", "log"); got != "start\nx\n" || commitsWithMessage(t, ts, "append") != 1 {
				t.Errorf("log = %q, %d commits of the change", got, commitsWithMessage(t, ts, "append"))
			}
		})
	}
}

// A GraphQL commit's path query reads the branch's head too
// (ghgraphql.RefLook): when it shows the branch moved, the attempt ends
// before its write with no read of its own; when it does not, the attempt
// still looks just before its write (one conditional ref read).
func TestGraphQLLooksWithItsPathQuery(t *testing.T) {
	const lookup = "query Paths("
	t.Run("unmoved", func(t *testing.T) {
		ts, c := setup(t)
		seed(t, ts, map[string]string{"log": "start\n"})
		histories := 0 // a first attempt counts no moves: its query lists no history
		ts.Inject(githubtest.Fault{Route: routeGraphQL, BodyContains: "history(first:", Times: 100, Before: func(*http.Request) { histories++ }})
		ts.ResetRequests()
		if _, err := c.Commit(context.Background(), "main", committer.NewChangeSet("append").Edit("log", appendLine("x")), committer.WithEngine(committer.EngineGraphQL)); err != nil {
			t.Fatal(err)
		}
		if n, w := len(ts.Requests()), ts.CountWrites(); n != 4 || w != 1 || ts.Count(rtGetRef) != 1 {
			t.Errorf("%d requests, %d writes, want 4 (the head, the paths with the file and the branch, the look, the commit) and 1: %v", n, w, routes(ts))
		}
		if histories != 0 {
			t.Errorf("%d path queries asked for the head's history, want none", histories)
		}
	})
	// Moved: the attempt ends after its path query, which saw where the
	// branch went; the wait reads the ref four slots in, and starts at
	// once when the branch stayed there (its writers thinned out); when it
	// moved again, it listens again four slots later (up to three times:
	// TestListenCountsBusyStepsByWhatAMoveCosts).
	for _, again := range []bool{false, true} {
		t.Run(fmt.Sprintf("moved/again=%v", again), func(t *testing.T) {
			sleepOpt, slept := recordSleeps()
			ts, c := setup(t, sleepOpt, committer.WithRetries(0, func(committer.Contention) time.Duration { return time.Hour }))
			seed(t, ts, map[string]string{"log": "start\n"})
			n := 0
			move := func(*http.Request) {
				n++
				if _, err := ts.Seed(owner, repo, "main", fmt.Sprintf("another writer %d", n), githubtest.File{Path: "o", Content: []byte(fmt.Sprintf("%d\n", n))}); err != nil {
					t.Error(err)
				}
			}
			ts.Inject(githubtest.Fault{Route: routeGraphQL, BodyContains: lookup, Times: 1, Before: move})
			if again {
				ts.Inject(githubtest.Fault{Route: rtGetRef, Times: 1, Before: move})
			}
			ts.ResetRequests()
			res, err := c.Commit(context.Background(), "main", committer.NewChangeSet("append").Edit("log", appendLine("x")), committer.WithEngine(committer.EngineGraphQL))
			if err != nil {
				t.Fatal(err)
			}
			var first []string // up to the next attempt's read of the head
			for _, r := range ts.Requests()[1:] {
				if r.Route == routeBranch {
					break
				}
				first = append(first, r.Route)
			}
			want := []string{routeGraphQL, rtGetRef}
			if again {
				want = append(want, rtGetRef)
			}
			if !slices.Equal(first, want) || ts.CountWrites() != 1 || res.Attempts != 1 {
				t.Errorf("before the second attempt: %v; %d writes, %d attempts; want only the path query and the wait's ref reads %v, 1 and 1: %v", first, ts.CountWrites(), res.Attempts, want, routes(ts))
			}
			sleeps := slept()
			var total time.Duration
			for _, d := range sleeps {
				total += d
			}
			switch {
			case !again && (len(sleeps) != 1 || total >= time.Minute):
				t.Errorf("the wait slept %v, want four slots of the lost attempt, then the attempt (the branch stayed quiet)", sleeps)
			case again && (len(sleeps) != 2 || total >= time.Minute):
				t.Errorf("the wait slept %v, want four slots twice, then the attempt (the branch moved once, then stayed)", sleeps)
			}
			if got := readFile(t, ts, "main", "log"); got != "start\nx\n" || readFile(t, ts, "main", "o") != fmt.Sprintf("%d\n", n) {
				t.Errorf("log = %q", got)
			}
		})
	}
}

// A one-write engine reads little while it waits, yet counts the moves a
// listener would have heard: its next path query lists the head's latest
// commits, and the moves since the head it last saw widen its next wait
// (Contention.Landed; they count half). Scripted: both attempts' path queries see the
// branch move, and three more commits land during the first wait.
func TestOneWriteCountsMovesFromItsPathQuery(t *testing.T) {
	var mu sync.Mutex
	var contention []committer.Contention
	ts, c := setup(t, committer.WithBackoffSleep(func(ctx context.Context, _ time.Duration) error { return ctx.Err() }),
		committer.WithRetries(0, func(c committer.Contention) time.Duration {
			mu.Lock()
			contention = append(contention, c)
			mu.Unlock()
			return time.Hour // long enough to listen once
		}))
	seed(t, ts, map[string]string{"log": "start\n"})
	n := 0
	move := func(*http.Request) {
		n++
		if _, err := ts.Seed(owner, repo, "main", fmt.Sprintf("other %d", n), githubtest.File{Path: "o", Content: []byte(fmt.Sprintf("%d\n", n))}); err != nil {
			t.Error(err)
		}
	}
	ts.Inject(githubtest.Fault{Route: routeGraphQL, BodyContains: "query Paths(", Times: 2, Before: move})
	ts.Inject(githubtest.Fault{Route: rtGetRef, Times: 1, Before: func(r *http.Request) { move(r); move(r); move(r) }})
	res, err := c.Commit(context.Background(), "main", committer.NewChangeSet("append").Edit("log", appendLine("x")), committer.WithEngine(committer.EngineGraphQL))
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	// The first wait: the move lost to. The second: that one, half of the
	// four the second path query saw since (three during the wait, one
	// under it), and the move it lost to.
	if len(contention) != 2 || contention[0].Landed != 1 || contention[1].Landed != 4 || res.Attempts != 1 {
		t.Errorf("backoff asked for %+v, %d attempts; want 1 move seen, then 4, and 1 attempt (no write lost): %v", contention, res.Attempts, routes(ts))
	}
	for _, c := range contention {
		if c.Writes != 1 { // createCommitOnBranch alone
			t.Errorf("backoff asked for %+v, want 1 write an attempt", c)
		}
	}
	if got := readFile(t, ts, "main", "log"); got != "start\nx\n" || commitsWithMessage(t, ts, "append") != 1 {
		t.Errorf("log = %q, %d commits of the change", got, commitsWithMessage(t, ts, "append"))
	}
}

// recordSleeps is a backoff sleep that returns at once and records what it
// was asked to sleep; slept returns the record so far.
func recordSleeps() (opt committer.Option, slept func() []time.Duration) {
	var mu sync.Mutex
	var sleeps []time.Duration
	opt = committer.WithBackoffSleep(func(ctx context.Context, d time.Duration) error {
		mu.Lock()
		sleeps = append(sleeps, d)
		mu.Unlock()
		return ctx.Err()
	})
	return opt, func() []time.Duration {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(sleeps)
	}
}
