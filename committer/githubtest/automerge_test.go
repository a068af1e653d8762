package githubtest

import (
	"encoding/json"
	"testing"
	"time"
)

const gqlEnableAutoMerge = `mutation($in: EnablePullRequestAutoMergeInput!) { enablePullRequestAutoMerge(input: $in) {
  clientMutationId actor { login } pullRequest { number autoMergeRequest { mergeMethod enabledAt enabledBy { login } commitHeadline commitBody authorEmail } } } }`

const gqlDisableAutoMerge = `mutation($in: DisablePullRequestAutoMergeInput!) { disablePullRequestAutoMerge(input: $in) {
  pullRequest { autoMergeRequest { mergeMethod } } } }`

// gqlData decodes a GraphQL reply's data (the reply was checked against
// GitHub's schema by gql); it fails on errors.
func gqlData(t *testing.T, r reply) map[string]any {
	t.Helper()
	var body struct {
		Data   map[string]any   `json:"data"`
		Errors []map[string]any `json:"errors"`
	}
	if err := json.Unmarshal(r.Raw, &body); err != nil || len(body.Errors) > 0 || body.Data == nil {
		t.Fatalf("%v: %s", err, r.Raw)
	}
	return body.Data
}

// gqlRefused asserts one UNPROCESSABLE error with message.
func gqlRefused(t *testing.T, r reply, message string) {
	t.Helper()
	if errs := gqlErrors(t, r); len(errs) != 1 || errs[0]["type"] != "UNPROCESSABLE" || errs[0]["message"] != message {
		t.Fatalf("want UNPROCESSABLE %q, got %s", message, r.Raw)
	}
}

// autoMergeSettings allow auto-merge and every method.
func autoMergeSettings() MergeSettings {
	m := DefaultMergeSettings()
	m.AllowAutoMerge = true
	return m
}

// A pull request with auto-merge on merges as soon as its required check
// passes, with the method and message given; GitHub's refusals first,
// each leaving the pull request as it was.
func TestAutoMergeWaitsForRequiredCheck(t *testing.T) {
	ts := NewServer(t)
	mergeRepo(t, ts, "r")
	if _, err := ts.AddRuleset("acme", "r", Ruleset{Name: "ci", Include: []string{"main"}, Rules: []Rule{RequireStatusChecks("ci")}}); err != nil {
		t.Fatal(err)
	}
	head := branchOff(t, ts, "r", "main", "topic", file("t.txt", "t\n"))
	pull := openPull(t, ts, "r", "topic", "main")
	_, pr := gqlPullFields(t, ts, "r", 1)
	id := pr["id"].(string)
	enable := func(in map[string]any) reply {
		in["pullRequestId"] = id
		return gql(t, ts, "/graphql", gqlEnableAutoMerge, map[string]any{"in": in})
	}
	gqlRefused(t, enable(map[string]any{}), "Auto merge is not allowed for this repository")
	if err := ts.SetMergeSettings("acme", "r", autoMergeSettings()); err != nil {
		t.Fatal(err)
	}
	gqlRefused(t, enable(map[string]any{"expectedHeadOid": head40}), "Pull request Head sha didn't match expected head oid")
	if o := call(t, ts, "GET", pull, nil).obj(t); o["auto_merge"] != nil || o["mergeable_state"] != "blocked" {
		t.Fatalf("refused enables changed the pull request: %v", o)
	}
	d := gqlData(t, enable(map[string]any{"mergeMethod": "SQUASH", "commitHeadline": "Squashed", "expectedHeadOid": head, "clientMutationId": "c1"}))
	am := d["enablePullRequestAutoMerge"].(map[string]any)["pullRequest"].(map[string]any)["autoMergeRequest"].(map[string]any)
	if am["mergeMethod"] != "SQUASH" || am["commitHeadline"] != "Squashed" || am["commitBody"] != nil {
		t.Fatalf("autoMergeRequest: %v", am)
	}
	r := call(t, ts, "GET", pull, nil)
	validateReply(t, "pulls-get", 200, r.Raw)
	if a, _ := r.obj(t)["auto_merge"].(map[string]any); a == nil || a["merge_method"] != "squash" || a["commit_title"] != "Squashed" {
		t.Fatalf("REST auto_merge: %s", r.Raw)
	}
	expect(t, call(t, ts, "POST", "/repos/acme/r/statuses/"+head, map[string]any{"state": "pending", "context": "ci"}), 201, "")
	if o := call(t, ts, "GET", pull, nil).obj(t); o["merged"] != false {
		t.Fatalf("merged on a pending check: %v", o)
	}
	expect(t, call(t, ts, "POST", "/repos/acme/r/statuses/"+head, map[string]any{"state": "success", "context": "ci"}), 201, "")
	o := call(t, ts, "GET", pull, nil).obj(t)
	main, _ := ts.Head("acme", "r", "main")
	if o["merged"] != true || o["auto_merge"] != nil || o["merge_commit_sha"] != main {
		t.Fatalf("not auto-merged once the check passed: %v", o)
	}
	c, err := ts.Commit("acme", "r", main)
	if err != nil || c.Message != "Squashed" || len(c.Parents) != 1 {
		t.Fatalf("squash commit: %+v %v", c, err)
	}
}

