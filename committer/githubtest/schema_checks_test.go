package githubtest

import (
	"net/http"
	"strconv"
	"testing"
)

// checksRoutes validates the replies of the commit status and check run
// routes against GitHub's description (TestReplySchemas runs it): on ts
// with its plain token (a check run needs a GitHub App: 403), then on a
// server of its own with an installation token.
func checksRoutes(t *testing.T, ts *TestServer, client *http.Client) {
	t.Helper()
	mergeRepo(t, ts, "c44")
	head, _ := ts.Head("acme", "c44", "main")
	rr := "/repos/acme/c44"
	type tc struct {
		op, method, path string
		body             any
		status           int
	}
	cases := []tc{
		{"repos-create-commit-status", "POST", rr + "/statuses/" + head, map[string]any{"state": "pending", "context": "ci", "target_url": "https://ci.example/1"}, 201},
		{"repos-create-commit-status", "POST", rr + "/statuses/" + head, map[string]any{"state": "success", "context": "ci", "description": "ok"}, 201},
		{"repos-create-commit-status", "POST", rr + "/statuses/" + head, map[string]any{"state": "failure"}, 201},
		{"repos-create-commit-status", "POST", rr + "/statuses/" + head, map[string]any{"state": "great"}, 422},
		{"repos-create-commit-status", "POST", rr + "/statuses/" + head40, map[string]any{"state": "success"}, 422},
		{"repos-list-commit-statuses-for-ref", "GET", rr + "/commits/main/statuses", nil, 200},
		{"repos-get-combined-status-for-ref", "GET", rr + "/commits/" + head + "/status", nil, 200},
		{"repos-get-combined-status-for-ref", "GET", rr + "/commits/nope/status", nil, 404},
		{"checks-create", "POST", rr + "/check-runs", map[string]any{"name": "ci", "head_sha": head}, 403},
		{"checks-update", "PATCH", rr + "/check-runs/1", map[string]any{"conclusion": "success"}, 403},
		{"checks-get", "GET", rr + "/check-runs/1", nil, 404},
		{"checks-list-for-ref", "GET", rr + "/commits/main/check-runs", nil, 200},
	}
	for _, c := range cases {
		r := callWith(t, client, ts, c.method, c.path, c.body)
		if r.Status != c.status {
			t.Errorf("%s %s: status %d, want %d: %s", c.method, c.path, r.Status, c.status, r.Raw)
			continue
		}
		t.Run(c.method+" "+c.path, func(t *testing.T) { validateReply(t, c.op, r.Status, r.Raw) })
	}
	combined := call(t, ts, "GET", rr+"/commits/main/status", nil).obj(t)
	if combined["state"] != "failure" || combined["total_count"] != float64(2) {
		t.Errorf("combined status: %v", combined)
	}
	appCheckRuns(t)
}

// appCheckRuns creates, updates, reads and lists check runs as a GitHub
// App installation, each reply checked against GitHub's description.
func appCheckRuns(t *testing.T) {
	t.Helper()
	ts, head, tok := appServer(t)
	auth := []string{"Authorization", "token " + tok}
	r := call(t, ts, "POST", "/repos/acme/mono/check-runs", map[string]any{"name": "ci", "head_sha": head, "status": "in_progress"}, auth...)
	expect(t, r, 201, "")
	validateReply(t, "checks-create", 201, r.Raw)
	run := "/repos/acme/mono/check-runs/" + strconv.Itoa(int(r.obj(t)["id"].(float64)))
	for _, c := range []struct {
		op, method, path string
		body             any
		status           int
	}{
		{"checks-create", "POST", "/repos/acme/mono/check-runs", map[string]any{"name": "ci", "head_sha": head, "status": "completed"}, 422},
		{"checks-create", "POST", "/repos/acme/mono/check-runs", map[string]any{"name": "ci", "head_sha": head40}, 422},
		{"checks-update", "PATCH", run, map[string]any{"conclusion": "maybe"}, 422},
		{"checks-update", "PATCH", run, map[string]any{"conclusion": "success", "output": map[string]any{"title": "t", "summary": "s"}}, 200},
		{"checks-get", "GET", run, nil, 200},
		{"checks-list-for-ref", "GET", "/repos/acme/mono/commits/" + head + "/check-runs?filter=all", nil, 200},
	} {
		r := call(t, ts, c.method, c.path, c.body, auth...)
		expect(t, r, c.status, "")
		validateReply(t, c.op, r.Status, r.Raw)
	}
	if got := call(t, ts, "GET", run, nil).obj(t); got["status"] != "completed" || got["conclusion"] != "success" || got["completed_at"] == nil {
		t.Errorf("updated run: %v", got)
	}
	if err := ts.ProtectBranch("acme", "mono", "main", BranchProtection{RequiredStatusChecks: []string{"ci"}}); err != nil {
		t.Fatal(err)
	}
	// The check run meets classic protection's required check.
	c, _ := ts.Commit("acme", "mono", head)
	nc := call(t, ts, "POST", "/repos/acme/mono/git/commits", map[string]any{"message": "m", "tree": c.Tree, "parents": []string{head}})
	expect(t, nc, 201, "")
	sha := nc.str(t, "sha")
	expect(t, call(t, ts, "PATCH", "/repos/acme/mono/git/refs/heads/main", map[string]any{"sha": sha}), 422, "ci")
	expect(t, call(t, ts, "POST", "/repos/acme/mono/check-runs", map[string]any{"name": "ci", "head_sha": sha, "conclusion": "success"}, auth...), 201, "")
	expect(t, call(t, ts, "PATCH", "/repos/acme/mono/git/refs/heads/main", map[string]any{"sha": sha}), 200, "")
}
