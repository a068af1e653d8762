package githubtest

import (
	"testing"
)

// TestReplySchemas validates the fake's reply for every route and every
// status it returns against the documented schema.
func TestReplySchemas(t *testing.T) {
	ts, head := seeded(t)
	if _, err := ts.Seed("acme", "mono", "feature", "f", File{Path: "f.txt", Content: []byte("f")}); err != nil {
		t.Fatal(err)
	}
	if err := ts.CreateRepo("acme", "empty", false); err != nil {
		t.Fatal(err)
	}
	rr, er := "/repos/acme/mono", "/repos/acme/empty"
	c, _ := ts.Commit("acme", "mono", head)
	blob := call(t, ts, "POST", rr+"/git/blobs", map[string]any{"content": "x"}).str(t, "sha")
	newCommit := func() string {
		return call(t, ts, "POST", rr+"/git/commits", map[string]any{"message": "m", "tree": c.Tree, "parents": []string{head}}).str(t, "sha")
	}
	sig := "-----BEGIN PGP SIGNATURE-----\n\nabc\n-----END PGP SIGNATURE-----\n"
	readme, _ := ts.Files("acme", "mono", "main")
	_ = readme

	type tc struct {
		op, method, path string
		body             any
		status           int
	}
	cases := []tc{
		{"git-get-ref", "GET", rr + "/git/ref/heads/main", nil, 200},
		{"git-get-ref", "GET", rr + "/git/ref/heads/nope", nil, 404},
		{"git-get-ref", "GET", er + "/git/ref/heads/main", nil, 409},
		{"git-list-matching-refs", "GET", rr + "/git/matching-refs/heads/", nil, 200},
		{"git-list-matching-refs", "GET", rr + "/git/matching-refs/heads/zzz", nil, 200},
		{"git-list-matching-refs", "GET", er + "/git/matching-refs/heads", nil, 409},
		{"git-create-ref", "POST", rr + "/git/refs", map[string]any{"ref": "refs/heads/new", "sha": head}, 201},
		{"git-create-ref", "POST", rr + "/git/refs", map[string]any{"ref": "refs/heads/new", "sha": head}, 422},
		{"git-create-ref", "POST", er + "/git/refs", map[string]any{"ref": "refs/heads/new", "sha": head}, 409},
		{"git-update-ref", "PATCH", rr + "/git/refs/heads/new", map[string]any{"sha": newCommit()}, 200},
		{"git-update-ref", "PATCH", rr + "/git/refs/heads/new", map[string]any{"sha": head, "force": false}, 422},
		{"git-update-ref", "PATCH", rr + "/git/refs/heads/new", map[string]any{"sha": head, "force": true}, 200},
		{"git-update-ref", "PATCH", rr + "/git/refs/heads/gone", map[string]any{"sha": head}, 422},
		{"git-delete-ref", "DELETE", rr + "/git/refs/heads/new", nil, 204},
		{"git-delete-ref", "DELETE", rr + "/git/refs/heads/new", nil, 422},
		{"git-create-blob", "POST", rr + "/git/blobs", map[string]any{"content": "aGk=", "encoding": "base64"}, 201},
		{"git-create-blob", "POST", rr + "/git/blobs", map[string]any{"content": "x", "encoding": "latin1"}, 422},
		{"git-create-blob", "POST", er + "/git/blobs", map[string]any{"content": "x"}, 409},
		{"git-create-blob", "POST", rr + "/git/blobs", `{`, 400},
		{"git-get-blob", "GET", rr + "/git/blobs/" + blob, nil, 200},
		{"git-get-blob", "GET", rr + "/git/blobs/" + head40, nil, 404},
		{"git-create-tree", "POST", rr + "/git/trees", map[string]any{"base_tree": c.Tree, "tree": []any{
			map[string]any{"path": "x/y", "mode": "100644", "type": "blob", "content": "z"},
			map[string]any{"path": "dir", "mode": "040000", "type": "tree", "sha": nil}}}, 201},
		{"git-create-tree", "POST", rr + "/git/trees", map[string]any{"tree": []any{map[string]any{"path": "a", "mode": "100644"}}}, 422},
		{"git-create-tree", "POST", er + "/git/trees", map[string]any{"tree": []any{}}, 409},
		{"git-get-tree", "GET", rr + "/git/trees/" + c.Tree, nil, 200},
		{"git-get-tree", "GET", rr + "/git/trees/main?recursive=1", nil, 200},
		{"git-get-tree", "GET", rr + "/git/trees/" + head40, nil, 404},
		{"git-get-tree", "GET", er + "/git/trees/main", nil, 409},
		{"git-create-commit", "POST", rr + "/git/commits", map[string]any{"message": "m", "tree": c.Tree, "parents": []string{head},
			"author": map[string]any{"name": "a", "email": "a@x", "date": "2024-01-01T00:00:00+02:00"}}, 201},
		{"git-create-commit", "POST", rr + "/git/commits", map[string]any{"message": "m", "tree": c.Tree, "signature": sig}, 201},
		{"git-create-commit", "POST", rr + "/git/commits", map[string]any{"message": "m", "tree": head40}, 422},
		{"git-create-commit", "POST", er + "/git/commits", map[string]any{"message": "m", "tree": head40}, 409},
		{"git-get-commit", "GET", rr + "/git/commits/" + head, nil, 200},
		{"git-get-commit", "GET", rr + "/git/commits/" + head40, nil, 404},
		{"git-get-commit", "GET", er + "/git/commits/" + head40, nil, 409},
		{"repos-get-branch", "GET", rr + "/branches/main", nil, 200},
		{"repos-get-branch", "GET", rr + "/branches/nope", nil, 404},
		{"repos-get-branch", "GET", er + "/branches/main", nil, 404}, // GitHub: 404 Branch not found on an empty repository
		{"repos-get-commit", "GET", rr + "/commits/main", nil, 200},
		{"repos-get-commit", "GET", rr + "/commits/" + head, nil, 200},
		{"repos-get-commit", "GET", rr + "/commits/nope", nil, 422},
		{"repos-get-commit", "GET", er + "/commits/main", nil, 409},
		{"repos-get-content", "GET", rr + "/contents/README.md", nil, 200},
		{"repos-get-content", "GET", rr + "/contents/dir", nil, 200},
		{"repos-get-content", "GET", rr + "/contents/", nil, 200},
		{"repos-get-content", "GET", rr + "/contents/nope", nil, 404},
		{"repos-create-or-update-file-contents", "PUT", rr + "/contents/new.txt", map[string]any{"message": "m", "content": "eA=="}, 201},
		{"repos-create-or-update-file-contents", "PUT", rr + "/contents/new.txt", map[string]any{"message": "m", "content": "eQ=="}, 422},
		{"repos-create-or-update-file-contents", "PUT", rr + "/contents/new.txt", map[string]any{"message": "m", "content": "eQ==", "sha": head40}, 409},
		{"repos-create-or-update-file-contents", "PUT", rr + "/contents/new.txt", map[string]any{"message": "m", "content": "eQ==", "branch": "nope"}, 404},
		{"repos-create-or-update-file-contents", "PUT", er + "/contents/a.txt", map[string]any{"message": "m", "content": "eQ=="}, 201},
		{"repos-delete-file", "DELETE", rr + "/contents/f.txt", map[string]any{"message": "m", "sha": blob, "branch": "feature"}, 409},
		{"repos-delete-file", "DELETE", rr + "/contents/nope", map[string]any{"message": "m", "sha": blob}, 404},
		{"repos-delete-file", "DELETE", rr + "/contents/f.txt", map[string]any{"message": "m"}, 422},
		{"pulls-create", "POST", rr + "/pulls", map[string]any{"title": "t", "head": "feature", "base": "main"}, 201},
		{"pulls-create", "POST", rr + "/pulls", map[string]any{"title": "t", "head": "feature", "base": "main"}, 422},
		{"pulls-create", "POST", rr + "/pulls", map[string]any{"title": "t", "head": "nope", "base": "main"}, 422},
		{"rate-limit-get", "GET", "/rate_limit", nil, 200},
		{"", "GET", rr, nil, 200},
		{"", "GET", "/repos/acme/nope", nil, 404},
		{"", "GET", rr + "/pulls", nil, 200},
		{"", "GET", rr + "/git/refs/", nil, 200},
		{"", "POST", "/user/repos", map[string]any{"name": "n"}, 201},
		{"", "POST", "/user/repos", map[string]any{"name": "n"}, 422},
		{"", "GET", "/no/such/route", nil, 404},
	}
	// The delete-file success case needs the current blob sha.
	fsha := call(t, ts, "GET", rr+"/contents/f.txt?ref=feature", nil).str(t, "sha")
	cases = append(cases, tc{"repos-delete-file", "DELETE", rr + "/contents/f.txt",
		map[string]any{"message": "m", "sha": fsha, "branch": "feature"}, 200})
	cases = append(cases, tc{"repos-create-or-update-file-contents", "PUT", rr + "/contents/README.md",
		map[string]any{"message": "m", "content": "eQ==", "sha": mustSHA(t, ts, rr+"/contents/README.md")}, 200})

	for _, c := range cases {
		r := call(t, ts, c.method, c.path, c.body)
		if r.Status != c.status {
			t.Errorf("%s %s: status %d, want %d: %s", c.method, c.path, r.Status, c.status, r.Raw)
			continue
		}
		t.Run(c.method+" "+c.path, func(t *testing.T) { validateReply(t, c.op, r.Status, r.Raw) })
	}
}

func mustSHA(t *testing.T, ts *TestServer, path string) string {
	t.Helper()
	return call(t, ts, "GET", path, nil).str(t, "sha")
}
