package githubtest

import (
	"testing"
	"time"
)

// mergeBaseInto merges main into branch through the git data API (the
// two sides change different files) and returns the new head.
func mergeBaseInto(t *testing.T, ts *TestServer, repo, branch string, mainFile File) string {
	t.Helper()
	rr := "/repos/acme/" + repo
	head, base := mustHead(t, ts, repo, branch), mustHead(t, ts, repo, "main")
	tree := call(t, ts, "POST", rr+"/git/trees", map[string]any{"base_tree": head,
		"tree": []any{map[string]any{"path": mainFile.Path, "mode": "100644", "type": "blob", "content": string(mainFile.Content)}}})
	c := call(t, ts, "POST", rr+"/git/commits", map[string]any{"message": "Merge main", "tree": tree.str(t, "sha"), "parents": []string{head, base}})
	expect(t, call(t, ts, "PATCH", rr+"/git/refs/heads/"+branch, map[string]any{"sha": c.str(t, "sha")}), 200, "")
	return c.str(t, "sha")
}

func wantState(t *testing.T, ts *TestServer, pull string, mergeable any, state string) {
	t.Helper()
	m, _, s := pullState(t, ts, pull)
	if m != mergeable || s != state {
		t.Fatalf("mergeable %v, mergeable_state %s; want %v, %s", m, s, mergeable, state)
	}
}

// clean, unstable (a failing status no rule requires), blocked (a
// required check missing, approvals required) and draft, each with the
// refusal GitHub gives a merge in that state.
func TestMergeableStates(t *testing.T) {
	ts := NewServer(t)
	mergeRepo(t, ts, "r")
	head := branchOff(t, ts, "r", "main", "topic", file("t.txt", "t\n"))
	pull := openPull(t, ts, "r", "topic", "main")
	wantState(t, ts, pull, true, "clean")
	commitOn(t, ts, "r", "main", "main moves", file("m.txt", "m\n"))
	wantState(t, ts, pull, true, "clean") // behind, but nothing asks for up to date
	if err := ts.SetCommitStatus("acme", "r", head, "lint", "failure"); err != nil {
		t.Fatal(err)
	}
	wantState(t, ts, pull, true, "unstable")
	if _, err := ts.AddRuleset("acme", "r", Ruleset{Include: []string{"main"}, Rules: []Rule{RequireStatusChecks("ci")}}); err != nil {
		t.Fatal(err)
	}
	wantState(t, ts, pull, true, "blocked")
	expect(t, call(t, ts, "PUT", pull+"/merge", nil), 405, `Required status check "ci" is expected.`)
	if err := ts.SetCommitStatus("acme", "r", head, "ci", "success"); err != nil {
		t.Fatal(err)
	}
	wantState(t, ts, pull, true, "unstable")
	if err := ts.ProtectBranch("acme", "r", "main", BranchProtection{RequiredApprovingReviews: 1}); err != nil {
		t.Fatal(err)
	}
	wantState(t, ts, pull, true, "blocked")
	expect(t, call(t, ts, "PUT", pull+"/merge", nil), 405, "At least 1 approving review is required by reviewers with write access.")
	if err := ts.ProtectBranch("acme", "r", "main", BranchProtection{}); err != nil {
		t.Fatal(err)
	}
	expect(t, call(t, ts, "PUT", pull+"/merge", nil), 200, "")
	wantState(t, ts, pull, nil, "unknown")

	branchOff(t, ts, "r", "main", "wip", file("w.txt", "w\n"))
	r := call(t, ts, "POST", "/repos/acme/r/pulls", map[string]any{"title": "wip", "head": "wip", "base": "main", "draft": true})
	expect(t, r, 201, "")
	draft := "/repos/acme/r/pulls/2"
	if err := ts.SetCommitStatus("acme", "r", mustHead(t, ts, "r", "wip"), "ci", "success"); err != nil {
		t.Fatal(err)
	}
	wantState(t, ts, draft, true, "draft")
	expect(t, call(t, ts, "PUT", draft+"/merge", nil), 405, "Pull Request is still a draft")
}

