package githubtest

import (
	"net/http"
	"testing"
)

// moreRoutes validates the replies of the routes for tags, rules and
// pull-request updates against GitHub's description (TestReplySchemas runs
// it), on a repository of their own.
func moreRoutes(t *testing.T, ts *TestServer, client *http.Client) {
	t.Helper()
	head, err := ts.Seed("acme", "r22", "main", "seed", File{Path: "a.txt", Content: []byte("a")})
	if err != nil {
		t.Fatal(err)
	}
	const rr = "/repos/acme/r22"
	tag := call(t, ts, "POST", rr+"/git/tags", map[string]any{"tag": "v1", "message": "m", "object": head, "type": "commit"})
	c, _ := ts.Commit("acme", "r22", head)
	next := call(t, ts, "POST", rr+"/git/commits", map[string]any{"message": "n", "tree": c.Tree, "parents": []string{head}}).str(t, "sha")
	for _, b := range []string{"free", "classic"} {
		expect(t, call(t, ts, "POST", rr+"/git/refs", map[string]any{"ref": "refs/heads/" + b, "sha": head}), 201, "")
	}
	if _, err := ts.AddRuleset("acme", "r22", Ruleset{Include: []string{"main", "release/*"}, Rules: []Rule{
		RequirePullRequest(), RequireSignatures(), RequireStatusChecks("ci"), RequireMergeQueue(), RestrictFilePaths("s/**"),
		MaxFileSize(10), RestrictCreations(), RestrictUpdates(), RestrictDeletions(), BlockForcePushes(),
	}}); err != nil {
		t.Fatal(err)
	}
	if err := ts.ProtectBranch("acme", "r22", "main", BranchProtection{RequiredStatusChecks: []string{"ci"}, RequiredApprovingReviews: 2, RequireSignatures: true}); err != nil {
		t.Fatal(err)
	}
	if err := ts.ProtectBranch("acme", "r22", "classic", BranchProtection{RequiredApprovingReviews: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := ts.Seed("acme", "r22", "topic", "topic", File{Path: "t.txt", Content: []byte("t")}); err != nil {
		t.Fatal(err)
	}
	expect(t, call(t, ts, "POST", rr+"/pulls", map[string]any{"title": "t", "head": "topic", "base": "free"}), 201, "")
	pr := rr + "/pulls/1"
	type tc struct {
		op, method, path string
		body             any
		status           int
	}
	cases := []tc{
		{"git-create-tag", "POST", rr + "/git/tags", map[string]any{"tag": "v2", "message": "m", "object": head, "type": "commit",
			"tagger": map[string]any{"name": "T", "email": "t@x", "date": "2024-01-01T00:00:00Z"}}, 201},
		{"git-create-tag", "POST", rr + "/git/tags", map[string]any{"tag": "v2", "message": "m", "object": head40, "type": "commit"}, 422},
		{"git-create-tag", "POST", rr + "/git/tags", map[string]any{"tag": "v2", "object": head, "type": "commit"}, 422},
		{"git-create-tag", "POST", rr + "/git/tags", map[string]any{"tag": "v2", "message": "m", "object": head, "type": "tree"}, 422},
		{"git-get-tag", "GET", rr + "/git/tags/" + tag.str(t, "sha"), nil, 200},
		{"git-get-tag", "GET", rr + "/git/tags/" + head, nil, 404},
		{"git-create-ref", "POST", rr + "/git/refs", map[string]any{"ref": "refs/tags/v1", "sha": tag.str(t, "sha")}, 201},
		{"git-get-ref", "GET", rr + "/git/ref/tags/v1", nil, 200},
		{"git-list-matching-refs", "GET", rr + "/git/matching-refs/tags/", nil, 200},
		{"repos-get-branch-rules", "GET", rr + "/rules/branches/main", nil, 200},
		{"repos-get-branch-rules", "GET", rr + "/rules/branches/nope", nil, 200},
		{"repos-get-branch", "GET", rr + "/branches/main", nil, 200},
		{"repos-get-branch-protection", "GET", rr + "/branches/main/protection", nil, 200},
		{"repos-get-branch-protection", "GET", rr + "/branches/free/protection", nil, 404},
		{"git-update-ref", "PATCH", rr + "/git/refs/heads/main", map[string]any{"sha": next}, 422},
		{"git-create-ref", "POST", rr + "/git/refs", map[string]any{"ref": "refs/heads/release/1", "sha": head}, 422},
		{"repos-create-or-update-file-contents", "PUT", rr + "/contents/new.txt", map[string]any{"message": "m", "content": "eA=="}, 409},
		{"repos-create-or-update-file-contents", "PUT", rr + "/contents/new.txt", map[string]any{"message": "m", "content": "eA==", "branch": "classic"}, 409},
		{"pulls-update", "PATCH", pr, map[string]any{"title": "new title", "body": "b", "state": "closed"}, 200},
		{"pulls-update", "PATCH", pr, map[string]any{"state": "open"}, 200},
		{"pulls-update", "PATCH", pr, map[string]any{"state": "merged"}, 422},
		{"pulls-update", "PATCH", rr + "/pulls/99", map[string]any{"title": "x"}, 404},
		{"issues-add-labels", "POST", rr + "/issues/1/labels", map[string]any{"labels": []string{"bug", "ci"}}, 200},
		{"issues-add-labels", "POST", rr + "/issues/1/labels", []string{"more"}, 200},
		{"issues-add-labels", "POST", rr + "/issues/1/labels", map[string]any{"labels": []string{}}, 422},
		{"issues-add-labels", "POST", rr + "/issues/99/labels", map[string]any{"labels": []string{"x"}}, 404},
		{"issues-set-labels", "PUT", rr + "/issues/1/labels", map[string]any{"labels": []any{map[string]any{"name": "bug"}, "docs"}}, 200},
		{"issues-set-labels", "PUT", rr + "/issues/99/labels", map[string]any{"labels": []string{}}, 404},
		{"issues-remove-label", "DELETE", rr + "/issues/1/labels/docs", nil, 200},
		{"issues-remove-label", "DELETE", rr + "/issues/1/labels/docs", nil, 404},
		{"pulls-request-reviewers", "POST", pr + "/requested_reviewers", map[string]any{"reviewers": []string{"alice", "bob"}}, 201},
		{"pulls-request-reviewers", "POST", pr + "/requested_reviewers", map[string]any{"reviewers": []string{"octocat"}}, 422},
		{"pulls-remove-requested-reviewers", "DELETE", pr + "/requested_reviewers", map[string]any{"reviewers": []string{"bob"}}, 200},
		{"pulls-remove-requested-reviewers", "DELETE", pr + "/requested_reviewers", map[string]any{}, 422},
		{"issues-add-assignees", "POST", rr + "/issues/1/assignees", map[string]any{"assignees": []string{"alice"}}, 201},
		{"issues-remove-assignees", "DELETE", rr + "/issues/1/assignees", map[string]any{"assignees": []string{"alice"}}, 200},
		{"pulls-get", "GET", pr, nil, 200},
	}
	for _, c := range cases {
		r := callWith(t, client, ts, c.method, c.path, c.body)
		if r.Status != c.status {
			t.Errorf("%s %s: status %d, want %d: %s", c.method, c.path, r.Status, c.status, r.Raw)
			continue
		}
		if c.op != "" && !documented(t, c.op, c.status) {
			t.Logf("%s %s: status %d is not in %s's description", c.method, c.path, c.status, c.op)
		}
		t.Run(c.method+" "+c.path, func(t *testing.T) { validateReply(t, c.op, r.Status, r.Raw) })
	}
}
