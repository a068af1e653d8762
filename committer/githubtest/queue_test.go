package githubtest

import (
	"strings"
	"testing"
	"time"
)

const gqlEnqueue = `mutation($in: EnqueuePullRequestInput!) { enqueuePullRequest(input: $in) {
  clientMutationId mergeQueueEntry { id position state jump enqueuer { login } pullRequest { number }
    headCommit { oid parents(first: 2) { nodes { oid } } } baseCommit { oid } mergeQueue { id url } } } }`

const gqlDequeue = `mutation($in: DequeuePullRequestInput!) { dequeuePullRequest(input: $in) { mergeQueueEntry { position state } } }`

const gqlQueueState = `query($o: String!, $n: String!) { repository(owner: $o, name: $n) {
  mergeQueue(branch: "main") { entries(first: 10) { totalCount nodes { position state pullRequest { number isInMergeQueue } } } } } }`

// queueRepo seeds acme/<name> whose main requires the merge queue (groups
// of up to maxMerge) and the check ci; it opens one pull request per
// branch, each adding its own file, and returns their node IDs.
func queueRepo(t *testing.T, ts *TestServer, name string, maxMerge int, branches ...string) []string {
	t.Helper()
	mergeRepo(t, ts, name)
	mq := RequireMergeQueue()
	mq.Parameters["max_entries_to_merge"] = maxMerge
	mq.Parameters["min_entries_to_merge_wait_minutes"] = 0
	if _, err := ts.AddRuleset("acme", name, Ruleset{Name: "q", Include: []string{"main"}, Rules: []Rule{mq, RequireStatusChecks("ci")}}); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i, b := range branches {
		branchOff(t, ts, name, "main", b, file(b+".txt", b+"\n"))
		openPull(t, ts, name, b, "main")
		_, pr := gqlPullFields(t, ts, name, i+1)
		ids = append(ids, pr["id"].(string))
	}
	return ids
}

func enqueue(t *testing.T, ts *TestServer, in map[string]any) reply {
	t.Helper()
	return gql(t, ts, "/graphql", gqlEnqueue, map[string]any{"in": in})
}

