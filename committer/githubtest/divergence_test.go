package githubtest

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"crypto/rand"
	"crypto/rsa"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp"
)

// Each test here pins a behaviour in which the fake used to be kinder than,
// or different from, github.com (issue #13).

func TestEscapedRefSlashAccepted(t *testing.T) {
	ts, head := seeded(t)
	rr := "/repos/acme/mono"
	r := call(t, ts, "GET", rr+"/git/ref/heads%2Fmain", nil)
	expect(t, r, 200, "")
	if r.str(t, "ref") != "refs/heads/main" || r.str(t, "object", "sha") != head {
		t.Fatalf("get ref %s", r.Raw)
	}
	expect(t, call(t, ts, "GET", rr+"/git/refs/heads%2Fmain", nil), 200, "")
	c, _ := ts.Commit("acme", "mono", head)
	next := call(t, ts, "POST", rr+"/git/commits", map[string]any{"message": "m", "tree": c.Tree, "parents": []string{head}}).str(t, "sha")
	expect(t, call(t, ts, "PATCH", rr+"/git/refs/heads%2Fmain", map[string]any{"sha": next}), 200, "")
	if h, _ := ts.Head("acme", "mono", "main"); h != next {
		t.Fatalf("head %s, want %s", h, next)
	}
	expect(t, call(t, ts, "POST", rr+"/git/refs", map[string]any{"ref": "refs/heads/x", "sha": head}), 201, "")
	expect(t, call(t, ts, "DELETE", "/api/v3"+rr+"/git/refs/heads%2Fx", nil), 204, "")
	if _, ok := ts.Head("acme", "mono", "x"); ok {
		t.Fatal("escaped DELETE left the ref")
	}
}

func TestBaseTreeCommitIsPeeled(t *testing.T) {
	ts, head := seeded(t)
	r := call(t, ts, "POST", "/repos/acme/mono/git/trees", map[string]any{"base_tree": head,
		"tree": []any{map[string]any{"path": "new.txt", "mode": "100644", "type": "blob", "content": "n"}}})
	expect(t, r, 201, "")
	var names []string
	for _, e := range r.obj(t)["tree"].([]any) {
		names = append(names, e.(map[string]any)["path"].(string))
	}
	if got := strings.Join(names, ","); got != "README.md,bin,dir,link,new.txt" {
		t.Fatalf("tree on the peeled commit: %s", got)
	}
	blob := call(t, ts, "POST", "/repos/acme/mono/git/blobs", map[string]any{"content": "b"}).str(t, "sha")
	expect(t, call(t, ts, "POST", "/repos/acme/mono/git/trees", map[string]any{"base_tree": blob, "tree": []any{}}),
		422, "base_tree is not a valid tree oid")
}

func TestMalformedParentWording(t *testing.T) {
	ts, head := seeded(t)
	c, _ := ts.Commit("acme", "mono", head)
	for _, p := range []string{"abc", strings.ToUpper(head), head + "0", strings.Repeat("g", 40)} {
		r := call(t, ts, "POST", "/repos/acme/mono/git/commits", map[string]any{"message": "m", "tree": c.Tree, "parents": []string{p}})
		expect(t, r, 422, "")
		if m := r.str(t, "message"); m != "Each SHA in the 'parents' parameter must be exactly 40 characters and contain only [0-9a-f]." {
			t.Fatalf("parent %q: message %q", p, m)
		}
	}
}

func TestUnservedRoutesAre404(t *testing.T) {
	ts, _ := seeded(t)
	for _, p := range []string{"/repos/acme/mono/branches", "/repos/acme/mono/tags", "/repos/acme/mono/git/trees",
		"/repos/acme/mono/git/ref/heads//main", "/repos/acme/mono/./git/ref/heads/main", "/nope", "/api/v3/repos/acme/mono/branches"} {
		r := call(t, ts, "GET", p, nil)
		expect(t, r, 404, "Not Found")
		if loc := r.Header.Get("Location"); loc != "" {
			t.Fatalf("%s: Location %s", p, loc)
		}
	}
	expect(t, call(t, ts, "GET", "/repos/acme/mono/contents", nil), 200, "")
}

