package githubtest

import (
	"testing"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/state"
)

func TestGitDataErrors(t *testing.T) {
	ts, head := seeded(t)
	rr := "/repos/acme/mono"
	c, _ := ts.Commit("acme", "mono", head)
	blob := call(t, ts, "POST", rr+"/git/blobs", map[string]any{"content": "x"}).str(t, "sha")

	cases := []struct {
		name, method, path string
		body               any
		status             int
		msg                string
	}{
		{"bad json", "POST", rr + "/git/blobs", `{"content":`, 400, "Problems parsing JSON"},
		{"not object", "POST", rr + "/git/blobs", `["x"]`, 400, "Body should be a JSON object"},
		{"unknown repo", "GET", "/repos/acme/nope", nil, 404, "Not Found"},
		{"unknown route", "GET", "/nothing/here", nil, 404, "Not Found"},
		{"get missing ref", "GET", rr + "/git/ref/heads/nope", nil, 404, "Not Found"},
		{"tree neither sha nor content", "POST", rr + "/git/trees",
			map[string]any{"tree": []any{map[string]any{"path": "a", "mode": "100644", "type": "blob"}}}, 422, "Must supply either"},
		{"tree both sha and content", "POST", rr + "/git/trees",
			map[string]any{"tree": []any{map[string]any{"path": "a", "mode": "100644", "sha": blob, "content": "x"}}}, 422, "Must supply either"},
		{"tree delete missing", "POST", rr + "/git/trees",
			map[string]any{"base_tree": c.Tree, "tree": []any{map[string]any{"path": "nope/x", "mode": "100644", "sha": nil}}}, 422, "GitRPC::BadObjectState"},
		{"tree sha not blob", "POST", rr + "/git/trees",
			map[string]any{"tree": []any{map[string]any{"path": "a", "mode": "100644", "sha": c.Tree}}}, 422, "tree.sha " + c.Tree + " is not a valid blob"},
		{"tree sha not tree", "POST", rr + "/git/trees",
			map[string]any{"tree": []any{map[string]any{"path": "a", "mode": "040000", "sha": blob}}}, 422, "is not a valid tree"},
		{"bad base_tree", "POST", rr + "/git/trees",
			map[string]any{"base_tree": blob, "tree": []any{}}, 422, "base_tree is not a valid tree oid"},
		{"commit unknown tree", "POST", rr + "/git/commits",
			map[string]any{"message": "m", "tree": head40}, 422, "Tree SHA does not exist"},
		{"non fast forward", "PATCH", rr + "/git/refs/heads/main",
			map[string]any{"sha": mkCommit(t, ts, c.Tree), "force": false}, 422, "Update is not a fast forward"},
		{"patch missing ref", "PATCH", rr + "/git/refs/heads/nope", map[string]any{"sha": head}, 422, "Reference does not exist"},
		{"patch refs/ prefix", "PATCH", rr + "/git/refs/refs/heads/main", map[string]any{"sha": head}, 422, "Reference does not exist"},
		{"escaped slash missing", "GET", rr + "/git/ref/heads%2Fnope", nil, 404, "Not Found"},
		{"escaped slash patch missing", "PATCH", rr + "/git/refs/heads%2Fnope", map[string]any{"sha": head}, 422, "Reference does not exist"},
		{"escaped slash ghes missing", "DELETE", "/api/v3" + rr + "/git/refs/heads%2Fnope", nil, 422, "Reference does not exist"},
		{"malformed parent", "POST", rr + "/git/commits",
			map[string]any{"message": "m", "tree": c.Tree, "parents": []string{"abc"}}, 422, state.MsgParentsMalformed},
		{"unknown parent", "POST", rr + "/git/commits",
			map[string]any{"message": "m", "tree": c.Tree, "parents": []string{head40}}, 422, "Parent SHA does not exist"},
		{"delete missing ref", "DELETE", rr + "/git/refs/heads/nope", nil, 422, "Reference does not exist"},
		{"delete default branch", "DELETE", rr + "/git/refs/heads/main", nil, 422, ""},
		{"create existing ref", "POST", rr + "/git/refs", map[string]any{"ref": "refs/heads/main", "sha": head}, 422, "Reference already exists"},
		{"create ref unknown sha", "POST", rr + "/git/refs", map[string]any{"ref": "refs/heads/x", "sha": head40}, 422, "Object does not exist"},
		{"missing branch", "GET", rr + "/branches/nope", nil, 404, "Branch not found"},
		{"contents no sha", "PUT", rr + "/contents/README.md", map[string]any{"message": "m", "content": "eA=="}, 422, "Invalid request.\n\n\"sha\" wasn't supplied."},
		{"contents wrong sha", "PUT", rr + "/contents/README.md", map[string]any{"message": "m", "content": "eA==", "sha": blob}, 409, "README.md does not match " + blob},
		{"pull missing head", "POST", rr + "/pulls", map[string]any{"title": "t", "head": "nope", "base": "main"}, 422, "Validation Failed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := call(t, ts, tc.method, tc.path, tc.body)
			expect(t, r, tc.status, tc.msg)
			o := r.obj(t)
			if o["documentation_url"] == nil || o["status"] == nil {
				t.Fatalf("error envelope %s", r.Raw)
			}
		})
	}
	if h, _ := ts.Head("acme", "mono", "main"); h != head {
		t.Fatal("an error moved the branch")
	}
}

