package githubtest

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
)

const opPutContents = "repos-create-or-update-file-contents"

func putBody(content, sha string) map[string]any {
	b := map[string]any{"message": "set\n\nGhcommitter-Edit-Id: 7f3a", "content": base64.StdEncoding.EncodeToString([]byte(content))}
	if sha != "" {
		b["sha"] = sha
	}
	return b
}

func blobSHA(t *testing.T, ts *TestServer, path string) string {
	t.Helper()
	r := call(t, ts, "GET", "/repos/acme/mono/contents/"+path, nil, "Authorization", "token pat")
	expect(t, r, 200, "")
	return r.str(t, "sha")
}

func TestContentsConflictAnswers(t *testing.T) {
	ts, head := seeded(t)
	sha := blobSHA(t, ts, "README.md")

	r := call(t, ts, "PUT", "/repos/acme/mono/contents/README.md", putBody("x", ""))
	expect(t, r, 422, "Invalid request.\n\n\"sha\" wasn't supplied.")
	validateReply(t, opPutContents, r.Status, r.Raw)

	wrong := strings.Repeat("1", 40)
	r = call(t, ts, "PUT", "/repos/acme/mono/contents/README.md", putBody("x", wrong))
	expect(t, r, 409, "README.md does not match "+wrong)
	validateReply(t, opPutContents, r.Status, r.Raw)

	ts.MoveBranchDuringNextContentsWrite("acme", "mono", "main", File{Path: "other", Content: []byte("o")})
	r = call(t, ts, "PUT", "/repos/acme/mono/contents/README.md", putBody("x", sha))
	moved, _ := ts.Head("acme", "mono", "main")
	expect(t, r, 409, "is at "+moved+" but expected "+head)
	validateReply(t, opPutContents, r.Status, r.Raw)
	if data, _, _ := ts.ReadFile("acme", "mono", "main", "README.md"); string(data) != "hello\n" {
		t.Fatalf("the conflicting write landed: %q", data)
	}

	ts.MoveBranchDuringNextContentsWrite("acme", "mono", "main", File{Path: "other", Content: []byte("p")})
	r = call(t, ts, "DELETE", "/repos/acme/mono/contents/dir/a.txt",
		map[string]any{"message": "rm", "sha": blobSHA(t, ts, "dir/a.txt")})
	expect(t, r, 409, "but expected "+moved)
	if _, _, err := ts.ReadFile("acme", "mono", "main", "dir/a.txt"); err != nil {
		t.Fatal("the conflicting delete landed")
	}
}

// Other files changing between the read and the write are no conflict: the
// contents API builds on the branch's current head.
func TestContentsBuildsOnCurrentHead(t *testing.T) {
	ts, _ := seeded(t)
	sha := blobSHA(t, ts, "README.md")
	if _, err := ts.Seed("acme", "mono", "main", "other writer", File{Path: "dir/a.txt", Content: []byte("changed\n")}); err != nil {
		t.Fatal(err)
	}
	r := call(t, ts, "PUT", "/repos/acme/mono/contents/README.md", putBody("mine\n", sha))
	expect(t, r, 200, "")
	validateReply(t, opPutContents, r.Status, r.Raw)
	files, _ := ts.Files("acme", "mono", "main")
	if string(files["README.md"].Content) != "mine\n" || string(files["dir/a.txt"].Content) != "changed\n" {
		t.Fatalf("files %v", files)
	}
}

func TestContentsCommitsAreVerifiedGitDataNot(t *testing.T) {
	ts, head := seeded(t, WithToken("pat"))
	auth := []string{"Authorization", "token pat"}
	r := call(t, ts, "PUT", "/repos/acme/mono/contents/new.txt", putBody("n\n", ""), auth...)
	expect(t, r, 201, "")
	c := r.obj(t)["commit"].(map[string]any)
	if c["message"] != "set\n\nGhcommitter-Edit-Id: 7f3a" {
		t.Fatalf("message %q: trailers must pass through", c["message"])
	}
	if cm := c["committer"].(map[string]any); cm["name"] != "GitHub" || cm["email"] != "noreply@github.com" {
		t.Fatalf("committer %v", cm)
	}
	if a := c["author"].(map[string]any); a["email"] != "octocat@users.noreply.github.com" {
		t.Fatalf("author %v", a)
	}
	checkWebFlowSigned(t, ts, c["sha"].(string), "token pat")

	r = call(t, ts, "DELETE", "/repos/acme/mono/contents/new.txt", map[string]any{"message": "rm", "sha": blobSHA(t, ts, "new.txt")}, auth...)
	expect(t, r, 200, "")
	checkWebFlowSigned(t, ts, r.obj(t)["commit"].(map[string]any)["sha"].(string), "token pat")

	// A named committer: GitHub cannot sign for them.
	b := putBody("c\n", "")
	b["committer"] = map[string]any{"name": "Ci", "email": "ci@example.com"}
	r = call(t, ts, "PUT", "/repos/acme/mono/contents/c.txt", b, auth...)
	expect(t, r, 201, "")
	if v := r.obj(t)["commit"].(map[string]any)["verification"].(map[string]any); v["verified"] != false {
		t.Fatalf("named committer: verification %v", v)
	}

	// Git Data with a personal token: not signed.
	base, _ := ts.Commit("acme", "mono", head)
	tree := call(t, ts, "POST", "/repos/acme/mono/git/trees", map[string]any{"base_tree": base.Tree,
		"tree": []map[string]any{{"path": "g", "mode": "100644", "type": "blob", "content": "g"}}}, auth...)
	expect(t, tree, 201, "")
	cm := call(t, ts, "POST", "/repos/acme/mono/git/commits", map[string]any{"message": "m",
		"tree": tree.str(t, "sha"), "parents": []string{head}}, auth...)
	expect(t, cm, 201, "")
	if v := cm.obj(t)["verification"].(map[string]any); v["verified"] != false || v["reason"] != "unsigned" {
		t.Fatalf("git data commit: verification %v", v)
	}
}

// Parallel contents writes to one branch conflict as on GitHub: each write
// either lands or gets 409 "is at … but expected …", and nothing landed is lost.
func TestContentsParallelWrites(t *testing.T) {
	ts, head := seeded(t)
	const n = 12
	status := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := call(t, ts, "PUT", fmt.Sprintf("/repos/acme/mono/contents/p/%d", i), putBody("x", ""))
			status[i] = r.Status
			if r.Status == http.StatusConflict && !strings.Contains(r.str(t, "message"), "but expected") {
				t.Errorf("409 %s", r.Raw)
			}
		}()
	}
	wg.Wait()
	files, _ := ts.Files("acme", "mono", "main")
	hist, _ := ts.History("acme", "mono", "main")
	landed := 0
	for i, st := range status {
		_, present := files[fmt.Sprintf("p/%d", i)]
		if (st == http.StatusCreated) != present || (st != http.StatusCreated && st != http.StatusConflict) {
			t.Fatalf("write %d: status %d, present %v", i, st, present)
		}
		if present {
			landed++
		}
	}
	if landed == 0 || len(hist) != landed+1 || hist[len(hist)-1].SHA != head {
		t.Fatalf("%d landed, history has %d commits", landed, len(hist))
	}
}
