package githubtest

import (
	"strconv"
	"testing"
)

// mergeRepo seeds acme/<name> with shared.txt and a.txt on main.
func mergeRepo(t testing.TB, ts *TestServer, name string) {
	t.Helper()
	if _, err := ts.Seed("acme", name, "main", "seed",
		File{Path: "shared.txt", Content: []byte("one\n")}, File{Path: "a.txt", Content: []byte("a\n")}); err != nil {
		t.Fatal(err)
	}
}

// branchOff creates branch at from's head and commits each file on it,
// one commit per file; it returns the branch's head.
func branchOff(t testing.TB, ts *TestServer, repo, from, branch string, files ...File) string {
	t.Helper()
	head, ok := ts.Head("acme", repo, from)
	if !ok {
		t.Fatalf("no branch %s", from)
	}
	expect(t, call(t, ts, "POST", "/repos/acme/"+repo+"/git/refs", map[string]any{"ref": "refs/heads/" + branch, "sha": head}), 201, "")
	for _, f := range files {
		head = commitOn(t, ts, repo, branch, "change "+f.Path, f)
	}
	return head
}

// commitOn commits files on branch and returns the new head.
func commitOn(t testing.TB, ts *TestServer, repo, branch, msg string, files ...File) string {
	t.Helper()
	h, err := ts.Seed("acme", repo, branch, msg, files...)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// openPull opens a pull request of head into base and returns its path.
func openPull(t testing.TB, ts *TestServer, repo, head, base string) string {
	t.Helper()
	r := call(t, ts, "POST", "/repos/acme/"+repo+"/pulls", map[string]any{"title": "Pull " + head, "head": head, "base": base})
	expect(t, r, 201, "")
	return "/repos/acme/" + repo + "/pulls/" + strconv.Itoa(int(r.obj(t)["number"].(float64)))
}

// file is a File with text content.
func file(path, content string) File { return File{Path: path, Content: []byte(content)} }

// pullState is the pull request's mergeable, rebaseable and mergeable_state.
func pullState(t testing.TB, ts *TestServer, pull string) (any, any, string) {
	t.Helper()
	r := call(t, ts, "GET", pull, nil)
	expect(t, r, 200, "")
	o := r.obj(t)
	return o["mergeable"], o["rebaseable"], o["mergeable_state"].(string)
}