func mkCommit(t *testing.T, ts *TestServer, tree string) string {
	t.Helper()
	r := call(t, ts, "POST", "/repos/acme/mono/git/commits", map[string]any{"message": "orphan", "tree": tree})
	expect(t, r, 201, "")
	return r.str(t, "sha")
}

func TestEmptyRepository(t *testing.T) {
	ts := NewServer(t)
	if err := ts.CreateRepo("acme", "e", false); err != nil {
		t.Fatal(err)
	}
	if err := ts.CreateRepo("acme", "e", false); err == nil {
		t.Fatal("CreateRepo twice succeeded")
	}
	rr := "/repos/acme/e"
	for _, c := range []struct {
		method, path string
		body         any
	}{
		{"POST", rr + "/git/blobs", map[string]any{"content": "x"}},
		{"POST", rr + "/git/trees", map[string]any{"tree": []any{}}},
		{"POST", rr + "/git/commits", map[string]any{"message": "m", "tree": head40}},
		{"POST", rr + "/git/refs", map[string]any{"ref": "refs/heads/x", "sha": head40}},
		{"GET", rr + "/git/trees/main", nil}, {"GET", rr + "/git/commits/" + head40, nil},
		{"GET", rr + "/commits/main", nil},
	} {
		expect(t, call(t, ts, c.method, c.path, c.body), 409, "Git Repository is empty.")
	}
	// GET branches/{b} answers 404 on an empty repository, as on GitHub.
	expect(t, call(t, ts, "GET", rr+"/branches/main", nil), 404, "Branch not found")
}

func TestPulls(t *testing.T) {
	ts, _ := seeded(t)
	if _, err := ts.Seed("acme", "mono", "feature", "f", File{Path: "f", Content: []byte("f")}); err != nil {
		t.Fatal(err)
	}
	rr := "/repos/acme/mono"
	pr := map[string]any{"title": "t", "head": "feature", "base": "main", "body": "b"}
	r := call(t, ts, "POST", rr+"/pulls", pr)
	expect(t, r, 201, "")
	if r.Header.Get("Location") == "" {
		t.Fatal("no Location")
	}
	r = call(t, ts, "POST", rr+"/pulls", pr)
	expect(t, r, 422, "Validation Failed")
	errs := r.obj(t)["errors"].([]any)
	if m := errs[0].(map[string]any)["message"]; m != "A pull request already exists for acme:feature." {
		t.Fatalf("message %v", m)
	}
	l := call(t, ts, "GET", rr+"/pulls?head=acme:feature&base=main", nil)
	if n := len(l.JSON.([]any)); n != 1 {
		t.Fatalf("list = %d", n)
	}
	l = call(t, ts, "GET", rr+"/pulls?state=closed", nil)
	if n := len(l.JSON.([]any)); n != 0 {
		t.Fatalf("closed list = %d", n)
	}
}

func TestCreateRepoRoutes(t *testing.T) {
	ts := NewServer(t)
	r := call(t, ts, "POST", "/orgs/acme/repos", map[string]any{"name": "r1", "auto_init": true})
	expect(t, r, 201, "")
	if r.str(t, "default_branch") != "main" || r.str(t, "full_name") != "acme/r1" {
		t.Fatalf("repo %s", r.Raw)
	}
	expect(t, call(t, ts, "POST", "/orgs/acme/repos", map[string]any{"name": "r1"}), 422, "")
	r = call(t, ts, "POST", "/user/repos", map[string]any{"name": "mine"})
	expect(t, r, 201, "")
	if _, ok := ts.Head("acme", "r1", "main"); !ok {
		t.Fatal("auto_init made no commit")
	}
	expect(t, call(t, ts, "GET", "/repos/acme/r1", nil), 200, "")
}
