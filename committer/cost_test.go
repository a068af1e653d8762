package committer_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

// Cost at github.com's scale: writes grow with the bytes a change sends,
// reads with the paths it touches, neither with the repository.

const (
	routeTrees   = "POST /repos/{owner}/{repo}/git/trees"
	routeBlobs   = "POST /repos/{owner}/{repo}/git/blobs"
	routeCommits = "POST /repos/{owner}/{repo}/git/commits"
)

// textFiles is n text files of size bytes each, under no directory.
func textFiles(n, size int) []committer.LocalFile {
	files := make([]committer.LocalFile, n)
	for i := range files {
		line := fmt.Sprintf("file %06d ", i)
		data := bytes.Repeat([]byte(line), size/len(line)+1)[:size]
		data[size-1] = '\n'
		files[i] = committer.LocalFile{Path: fmt.Sprintf("d%02d/f%06d.txt", i%50, i), Mode: committer.ModeFile, Data: data, Size: int64(size)}
	}
	return files
}

// syncCost syncs n files of size bytes into site/ of a repository that has
// other files, against the fake's default create-tree timeout, and checks
// that every file landed byte for byte. It returns the writes by route.
func syncCost(t *testing.T, n, size int) (trees, blobs, writes int) {
	t.Helper()
	ts, c := setup(t)
	seed(t, ts, map[string]string{"README.md": "hi\n", "site/old.txt": "old\n", "other/keep.txt": "keep\n"})
	files := textFiles(n, size)
	ts.ResetRequests()
	res, err := c.Commit(context.Background(), "main", committer.NewChangeSet("mirror").Sync("site", files))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Changed) != n+1 {
		t.Errorf("%d paths changed, want %d", len(res.Changed), n+1)
	}
	got, err := ts.Files(owner, repo, "main")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != n+2 {
		t.Errorf("%d files on the branch, want %d", len(got), n+2)
	}
	for _, f := range files {
		if g := got["site/"+f.Path]; !bytes.Equal(g.Content, f.Data) {
			t.Fatalf("site/%s: %d bytes on the branch, want its %d", f.Path, len(g.Content), len(f.Data))
		}
	}
	if _, ok := got["site/old.txt"]; ok {
		t.Error("site/old.txt survived the sync")
	}
	return ts.Count(routeTrees), ts.Count(routeBlobs), ts.CountWrites()
}

// A 5,000-file 10 MB mirror goes inline, 200 entries per create-tree
// request (each under the fake's 250 inline entries and 2.5 MB; the
// deletion of site/old.txt rides in the last): 25 trees, a commit and the
// ref update, no blob.
func TestSyncCost5000Files(t *testing.T) {
	trees, blobs, writes := syncCost(t, 5000, 2048)
	t.Logf("5,000 files of 2 KiB: %d trees, %d blobs, %d writes", trees, blobs, writes)
	if trees != 25 || blobs != 0 || writes != 27 {
		t.Errorf("%d trees, %d blobs, %d writes; want 25, 0 and 27", trees, blobs, writes)
	}
}

// 20,000 files of 2 KiB: 100 chunks of 200.
func TestSyncCost20000Files(t *testing.T) {
	if testing.Short() {
		t.Skip("40 MB through the fake; run without -short")
	}
	trees, blobs, writes := syncCost(t, 20000, 2048)
	t.Logf("20,000 files of 2 KiB: %d trees, %d blobs, %d writes", trees, blobs, writes)
	if trees != 100 || blobs != 0 || writes != 102 {
		t.Errorf("%d trees, %d blobs, %d writes; want 100, 0 and 102", trees, blobs, writes)
	}
}

// Inline content is bounded per request, not per change set: 30 text files
// of 200 KB (6 MB) go inline in chunks of at most 1 MB (5 files each), each
// on the last; a binary file is a blob.
func TestTreeChunksByBytes(t *testing.T) {
	// A fake that times out above 1 MB of inline content: a chunk one file
	// bigger would fail.
	ts := githubtest.NewServer(t, githubtest.WithTreeTimeout(250, 1_000_000))
	if err := ts.CreateRepo(owner, repo, true); err != nil {
		t.Fatal(err)
	}
	c, err := newWith(ts.Client, owner, repo, committer.WithSleep(noSleep))
	if err != nil {
		t.Fatal(err)
	}
	cs := committer.NewChangeSet("big text")
	for _, f := range textFiles(30, 200_000) {
		cs.Put("t/"+f.Path, f.Data)
	}
	bin := append([]byte{0, 1, 2}, bytes.Repeat([]byte{0xff}, 1000)...)
	cs.Put("bin/x.bin", bin)
	ts.ResetRequests()
	if _, err := c.Commit(context.Background(), "main", cs); err != nil {
		t.Fatal(err)
	}
	if trees, blobs := ts.Count(routeTrees), ts.Count(routeBlobs); trees != 6 || blobs != 1 {
		t.Errorf("%d trees and %d blobs, want 6 (of 5 files each, the blob's entry in one) and 1", trees, blobs)
	}
	got, err := ts.Files(owner, repo, "main")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got["bin/x.bin"].Content, bin) || len(got) != 32 {
		t.Errorf("%d files; bin/x.bin %d bytes", len(got), len(got["bin/x.bin"].Content))
	}
}
