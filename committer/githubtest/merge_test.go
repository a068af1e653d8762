package githubtest

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"

	"github.com/google/go-github/v66/github"
)

// go-github's Merge merges; the pull request then reads as merged (REST
// pull and issue shapes), GET merge answers 204, and a second merge 405.
func TestMergeShowsMergedPull(t *testing.T) {
	ts := NewServer(t)
	mergeRepo(t, ts, "r")
	branchOff(t, ts, "r", "main", "topic", file("t.txt", "t\n"))
	pull := openPull(t, ts, "r", "topic", "main")
	expect(t, call(t, ts, "GET", pull+"/merge", nil), 404, "")
	res, _, err := ts.Client.PullRequests.Merge(context.Background(), "acme", "r", 1, "", &github.PullRequestOptions{MergeMethod: "merge"})
	if err != nil || !res.GetMerged() || res.GetMessage() != "Pull Request successfully merged" {
		t.Fatalf("merge: %v %+v", err, res)
	}
	if tip := mustHead(t, ts, "r", "main"); res.GetSHA() != tip {
		t.Fatalf("merge reply sha %s, main at %s", res.GetSHA(), tip)
	}
	pr, _, err := ts.Client.PullRequests.Get(context.Background(), "acme", "r", 1)
	if err != nil || !pr.GetMerged() || pr.GetState() != "closed" || pr.MergedAt == nil || pr.ClosedAt == nil ||
		pr.GetMergeCommitSHA() != res.GetSHA() || pr.GetMergedBy().GetLogin() != "octocat" || pr.Mergeable != nil || pr.GetMergeableState() != "unknown" {
		t.Fatalf("merged pull: %v %+v", err, pr)
	}
	issue := call(t, ts, "POST", "/repos/acme/r/issues/1/assignees", map[string]any{"assignees": []string{"a"}})
	if issue.obj(t)["pull_request"].(map[string]any)["merged_at"] == nil {
		t.Errorf("issue shape: merged_at null after the merge: %s", issue.Raw)
	}
	expect(t, call(t, ts, "GET", pull+"/merge", nil), 204, "")
	expect(t, call(t, ts, "PUT", pull+"/merge", nil), 405, "Pull Request is not mergeable")
	if _, ok := ts.Head("acme", "r", "topic"); !ok {
		t.Error("the head branch was deleted, with delete_branch_on_merge off")
	}
}

// The sha guard: a head that moved since is 409 with GitHub's message.
func TestMergeSHAGuard(t *testing.T) {
	ts := NewServer(t)
	mergeRepo(t, ts, "r")
	old := branchOff(t, ts, "r", "main", "topic", file("t.txt", "t\n"))
	pull := openPull(t, ts, "r", "topic", "main")
	now := commitOn(t, ts, "r", "topic", "more", file("u.txt", "u\n"))
	before := mustHead(t, ts, "r", "main")
	expect(t, call(t, ts, "PUT", pull+"/merge", map[string]any{"sha": old}), 409, "Head branch was modified. Review and try the merge again.")
	if mustHead(t, ts, "r", "main") != before {
		t.Fatal("a refused merge moved main")
	}
	if got := call(t, ts, "GET", pull, nil).str(t, "head", "sha"); got != now {
		t.Fatalf("head.sha %s, want the branch's tip %s", got, now)
	}
	expect(t, call(t, ts, "PUT", pull+"/merge", map[string]any{"sha": now}), 200, "")
}

// Concurrent merges of one pull request: exactly one lands.
func TestMergeRace(t *testing.T) {
	ts := NewServer(t)
	mergeRepo(t, ts, "r")
	branchOff(t, ts, "r", "main", "topic", file("t.txt", "t\n"))
	pull := openPull(t, ts, "r", "topic", "main")
	var wg sync.WaitGroup
	statuses := make([]int, 8)
	for i := range statuses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = call(t, ts, "PUT", pull+"/merge", map[string]any{"merge_method": []string{"merge", "squash"}[i%2]}).Status
		}()
	}
	wg.Wait()
	ok := 0
	for _, s := range statuses {
		switch s {
		case 200:
			ok++
		case 405:
		default:
			t.Errorf("status %d", s)
		}
	}
	if ok != 1 {
		t.Fatalf("%d merges landed: %v", ok, statuses)
	}
}

