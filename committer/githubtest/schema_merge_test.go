package githubtest

import (
	"net/http"
	"testing"
)

// mergeRoutes validates the replies of the merge routes against GitHub's
// description (TestReplySchemas runs it), on a repository of their own.
func mergeRoutes(t *testing.T, ts *TestServer, client *http.Client) {
	t.Helper()
	mergeRepo(t, ts, "m43")
	for _, b := range []string{"m", "s", "r"} {
		branchOff(t, ts, "m43", "main", b, file(b+".txt", b))
	}
	branchOff(t, ts, "m43", "main", "dirty", file("shared.txt", "dirty\n"))
	commitOn(t, ts, "m43", "main", "main moves", file("shared.txt", "two\n"))
	pm, ps, pr := openPull(t, ts, "m43", "m", "main"), openPull(t, ts, "m43", "s", "main"), openPull(t, ts, "m43", "r", "main")
	pd := openPull(t, ts, "m43", "dirty", "main")
	type tc struct {
		op, method, path string
		body             any
		status           int
	}
	cases := []tc{
		{"pulls-get", "GET", pd, nil, 200},
		{"pulls-merge", "PUT", pm + "/merge", map[string]any{"sha": head40}, 409},
		{"pulls-merge", "PUT", pm + "/merge", map[string]any{"merge_method": "octopus"}, 422},
		{"pulls-merge", "PUT", pd + "/merge", nil, 405},
		{"pulls-merge", "PUT", "/repos/acme/m43/pulls/99/merge", nil, 404},
		{"pulls-check-if-merged", "GET", pm + "/merge", nil, 404},
		{"pulls-merge", "PUT", pm + "/merge", nil, 200},
		{"pulls-merge", "PUT", ps + "/merge", map[string]any{"merge_method": "squash", "commit_title": "t"}, 200},
		{"pulls-merge", "PUT", pr + "/merge", map[string]any{"merge_method": "rebase"}, 200},
		{"pulls-merge", "PUT", pm + "/merge", nil, 405},
		{"pulls-check-if-merged", "GET", pm + "/merge", nil, 204},
		{"pulls-get", "GET", pm, nil, 200},
		{"pulls-list", "GET", "/repos/acme/m43/pulls?state=all", nil, 200},
		{"issues-add-labels", "POST", "/repos/acme/m43/issues/1/labels", map[string]any{"labels": []string{"merged"}}, 200},
		{"repos-get", "GET", "/repos/acme/m43", nil, 200},
	}
	for _, c := range cases {
		r := callWith(t, client, ts, c.method, c.path, c.body)
		if r.Status != c.status {
			t.Errorf("%s %s: status %d, want %d: %s", c.method, c.path, r.Status, c.status, r.Raw)
			continue
		}
		if !documented(t, c.op, c.status) {
			t.Errorf("%s %s: status %d is not in %s's description", c.method, c.path, c.status, c.op)
		}
		t.Run(c.method+" "+c.path, func(t *testing.T) { validateReply(t, c.op, r.Status, r.Raw) })
	}
}
