package committer_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

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
	c, err := newWith(ts.Client, owner, repo, committer.WithBackoffSleep(noSleep))
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

// shapedRepo seeds acme/mono with 20 directories of 100 directories of
// files per leaf files each.
func shapedRepo(tb testing.TB, ts *githubtest.TestServer, perLeaf int) {
	tb.Helper()
	files := make([]githubtest.File, 0, 20*100*perLeaf)
	for a := range 20 {
		for b := range 100 {
			for f := range perLeaf {
				files = append(files, githubtest.File{Path: shapedPath(a, b, f), Content: []byte(fmt.Sprintf("file %d %d %d\n", a, b, f))})
			}
		}
	}
	if _, err := ts.Seed(owner, repo, "main", "big", files...); err != nil {
		tb.Fatal(err)
	}
	ts.Pass(time.Minute) // seeded a minute ago (see seed)
}

func shapedPath(a, b, f int) string { return fmt.Sprintf("a%02d/b%03d/f%03d.txt", a, b, f) }

// A 3-file commit in a repository of 200,000 files (20 x 100 directories of
// 100 files) reads the head and, in one GraphQL query, what is at the three
// paths and the directories above them, with the edited file's content:
// 5 requests, under 32 KiB, however
// wide the directories. The next commit of the same paths needs no lookup.
func TestCost3FilesIn200k(t *testing.T) {
	perLeaf := 100
	if testing.Short() {
		perLeaf = 10 // 20,000 files: the request count is the same
	}
	ts, c := setup(t)
	shapedRepo(t, ts, perLeaf)
	ts.ResetRequests()
	cs := committer.NewChangeSet("touch 3")
	cs.Put(shapedPath(3, 14, 1), []byte("new content\n")) // modified
	cs.Put("a07/b099/new.txt", []byte("added\n"))         // added in an existing directory
	cs.Edit(shapedPath(19, 0, 2), func(old []byte, _ bool) ([]byte, error) {
		return append(old, "edited\n"...), nil
	})
	res, err := c.Commit(context.Background(), "main", cs)
	if err != nil {
		t.Fatal(err)
	}
	reqs, b := wire(ts, 0)
	t.Logf("3-file commit in %d files: %d requests, %d bytes", 20*100*perLeaf, reqs, b)
	// The edit's old content comes with the lookup (Blob.text), as does
	// the repository's node ID for updateRefs: no GET git/blobs.
	if reqs != 5 || lookups(ts) != 1 || ts.Count(routeGetTree) != 0 || ts.Count(routeGetBlob) != 0 {
		t.Errorf("%d requests (%d lookups, %d tree reads), want 5: head, lookup with the edited file's text, tree, commit, ref", reqs, lookups(ts), ts.Count(routeGetTree))
	}
	if b >= 32<<10 {
		t.Errorf("%d bytes, want under 32 KiB", b)
	}
	if len(res.Changed) != 3 || readFile(t, ts, "main", shapedPath(19, 0, 2)) != "file 19 0 2\nedited\n" {
		t.Errorf("changed %v", res.Changed)
	}

	// Puts only: 5 requests. The same paths again: 4 (the Committer knows
	// what it wrote).
	for i, want := range []int{5, 4} {
		ts.ResetRequests()
		cs := committer.NewChangeSet("three puts")
		for j := range 3 {
			cs.Put(shapedPath(j*5+i, 50+j, 3), []byte(fmt.Sprintf("round %d\n", i)))
		}
		if i == 1 {
			cs = committer.NewChangeSet("the same paths")
			for j := range 3 {
				cs.Put(shapedPath(j*5, 50+j, 3), []byte("again\n"))
			}
		}
		if _, err := c.Commit(context.Background(), "main", cs); err != nil {
			t.Fatal(err)
		}
		reqs, b := wire(ts, 0)
		t.Logf("round %d: %d requests, %d bytes", i, reqs, b)
		if reqs != want || b >= 32<<10 {
			t.Errorf("round %d: %d requests and %d bytes, want %d and under 32 KiB", i, reqs, b, want)
		}
	}
}