// The repository's settings and a ruleset's allowed_merge_methods refuse
// the methods they do not allow; the repository shows its settings.
func TestMergeMethodsAllowed(t *testing.T) {
	ts := NewServer(t)
	mergeRepo(t, ts, "r")
	for _, b := range []string{"a", "b"} {
		branchOff(t, ts, "r", "main", b, file(b+".txt", b))
	}
	pa, pb := openPull(t, ts, "r", "a", "main"), openPull(t, ts, "r", "b", "main")
	if err := ts.SetMergeSettings("acme", "r", MergeSettings{}); err == nil {
		t.Fatal("settings allowing no method were accepted")
	}
	if err := ts.SetMergeSettings("acme", "r", MergeSettings{AllowSquashMerge: true}); err != nil {
		t.Fatal(err)
	}
	repo := call(t, ts, "GET", "/repos/acme/r", nil).obj(t)
	if repo["allow_merge_commit"] != false || repo["allow_squash_merge"] != true || repo["allow_rebase_merge"] != false {
		t.Fatalf("repository settings %v %v %v", repo["allow_merge_commit"], repo["allow_squash_merge"], repo["allow_rebase_merge"])
	}
	expect(t, call(t, ts, "PUT", pa+"/merge", nil), 405, "Merge commits are not allowed on this repository.")
	expect(t, call(t, ts, "PUT", pa+"/merge", map[string]any{"merge_method": "rebase"}), 405, "Rebase merges are not allowed on this repository.")
	expect(t, call(t, ts, "PUT", pa+"/merge", map[string]any{"merge_method": "squash"}), 200, "")
	if c, _ := ts.Commit("acme", "r", mustHead(t, ts, "r", "main")); c.Message != "change a.txt (#1)" || c.Author.Name != "The Octocat" {
		t.Errorf("squash of one commit: message %q, author %+v (want the commit's title and the pull request's author)", c.Message, c.Author)
	}

	if err := ts.SetMergeSettings("acme", "r", DefaultMergeSettings()); err != nil {
		t.Fatal(err)
	}
	if _, err := ts.AddRuleset("acme", "r", Ruleset{Include: []string{"~DEFAULT_BRANCH"}, Rules: []Rule{RequirePullRequestMethods("rebase")}}); err != nil {
		t.Fatal(err)
	}
	expect(t, call(t, ts, "PUT", pb+"/merge", map[string]any{"merge_method": "squash"}), 405, "Repository rule violations found")
	if _, _, state := pullState(t, ts, pb); state != "clean" {
		t.Errorf("mergeable_state %s: another method may still merge it", state)
	}
	expect(t, call(t, ts, "PUT", pb+"/merge", map[string]any{"merge_method": "rebase"}), 200, "")
}

// mergeClient is go-github's error reply of err, or fails.
func mergeError(t *testing.T, err error) *github.ErrorResponse {
	t.Helper()
	var er *github.ErrorResponse
	if !errors.As(err, &er) {
		t.Fatalf("error %v is not GitHub's reply", err)
	}
	return er
}

// go-github sees the refusals as GitHub's errors.
func TestMergeRefusalsThroughGoGitHub(t *testing.T) {
	ts := NewServer(t)
	mergeRepo(t, ts, "r")
	branchOff(t, ts, "r", "main", "topic", file("shared.txt", "topic\n"))
	commitOn(t, ts, "r", "main", "main", file("shared.txt", "main\n"))
	openPull(t, ts, "r", "topic", "main")
	_, _, err := ts.Client.PullRequests.Merge(context.Background(), "acme", "r", 1, "", nil)
	if er := mergeError(t, err); er.Response.StatusCode != http.StatusMethodNotAllowed || er.Message != "Pull Request is not mergeable" {
		t.Fatalf("conflicting merge: %v", err)
	}
	_, _, err = ts.Client.PullRequests.Merge(context.Background(), "acme", "r", 1, "", &github.PullRequestOptions{MergeMethod: "fast-forward"})
	if er := mergeError(t, err); er.Response.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("unknown method: %v", err)
	}
}