// Auto-merge is refused on a pull request that could merge now (GitHub:
// "is in clean status"), and disabling it keeps the pull request open
// when its check then passes.
func TestAutoMergeCleanAndDisable(t *testing.T) {
	ts := NewServer(t, WithMergeSettings(autoMergeSettings()))
	mergeRepo(t, ts, "r")
	branchOff(t, ts, "r", "main", "clean", file("c.txt", "c\n"))
	openPull(t, ts, "r", "clean", "main")
	_, pr := gqlPullFields(t, ts, "r", 1)
	gqlRefused(t, gql(t, ts, "/graphql", gqlEnableAutoMerge, map[string]any{"in": map[string]any{"pullRequestId": pr["id"]}}),
		"Pull request Pull request is in clean status")

	if _, err := ts.AddRuleset("acme", "r", Ruleset{Name: "ci", Include: []string{"main"}, Rules: []Rule{RequireStatusChecks("ci")}}); err != nil {
		t.Fatal(err)
	}
	in := map[string]any{"in": map[string]any{"pullRequestId": pr["id"]}}
	gqlData(t, gql(t, ts, "/graphql", gqlEnableAutoMerge, in))
	d := gqlData(t, gql(t, ts, "/graphql", gqlDisableAutoMerge, in))
	if d["disablePullRequestAutoMerge"].(map[string]any)["pullRequest"].(map[string]any)["autoMergeRequest"] != nil {
		t.Fatalf("disabled: %v", d)
	}
	head, _ := ts.Head("acme", "r", "clean")
	if err := ts.SetCommitStatus("acme", "r", head, "ci", "success"); err != nil {
		t.Fatal(err)
	}
	if o := call(t, ts, "GET", "/repos/acme/r/pulls/1", nil).obj(t); o["merged"] != false || o["mergeable_state"] != "clean" {
		t.Fatalf("merged after auto-merge was disabled: %v", o)
	}
}

// An automatic check answers every new head of the branches it matches
// after its delay on the fake's clock: the auto-merge pull request merges
// when the clock passes it, not before; a failing one blocks it.
func TestAutoCheckDrivesAutoMerge(t *testing.T) {
	ts := NewServer(t, WithMergeSettings(autoMergeSettings()),
		WithAutoCheck("ci", "**", CheckSuccess, 10*time.Minute), WithAutoCheck("lint", "bad*", CheckFailure, 0))
	mergeRepo(t, ts, "r")
	if _, err := ts.AddRuleset("acme", "r", Ruleset{Name: "ci", Include: []string{"main"}, Rules: []Rule{RequireStatusChecks("ci", "lint")}}); err != nil {
		t.Fatal(err)
	}
	branchOff(t, ts, "r", "main", "good", file("g.txt", "g\n"))
	branchOff(t, ts, "r", "main", "bad", file("b.txt", "b\n"))
	openPull(t, ts, "r", "good", "main")
	openPull(t, ts, "r", "bad", "main")
	if err := ts.AddAutoCheck("acme", "r", "lint", "good", CheckSuccess, 0); err != nil {
		t.Fatal(err)
	}
	// lint was added after good's head: it has no lint run; a new head gets one.
	good := commitOn(t, ts, "r", "good", "again", file("g2.txt", "g\n"))
	for n := 1; n <= 2; n++ {
		_, pr := gqlPullFields(t, ts, "r", n)
		gqlData(t, gql(t, ts, "/graphql", gqlEnableAutoMerge, map[string]any{"in": map[string]any{"pullRequestId": pr["id"]}}))
	}
	runs := call(t, ts, "GET", "/repos/acme/r/commits/"+good+"/check-runs", nil)
	validateReply(t, "checks-list-for-ref", 200, runs.Raw)
	if o := runs.obj(t); o["total_count"] != float64(2) {
		t.Fatalf("check runs on good's head: %s", runs.Raw)
	}
	ts.Pass(9 * time.Minute)
	if o := call(t, ts, "GET", "/repos/acme/r/pulls/1", nil).obj(t); o["merged"] != false || o["mergeable_state"] != "blocked" {
		t.Fatalf("merged before ci reported: %v", o)
	}
	ts.Pass(time.Minute)
	if o := call(t, ts, "GET", "/repos/acme/r/pulls/1", nil).obj(t); o["merged"] != true {
		t.Fatalf("not merged once ci reported: %v", o)
	}
	if o := call(t, ts, "GET", "/repos/acme/r/pulls/2", nil).obj(t); o["merged"] != false || o["mergeable_state"] != "blocked" {
		t.Fatalf("merged with lint failing: %v", o)
	}
}