// A put or an edit under a directory of 20,000 entries costs what it costs
// under a directory of 10: the lookup names the path, not the directory.
func TestCostWideDirectory(t *testing.T) {
	cost := func(width int) (int, int64) {
		ts, c := setup(t)
		files := make([]githubtest.File, width)
		for i := range files {
			files[i] = githubtest.File{Path: fmt.Sprintf("dir/w/f%05d.txt", i), Content: []byte("x\n")}
		}
		if _, err := ts.Seed(owner, repo, "main", "wide", files...); err != nil {
			t.Fatal(err)
		}
		ts.ResetRequests()
		cs := committer.NewChangeSet("put and edit").Put("dir/w/new.txt", []byte("new\n")).
			Edit("dir/w/f00003.txt", func(old []byte, _ bool) ([]byte, error) { return append(old, 'y'), nil })
		if _, err := c.Commit(context.Background(), "main", cs); err != nil {
			t.Fatal(err)
		}
		return wire(ts, 0)
	}
	nr, nb := cost(10)
	wr, wb := cost(20000)
	t.Logf("under 10 entries: %d requests, %d bytes; under 20,000: %d requests, %d bytes", nr, nb, wr, wb)
	if wr != nr || wb > nb+64 {
		t.Errorf("under 20,000 entries %d requests and %d bytes, under 10 %d and %d: want no more", wr, wb, nr, nb)
	}
}

// The refusals of a put through a file or onto a directory, and the no-op
// of a put that changes nothing, hold with the GraphQL lookup and with the
// REST fallback (no GraphQL endpoint: one failed query, then directories).
func TestLookupRefusalsBothWays(t *testing.T) {
	for _, gql := range []bool{true, false} {
		t.Run(fmt.Sprintf("graphql=%v", gql), func(t *testing.T) {
			ts, c := setup(t)
			if !gql {
				ts.Inject(githubtest.Fault{Route: "POST /graphql", Status: http.StatusNotFound})
			}
			seed(t, ts, map[string]string{"f.txt": "file\n", "d/x.txt": "x\n", "d/e/y.txt": "y\n"})
			before := head(t, ts, "main")
			treeReads := 0
			for _, cs := range []*committer.ChangeSet{
				committer.NewChangeSet("through a file").Put("f.txt/under.txt", []byte("u\n")),
				committer.NewChangeSet("onto a directory").Put("d/e", []byte("u\n")),
				committer.NewChangeSet("deep through a file").Put("d/x.txt/a/b.txt", []byte("u\n")),
				committer.NewChangeSet("edit a directory").Edit("d", func(old []byte, _ bool) ([]byte, error) { return old, nil }),
			} {
				ts.ResetRequests()
				_, err := c.Commit(context.Background(), "main", cs)
				if !errors.Is(err, committer.ErrConflict) && !errors.Is(err, committer.ErrInvalid) {
					t.Errorf("%q: %v, want a conflict or invalid", cs.Message, err)
				}
				if n := ts.CountWrites(); n != 0 {
					t.Errorf("%q: %d writes before the refusal", cs.Message, n)
				}
				treeReads += ts.Count(routeGetTree)
			}
			ts.ResetRequests()
			res, err := c.Commit(context.Background(), "main", committer.NewChangeSet("same").Put("d/e/y.txt", []byte("y\n")).Delete("d/none"))
			if err != nil || !res.NoOp || ts.CountWrites() != 0 || head(t, ts, "main") != before {
				t.Errorf("no-op: %+v, %v, %d writes", res, err, ts.CountWrites())
			}
			treeReads += ts.Count(routeGetTree)
			if gql && treeReads != 0 {
				t.Errorf("%d tree reads with GraphQL lookups", treeReads)
			}
			if !gql && (treeReads == 0 || ts.Count("POST /graphql") != 0) {
				t.Errorf("without GraphQL: %d tree reads, %d more GraphQL queries after the 404", treeReads, ts.Count("POST /graphql"))
			}
			_, err = c.Commit(context.Background(), "main", committer.NewChangeSet("replace").Delete("d/e").Put("d/e", []byte("now a file\n")))
			if err != nil || readFile(t, ts, "main", "d/e") != "now a file\n" {
				t.Fatalf("replace a directory by a file: %v", err)
			}
		})
	}
}