func TestRepoGetHasRequiredFields(t *testing.T) {
	ts, _ := seeded(t)
	r := call(t, ts, "GET", "/repos/acme/mono", nil)
	expect(t, r, 200, "")
	if _, ok := r.obj(t)["has_discussions"]; !ok {
		t.Fatalf("no has_discussions: %s", r.Raw)
	}
	validateReply(t, "repos-get", 200, r.Raw)
}

func TestAppCommitsSignedByGitHub(t *testing.T) {
	ts, head, tok := appServer(t)
	c, _ := ts.Commit("acme", "mono", head)
	r := call(t, ts, "POST", "/repos/acme/mono/git/commits", map[string]any{"message": "bot", "tree": c.Tree, "parents": []string{head}},
		"Authorization", "token "+tok)
	expect(t, r, 201, "")
	if r.str(t, "committer", "name") != "GitHub" || r.str(t, "committer", "email") != "noreply@github.com" {
		t.Fatalf("committer %s", r.Raw)
	}
	if !strings.HasSuffix(r.str(t, "author", "name"), "[bot]") {
		t.Fatalf("author %s", r.Raw)
	}
	v := r.obj(t)["verification"].(map[string]any)
	sig, _ := v["signature"].(string)
	payload, _ := v["payload"].(string)
	if v["verified"] != true || v["reason"] != "valid" || sig == "" || payload == "" {
		t.Fatalf("verification %v", v)
	}
	stored, err := ts.Commit("acme", "mono", r.str(t, "sha"))
	if err != nil || stored.PGPSignature != sig {
		t.Fatalf("stored commit has no gpgsig: %+v %v", stored, err)
	}
	pub, err := WebFlowPublicKey()
	if err != nil {
		t.Fatal(err)
	}
	keys, err := openpgp.ReadArmoredKeyRing(strings.NewReader(pub))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := openpgp.CheckArmoredDetachedSignature(keys, strings.NewReader(payload), strings.NewReader(sig), nil); err != nil {
		t.Fatalf("signature does not verify: %v", err)
	}
	if _, err := openpgp.CheckArmoredDetachedSignature(keys, strings.NewReader(payload+"x"), strings.NewReader(sig), nil); err == nil {
		t.Fatal("signature verifies a changed payload")
	}
}

func TestRecursiveTreeTruncatedAt7MB(t *testing.T) {
	ts := NewServer(t)
	seg := strings.Repeat("p", 200)
	dir := strings.Join([]string{seg, seg, seg, seg, seg}, "/")
	files := make([]File, 6500) // ~1,250 bytes of JSON each: over 7 MB, far under 100,000 entries
	for i := range files {
		files[i] = File{Path: fmt.Sprintf("%s/%s%05d", dir, seg, i), Content: []byte("x")}
	}
	if _, err := ts.Seed("acme", "big", "main", "big", files...); err != nil {
		t.Fatal(err)
	}
	r := call(t, ts, "GET", "/repos/acme/big/git/trees/main?recursive=1", nil)
	expect(t, r, 200, "")
	n := len(r.obj(t)["tree"].([]any))
	if r.obj(t)["truncated"] != true || n >= len(files) || len(r.Raw) > 7_100_000 {
		t.Fatalf("truncated=%v with %d entries, %d bytes", r.obj(t)["truncated"], n, len(r.Raw))
	}
	if call(t, ts, "GET", "/repos/acme/big/git/trees/main", nil).obj(t)["truncated"] != false {
		t.Fatal("non-recursive listing truncated")
	}
}

