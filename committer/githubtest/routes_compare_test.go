package githubtest

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

func TestCompare(t *testing.T) {
	ts := NewServer(t)
	if err := ts.CreateRepo("acme", "mono", true); err != nil {
		t.Fatal(err)
	}
	base, _ := ts.Head("acme", "mono", "main")
	var line []string
	for i := range 5 {
		sha, err := ts.Seed("acme", "mono", "main", fmt.Sprint("c", i), File{Path: "f.txt", Content: []byte(fmt.Sprint(i))})
		if err != nil {
			t.Fatal(err)
		}
		line = append(line, sha)
	}
	expect(t, call(t, ts, "POST", "/repos/acme/mono/git/refs", map[string]any{"ref": "refs/heads/side", "sha": base}), 201, "")
	if _, err := ts.Seed("acme", "mono", "side", "side", File{Path: "s.txt", Content: []byte("s")}); err != nil {
		t.Fatal(err)
	}
	const op = "repos-compare-commits-with-basehead"
	cmp := func(b, h, query string) reply {
		t.Helper()
		r := call(t, ts, "GET", "/repos/acme/mono/compare/"+b+"..."+h+query, nil)
		validateReply(t, op, r.Status, r.Raw)
		return r
	}
	for _, tc := range []struct {
		base, head, status string
		ahead, behind      int
	}{
		{line[4], line[4], "identical", 0, 0},
		{base, line[4], "ahead", 5, 0},
		{line[4], line[1], "behind", 0, 3},
		{"main", "side", "diverged", 1, 5},
	} {
		r := cmp(tc.base, tc.head, "")
		m := r.obj(t)
		if r.Status != 200 || m["status"] != tc.status || m["ahead_by"] != float64(tc.ahead) || m["behind_by"] != float64(tc.behind) {
			t.Errorf("%s...%s: %d %v ahead %v behind %v, want %s %d %d", tc.base, tc.head, r.Status, m["status"], m["ahead_by"], m["behind_by"], tc.status, tc.ahead, tc.behind)
		}
	}
	// The commits head has, oldest first, one page at a time.
	r := cmp(base, line[4], "?per_page=2&page=2")
	commits := r.obj(t)["commits"].([]any)
	if len(commits) != 2 || commits[0].(map[string]any)["sha"] != line[2] || commits[1].(map[string]any)["sha"] != line[3] {
		t.Fatalf("page 2: %v", commits)
	}
	if !strings.Contains(r.Header.Get("Link"), `rel="next"`) {
		t.Errorf("no next link: %q", r.Header.Get("Link"))
	}
	if mb := r.str(t, "merge_base_commit", "sha"); mb != base {
		t.Errorf("merge base %s, want %s", mb, base)
	}
	if r := call(t, ts, "GET", "/repos/acme/mono/compare/main...nope", nil); r.Status != http.StatusNotFound {
		t.Errorf("unknown head: %d", r.Status)
	}
}
