package committer_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

// copiedID is an Edit-Id a caller's message carries from elsewhere: an
// earlier commit's message copied whole, or a trailer given by hand.
const copiedID = "0123456789abcdef"

// copiedMessages are messages that already hold an Edit-Id line (or
// something like one) that is not this change set's own.
var copiedMessages = []struct{ name, msg string }{
	{"trailer block", "deploy\n\nGhcommitter-Edit-Id: " + copiedID + "\n"},
	{"with other trailers", "deploy\n\nGhcommitter-Edit-Id: " + copiedID + "\nSigned-off-by: J <j@example.com>\n"},
	{"in the body", "deploy\n\nGhcommitter-Edit-Id: " + copiedID + "\n\nThe rest of the body.\n"},
	{"other case", "deploy\n\nghcommitter-edit-id: " + copiedID + "\n"},
	{"two ids", "deploy\n\nGhcommitter-Edit-Id: " + copiedID + "\nGhcommitter-Edit-Id: fedcba9876543210\n"},
	{"only the trailer", "Ghcommitter-Edit-Id: " + copiedID},
}

var ownIDLine = regexp.MustCompile(`\n\n(?:[^\n]+\n)*Ghcommitter-Edit-Id: ([0-9a-f]{16})\n?$`)

// ownID returns the Edit-Id a landed commit's message ends with (the one
// ghcommitter appended), failing the test when it has none.
func ownID(t *testing.T, msg string) string {
	t.Helper()
	m := ownIDLine.FindStringSubmatch(msg)
	if m == nil {
		t.Fatalf("message %q does not end with an Edit-Id trailer of its own", msg)
	}
	return m[1]
}

// landingWriteFails makes the next landing write through e fail as the
// mode says, after running other (another writer landing in between):
// "failed" answers 502 without applying the write, "dropped" applies it
// (or refuses it, when other moved what it was built on) and loses the
// reply.
func landingWriteFails(ts *githubtest.TestServer, e committer.Engine, mode string, other func()) {
	for _, r := range writeRoutes(e) {
		var once sync.Once
		f := githubtest.Fault{Route: routeOf(r), BodyContains: mutationOf(r), Times: 1, Before: func(*http.Request) { once.Do(other) }}
		if mode == "failed" {
			f.Status = http.StatusBadGateway
		} else {
			f.DropResponse = true
		}
		ts.Inject(f)
	}
}

// TestCopiedEditIDSettlesOnItsOwn (issue 18.2): two writers whose messages
// carry the same copied Edit-Id; A's landing write gets no answer and B
// lands in between. Settling A's write must look for A's own Edit-Id,
// never the copied one: A must not report B's commit, and A's change lands
// exactly once (or is reported as not landed), on every engine.
func TestCopiedEditIDSettlesOnItsOwn(t *testing.T) {
	for _, e := range allEngines {
		for _, mode := range []string{"failed", "dropped"} {
			for _, m := range copiedMessages {
				t.Run(e.String()+"/"+mode+"/"+m.name, func(t *testing.T) {
					ts, a := setup(t)
					seed(t, ts, map[string]string{"log": ""})
					b, err := newWith(ts.Client, owner, repo, committer.WithBackoffSleep(noSleep), committer.AsOtherProcess("B"))
					must(t, err)
					var resB *committer.Result
					landingWriteFails(ts, e, mode, func() {
						var err error
						resB, err = engineCommit(t, b, e, committer.NewChangeSet(m.msg).Edit("log", appendLine("B")))
						if err != nil {
							t.Errorf("writer B: %v", err)
						}
					})
					resA, errA := engineCommit(t, a, e, committer.NewChangeSet(m.msg).Edit("log", appendLine("A")))
					checkOnce(t, ts, resA, errA, resB, "log", "A\n")
				})
			}
		}
	}
	// Plain puts: the one-write engines give the message an Edit-Id of
	// their own even when it seems to have one.
	for _, e := range []committer.Engine{committer.EngineGraphQL, committer.EngineContents, committer.EngineAuto} {
		for _, mode := range []string{"failed", "dropped"} {
			t.Run("put/"+e.String()+"/"+mode, func(t *testing.T) {
				ts, a := setup(t)
				b, err := newWith(ts.Client, owner, repo, committer.WithBackoffSleep(noSleep), committer.AsOtherProcess("B"))
				must(t, err)
				var resB *committer.Result
				msg := copiedMessages[0].msg
				landingWriteFails(ts, e, mode, func() {
					var err error
					if resB, err = engineCommit(t, b, e, committer.NewChangeSet(msg).Put("b.txt", []byte("B\n"))); err != nil {
						t.Errorf("writer B: %v", err)
					}
				})
				resA, errA := engineCommit(t, a, e, committer.NewChangeSet(msg).Put("a.txt", []byte("A\n")))
				checkOnce(t, ts, resA, errA, resB, "a.txt", "A\n")
			})
		}
	}
}