func TestTreeTimeout(t *testing.T) {
	entries := func(n int, content string) []any {
		out := make([]any, n)
		for i := range out {
			out[i] = map[string]any{"path": "f/" + strconv.Itoa(i), "mode": "100644", "type": "blob", "content": content}
		}
		return out
	}
	tree := func(ts *TestServer, base string, e []any) reply {
		return call(t, ts, "POST", "/repos/acme/mono/git/trees", map[string]any{"base_tree": base, "tree": e})
	}
	ts, head := seeded(t)
	r := tree(ts, head, entries(DefaultTreeTimeoutEntries+1, "x"))
	expect(t, r, 422, "")
	if r.str(t, "message") != "Sorry, your request timed out.  It's likely that your input was too large to process.  "+
		"Consider building the tree incrementally, or building the commits you need in a local clone of the repository and then pushing them to GitHub." {
		t.Fatalf("message %q", r.str(t, "message"))
	}
	big := strings.Repeat("y", 650_000)
	expect(t, tree(ts, head, entries(4, big)), 422, "Sorry, your request timed out.") // 2.6 MB
	expect(t, tree(ts, head, entries(3, big)), 201, "")                               // 1.95 MB

	small, head2 := seeded(t, WithTreeTimeout(10, 0))
	expect(t, tree(small, head2, entries(10, "x")), 201, "")
	expect(t, tree(small, head2, entries(11, "x")), 422, "Sorry, your request timed out.")
	off, head3 := seeded(t, WithTreeTimeout(0, 0))
	expect(t, tree(off, head3, entries(DefaultTreeTimeoutEntries+1, "x")), 201, "")
	expect(t, tree(off, head3, entries(5, big)), 201, "")

	// Entries that carry a SHA (or delete) count only against the cap on
	// all entries, not against the inline ones.
	bySHA := func(n int) []any { return shaEntries(t, ts, n) }
	expect(t, tree(ts, head, bySHA(DefaultTreeTimeoutEntries+1)), 201, "")
	expect(t, tree(ts, head, bySHA(DefaultTreeTimeoutAllEntries)), 201, "")
	expect(t, tree(ts, head, bySHA(DefaultTreeTimeoutAllEntries+1)), 422, "Sorry, your request timed out.")
	mixed := append(bySHA(1000), entries(DefaultTreeTimeoutEntries, "x")...)
	expect(t, tree(ts, head, mixed), 201, "")
	expect(t, tree(ts, head, append(mixed, entries(1, "z")...)), 422, "Sorry, your request timed out.")
	noCap, head4 := seeded(t, WithTreeEntryTimeout(0))
	expect(t, tree(noCap, head4, shaEntries(t, noCap, DefaultTreeTimeoutAllEntries+1)), 201, "")
}

// shaEntries is n entries that each carry one blob's SHA, on ts.
func shaEntries(t *testing.T, ts *TestServer, n int) []any {
	blob := call(t, ts, "POST", "/repos/acme/mono/git/blobs", map[string]any{"content": "x"})
	expect(t, blob, 201, "")
	out := make([]any, n)
	for i := range out {
		out[i] = map[string]any{"path": "s/" + strconv.Itoa(i), "mode": "100644", "type": "blob", "sha": blob.str(t, "sha")}
	}
	return out
}

func TestConditionalGet(t *testing.T) {
	ts, head := seeded(t)
	for _, p := range []string{"/repos/acme/mono/branches/main", "/repos/acme/mono/git/ref/heads/main", "/repos/acme/mono"} {
		r := call(t, ts, "GET", p, nil)
		etag := r.Header.Get("ETag")
		if etag == "" {
			t.Fatalf("%s: no ETag", p)
		}
		used := r.Header.Get("X-RateLimit-Used")
		r2 := call(t, ts, "GET", p, nil, "If-None-Match", etag)
		if r2.Status != http.StatusNotModified || len(r2.Raw) != 0 || r2.Header.Get("ETag") != etag {
			t.Fatalf("%s: conditional GET: %d %q etag %q", p, r2.Status, r2.Raw, r2.Header.Get("ETag"))
		}
		if got := r2.Header.Get("X-RateLimit-Used"); got != used {
			t.Fatalf("%s: a 304 counted against the primary limit: used %s then %s", p, used, got)
		}
		expect(t, call(t, ts, "GET", p, nil, "If-None-Match", `W/"other"`), 200, "")
	}
	r := call(t, ts, "GET", "/repos/acme/mono/branches/main", nil)
	if _, err := ts.Seed("acme", "mono", "main", "move", File{Path: "m", Content: []byte("m")}); err != nil {
		t.Fatal(err)
	}
	r2 := call(t, ts, "GET", "/repos/acme/mono/branches/main", nil, "If-None-Match", r.Header.Get("ETag"))
	if r2.Status != 200 || r2.str(t, "commit", "sha") == head {
		t.Fatalf("changed branch answered %d %s", r2.Status, r2.Raw)
	}
}