const gqlRollup = `query($o: String!, $n: String!, $num: Int!) { repository(owner: $o, name: $n) { pullRequest(number: $num) {
  statusCheckRollup { state commit { oid } contexts(first: 10) { checkRunCount statusContextCount totalCount nodes {
    __typename ... on StatusContext { context state description targetUrl } ... on CheckRun { name status conclusion completedAt } } } } } } }`

// statusCheckRollup combines the latest status of each context and the
// latest run of each check: null with none, PENDING while one runs,
// FAILURE when one fails, SUCCESS when all pass.
func TestStatusCheckRollup(t *testing.T) {
	ts := NewServer(t, WithAutoCheck("build", "topic", CheckSuccess, time.Minute))
	mergeRepo(t, ts, "r")
	head := branchOff(t, ts, "r", "main", "topic", file("t.txt", "t\n"))
	openPull(t, ts, "r", "topic", "main")
	rollup := func() map[string]any {
		t.Helper()
		d := gqlData(t, gql(t, ts, "/graphql", gqlRollup, map[string]any{"o": "acme", "n": "r", "num": 1}))
		r, _ := d["repository"].(map[string]any)["pullRequest"].(map[string]any)["statusCheckRollup"].(map[string]any)
		return r
	}
	// The branch's first head (from the ref create) and the commit each got a build run.
	if r := rollup(); r == nil || r["state"] != "PENDING" || r["commit"].(map[string]any)["oid"] != head {
		t.Fatalf("running check: %v", r)
	}
	ts.Pass(time.Minute)
	if r := rollup(); r["state"] != "SUCCESS" {
		t.Fatalf("passed check: %v", r)
	}
	if err := ts.SetCommitStatus("acme", "r", head, "lint", "failure"); err != nil {
		t.Fatal(err)
	}
	expect(t, call(t, ts, "POST", "/repos/acme/r/statuses/"+head, map[string]any{"state": "error", "context": "deploy", "description": "d"}), 201, "")
	expect(t, call(t, ts, "POST", "/repos/acme/r/statuses/"+head, map[string]any{"state": "success", "context": "deploy"}), 201, "")
	r := rollup()
	c := r["contexts"].(map[string]any)
	if r["state"] != "FAILURE" || c["checkRunCount"] != float64(1) || c["statusContextCount"] != float64(2) || c["totalCount"] != float64(3) {
		t.Fatalf("failed status: %v", r)
	}
	main := commitOn(t, ts, "r", "main", "main moves", file("m.txt", "m\n"))
	d := gqlData(t, gql(t, ts, "/graphql", `query($o: String!, $n: String!, $e: String!) { repository(owner: $o, name: $n) {
  object(expression: $e) { ... on Commit { statusCheckRollup { state } } } } }`, map[string]any{"o": "acme", "n": "r", "e": main}))
	if d["repository"].(map[string]any)["object"].(map[string]any)["statusCheckRollup"] != nil {
		t.Fatalf("a commit without checks: %v", d)
	}
}

