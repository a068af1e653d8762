package committer_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
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

// The strict ref update (internal/refs/swap.go): GraphQL updateRefs with beforeOid =
// the head a commit was built on.

// updateRefsFault matches git-data's landing write: the updateRefs mutation.
func updateRefsFault(f githubtest.Fault) githubtest.Fault {
	f.Route, f.BodyContains = githubtest.RouteGraphQL, githubtest.MutationUpdateRefs
	return f
}

// forceRef moves ref from the value from to the value to, as someone
// running git push --force-with-lease would: a compare-and-swap that need
// not be a fast-forward (the fake's updateRefs with force). It reports
// whether the ref was at from.
func forceRef(t testing.TB, ts *githubtest.TestServer, ref, from, to string) bool {
	t.Helper()
	id, err := repoNodeID(ts)
	if err != nil {
		t.Error(err)
		return false
	}
	body, _ := json.Marshal(map[string]any{
		"query": `mutation($input: UpdateRefsInput!) { updateRefs(input: $input) { clientMutationId } }`,
		"variables": map[string]any{"input": map[string]any{"repositoryId": id,
			"refUpdates": []any{map[string]any{"name": ref, "beforeOid": from, "afterOid": to, "force": true}}}},
	})
	req, _ := http.NewRequest(http.MethodPost, strings.TrimSuffix(ts.URL, "/")+"/graphql", bytes.NewReader(body))
	req.Header.Set("Accept", githubtest.PreviewUpdateRefs)
	resp, err := ts.Client.Client().Do(req)
	if err != nil {
		t.Error(err)
		return false
	}
	defer resp.Body.Close()
	var out struct {
		Errors []struct{ Type, Message string } `json:"errors"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Error(err)
		return false
	}
	return len(out.Errors) == 0
}

// resetBeforeNextUpdate resets main from its head back to the head's
// parent just before the next ref update (updateRefs or PATCH) is handled:
// someone dropped the last commit with a force push between our read and
// our write.
func resetBeforeNextUpdate(t *testing.T, ts *githubtest.TestServer) {
	var fired atomic.Bool // not a sync.Once: the reset's own updateRefs passes here too
	reset := func(*http.Request) {
		if fired.Swap(true) {
			return
		}
		h := head(t, ts, "main")
		c, err := ts.Commit(owner, repo, h)
		if err != nil || len(c.Parents) == 0 {
			t.Errorf("read %s: %v", h, err)
			return
		}
		if !forceRef(t, ts, "refs/heads/main", h, c.Parents[0]) {
			t.Error("the reset was refused")
		}
	}
	ts.Inject(updateRefsFault(githubtest.Fault{Times: 1, Before: reset}))
	ts.Inject(githubtest.Fault{Route: githubtest.RouteUpdateRef, Times: 1, Before: reset})
}

func inHistory(t *testing.T, ts *githubtest.TestServer, sha string) bool {
	t.Helper()
	hist, err := ts.History(owner, repo, "main")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range hist {
		if c.SHA == sha {
			return true
		}
	}
	return false
}

// A branch reset backwards between our read and our write never brings the
// removed commit back: updateRefs refuses (the branch is not at the head
// we built on), and the change set is rebuilt on the reset branch. REST's
// fast-forward check accepts the same move (the caveat of
// WithFastForwardRefUpdates, shown by the second case).
func TestResetBackwardsNeverResurrects(t *testing.T) {
	for _, strict := range []bool{true, false} {
		t.Run(map[bool]string{true: "updateRefs", false: "rest-fast-forward"}[strict], func(t *testing.T) {
			var opts []committer.Option
			if !strict {
				opts = append(opts, committer.WithFastForwardRefUpdates())
			}
			for _, queue := range []bool{false, true} {
				ts, c := setup(t, opts...)
				base := head(t, ts, "main")
				dropped := seed(t, ts, map[string]string{"dropped.txt": "to be force-pushed away\n"})
				resetBeforeNextUpdate(t, ts)
				cs := committer.NewChangeSet("ours").Put("ours.txt", []byte("ours\n"))
				var res *committer.Result
				var err error
				if queue {
					q, qerr := committer.NewQueue(c, "main")
					must(t, qerr)
					res, err = q.Commit(context.Background(), cs)
				} else {
					res, err = c.Commit(context.Background(), "main", cs)
				}
				must(t, err)
				resurrected := inHistory(t, ts, dropped)
				if strict {
					if resurrected {
						t.Fatalf("queue=%v: the commit the reset removed is back on main", queue)
					}
					if res.Parent != base || res.Attempts != 2 {
						t.Fatalf("queue=%v: built on %s in %d attempts, want on %s (the reset head) in 2", queue, res.Parent, res.Attempts, base)
					}
				} else if !resurrected {
					t.Fatalf("queue=%v: REST's fast-forward refused the move: the caveat this case shows is gone (update the docs)", queue)
				}
				if got := readFile(t, ts, "main", "ours.txt"); got != "ours\n" {
					t.Fatalf("ours.txt = %q", got)
				}
			}
		})
	}
}

// ExpectHead is strict on updateRefs: the head is pinned at the write, not
// only when it is read.
func TestExpectHeadStrictAtTheWrite(t *testing.T) {
	ts, c := setup(t)
	pinned := seed(t, ts, map[string]string{"x.txt": "x\n"})
	resetBeforeNextUpdate(t, ts)
	_, err := c.Commit(context.Background(), "main", committer.NewChangeSet("pinned").Put("p.txt", []byte("p\n")), committer.ExpectHead(pinned))
	if !errors.Is(err, committer.ErrConflict) {
		t.Fatalf("err = %v, want ErrConflict (the branch left the expected head before the write)", err)
	}
	if inHistory(t, ts, pinned) {
		t.Fatal("the reset commit is back on main")
	}
}

// A lost reply to updateRefs is settled by reading the branch, once; the
// mutation is never sent again blindly.
func TestUpdateRefsLostReplyLandsOnce(t *testing.T) {
	ts, c := setup(t)
	before := head(t, ts, "main")
	ts.Inject(updateRefsFault(githubtest.Fault{Times: 1, DropResponse: true}))
	ts.ResetRequests()
	res, err := c.Commit(context.Background(), "main", committer.NewChangeSet("lost reply").Put("a.txt", []byte("a\n")))
	must(t, err)
	if head(t, ts, "main") != res.Commit || res.Parent != before || res.Attempts != 1 {
		t.Fatalf("result %+v, head %s", res, head(t, ts, "main"))
	}
	if n := mutations(ts); n != 1 {
		t.Fatalf("%d GraphQL requests, want the one updateRefs (never re-sent)", n)
	}
	checkFastForwardOnly(t, ts)
}

// updateRefs names the repository by its node ID, which comes with the
// commit's path lookup (the GraphQL query asks for Repository.id too): a
// Git Data commit that looks up paths never reads GET /repos for it. Where
// no lookup was answered (here: the endpoint refused it, so the Committer
// reads directories over REST), the node ID is read once per Committer.
func TestUpdateRefsNodeIDComesWithTheLookup(t *testing.T) {
	ts, c := setup(t)
	before := head(t, ts, "main")
	ts.ResetRequests()
	res, err := c.Commit(context.Background(), "main", committer.NewChangeSet("looked up").Put("a/b.txt", []byte("a\n")))
	must(t, err)
	if head(t, ts, "main") != res.Commit || res.Parent != before {
		t.Fatalf("result %+v, head %s", res, head(t, ts, "main"))
	}
	if n := ts.Count(routeRepo); n != 0 || lookups(ts) != 1 {
		t.Fatalf("%d GET /repos and %d lookups, want 0 and 1: %v", n, lookups(ts), routes(ts))
	}
	if mutations(ts) != 1 || ts.Count(githubtest.RouteUpdateRef) != 0 {
		t.Fatalf("%d GraphQL mutations and %d PATCHes, want the branch moved by updateRefs: %v", mutations(ts), ts.Count(githubtest.RouteUpdateRef), routes(ts))
	}

	// No lookup answered: today's fallback, GET /repos once per Committer.
	// The refused lookup is the first commit's one GraphQL query; the
	// Committer sends no more.
	ts2, c2 := setup(t)
	ts2.Inject(githubtest.Fault{Route: githubtest.RouteGraphQL, BodyContains: "query Paths(", Status: http.StatusNotFound,
		Body: `{"message":"Not Found","documentation_url":"https://docs.github.com/rest"}`})
	for i, want := range []int{1, 0} {
		ts2.ResetRequests()
		res, err := c2.Commit(context.Background(), "main", committer.NewChangeSet("no lookup").Put(fmt.Sprintf("n%d/x.txt", i), []byte("n\n")))
		must(t, err)
		if head(t, ts2, "main") != res.Commit {
			t.Fatalf("commit %d: result %+v", i, res)
		}
		if n := ts2.Count(routeRepo); n != want || lookups(ts2) != want || mutations(ts2) != 1 || ts2.Count(githubtest.RouteUpdateRef) != 0 {
			t.Fatalf("commit %d: %d GET /repos and %d lookups (want %d of each), %d mutations, %d PATCHes: %v",
				i, n, want, lookups(ts2), mutations(ts2), ts2.Count(githubtest.RouteUpdateRef), routes(ts2))
		}
	}
}

// updateRefsAnswer is one answer to updateRefs and what it comes to.
type updateRefsAnswer struct {
	name     string
	fault    githubtest.Fault // Route and BodyContains are set
	lands    bool
	attempts int   // of a landed commit
	kind     error // of a failure
}

func gqlBody(typ, msg string) string {
	b, _ := json.Marshal(map[string]any{"data": map[string]any{"updateRefs": nil}, "errors": []any{map[string]any{"type": typ, "path": []string{"updateRefs"}, "message": msg}}})
	return string(b)
}

// The one table of updateRefs' answers (judgeRefs): only a STALE_DATA
// naming the branch is a lost race; an answer that names no ref of ours
// is settled by reading the branch; a refusal naming the branch with a
// reason is final; rate limits are waited out.
func TestUpdateRefsAnswers(t *testing.T) {
	answers := []updateRefsAnswer{
		{name: "stale naming the branch", fault: githubtest.Fault{Times: 1, Status: 200, Body: gqlBody("STALE_DATA", "Reference refs/heads/main is at 1111111111111111111111111111111111111111 but expected 2222222222222222222222222222222222222222.")}, lands: true, attempts: 2},
		{name: "stale naming another ref", fault: githubtest.Fault{Times: 1, Status: 200, Body: gqlBody("STALE_DATA", "Reference refs/heads/main2 is at 1111111111111111111111111111111111111111.")}, lands: true, attempts: 2},
		{name: "an error naming nothing", fault: githubtest.Fault{Times: 1, Status: 200, Body: gqlBody("INTERNAL", "Something went wrong.")}, lands: true, attempts: 2},
		{name: "502", fault: githubtest.Fault{Times: 1, Status: 502}, lands: true, attempts: 2},
		{name: "unprocessable naming the branch", fault: githubtest.Fault{Times: 1, Status: 200, Body: gqlBody("UNPROCESSABLE", "Reference refs/heads/main: object 1111111111111111111111111111111111111111 does not exist.")}, kind: nil},
		{name: "rule violation", fault: githubtest.Fault{Status: 200, Body: gqlBody("UNPROCESSABLE", "Repository rule violations found for refs/heads/main.\n\nChanges must be made through a pull request.")}, kind: committer.ErrProtected},
		{name: "insufficient scopes", fault: githubtest.Fault{Status: 200, Body: gqlBody("INSUFFICIENT_SCOPES", "Your token has not been granted the required scopes to execute this query.")}, kind: committer.ErrPermission},
		{name: "not found", fault: githubtest.Fault{Status: 200, Body: gqlBody("NOT_FOUND", "Could not resolve to a node with the global id of 'R_x'")}, kind: committer.ErrNotFound},
		{name: "secondary limit", fault: githubtest.SecondaryLimitFault(githubtest.Fault{Times: 1}, 403, 1), lands: true, attempts: 2},
	}
	for _, a := range answers {
		t.Run(a.name, func(t *testing.T) {
			ts, c := setup(t, committer.WithRetries(3, nil))
			before := head(t, ts, "main")
			ts.Inject(updateRefsFault(a.fault))
			ts.ResetRequests()
			res, err := c.Commit(context.Background(), "main", committer.NewChangeSet("w").Put("w.txt", []byte("w\n")))
			if a.lands {
				must(t, err)
				if head(t, ts, "main") != res.Commit || res.Attempts != a.attempts {
					t.Fatalf("result %+v, want landed in %d attempts", res, a.attempts)
				}
				checkFastForwardOnly(t, ts)
				return
			}
			var e *committer.Error
			if !errors.As(err, &e) || (a.kind != nil && !errors.Is(err, a.kind)) || !errors.Is(e.Kind, a.kind) {
				t.Fatalf("err = %v, want kind %v", err, a.kind)
			}
			if e.Attempts != 1 || head(t, ts, "main") != before {
				t.Fatalf("%d attempts, head %s: want one, nothing moved", e.Attempts, head(t, ts, "main"))
			}
			if ts.Count(githubtest.RouteUpdateRef) != 0 {
				t.Fatal("fell back to REST PATCH after a refusal")
			}
		})
	}
}

// A ruleset refuses updateRefs as it refuses every write: kind protected.
func TestUpdateRefsRuleRefusal(t *testing.T) {
	ts, c := setup(t)
	if _, err := ts.AddRuleset(owner, repo, githubtest.Ruleset{Name: "pr only", Include: []string{"~DEFAULT_BRANCH"}, Rules: []githubtest.Rule{githubtest.RequirePullRequest()}}); err != nil {
		t.Fatal(err)
	}
	_, err := c.Commit(context.Background(), "main", committer.NewChangeSet("w").Put("w.txt", []byte("w\n")))
	if !errors.Is(err, committer.ErrProtected) {
		t.Fatalf("err = %v, want ErrProtected", err)
	}
}

// Where GitHub has no updateRefs (an older GitHub Enterprise Server, the
// preview gone, no GraphQL endpoint), the branch moves by REST
// fast-forward; the debug log says so once, and updateRefs is not tried
// again by that Committer.
func TestUpdateRefsUnavailableFallsBack(t *testing.T) {
	unavailable := map[string]githubtest.Fault{
		"preview gone": {Status: 200, Body: `{"errors":[{"path":["mutation UpdateRefs","updateRefs"],"extensions":{"code":"undefinedField","typeName":"Mutation","fieldName":"updateRefs"},"locations":[{"line":2,"column":3}],"message":"Field 'updateRefs' doesn't exist on type 'Mutation'"},{"path":["mutation UpdateRefs"],"extensions":{"code":"variableRequiresValidType","typeName":"UpdateRefsInput","variableName":"input"},"locations":[{"line":1,"column":21}],"message":"UpdateRefsInput isn't a defined input type (on $input)"}]}`},
		"no endpoint":  {Status: 404, Body: `{"message":"Not Found","documentation_url":"https://docs.github.com/rest"}`},
	}
	for name, f := range unavailable {
		t.Run(name, func(t *testing.T) {
			var logs bytes.Buffer
			var mu sync.Mutex
			logger := slog.New(slog.NewTextHandler(&lockedWriter{w: &logs, mu: &mu}, &slog.HandlerOptions{Level: slog.LevelDebug}))
			ts, c := setupClient(t, []ghclient.Option{ghclient.WithLogger(logger)})
			ts.Inject(updateRefsFault(f))
			var tried atomic.Int32
			ts.Inject(githubtest.Fault{Route: githubtest.RouteGraphQL, BodyContains: githubtest.MutationUpdateRefs, Before: func(*http.Request) { tried.Add(1) }})
			for i := range 2 {
				res, err := c.Commit(context.Background(), "main", committer.NewChangeSet("w").Put(fmt.Sprintf("w%d.txt", i), []byte("w\n")))
				must(t, err)
				if head(t, ts, "main") != res.Commit || res.Attempts != 1 {
					t.Fatalf("result %+v", res)
				}
			}
			if n := ts.Count(githubtest.RouteUpdateRef); n != 2 {
				t.Fatalf("%d REST ref updates, want 2", n)
			}
			if n := tried.Load(); n != 1 {
				t.Fatalf("updateRefs sent %d times, want 1: it is tried once per Committer", n)
			}
			mu.Lock()
			defer mu.Unlock()
			if n := strings.Count(logs.String(), "updateRefs is not available"); n != 1 {
				t.Fatalf("the debug log says the fallback %d times, want once:\n%s", n, logs.String())
			}
		})
	}
}

// The fake's own preview check: without the media type it has no
// updateRefs; the client sends it.
func TestUpdateRefsSendsThePreview(t *testing.T) {
	ts, c := setup(t)
	var accept string
	ts.Inject(updateRefsFault(githubtest.Fault{Times: 1, Before: func(r *http.Request) { accept = r.Header.Get("Accept") }}))
	_, err := c.Commit(context.Background(), "main", committer.NewChangeSet("w").Put("w.txt", []byte("w\n")))
	must(t, err)
	if !strings.Contains(accept, githubtest.PreviewUpdateRefs) || ts.Count(githubtest.RouteUpdateRef) != 0 {
		t.Fatalf("Accept %q, %d PATCHes", accept, ts.Count(githubtest.RouteUpdateRef))
	}
}

// nodeIDs caches the test repository's node ID per fake (forceRef runs in
// loops: a GET /repos each time would spend the token's rate limit).
var nodeIDs sync.Map

func repoNodeID(ts *githubtest.TestServer) (string, error) {
	if id, ok := nodeIDs.Load(ts.URL); ok {
		return id.(string), nil
	}
	rp, _, err := ts.Client.Repositories.Get(context.Background(), owner, repo)
	if err != nil {
		return "", err
	}
	nodeIDs.Store(ts.URL, rp.GetNodeID())
	return rp.GetNodeID(), nil
}

type lockedWriter struct {
	w  *bytes.Buffer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// TestChaosResetsNeverResurrect: writers in separate processes (one
// Committer each) commit while updateRefs replies are lost and someone
// keeps committing on the branch and force-pushing that commit away
// (a compare-and-swap reset, so no commit of ours is ever removed). No
// reset-away commit ever comes back; every change set reported landed is
// on the branch; the counter every change set increments is neither short
// nor over; the only moves that are not fast-forwards are the resets.
func TestChaosResetsNeverResurrect(t *testing.T) {
	writers, trials := 4, 12
	if testing.Short() {
		writers, trials = 3, 6
	}
	ts, _ := setup(t)
	for i := range 6 {
		ts.Inject(updateRefsFault(githubtest.Fault{Skip: 2 + 5*i, Times: 1, DropResponse: true}))
	}
	stop := make(chan struct{})
	resetter := make(chan struct{})
	go func() {
		defer close(resetter)
		// At most one reset every 5 ms, and 600 in all: the resetter
		// shares the writers' token, whose hourly GraphQL budget an
		// unpaced loop spends before the writers are done.
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for n := 0; n < 600; n++ {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			x, err := ts.Seed(owner, repo, "main", fmt.Sprintf("doomed %d", n), githubtest.File{Path: fmt.Sprintf("doomed/%d", n), Content: []byte("x\n")})
			if err != nil {
				t.Error(err)
				return
			}
			c, err := ts.Commit(owner, repo, x)
			if err != nil {
				t.Error(err)
				return
			}
			forceRefQuiet(ts, "refs/heads/main", x, c.Parents[0]) // its reply may be lost: RefUpdates says what was reset
		}
	}()
	var wg sync.WaitGroup
	var mu sync.Mutex
	landed := map[string]bool{} // marker path -> reported landed
	undecided := 0
	for w := range writers {
		c, err := newWith(ts.Client, owner, repo, committer.WithBackoffSleep(noSleep), committer.WithRetries(50, nil))
		must(t, err)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range trials {
				marker := fmt.Sprintf("markers/w%d/k%d", w, k)
				cs := committer.NewChangeSet("trial "+marker).Put(marker, []byte("m\n")).Edit(chaosCounter, chaosIncr)
				_, err := c.Commit(context.Background(), "main", cs)
				mu.Lock()
				switch {
				case err == nil:
					landed[marker] = true
				case errors.Is(err, committer.ErrUnknownOutcome), errors.Is(err, committer.ErrConflict):
					undecided++
				default:
					t.Errorf("%s: %v", marker, err)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(stop)
	<-resetter
	// The resets are the moves that are not fast-forwards; each must be
	// from a commit of the resetter's ("doomed N", which alone adds
	// doomed/N): no other move may ever go backwards.
	var doomed []string
	doomedPath := map[string]string{}
	for _, u := range ts.RefUpdates(owner, repo) {
		if u.Old == "" || u.New == "" || (!u.Forced && u.FastForward) {
			continue
		}
		c, err := ts.Commit(owner, repo, u.Old)
		var n int
		if _, serr := fmt.Sscanf(c.Message, "doomed %d", &n); err != nil || serr != nil {
			t.Errorf("ref %s moved %s -> %s without fast-forward, and not by a reset", u.Ref, u.Old, u.New)
			continue
		}
		doomed = append(doomed, u.Old)
		doomedPath[u.Old] = fmt.Sprintf("doomed/%d", n)
	}
	if len(doomed) == 0 {
		t.Fatal("no reset happened: the test tested nothing")
	}
	for _, x := range doomed {
		if inHistory(t, ts, x) {
			t.Errorf("commit %s was reset away and is back on main", x)
		}
	}
	files, err := ts.Files(owner, repo, "main")
	must(t, err)
	for _, x := range doomed {
		if _, on := files[doomedPath[x]]; on {
			t.Errorf("%s, added by the reset-away %s only, is on main", doomedPath[x], x)
		}
	}
	for marker := range landed {
		if _, ok := files[marker]; !ok {
			t.Errorf("%s was reported landed and is not on main", marker)
		}
	}
	var n int
	if f, ok := files[chaosCounter]; ok {
		_, _ = fmt.Sscanf(string(f.Content), "%d", &n)
	}
	if n < len(landed) || n > len(landed)+undecided {
		t.Errorf("counter %d, want %d landed (+ up to %d undecided): an edit was lost or applied twice", n, len(landed), undecided)
	}
	t.Logf("%d writers x %d trials: %d landed, %d undecided, %d commits reset away", writers, trials, len(landed), undecided, len(doomed))
}

// forceRefQuiet is forceRef for a goroutine: a lost reply is no test
// failure (the reset then counts as not done, and its commit is not
// checked).
func forceRefQuiet(ts *githubtest.TestServer, ref, from, to string) bool {
	return forceRef(quietTB{}, ts, ref, from, to)
}

type quietTB struct{ testing.TB }

func (quietTB) Helper()               {}
func (quietTB) Error(...any)          {}
func (quietTB) Errorf(string, ...any) {}