// checkOnce checks writer A's outcome after B landed in the middle of A's
// lost write: A's line is in file exactly once and A's Result names a
// commit of A's (never B's), or A says it did not land and its line is
// not there.
func checkOnce(t *testing.T, ts *githubtest.TestServer, resA *committer.Result, errA error, resB *committer.Result, file, line string) {
	t.Helper()
	if resB == nil {
		t.Fatal("writer B did not land in the middle of A's write")
	}
	got := readFile(t, ts, "main", file)
	if errA != nil {
		if strings.Contains(got, line) {
			t.Fatalf("A failed (%v), but its change is on the branch: %s = %q", errA, file, got)
		}
		return
	}
	if resA.Commit == resB.Commit {
		t.Fatalf("A reports B's commit %s as its own", resB.Commit)
	}
	if n := strings.Count(got, line); n != 1 {
		t.Fatalf("%s = %q: A's change is there %d times, want once", file, got, n)
	}
	if at := readFile(t, ts, resA.Commit, file); !strings.Contains(at, line) {
		t.Errorf("A's Result.Commit %s does not hold A's change: %s = %q", resA.Commit, file, at)
	}
}

// TestEditIDOwnAndLast: whatever Edit-Id lines the caller's message holds
// (kept as they are), the commit ends with a fresh one of its own, on
// every engine that adds one.
func TestEditIDOwnAndLast(t *testing.T) {
	for _, e := range allEngines {
		for _, m := range copiedMessages {
			t.Run(e.String()+"/"+m.name, func(t *testing.T) {
				ts, c := setup(t)
				seed(t, ts, map[string]string{"log": ""})
				res, err := engineCommit(t, c, e, committer.NewChangeSet(m.msg).Edit("log", appendLine("x")))
				must(t, err)
				cm, err := ts.Commit(owner, repo, res.Commit)
				must(t, err)
				if !strings.HasPrefix(cm.Message, strings.TrimRight(m.msg, "\n")) {
					t.Errorf("message %q does not keep the caller's %q", cm.Message, m.msg)
				}
				if id := ownID(t, cm.Message); id == copiedID || strings.Contains(m.msg, id) {
					t.Errorf("message %q ends with the caller's Edit-Id, not a fresh one", cm.Message)
				}
			})
		}
	}
}

// sentIDs records the own Edit-Id of every landing write sent through e.
func sentIDs(_ *testing.T, ts *githubtest.TestServer, e committer.Engine) func() []string {
	var mu sync.Mutex
	var ids []string
	for _, r := range writeRoutes(e) {
		ts.Inject(githubtest.Fault{Route: routeOf(r), BodyContains: mutationOf(r), Before: func(req *http.Request) {
			body, _ := io.ReadAll(req.Body)
			req.Body = io.NopCloser(bytes.NewReader(body))
			var msg string
			var gql struct {
				Query     string
				Variables struct {
					Input struct {
						Message struct{ Headline, Body string }
					}
				}
			}
			var rest struct{ Message string }
			switch {
			case json.Unmarshal(body, &gql) == nil && strings.Contains(gql.Query, "createCommitOnBranch"):
				msg = gql.Variables.Input.Message.Headline + "\n\n" + gql.Variables.Input.Message.Body
			case json.Unmarshal(body, &rest) == nil && rest.Message != "":
				msg = rest.Message
			default:
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if m := ownIDLine.FindStringSubmatch(msg); m != nil {
				ids = append(ids, m[1])
			} else {
				ids = append(ids, "none in "+msg)
			}
		}})
	}
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), ids...)
	}
}