// The merge queue builds each entry on the ones before it on a
// gh-readonly-queue branch, waits for the required check there, and
// merges the group: the base branch moves to the last entry's commit and
// every pull request reads merged; a direct merge is refused.
func TestMergeQueueMergesGroups(t *testing.T) {
	ts := NewServer(t, WithAutoCheck("ci", "**", CheckSuccess, 5*time.Minute))
	ids := queueRepo(t, ts, "q", 2, "a", "b", "c")
	expect(t, call(t, ts, "PUT", "/repos/acme/q/pulls/1/merge", nil), 405, "Changes must be made through the merge queue")
	gqlRefused(t, enqueue(t, ts, map[string]any{"pullRequestId": ids[0]}), "Pull request Pull request is not mergeable") // ci not reported yet
	if _, _, st := pullState(t, ts, "/repos/acme/q/pulls/1"); st != "blocked" {
		t.Fatalf("mergeable_state before ci: %s", st)
	}
	ts.Pass(5 * time.Minute)
	// Green, it reads clean (the queue is how it merges), yet a direct merge is still refused.
	if _, _, st := pullState(t, ts, "/repos/acme/q/pulls/1"); st != "clean" {
		t.Fatalf("mergeable_state once ci passed: %s", st)
	}
	expect(t, call(t, ts, "PUT", "/repos/acme/q/pulls/1/merge", nil), 405, "Changes must be made through the merge queue")
	gqlRefused(t, enqueue(t, ts, map[string]any{"pullRequestId": ids[0], "expectedHeadOid": head40}), "Pull request Head sha didn't match expected head oid")
	base, _ := ts.Head("acme", "q", "main")
	headA, _ := ts.Head("acme", "q", "a")
	d := gqlData(t, enqueue(t, ts, map[string]any{"pullRequestId": ids[0], "expectedHeadOid": headA, "clientMutationId": "x"}))
	e := d["enqueuePullRequest"].(map[string]any)["mergeQueueEntry"].(map[string]any)
	hc := e["headCommit"].(map[string]any)
	if e["position"] != float64(1) || e["state"] != "AWAITING_CHECKS" || e["baseCommit"].(map[string]any)["oid"] != base {
		t.Fatalf("entry: %v", e)
	}
	if ps := hc["parents"].(map[string]any)["nodes"].([]any); len(ps) != 2 || ps[0].(map[string]any)["oid"] != base || ps[1].(map[string]any)["oid"] != headA {
		t.Fatalf("queue commit's parents: %v", ps)
	}
	if h, ok := ts.Head("acme", "q", "gh-readonly-queue/main/pr-1-"+base); !ok || h != hc["oid"] {
		t.Fatalf("queue branch: %v %v", h, ok)
	}
	gqlData(t, enqueue(t, ts, map[string]any{"pullRequestId": ids[1]}))
	gqlData(t, enqueue(t, ts, map[string]any{"pullRequestId": ids[2]}))
	if got, _ := ts.MergeQueue("acme", "q", "main"); len(got) != 3 {
		t.Fatalf("queue: %v", got)
	}
	qs := gqlData(t, gql(t, ts, "/graphql", gqlQueueState, map[string]any{"o": "acme", "n": "q"}))
	if n := qs["repository"].(map[string]any)["mergeQueue"].(map[string]any)["entries"].(map[string]any)["totalCount"]; n != float64(3) {
		t.Fatalf("entries: %v", qs)
	}
	ts.Pass(5 * time.Minute)
	for n := 1; n <= 3; n++ {
		if o := call(t, ts, "GET", "/repos/acme/q/pulls/"+string(rune('0'+n)), nil).obj(t); o["merged"] != true {
			t.Fatalf("pull %d not merged: %v", n, o)
		}
	}
	main, _ := ts.Head("acme", "q", "main")
	files, err := ts.Files("acme", "q", main)
	if _, ok := files["c.txt"]; err != nil || !ok || len(files) != 4 {
		t.Fatalf("main's files: %v %v", files, err)
	}
	// Groups of at most two: main moved twice after the seed, by pulls 1-2 then 3.
	var moves []string
	for _, u := range ts.RefUpdates("acme", "q") {
		if u.Ref == "refs/heads/main" && u.Old != "" {
			moves = append(moves, u.New)
		}
	}
	if len(moves) != 2 || moves[1] != main {
		t.Fatalf("main's moves: %v (head %s)", moves, main)
	}
	refs := call(t, ts, "GET", "/repos/acme/q/git/matching-refs/heads/gh-readonly-queue", nil)
	if strings.Contains(string(refs.Raw), "gh-readonly-queue") {
		t.Fatalf("queue branches left: %s", refs.Raw)
	}
}

// An entry whose check fails on its queue branch is removed and the ones
// after it are built again without it; a dequeued entry leaves; an entry
// that conflicts with the one before it is removed.
func TestMergeQueueRemovesFailures(t *testing.T) {
	ts := NewServer(t, WithAutoCheck("ci", "**", CheckSuccess, 0), WithAutoCheck("ci", "gh-readonly-queue/main/pr-1-*", CheckFailure, time.Minute))
	ids := queueRepo(t, ts, "q", 5, "a", "b", "c", "d")
	branchOff(t, ts, "q", "main", "clash", file("b.txt", "other\n"))
	openPull(t, ts, "q", "clash", "main")
	_, clash := gqlPullFields(t, ts, "q", 5)
	for _, id := range ids {
		gqlData(t, enqueue(t, ts, map[string]any{"pullRequestId": id}))
	}
	// clash conflicts with b, ahead of it: it is removed as soon as it is built.
	if d := gqlData(t, enqueue(t, ts, map[string]any{"pullRequestId": clash["id"]})); d["enqueuePullRequest"].(map[string]any)["mergeQueueEntry"] != nil {
		t.Fatalf("conflicting entry stayed: %v", d)
	}
	if got, _ := ts.MergeQueue("acme", "q", "main"); len(got) != 4 {
		t.Fatalf("queue: %v", got)
	}
	d := gqlData(t, gql(t, ts, "/graphql", gqlDequeue, map[string]any{"in": map[string]any{"id": ids[3]}}))
	if d["dequeuePullRequest"].(map[string]any)["mergeQueueEntry"].(map[string]any)["position"] != float64(4) {
		t.Fatalf("dequeue: %v", d)
	}
	gqlRefused(t, gql(t, ts, "/graphql", gqlDequeue, map[string]any{"in": map[string]any{"id": ids[3]}}), "Pull request Pull request is not in the merge queue")
	ts.Pass(time.Minute)
	want := map[string]bool{"1": false, "2": true, "3": true, "4": false, "5": false}
	for n, merged := range want {
		if o := call(t, ts, "GET", "/repos/acme/q/pulls/"+n, nil).obj(t); o["merged"] != merged || o["state"] != map[bool]string{true: "closed", false: "open"}[merged] {
			t.Errorf("pull %s: merged %v, want %v", n, o["merged"], merged)
		}
	}
	if got, _ := ts.MergeQueue("acme", "q", "main"); len(got) != 0 {
		t.Fatalf("queue left: %v", got)
	}
}