// "Require branches to be up to date": a behind head is behind and may
// not merge, for a ruleset (with and without contexts) and for classic
// protection; merging main into the head lets it merge.
func TestMergeUpToDateRule(t *testing.T) {
	ts := NewServer(t)
	mergeRepo(t, ts, "r")
	branchOff(t, ts, "r", "main", "topic", file("t.txt", "t\n"))
	pull := openPull(t, ts, "r", "topic", "main")
	if _, err := ts.AddRuleset("acme", "r", Ruleset{Include: []string{"main"}, Rules: []Rule{RequireUpToDate()}}); err != nil {
		t.Fatal(err)
	}
	wantState(t, ts, pull, true, "clean")
	commitOn(t, ts, "r", "main", "main moves", file("m.txt", "m\n"))
	wantState(t, ts, pull, true, "behind")
	expect(t, call(t, ts, "PUT", pull+"/merge", nil), 405, "Head branch is not up to date with the base branch.")
	mergeBaseInto(t, ts, "r", "topic", file("m.txt", "m\n"))
	wantState(t, ts, pull, true, "clean")
	expect(t, call(t, ts, "PUT", pull+"/merge", nil), 200, "")

	mergeRepo(t, ts, "c") // classic protection, with a context
	branchOff(t, ts, "c", "main", "topic", file("t.txt", "t\n"))
	pull = openPull(t, ts, "c", "topic", "main")
	commitOn(t, ts, "c", "main", "main moves", file("m.txt", "m\n"))
	if err := ts.ProtectBranch("acme", "c", "main", BranchProtection{RequiredStatusChecks: []string{"ci"}, RequireUpToDate: true}); err != nil {
		t.Fatal(err)
	}
	if err := ts.SetCommitStatus("acme", "c", mustHead(t, ts, "c", "topic"), "ci", "success"); err != nil {
		t.Fatal(err)
	}
	wantState(t, ts, pull, true, "behind")
	expect(t, call(t, ts, "PUT", pull+"/merge", nil), 405, "1 of 1 required status checks are expected.")
	prot := call(t, ts, "GET", "/repos/acme/c/branches/main/protection", nil)
	validateReply(t, "repos-get-branch-protection", prot.Status, prot.Raw)
	if prot.obj(t)["required_status_checks"].(map[string]any)["strict"] != true {
		t.Errorf("protection: strict not shown: %s", prot.Raw)
	}

	head := mergeBaseInto(t, ts, "c", "topic", file("m.txt", "m\n"))
	wantState(t, ts, pull, true, "blocked") // up to date, but ci has not run on the new head
	if err := ts.SetCommitStatus("acme", "c", head, "ci", "success"); err != nil {
		t.Fatal(err)
	}
	wantState(t, ts, pull, true, "clean")
	expect(t, call(t, ts, "PUT", pull+"/merge", map[string]any{"sha": head}), 200, "")
}

// delete_branch_on_merge deletes the head branch, unless an open pull
// request merges into it; off, it stays.
func TestDeleteBranchOnMerge(t *testing.T) {
	ts := NewServer(t, WithMergeSettings(MergeSettings{AllowMergeCommit: true, DeleteBranchOnMerge: true}))
	mergeRepo(t, ts, "r")
	if repo := call(t, ts, "GET", "/repos/acme/r", nil).obj(t); repo["delete_branch_on_merge"] != true || repo["allow_squash_merge"] != false {
		t.Fatalf("WithMergeSettings not applied: %v %v", repo["delete_branch_on_merge"], repo["allow_squash_merge"])
	}
	branchOff(t, ts, "r", "main", "gone", file("g.txt", "g\n"))
	branchOff(t, ts, "r", "main", "stack", file("s.txt", "s\n"))
	branchOff(t, ts, "r", "stack", "stacked", file("s2.txt", "s2\n"))
	gone, stack := openPull(t, ts, "r", "gone", "main"), openPull(t, ts, "r", "stack", "main")
	openPull(t, ts, "r", "stacked", "stack")
	expect(t, call(t, ts, "PUT", gone+"/merge", nil), 200, "")
	if _, ok := ts.Head("acme", "r", "gone"); ok {
		t.Error("head branch kept with delete_branch_on_merge on")
	}
	expect(t, call(t, ts, "GET", gone, nil), 200, "")
	expect(t, call(t, ts, "PUT", stack+"/merge", nil), 200, "")
	if _, ok := ts.Head("acme", "r", "stack"); !ok {
		t.Error("head branch deleted while an open pull request merges into it")
	}
	branchOff(t, ts, "r", "main", "release/1", file("r.txt", "r\n"))
	if _, err := ts.AddRuleset("acme", "r", Ruleset{Include: []string{"release/*"}, Rules: []Rule{RestrictDeletions()}}); err != nil {
		t.Fatal(err)
	}
	expect(t, call(t, ts, "PUT", openPull(t, ts, "r", "release/1", "main")+"/merge", nil), 200, "")
	if _, ok := ts.Head("acme", "r", "release/1"); !ok {
		t.Error("head branch deleted though a ruleset restricts its deletion")
	}
	if err := ts.SetMergeSettings("acme", "r", MergeSettings{AllowMergeCommit: true}); err != nil {
		t.Fatal(err)
	}
	branchOff(t, ts, "r", "main", "kept", file("k.txt", "k\n"))
	expect(t, call(t, ts, "PUT", openPull(t, ts, "r", "kept", "main")+"/merge", nil), 200, "")
	if _, ok := ts.Head("acme", "r", "kept"); !ok {
		t.Error("head branch deleted with delete_branch_on_merge off")
	}
}