// TestEditIDStableAcrossAttempts: a change set keeps its one Edit-Id over
// all its attempts (the one the commit that lands carries), so that any of
// its writes is found by it.
func TestEditIDStableAcrossAttempts(t *testing.T) {
	for _, e := range []committer.Engine{committer.EngineGraphQL, committer.EngineContents, committer.EngineAuto} {
		t.Run(e.String(), func(t *testing.T) {
			ts, c := setup(t)
			seed(t, ts, map[string]string{"log": ""})
			beforeNextWrite(ts, e, func() {
				if _, err := ts.Seed(owner, repo, "main", "other writer", githubtest.File{Path: "log", Content: []byte("other\n")}); err != nil {
					t.Error(err)
				}
			})
			ids := sentIDs(t, ts, e)
			res, err := engineCommit(t, c, e, committer.NewChangeSet(copiedMessages[0].msg).Edit("log", appendLine("x")))
			must(t, err)
			cm, err := ts.Commit(owner, repo, res.Commit)
			must(t, err)
			got := ids()
			if len(got) < 2 || res.Attempts < 2 {
				t.Fatalf("%d writes over %d attempts, want a lost race first", len(got), res.Attempts)
			}
			for _, id := range got {
				if id != ownID(t, cm.Message) {
					t.Errorf("writes carried Edit-Ids %q, the landed commit %q", got, ownID(t, cm.Message))
				}
			}
		})
	}
}

// TestEditIDOmitted: OmitEditID adds none, and a caller's Edit-Id is then
// not taken as one: the one-write engines refuse (they settle by it), auto
// commits through Git Data, which settles by SHA.
func TestEditIDOmitted(t *testing.T) {
	for _, e := range allEngines {
		t.Run(e.String(), func(t *testing.T) {
			ts, c := setup(t)
			seed(t, ts, map[string]string{"log": ""})
			before := head(t, ts, "main")
			w := allWrites(ts)
			cs := committer.NewChangeSet(copiedMessages[0].msg).Edit("log", appendLine("x"))
			cs.OmitEditID = true
			res, err := engineCommit(t, c, e, cs)
			if e == committer.EngineGraphQL || e == committer.EngineContents {
				if !errors.Is(err, committer.ErrInvalid) || allWrites(ts) != w || head(t, ts, "main") != before {
					t.Fatalf("err = %v, %d writes: want ErrInvalid before any write", err, allWrites(ts)-w)
				}
				return
			}
			must(t, err)
			if res.Engine != committer.EngineGitData.String() {
				t.Errorf("OmitEditID went through %s, want git-data", res.Engine)
			}
			cm, err := ts.Commit(owner, repo, res.Commit)
			must(t, err)
			if cm.Message != copiedMessages[0].msg {
				t.Errorf("message %q, want the caller's unchanged", cm.Message)
			}
		})
	}
}

// queueCommit commits cs through q in the background.
func queueCommit(q *committer.Queue, cs *committer.ChangeSet) <-chan queued {
	ch := make(chan queued, 1)
	go func() {
		res, err := q.Commit(context.Background(), cs)
		ch <- queued{res, err}
	}()
	return ch
}

type queued struct {
	res *committer.Result
	err error
}