// jump puts an entry first; a branch without the merge_queue rule, a
// closed pull request and a draft are refused, and nothing is queued.
func TestMergeQueueJumpAndRefusals(t *testing.T) {
	ts := NewServer(t, WithAutoCheck("ci", "**", CheckSuccess, 0), WithAutoCheck("ci", "gh-readonly-queue/**", CheckSuccess, time.Hour))
	ids := queueRepo(t, ts, "q", 5, "a", "b", "c", "d")
	for _, id := range ids[:2] {
		gqlData(t, enqueue(t, ts, map[string]any{"pullRequestId": id}))
	}
	d := gqlData(t, enqueue(t, ts, map[string]any{"pullRequestId": ids[2], "jump": true}))
	if e := d["enqueuePullRequest"].(map[string]any)["mergeQueueEntry"].(map[string]any); e["position"] != float64(1) || e["jump"] != true {
		t.Fatalf("jumped entry: %v", e)
	}
	if got, _ := ts.MergeQueue("acme", "q", "main"); len(got) != 3 || got[0] != 3 || got[1] != 1 || got[2] != 2 {
		t.Fatalf("queue after jump: %v", got)
	}
	// Enqueuing again keeps the entry where it is.
	gqlData(t, enqueue(t, ts, map[string]any{"pullRequestId": ids[0]}))
	expect(t, call(t, ts, "PATCH", "/repos/acme/q/pulls/4", map[string]any{"state": "closed"}), 200, "")
	gqlRefused(t, enqueue(t, ts, map[string]any{"pullRequestId": ids[3]}), "Pull request Pull request is closed")
	branchOff(t, ts, "q", "main", "side", file("s.txt", "s\n"))
	branchOff(t, ts, "q", "side", "e", file("e.txt", "e\n"))
	openPull(t, ts, "q", "e", "side")
	_, pr := gqlPullFields(t, ts, "q", 5)
	gqlRefused(t, enqueue(t, ts, map[string]any{"pullRequestId": pr["id"]}), "Pull request Merge queue is not enabled for this branch")
	if got, _ := ts.MergeQueue("acme", "q", "main"); len(got) != 3 {
		t.Fatalf("queue after refusals: %v", got)
	}
	if got, _ := ts.MergeQueue("acme", "q", "side"); len(got) != 0 {
		t.Fatalf("side queue: %v", got)
	}
}

