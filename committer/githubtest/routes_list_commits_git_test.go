package githubtest

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestListCommitsIsGitLog checks the order and the path simplification of
// GET commits against real git: a history with merges, a commit older
// than its parent and two commits of the same date is rebuilt in git (the
// merge oracle's mirror, which fails unless git names every commit as the
// fake does), and every listing must equal `git log <sha> [-- <path>]`.
func TestListCommitsIsGitLog(t *testing.T) {
	ts := NewServer(t, tickingClock())
	root := commitOn(t, ts, "gl", "main", "root", file("a.txt", "1"), file("d/x", "1"))
	o := newGitOracle(t, ts, "gl")
	t0 := time.Date(2024, 6, 1, 12, 0, 0, 0, time.UTC)
	at := func(minutes int) time.Time { return t0.Add(time.Duration(minutes) * time.Minute) }
	mk := func(msg string, when time.Time, files map[string]string, parents ...string) string {
		t.Helper()
		var entries []any
		for p, content := range files {
			entries = append(entries, map[string]any{"path": p, "mode": "100644", "type": "blob", "content": content})
		}
		tree := call(t, ts, "POST", "/repos/acme/gl/git/trees", map[string]any{"base_tree": parents[0], "tree": entries})
		expect(t, tree, 201, "")
		sig := map[string]any{"name": "T", "email": "t@example.com", "date": when.Format(time.RFC3339)}
		c := call(t, ts, "POST", "/repos/acme/gl/git/commits", map[string]any{"message": msg, "tree": tree.str(t, "sha"),
			"parents": parents, "author": sig, "committer": sig})
		expect(t, c, 201, "")
		return c.str(t, "sha")
	}
	a := mk("A", at(10), map[string]string{"a.txt": "2"}, root)
	b := mk("B", at(5), map[string]string{"d/x": "2"}, root)
	c := mk("C, older than its parent", at(3), map[string]string{"b": "1"}, a)
	m := mk("M: merge B", at(20), map[string]string{"d/x": "2"}, c, b)
	e := mk("E, as old as M", at(20), map[string]string{"a.txt": "3"}, m)
	f := mk("F", at(7), map[string]string{"c.txt": "f"}, b)
	m2 := mk("M2: merge F, c.txt from F", at(30), map[string]string{"c.txt": "f"}, e, f)
	g := mk("G, as old as M2", at(30), map[string]string{"a.txt": "9"}, b)
	m3 := mk("M3: merge G, a.txt from neither", at(40), map[string]string{"a.txt": "merged"}, m2, g)
	o.mirror(m3)
	for _, sha := range []string{m3, m2, m, c} {
		for _, path := range []string{"", "a.txt", "c.txt", "d", "d/x", "b", "nope"} {
			args := []string{"log", "--format=%H", sha}
			if path != "" {
				args = append(args, "--", path)
			}
			want := strings.Fields(o.git(nil, args...))
			got := listAll(t, ts, "/repos/acme/gl/commits?sha="+sha+"&path="+path)
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("commits from %s, path %q:\n got %v\nwant %v (git log)", sha[:7], path, got, want)
			}
		}
	}
}

// listAll is every commit sha GET url lists, page after page (per_page=2).
func listAll(t *testing.T, ts *TestServer, url string) []string {
	t.Helper()
	var out []string
	for page := 1; page < 50; page++ {
		r := call(t, ts, "GET", url+"&per_page=2&page="+strconv.Itoa(page), nil)
		expect(t, r, 200, "")
		list := r.JSON.([]any)
		for _, c := range list {
			out = append(out, c.(map[string]any)["sha"].(string))
		}
		if !strings.Contains(r.Header.Get("Link"), `rel="next"`) {
			if len(list) == 0 && page > 1 {
				t.Errorf("%s: page %d is empty, yet the page before named it next", url, page)
			}
			return out
		}
	}
	t.Fatalf("%s: more than 50 pages", url)
	return nil
}