// TestQueueCopiedEditID: a squashed GraphQL Queue settles its lost write by
// its batch's own Edit-Id, both for a batch of one (whose message is the
// change set's, copied trailer included) and for a squash of several; a
// chained Queue gives each commit that needs one its own.
func TestQueueCopiedEditID(t *testing.T) {
	msg := copiedMessages[0].msg
	for _, mode := range []string{"failed", "dropped"} {
		t.Run("squash one/"+mode, func(t *testing.T) {
			ts, c := setup(t)
			seed(t, ts, map[string]string{"log": ""})
			q, err := committer.NewQueue(c, "main", committer.WithEngine(committer.EngineGraphQL), committer.Squash())
			must(t, err)
			b, err := newWith(ts.Client, owner, repo, committer.WithBackoffSleep(noSleep), committer.AsOtherProcess("B"))
			must(t, err)
			var resB *committer.Result
			landingWriteFails(ts, committer.EngineGraphQL, mode, func() {
				var err error
				if resB, err = engineCommit(t, b, committer.EngineGraphQL, committer.NewChangeSet(msg).Put("b.txt", []byte("B\n"))); err != nil {
					t.Errorf("writer B: %v", err)
				}
			})
			r := <-queueCommit(q, committer.NewChangeSet(msg).Put("a.txt", []byte("A\n")))
			checkOnce(t, ts, r.res, r.err, resB, "a.txt", "A\n")
		})
		t.Run("squash several/"+mode, func(t *testing.T) {
			ts, c := setup(t)
			seed(t, ts, map[string]string{"log": ""})
			q, err := committer.NewQueue(c, "main", committer.WithEngine(committer.EngineGraphQL), committer.Squash())
			must(t, err)
			b, err := newWith(ts.Client, owner, repo, committer.WithBackoffSleep(noSleep), committer.AsOtherProcess("B"))
			must(t, err)
			// Hold the first batch at its write so that the next two
			// queue up behind it; the second batch's write fails.
			release, held := make(chan struct{}), make(chan struct{})
			ts.Inject(githubtest.Fault{Route: routeGraphQL, BodyContains: githubtest.MutationCreateCommit, Times: 1, Before: func(*http.Request) { close(held); <-release }})
			first := queueCommit(q, committer.NewChangeSet("first").Put("first", []byte("1")))
			<-held
			var resB *committer.Result
			var once sync.Once
			f := githubtest.Fault{Route: routeGraphQL, BodyContains: githubtest.MutationCreateCommit, Times: 1, Before: func(*http.Request) {
				once.Do(func() {
					var err error
					if resB, err = engineCommit(t, b, committer.EngineGraphQL, committer.NewChangeSet(msg).Put("b.txt", []byte("B\n"))); err != nil {
						t.Errorf("writer B: %v", err)
					}
				})
			}}
			if mode == "failed" {
				f.Status = http.StatusBadGateway
			} else {
				f.DropResponse = true
			}
			ts.Inject(f)
			a1 := queueCommit(q, committer.NewChangeSet(msg).Put("a1.txt", []byte("A1\n")))
			a2 := queueCommit(q, committer.NewChangeSet(msg).Edit("log", appendLine("A2")))
			time.Sleep(20 * time.Millisecond) // let them queue; correctness does not depend on it
			close(release)
			if r := <-first; r.err != nil {
				t.Fatal(r.err)
			}
			r1, r2 := <-a1, <-a2
			checkOnce(t, ts, r1.res, r1.err, resB, "a1.txt", "A1\n")
			checkOnce(t, ts, r2.res, r2.err, resB, "log", "A2\n")
			if r1.err == nil {
				cm, err := ts.Commit(owner, repo, r1.res.Commit)
				must(t, err)
				if id := ownID(t, cm.Message); id == copiedID {
					t.Errorf("squashed message %q ends with the copied Edit-Id", cm.Message)
				}
			}
		})
	}
	t.Run("chain", func(t *testing.T) {
		ts, c := setup(t)
		seed(t, ts, map[string]string{"log": ""})
		q, err := committer.NewQueue(c, "main")
		must(t, err)
		var ids []string
		for _, m := range copiedMessages {
			r := <-queueCommit(q, committer.NewChangeSet(m.msg).Edit("log", appendLine(m.name)))
			must(t, r.err)
			cm, err := ts.Commit(owner, repo, r.res.Commit)
			must(t, err)
			if !strings.HasPrefix(cm.Message, strings.TrimRight(m.msg, "\n")) {
				t.Errorf("message %q does not keep the caller's %q", cm.Message, m.msg)
			}
			id := ownID(t, cm.Message)
			if strings.Contains(m.msg, id) {
				t.Errorf("message %q ends with the caller's Edit-Id", cm.Message)
			}
			ids = append(ids, id)
		}
		seen := map[string]bool{}
		for _, id := range ids {
			if seen[id] {
				t.Errorf("two chained commits share the Edit-Id %s", id)
			}
			seen[id] = true
		}
	})
}