// A push to a queued pull request's head takes it out of the queue; an
// entry whose check never reports leaves after
// check_response_timeout_minutes (60 in RequireMergeQueue).
func TestMergeQueueHeadMoveAndTimeout(t *testing.T) {
	ts := NewServer(t, WithAutoCheck("ci", "*", CheckSuccess, 0))
	ids := queueRepo(t, ts, "q", 5, "a")
	gqlData(t, enqueue(t, ts, map[string]any{"pullRequestId": ids[0]}))
	commitOn(t, ts, "q", "a", "push", file("a2.txt", "x\n"))
	if got, _ := ts.MergeQueue("acme", "q", "main"); len(got) != 0 {
		t.Fatalf("a pushed-to entry stayed: %v", got)
	}
	// pr-1's queue branch gets no ci run ("*" does not cross "/"): it times out after 60 minutes.
	gqlData(t, enqueue(t, ts, map[string]any{"pullRequestId": ids[0]}))
	ts.Pass(59 * time.Minute)
	if got, _ := ts.MergeQueue("acme", "q", "main"); len(got) != 1 {
		t.Fatalf("removed before the timeout: %v", got)
	}
	ts.Pass(time.Minute)
	if got, _ := ts.MergeQueue("acme", "q", "main"); len(got) != 0 {
		t.Fatalf("kept past the timeout: %v", got)
	}
	if o := call(t, ts, "GET", "/repos/acme/q/pulls/1", nil).obj(t); o["merged"] != false || o["state"] != "open" {
		t.Fatalf("timed-out pull: %v", o)
	}
}

// min_entries_to_merge holds a passing entry until enough are queued or
// the wait has passed.
func TestMergeQueueMinEntries(t *testing.T) {
	ts := NewServer(t, WithAutoCheck("ci", "**", CheckSuccess, 0))
	mergeRepo(t, ts, "q")
	mq := RequireMergeQueue()
	mq.Parameters["min_entries_to_merge"] = 2
	mq.Parameters["min_entries_to_merge_wait_minutes"] = 10
	if _, err := ts.AddRuleset("acme", "q", Ruleset{Name: "q", Include: []string{"main"}, Rules: []Rule{mq, RequireStatusChecks("ci")}}); err != nil {
		t.Fatal(err)
	}
	branchOff(t, ts, "q", "main", "a", file("x.txt", "x\n"))
	openPull(t, ts, "q", "a", "main")
	_, pr := gqlPullFields(t, ts, "q", 1)
	gqlData(t, enqueue(t, ts, map[string]any{"pullRequestId": pr["id"]}))
	ts.Pass(9 * time.Minute)
	if o := call(t, ts, "GET", "/repos/acme/q/pulls/1", nil).obj(t); o["merged"] != false {
		t.Fatalf("merged alone before the wait: %v", o)
	}
	ts.Pass(time.Minute)
	if o := call(t, ts, "GET", "/repos/acme/q/pulls/1", nil).obj(t); o["merged"] != true {
		t.Fatalf("not merged after the wait: %v", o)
	}
}

// HEADGREEN merges a group once its last entry passes, with the entries
// before it still running; ALLGREEN waits for every one of them.
func TestMergeQueueGroupingStrategy(t *testing.T) {
	for _, strategy := range []string{"ALLGREEN", "HEADGREEN"} {
		t.Run(strategy, func(t *testing.T) {
			ts := NewServer(t, WithAutoCheck("ci", "a", CheckSuccess, 0), WithAutoCheck("ci", "b", CheckSuccess, 0),
				WithAutoCheck("ci", "gh-readonly-queue/main/pr-1-*", CheckSuccess, time.Hour),
				WithAutoCheck("ci", "gh-readonly-queue/main/pr-2-*", CheckSuccess, 0))
			mergeRepo(t, ts, "q")
			mq := RequireMergeQueue()
			mq.Parameters["grouping_strategy"] = strategy
			mq.Parameters["min_entries_to_merge_wait_minutes"] = 0
			if _, err := ts.AddRuleset("acme", "q", Ruleset{Name: "q", Include: []string{"main"}, Rules: []Rule{mq, RequireStatusChecks("ci")}}); err != nil {
				t.Fatal(err)
			}
			for n, b := range []string{"a", "b"} {
				branchOff(t, ts, "q", "main", b, file(b+"1.txt", b+"\n"))
				openPull(t, ts, "q", b, "main")
				_, pr := gqlPullFields(t, ts, "q", n+1)
				gqlData(t, enqueue(t, ts, map[string]any{"pullRequestId": pr["id"]}))
			}
			got, _ := ts.MergeQueue("acme", "q", "main")
			if want := map[string]int{"ALLGREEN": 2, "HEADGREEN": 0}[strategy]; len(got) != want {
				t.Fatalf("queue with entry 1 running and entry 2 green: %v, want %d entries", got, want)
			}
		})
	}
}