// What a Committer learns from the trees it creates is exact: a directory
// it created whole answers every path under it (a put through its file or
// onto it is refused, a new path is absent) without a request, and a tree
// another writer made is looked up again.
func TestLearntTreesExact(t *testing.T) {
	ts, c := setup(t)
	ctx := context.Background()
	if _, err := c.Commit(ctx, "main", committer.NewChangeSet("new dir").Put("n/a.txt", []byte("a\n")).Put("n/s/b.txt", []byte("b\n"))); err != nil {
		t.Fatal(err)
	}
	for _, cs := range []*committer.ChangeSet{
		committer.NewChangeSet("through").Put("n/a.txt/x", []byte("x\n")),
		committer.NewChangeSet("onto").Put("n/s", []byte("x\n")),
		committer.NewChangeSet("deeper").Put("n/a.txt/y/z", []byte("x\n")),
	} {
		ts.ResetRequests()
		if _, err := c.Commit(ctx, "main", cs); !errors.Is(err, committer.ErrConflict) {
			t.Errorf("%q: %v, want ErrConflict", cs.Message, err)
		}
		if n, g := ts.CountWrites(), lookups(ts); n != 0 || g != 0 {
			t.Errorf("%q: %d writes and %d lookups", cs.Message, n, g)
		}
	}
	ts.ResetRequests()
	res, err := c.Commit(ctx, "main", committer.NewChangeSet("more").Put("n/s/c.txt", []byte("c\n")).Put("n/a.txt", []byte("a\n")))
	if err != nil || lookups(ts) != 0 || ts.Count(routeGetTree) != 0 || len(res.Changed) != 1 {
		t.Fatalf("put into a learnt directory: %v, %d lookups, %d tree reads, changed %v", err, lookups(ts), ts.Count(routeGetTree), res.Changed)
	}
	// Another writer adds a file there: the new head's tree is not the one
	// the Committer created, so it looks the paths up again.
	seed(t, ts, map[string]string{"n/s/theirs.txt": "t\n"})
	ts.ResetRequests()
	if _, err := c.Commit(ctx, "main", committer.NewChangeSet("onto theirs").Put("n/s/theirs.txt/x", []byte("x\n"))); !errors.Is(err, committer.ErrConflict) {
		t.Errorf("put through another writer's file: %v, want ErrConflict", err)
	}
	if lookups(ts) != 1 {
		t.Errorf("%d lookups on another writer's tree, want 1", lookups(ts))
	}
	res, err = c.Commit(ctx, "main", committer.NewChangeSet("drop").Delete("n/s"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"n/s/b.txt": true, "n/s/c.txt": true, "n/s/theirs.txt": true}
	if len(res.Changed) != 3 || !want[res.Changed[0]] || !want[res.Changed[1]] || !want[res.Changed[2]] {
		t.Errorf("deleting n/s reported %v", res.Changed)
	}
}

// A sync into a directory that exists reads its recursive listing once and
// nothing else: the listing answers every put under it.
func TestSyncReadsOnlyTheListing(t *testing.T) {
	ts, c := setup(t)
	var old []githubtest.File
	for _, f := range textFiles(2000, 64) {
		old = append(old, githubtest.File{Path: "site/" + f.Path, Content: f.Data})
	}
	if _, err := ts.Seed(owner, repo, "main", "site", old...); err != nil {
		t.Fatal(err)
	}
	files := textFiles(2000, 64)
	for i := range files {
		if i%10 == 0 {
			files[i].Data = []byte(fmt.Sprintf("changed %d\n", i))
			files[i].Size = int64(len(files[i].Data))
		}
	}
	files = append(files, committer.LocalFile{Path: "d07/new/deep.txt", Mode: committer.ModeFile, Data: []byte("new\n"), Size: 4})
	ts.ResetRequests()
	res, err := c.Commit(context.Background(), "main", committer.NewChangeSet("sync").Sync("site", files))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Changed) != 201 {
		t.Errorf("%d paths changed, want 201", len(res.Changed))
	}
	if n, g := ts.Count(routeGetTree), lookups(ts); n != 1 || g != 1 {
		t.Errorf("sync into 2,000 files in 50 directories: %d tree reads and %d lookups, want 1 and 1: %v", n, g, routes(ts))
	}
}

// A Queue's batch, squashed or chained, builds its tree through the same
// chunking: 450 inline files are 3 create-tree requests of at most 200.
func TestQueueTreeChunks(t *testing.T) {
	for _, squash := range []bool{false, true} {
		t.Run(fmt.Sprintf("squash=%v", squash), func(t *testing.T) {
			ts, c := setup(t)
			var opts []committer.CommitOption
			if squash {
				opts = append(opts, committer.Squash())
			}
			q, err := committer.NewQueue(c, "main", opts...)
			if err != nil {
				t.Fatal(err)
			}
			cs := committer.NewChangeSet("many")
			for _, f := range textFiles(450, 100) {
				cs.Put(f.Path, f.Data)
			}
			ts.ResetRequests()
			if _, err := q.Commit(context.Background(), cs); err != nil {
				t.Fatal(err)
			}
			if n := ts.Count(routeTrees); n != 3 {
				t.Errorf("%d tree requests, want 3", n)
			}
			got, err := ts.Files(owner, repo, "main")
			if err != nil || len(got) != 451 {
				t.Fatalf("%d files, %v", len(got), err)
			}
		})
	}
}
