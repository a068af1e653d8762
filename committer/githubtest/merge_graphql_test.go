package githubtest

import (
	"encoding/json"
	"testing"
)

const gqlPullMergeFields = `query($o: String!, $n: String!, $num: Int!) { repository(owner: $o, name: $n) {
  mergeCommitAllowed squashMergeAllowed rebaseMergeAllowed deleteBranchOnMerge
  pullRequest(number: $num) { id state merged mergedAt mergeable mergeStateStatus canBeRebased headRefOid
    mergedBy { login } mergeCommit { oid parents(first: 2) { nodes { oid } } } } } }`

const gqlMerge = `mutation($in: MergePullRequestInput!) { mergePullRequest(input: $in) {
  clientMutationId actor { login } pullRequest { merged state mergeCommit { oid message } } } }`

// gqlPullFields reads a pull request's merge fields over GraphQL (the
// reply checked against GitHub's schema by gql).
func gqlPullFields(t *testing.T, ts *TestServer, repo string, num int) (map[string]any, map[string]any) {
	t.Helper()
	r := gql(t, ts, "/graphql", gqlPullMergeFields, map[string]any{"o": "acme", "n": repo, "num": num})
	var body struct {
		Data struct {
			Repository map[string]any `json:"repository"`
		} `json:"data"`
	}
	if err := json.Unmarshal(r.Raw, &body); err != nil || body.Data.Repository == nil {
		t.Fatalf("%v: %s", err, r.Raw)
	}
	return body.Data.Repository, body.Data.Repository["pullRequest"].(map[string]any)
}

// mergePullRequest merges like PUT merge: expectedHeadOid guards the
// head, the payload and the pull request show the merge, and GraphQL's
// mergeable and mergeStateStatus follow the REST ones.
func TestGraphQLMergePullRequest(t *testing.T) {
	ts := NewServer(t)
	mergeRepo(t, ts, "r")
	old := branchOff(t, ts, "r", "main", "topic", file("t.txt", "t\n"))
	branchOff(t, ts, "r", "main", "dirty", file("shared.txt", "dirty\n"))
	openPull(t, ts, "r", "topic", "main")
	openPull(t, ts, "r", "dirty", "main")
	commitOn(t, ts, "r", "main", "main moves", file("shared.txt", "two\n"))
	head := commitOn(t, ts, "r", "topic", "more", file("u.txt", "u\n"))

	repo, pr := gqlPullFields(t, ts, "r", 1)
	if pr["mergeable"] != "MERGEABLE" || pr["mergeStateStatus"] != "CLEAN" || pr["merged"] != false || pr["mergedAt"] != nil ||
		pr["headRefOid"] != head || pr["canBeRebased"] != true || repo["mergeCommitAllowed"] != true || repo["deleteBranchOnMerge"] != false {
		t.Fatalf("open pull request: %v %v", repo, pr)
	}
	_, dirty := gqlPullFields(t, ts, "r", 2)
	if dirty["mergeable"] != "CONFLICTING" || dirty["mergeStateStatus"] != "DIRTY" || dirty["canBeRebased"] != false {
		t.Fatalf("conflicting pull request: %v", dirty)
	}
	id := pr["id"].(string)
	stale := gql(t, ts, "/graphql", gqlMerge, map[string]any{"in": map[string]any{"pullRequestId": id, "expectedHeadOid": old}})
	if errs := gqlErrors(t, stale); len(errs) != 1 || errs[0]["type"] != "UNPROCESSABLE" || errs[0]["message"] != "Head branch was modified. Review and try the merge again." {
		t.Fatalf("stale expectedHeadOid: %s", stale.Raw)
	}
	rebase := gql(t, ts, "/graphql", gqlMerge, map[string]any{"in": map[string]any{"pullRequestId": dirty["id"], "mergeMethod": "REBASE"}})
	if errs := gqlErrors(t, rebase); len(errs) != 1 || errs[0]["message"] != "Pull Request is not mergeable" {
		t.Fatalf("conflicting merge: %s", rebase.Raw)
	}
	r := gql(t, ts, "/graphql", gqlMerge, map[string]any{"in": map[string]any{"pullRequestId": id, "expectedHeadOid": head,
		"mergeMethod": "SQUASH", "commitHeadline": "Squashed", "commitBody": "body", "clientMutationId": "m1"}})
	if errs := gqlErrors(t, r); len(errs) > 0 {
		t.Fatalf("merge: %s", r.Raw)
	}
	var body struct {
		Data struct {
			M struct {
				ClientMutationID string         `json:"clientMutationId"`
				Actor            map[string]any `json:"actor"`
				PullRequest      map[string]any `json:"pullRequest"`
			} `json:"mergePullRequest"`
		} `json:"data"`
	}
	if err := json.Unmarshal(r.Raw, &body); err != nil {
		t.Fatal(err)
	}
	m := body.Data.M
	mc, _ := m.PullRequest["mergeCommit"].(map[string]any)
	if m.ClientMutationID != "m1" || m.Actor["login"] != "octocat" || m.PullRequest["merged"] != true || m.PullRequest["state"] != "MERGED" ||
		mc["message"] != "Squashed\n\nbody" || mc["oid"] != mustHead(t, ts, "r", "main") {
		t.Fatalf("payload %s", r.Raw)
	}
	_, pr = gqlPullFields(t, ts, "r", 1)
	parents := pr["mergeCommit"].(map[string]any)["parents"].(map[string]any)["nodes"].([]any)
	if pr["merged"] != true || pr["mergedAt"] == nil || pr["mergedBy"].(map[string]any)["login"] != "octocat" ||
		pr["mergeable"] != "UNKNOWN" || pr["mergeStateStatus"] != "UNKNOWN" || len(parents) != 1 {
		t.Fatalf("merged pull request: %v", pr)
	}
	node := gql(t, ts, "/graphql", `query($id: ID!) { node(id: $id) { ... on PullRequest { number merged } } }`, map[string]any{"id": id})
	if string(node.Raw) != `{"data":{"node":{"number":1,"merged":true}}}` {
		t.Errorf("node(id:) of a pull request: %s", node.Raw)
	}
	byState := gql(t, ts, "/graphql", `{ repository(owner: "acme", name: "r") { merged: pullRequests(first: 5, states: [MERGED]) { totalCount }
	  closed: pullRequests(first: 5, states: [CLOSED]) { totalCount } } }`, nil)
	if string(byState.Raw) != `{"data":{"repository":{"merged":{"totalCount":1},"closed":{"totalCount":0}}}}` {
		t.Errorf("pullRequests(states:): %s", byState.Raw)
	}
	if err := ts.SetMergeSettings("acme", "r", MergeSettings{AllowRebaseMerge: true}); err != nil {
		t.Fatal(err)
	}
	if repo, _ = gqlPullFields(t, ts, "r", 1); repo["mergeCommitAllowed"] != false || repo["rebaseMergeAllowed"] != true {
		t.Errorf("repository settings over GraphQL: %v", repo)
	}
}