// A head that merges cleanly but whose commits do not replay on the base
// (it changed a path and changed it back, the base changed it) is
// mergeable, not rebaseable: a rebase merge is refused, a merge lands.
func TestMergeRebaseConflict(t *testing.T) {
	ts := NewServer(t)
	mergeRepo(t, ts, "r")
	branchOff(t, ts, "r", "main", "topic", file("shared.txt", "topic\n"))
	commitOn(t, ts, "r", "topic", "back", file("shared.txt", "one\n"))
	commitOn(t, ts, "r", "topic", "more", file("t.txt", "t\n"))
	commitOn(t, ts, "r", "main", "main", file("shared.txt", "main\n"))
	pull := openPull(t, ts, "r", "topic", "main")
	if m, rb, s := pullState(t, ts, pull); m != true || rb != false || s != "clean" {
		t.Fatalf("mergeable %v rebaseable %v state %s", m, rb, s)
	}
	o := newGitOracle(t, ts, "r")
	o.mirror(mustHead(t, ts, "r", "main"))
	o.mirror(mustHead(t, ts, "r", "topic"))
	first, _ := ts.History("acme", "r", "topic")
	o.git(nil, "checkout", "-q", "-f", "--detach", mustHead(t, ts, "r", "main"))
	if _, err := o.run(nil, nil, "cherry-pick", "--no-commit", first[2].SHA); err == nil {
		t.Fatal("git replays the first commit without a conflict: the model disagrees")
	}
	expect(t, call(t, ts, "PUT", pull+"/merge", map[string]any{"merge_method": "rebase"}), 405, "This branch can't be rebased")
	expect(t, call(t, ts, "PUT", pull+"/merge", nil), 200, "")
}

// WithMergeabilityLag: mergeability is unknown (REST null, GraphQL
// UNKNOWN) for the lag after the pull request opens or its head moves,
// then known; merging is not held up.
func TestMergeabilityLag(t *testing.T) {
	ts := NewServer(t, WithMergeabilityLag(time.Minute))
	mergeRepo(t, ts, "r")
	branchOff(t, ts, "r", "main", "topic", file("t.txt", "t\n"))
	pull := openPull(t, ts, "r", "topic", "main")
	wantState(t, ts, pull, nil, "unknown")
	if _, pr := gqlPullFields(t, ts, "r", 1); pr["mergeable"] != "UNKNOWN" || pr["mergeStateStatus"] != "UNKNOWN" {
		t.Fatalf("GraphQL while computing: %v", pr)
	}
	ts.Pass(time.Minute)
	wantState(t, ts, pull, true, "clean")
	commitOn(t, ts, "r", "topic", "more", file("u.txt", "u\n"))
	wantState(t, ts, pull, nil, "unknown")
	ts.Pass(30 * time.Second)
	wantState(t, ts, pull, nil, "unknown")
	ts.Pass(30 * time.Second)
	wantState(t, ts, pull, true, "clean")
	commitOn(t, ts, "r", "main", "main moves", file("m.txt", "m\n"))
	wantState(t, ts, pull, nil, "unknown")
	expect(t, call(t, ts, "PUT", pull+"/merge", nil), 200, "")
}