func TestRenamedRepoRedirects(t *testing.T) {
	ts, head := seeded(t)
	if err := ts.RenameRepo("acme", "mono", "mono2"); err != nil {
		t.Fatal(err)
	}
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	do := func(method, path string) *http.Response {
		req, _ := http.NewRequest(method, strings.TrimSuffix(ts.URL, "/")+path, strings.NewReader(`{"sha":"`+head+`"}`))
		resp, err := noFollow.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	resp := do("GET", "/repos/acme/mono/git/ref/heads/main?x=1")
	loc := resp.Header.Get("Location")
	if resp.StatusCode != 301 || !strings.HasPrefix(loc, strings.TrimSuffix(ts.URL, "/")+"/repositories/") ||
		!strings.HasSuffix(loc, "/git/ref/heads/main?x=1") {
		t.Fatalf("GET old name: %d Location %q", resp.StatusCode, loc)
	}
	r := call(t, ts, "GET", strings.TrimPrefix(loc, strings.TrimSuffix(ts.URL, "/")), nil)
	if r.Status != 200 || r.str(t, "object", "sha") != head || !strings.Contains(r.str(t, "url"), "/repos/acme/mono2/") {
		t.Fatalf("following the redirect: %d %s", r.Status, r.Raw)
	}
	if resp := do("PATCH", "/repos/acme/mono/git/refs/heads/main"); resp.StatusCode != 307 {
		t.Fatalf("PATCH old name: %d", resp.StatusCode)
	}
	// A transfer to another owner redirects too; the newest name serves.
	if err := ts.MoveRepo("acme", "mono2", "other", "mono3"); err != nil {
		t.Fatal(err)
	}
	if resp := do("GET", "/repos/acme/mono"); resp.StatusCode != 301 {
		t.Fatalf("GET first name after transfer: %d", resp.StatusCode)
	}
	expect(t, call(t, ts, "GET", "/repos/other/mono3/branches/main", nil), 200, "")
	// go-github follows the 301 of a GET.
	br, _, err := ts.Client.Repositories.GetBranch(t.Context(), "acme", "mono2", "main", 1)
	if err != nil || br.GetCommit().GetSHA() != head {
		t.Fatalf("go-github through the redirect: %v", err)
	}
	// Creating a repository under the old name takes the name back.
	if err := ts.CreateRepo("acme", "mono", true); err != nil {
		t.Fatal(err)
	}
	expect(t, call(t, ts, "GET", "/repos/acme/mono/branches/main", nil), 200, "")
	expect(t, call(t, ts, "GET", "/repositories/99999/branches/main", nil), 404, "")
}

// appServer returns a seeded server with an App installed on acme/mono and
// an installation token for it.
func appServer(t *testing.T, opts ...Option) (*TestServer, string, string) {
	t.Helper()
	ts, head := seeded(t, opts...)
	key, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	ts.RegisterApp(42, &key.PublicKey)
	ts.InstallApp(42, 777, "acme", "mono")
	r := call(t, ts, "POST", "/app/installations/777/access_tokens", nil, "Authorization", "Bearer "+signJWT(t, key, 42, time.Now()))
	expect(t, r, 201, "")
	return ts, head, r.str(t, "token")
}
