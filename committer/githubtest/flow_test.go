package githubtest

import (
	"context"
	"errors"
	"io/fs"
	"net/http"
	"testing"

	"github.com/google/go-github/v66/github"
)

func TestCommitLoopWithGoGitHub(t *testing.T) {
	ts, head := seeded(t)
	ctx := context.Background()
	gh := ts.Client

	br, _, err := gh.Repositories.GetBranch(ctx, "acme", "mono", "main", 0)
	if err != nil {
		t.Fatal(err)
	}
	if br.GetCommit().GetSHA() != head {
		t.Fatalf("branch head %s, want %s", br.GetCommit().GetSHA(), head)
	}
	baseTree := br.GetCommit().GetCommit().GetTree().GetSHA()
	if baseTree == "" {
		t.Fatal("no commit.commit.tree.sha")
	}
	blob, _, err := gh.Git.CreateBlob(ctx, "acme", "mono", &github.Blob{
		Content: github.String("AAEC"), Encoding: github.String("base64")})
	if err != nil {
		t.Fatal(err)
	}
	tree, _, err := gh.Git.CreateTree(ctx, "acme", "mono", baseTree, []*github.TreeEntry{
		{Path: github.String("new/deep/file.bin"), Mode: github.String("100644"), Type: github.String("blob"), SHA: blob.SHA},
		{Path: github.String("dir/a.txt"), Mode: github.String("100644"), Type: github.String("blob"), Content: github.String("A\n")},
		{Path: github.String("dir/sub"), Mode: github.String("040000"), Type: github.String("tree")}, // SHA nil: delete
	})
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := gh.Git.CreateCommit(ctx, "acme", "mono", &github.Commit{
		Message: github.String("change"), Tree: &github.Tree{SHA: tree.SHA},
		Parents: []*github.Commit{{SHA: github.String(head)}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.GetVerification().GetReason() != "unsigned" {
		t.Fatalf("verification %+v", c.GetVerification())
	}
	ref, _, err := gh.Git.UpdateRef(ctx, "acme", "mono", &github.Reference{
		Ref: github.String("refs/heads/main"), Object: &github.GitObject{SHA: c.SHA}}, false)
	if err != nil {
		t.Fatal(err)
	}
	if ref.GetObject().GetSHA() != c.GetSHA() {
		t.Fatalf("ref %s", ref.GetObject().GetSHA())
	}
	got, mode, err := ts.ReadFile("acme", "mono", "main", "new/deep/file.bin")
	if err != nil || string(got) != "\x00\x01\x02" || mode != "100644" {
		t.Fatalf("ReadFile = %q %q %v", got, mode, err)
	}
	if _, _, err := ts.ReadFile("acme", "mono", "main", "dir/sub/b.txt"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("deleted dir still there: %v", err)
	}
	files, _ := ts.Files("acme", "mono", "main")
	if string(files["dir/a.txt"].Content) != "A\n" || files["bin/run"].Mode != "100755" || files["link"].Mode != "120000" {
		t.Fatalf("files %+v", files)
	}
	hist, _ := ts.History("acme", "mono", "main")
	if len(hist) != 2 || hist[0].SHA != c.GetSHA() || hist[1].SHA != head {
		t.Fatalf("history %+v", hist)
	}
	ups := ts.RefUpdates("acme", "mono")
	if last := ups[len(ups)-1]; !last.FastForward || last.Forced || last.Old != head {
		t.Fatalf("ref update %+v", last)
	}
	if n := ts.Count("PATCH /repos/{owner}/{repo}/git/refs/{ref...}"); n != 1 {
		t.Fatalf("Count PATCH = %d", n)
	}
	if n := ts.CountMethod(http.MethodPost); n != 3 {
		t.Fatalf("CountMethod POST = %d", n)
	}
	// Read back with GET tree recursive, by branch name.
	tr, _, err := gh.Git.GetTree(ctx, "acme", "mono", "main", true)
	if err != nil {
		t.Fatal(err)
	}
	paths := map[string]string{}
	for _, e := range tr.Entries {
		paths[e.GetPath()] = e.GetType()
	}
	if paths["new/deep"] != "tree" || paths["new/deep/file.bin"] != "blob" || paths["dir/sub"] != "" {
		t.Fatalf("tree paths %v", paths)
	}
}

func TestContentsBootstrapOnEmptyRepo(t *testing.T) {
	ts := NewServer(t)
	ctx := context.Background()
	if err := ts.CreateRepo("acme", "empty", false); err != nil {
		t.Fatal(err)
	}
	_, resp, err := ts.Client.Git.CreateBlob(ctx, "acme", "empty", &github.Blob{Content: github.String("x")})
	if err == nil || resp.StatusCode != http.StatusConflict {
		t.Fatalf("blob on empty repo: %v", err)
	}
	res, resp, err := ts.Client.Repositories.CreateFile(ctx, "acme", "empty", "a/b.txt",
		&github.RepositoryContentFileOptions{Message: github.String("init"), Content: []byte("hi")})
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("bootstrap: %v", err)
	}
	if len(res.Parents) != 0 {
		t.Fatalf("root commit has parents %v", res.Parents)
	}
	if h, ok := ts.Head("acme", "empty", "main"); !ok || h != res.GetSHA() {
		t.Fatalf("head %s %v", h, ok)
	}
	// Update needs sha.
	_, resp, err = ts.Client.Repositories.CreateFile(ctx, "acme", "empty", "a/b.txt",
		&github.RepositoryContentFileOptions{Message: github.String("again"), Content: []byte("ho")})
	if err == nil || resp.StatusCode != 422 {
		t.Fatalf("update without sha: %v", err)
	}
	fc, _, _, err := ts.Client.Repositories.GetContents(ctx, "acme", "empty", "a/b.txt", nil)
	if err != nil {
		t.Fatal(err)
	}
	if s, _ := fc.GetContent(); s != "hi" {
		t.Fatalf("content %q", s)
	}
	_, resp, err = ts.Client.Repositories.CreateFile(ctx, "acme", "empty", "a/b.txt",
		&github.RepositoryContentFileOptions{Message: github.String("again"), Content: []byte("ho"), SHA: github.String(head40)})
	if err == nil || resp.StatusCode != 409 {
		t.Fatalf("update with wrong sha: %v", err)
	}
	upd, resp, err := ts.Client.Repositories.CreateFile(ctx, "acme", "empty", "a/b.txt",
		&github.RepositoryContentFileOptions{Message: github.String("again"), Content: []byte("ho"), SHA: fc.SHA})
	if err != nil || resp.StatusCode != 200 || len(upd.Parents) != 1 {
		t.Fatalf("update: %v", err)
	}
	_, dir, _, err := ts.Client.Repositories.GetContents(ctx, "acme", "empty", "a", nil)
	if err != nil || len(dir) != 1 || dir[0].GetType() != "file" {
		t.Fatalf("dir listing %v %v", dir, err)
	}
	del, _, err := ts.Client.Repositories.DeleteFile(ctx, "acme", "empty", "a/b.txt",
		&github.RepositoryContentFileOptions{Message: github.String("rm"), SHA: github.String(
			mustBlobSHA(t, ts, "acme", "empty", "a/b.txt"))})
	if err != nil || del.Commit.GetSHA() == "" {
		t.Fatalf("delete: %v", err)
	}
}

const head40 = "0123456789012345678901234567890123456789"

func mustBlobSHA(t *testing.T, ts *TestServer, owner, repo, path string) string {
	t.Helper()
	fc, _, _, err := ts.Client.Repositories.GetContents(context.Background(), owner, repo, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	return fc.GetSHA()
}