// TestCopiedEditIDUnknownOutcomeHint: when a lost write cannot be settled,
// the hint names the Edit-Id to look for: the change set's own, not the
// one its message was copied with.
func TestCopiedEditIDUnknownOutcomeHint(t *testing.T) {
	ts, c := setup(t)
	seed(t, ts, map[string]string{"log": ""})
	ids := sentIDs(t, ts, committer.EngineGraphQL)
	ts.Inject(githubtest.Fault{Route: routeGraphQL, Status: http.StatusBadGateway}) // the write, then every settling read
	_, err := engineCommit(t, c, committer.EngineGraphQL, committer.NewChangeSet(copiedMessages[0].msg).Edit("log", appendLine("x")))
	var ce *committer.Error
	if !errors.Is(err, committer.ErrUnknownOutcome) || !errors.As(err, &ce) {
		t.Fatalf("err = %v, want ErrUnknownOutcome", err)
	}
	sent := ids()
	if len(sent) != 1 {
		t.Fatalf("sent Edit-Ids %q, want one write", sent)
	}
	if !strings.Contains(ce.Hint, "Ghcommitter-Edit-Id: "+sent[0]) || strings.Contains(ce.Hint, copiedID) {
		t.Errorf("hint %q, want it to name the write's own Edit-Id %s", ce.Hint, sent[0])
	}
}

// TestCopiedEditIDChaos: many writers with one copied message, their
// landing writes failing or losing their replies at random: each writer's
// change lands exactly once, under a commit of its own.
func TestCopiedEditIDChaos(t *testing.T) {
	writers, faults := 8, 8
	if testing.Short() {
		writers, faults = 4, 4
	}
	for _, e := range []committer.Engine{committer.EngineGraphQL, committer.EngineContents, committer.EngineAuto} {
		t.Run(e.String(), func(t *testing.T) {
			ts, _ := setup(t)
			seed(t, ts, map[string]string{"log": ""})
			for i := range faults {
				for _, r := range writeRoutes(e) {
					f := githubtest.Fault{Route: routeOf(r), BodyContains: mutationOf(r), Skip: 2 * i, Times: 1, DropResponse: true}
					if i%2 == 1 {
						f = githubtest.Fault{Route: routeOf(r), BodyContains: mutationOf(r), Skip: 2 * i, Times: 1, Status: http.StatusBadGateway}
					}
					ts.Inject(f)
				}
			}
			errs := make([]error, writers)
			results := make([]*committer.Result, writers)
			var wg sync.WaitGroup
			for w := range writers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					c, err := newWith(ts.Client, owner, repo, committer.WithBackoffSleep(noSleep), committer.WithRetries(50, nil))
					if err != nil {
						errs[w] = err
						return
					}
					results[w], errs[w] = engineCommit(t, c, e, committer.NewChangeSet(copiedMessages[0].msg).Edit("log", appendLine(fmt.Sprintf("w%d", w))))
				}()
			}
			wg.Wait()
			log := readFile(t, ts, "main", "log")
			owner := map[string]int{}
			for w, err := range errs {
				n := strings.Count(log, fmt.Sprintf("w%d\n", w))
				switch {
				case err == nil && n != 1:
					t.Errorf("writer %d landed %d times", w, n)
				case errors.Is(err, committer.ErrUnknownOutcome) && n > 1:
					t.Errorf("writer %d (unknown outcome) landed %d times", w, n)
				case err != nil && !errors.Is(err, committer.ErrUnknownOutcome):
					t.Errorf("writer %d: %v", w, err)
				case err == nil:
					if o, ok := owner[results[w].Commit]; ok {
						t.Errorf("writers %d and %d both report commit %s", o, w, results[w].Commit)
					}
					owner[results[w].Commit] = w
					if at := readFile(t, ts, results[w].Commit, "log"); !strings.Contains(at, fmt.Sprintf("w%d\n", w)) {
						t.Errorf("writer %d's Result.Commit %s does not hold its line", w, results[w].Commit)
					}
				}
			}
		})
	}
}