// Where the base requires the merge queue, auto-merge queues the pull
// request once its own checks pass (even a clean one: no "clean status"
// refusal), and the queue merges it.
func TestAutoMergeThroughQueue(t *testing.T) {
	ts := NewServer(t, WithMergeSettings(autoMergeSettings()), WithAutoCheck("ci", "**", CheckSuccess, time.Minute))
	queueRepo(t, ts, "q", 5, "a")
	_, pr := gqlPullFields(t, ts, "q", 1)
	gqlData(t, gql(t, ts, "/graphql", gqlEnableAutoMerge, map[string]any{"in": map[string]any{"pullRequestId": pr["id"]}}))
	if got, _ := ts.MergeQueue("acme", "q", "main"); len(got) != 0 {
		t.Fatalf("queued before its check passed: %v", got)
	}
	ts.Pass(time.Minute)
	if got, _ := ts.MergeQueue("acme", "q", "main"); len(got) != 1 {
		t.Fatalf("not queued once its check passed: %v", got)
	}
	if o := call(t, ts, "GET", "/repos/acme/q/pulls/1", nil).obj(t); o["merged"] != false || o["auto_merge"] != nil {
		t.Fatalf("merged before the queue's check: %v", o)
	}
	ts.Pass(time.Minute)
	if o := call(t, ts, "GET", "/repos/acme/q/pulls/1", nil).obj(t); o["merged"] != true {
		t.Fatalf("not merged by the queue: %v", o)
	}
}

// Many clients polling at once while the check passes: the pull request
// merges exactly once (Settle runs under the repository's write lock).
func TestAutoMergeConcurrentPollers(t *testing.T) {
	ts := NewServer(t, WithMergeSettings(autoMergeSettings()), WithAutoCheck("ci", "topic", CheckSuccess, time.Minute))
	mergeRepo(t, ts, "r")
	if _, err := ts.AddRuleset("acme", "r", Ruleset{Name: "ci", Include: []string{"main"}, Rules: []Rule{RequireStatusChecks("ci")}}); err != nil {
		t.Fatal(err)
	}
	branchOff(t, ts, "r", "main", "topic", file("t.txt", "t\n"))
	openPull(t, ts, "r", "topic", "main")
	_, pr := gqlPullFields(t, ts, "r", 1)
	gqlData(t, gql(t, ts, "/graphql", gqlEnableAutoMerge, map[string]any{"in": map[string]any{"pullRequestId": pr["id"]}}))
	ts.Pass(time.Minute)
	done := make(chan bool, 8)
	for range 8 {
		go func() {
			resp, err := ts.Client.Client().Get(ts.URL + "repos/acme/r/pulls/1")
			if err == nil {
				resp.Body.Close()
			}
			done <- err == nil
		}()
	}
	for range 8 {
		if !<-done {
			t.Error("a poll failed")
		}
	}
	moves := 0
	for _, u := range ts.RefUpdates("acme", "r") {
		if u.Ref == "refs/heads/main" && u.Old != "" {
			moves++
		}
	}
	if o := call(t, ts, "GET", "/repos/acme/r/pulls/1", nil).obj(t); o["merged"] != true || moves != 1 {
		t.Fatalf("merged %v, main moved %d times", o["merged"], moves)
	}
}

// A check that is not required but fails or runs makes the pull request
// unstable (it may merge), and auto-merge is then refused as GitHub
// refuses it ("is in unstable status").
func TestAutoMergeUnstable(t *testing.T) {
	ts := NewServer(t, WithMergeSettings(autoMergeSettings()), WithAutoCheck("lint", "topic", CheckFailure, 0))
	mergeRepo(t, ts, "r")
	branchOff(t, ts, "r", "main", "topic", file("t.txt", "t\n"))
	openPull(t, ts, "r", "topic", "main")
	if _, _, st := pullState(t, ts, "/repos/acme/r/pulls/1"); st != "unstable" {
		t.Fatalf("mergeable_state with a failing check run: %s", st)
	}
	_, pr := gqlPullFields(t, ts, "r", 1)
	if pr["mergeStateStatus"] != "UNSTABLE" {
		t.Fatalf("mergeStateStatus: %v", pr["mergeStateStatus"])
	}
	gqlRefused(t, gql(t, ts, "/graphql", gqlEnableAutoMerge, map[string]any{"in": map[string]any{"pullRequestId": pr["id"]}}),
		"Pull request Pull request is in unstable status")
	expect(t, call(t, ts, "PUT", "/repos/acme/r/pulls/1/merge", nil), 200, "")
}
