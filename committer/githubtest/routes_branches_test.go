package githubtest

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// getNoRedirect GETs path without following a redirect.
func getNoRedirect(t *testing.T, ts *TestServer, path string) reply {
	t.Helper()
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := hc.Get(strings.TrimSuffix(ts.URL, "/") + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	out := reply{Status: resp.StatusCode, Header: resp.Header, Raw: raw}
	if err := json.Unmarshal(raw, &out.JSON); err != nil {
		t.Fatalf("GET %s: bad JSON %q: %v", path, raw, err)
	}
	return out
}

func TestBranchRenameRedirects(t *testing.T) {
	ts := NewServer(t)
	if err := ts.CreateRepo("acme", "mono", true); err != nil {
		t.Fatal(err)
	}
	if _, err := ts.Seed("acme", "mono", "old", "o", File{Path: "o.txt", Content: []byte("o")}); err != nil {
		t.Fatal(err)
	}
	const rr = "/repos/acme/mono"
	r := call(t, ts, "POST", rr+"/branches/old/rename", map[string]any{"new_name": "new"})
	if r.Status != http.StatusCreated || r.str(t, "name") != "new" {
		t.Fatalf("rename: %d %s", r.Status, r.Raw)
	}
	validateReply(t, "repos-rename-branch", r.Status, r.Raw)
	got := getNoRedirect(t, ts, rr+"/branches/old")
	if got.Status != http.StatusMovedPermanently || !strings.HasSuffix(got.Header.Get("Location"), rr+"/branches/new") {
		t.Fatalf("GET old branch: %d, Location %q", got.Status, got.Header.Get("Location"))
	}
	validateReply(t, "repos-get-branch", got.Status, got.Raw)
	// git/ref never redirects.
	expect(t, call(t, ts, "GET", rr+"/git/ref/heads/old", nil), 404, "Not Found")
	// Renaming a missing branch, or onto a taken name, is refused.
	expect(t, call(t, ts, "POST", rr+"/branches/nope/rename", map[string]any{"new_name": "x"}), 404, "Branch not found")
	expect(t, call(t, ts, "POST", rr+"/branches/new/rename", map[string]any{"new_name": "main"}), 422, "")
	// A branch created under the old name is a real branch again.
	head, _ := ts.Head("acme", "mono", "main")
	expect(t, call(t, ts, "POST", rr+"/git/refs", map[string]any{"ref": "refs/heads/old", "sha": head}), 201, "")
	if got := getNoRedirect(t, ts, rr+"/branches/old"); got.Status != 200 || got.str(t, "name") != "old" {
		t.Fatalf("GET recreated branch: %d %s", got.Status, got.Raw)
	}
	// Renaming the default branch moves the default along.
	expect(t, call(t, ts, "POST", rr+"/branches/main/rename", map[string]any{"new_name": "trunk"}), 201, "")
	if d := call(t, ts, "GET", rr, nil).str(t, "default_branch"); d != "trunk" {
		t.Fatalf("default branch %q after renaming main", d)
	}
}

func TestMasterRedirectsToDefaultBranch(t *testing.T) {
	ts := NewServer(t)
	if err := ts.CreateRepo("acme", "mono", true); err != nil {
		t.Fatal(err)
	}
	if err := ts.CreateRepo("acme", "empty", false); err != nil {
		t.Fatal(err)
	}
	got := getNoRedirect(t, ts, "/repos/acme/mono/branches/master")
	if got.Status != http.StatusMovedPermanently || !strings.HasSuffix(got.Header.Get("Location"), "/repos/acme/mono/branches/main") {
		t.Fatalf("GET master: %d, Location %q", got.Status, got.Header.Get("Location"))
	}
	expect(t, getNoRedirect(t, ts, "/repos/acme/mono/branches/nope"), 404, "Branch not found")
	// An empty repository has no branch at all: 404, not 409.
	expect(t, getNoRedirect(t, ts, "/repos/acme/empty/branches/master"), 404, "Branch not found")
}

func TestRefNameClash(t *testing.T) {
	ts := NewServer(t)
	if err := ts.CreateRepo("acme", "mono", true); err != nil {
		t.Fatal(err)
	}
	head, _ := ts.Head("acme", "mono", "main")
	const refs = "/repos/acme/mono/git/refs"
	expect(t, call(t, ts, "POST", refs, map[string]any{"ref": "refs/heads/main/sub", "sha": head}), 422, "Reference update failed")
	expect(t, call(t, ts, "POST", refs, map[string]any{"ref": "refs/heads/a/b", "sha": head}), 201, "")
	expect(t, call(t, ts, "POST", refs, map[string]any{"ref": "refs/heads/a", "sha": head}), 422, "Reference update failed")
	expect(t, call(t, ts, "POST", refs, map[string]any{"ref": "refs/heads/a/c", "sha": head}), 201, "")
}
