package committer_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-github/v66/github"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

const (
	routeBranch     = "GET /repos/{owner}/{repo}/branches/{branch...}"
	routeGetTree    = "GET /repos/{owner}/{repo}/git/trees/{sha...}"
	routeCreateTree = "POST /repos/{owner}/{repo}/git/trees"
	routeCommit     = "POST /repos/{owner}/{repo}/git/commits"
	routeUpdateRef  = "PATCH /repos/{owner}/{repo}/git/refs/{ref...}"
	routeRepo       = "GET /repos/{owner}/{repo}"
	routeBlob       = "POST /repos/{owner}/{repo}/git/blobs"
	routeGetBlob    = "GET /repos/{owner}/{repo}/git/blobs/{sha}"
)

func TestRequestCounts(t *testing.T) {
	ts, c := setup(t)
	seed(t, ts, map[string]string{"deep/er/still/file.txt": "old\n", "deep/other.txt": "o\n", "top.txt": "t\n"})
	ctx := context.Background()

	// Text-only puts: 3 writes, the branch, and one GraphQL query that
	// says what is at each changed path and the directories above it (a
	// put must go neither through a file nor onto a directory); no
	// directory is read.
	ts.ResetRequests()
	if _, err := c.Commit(ctx, "main", committer.NewChangeSet("puts").Put("a/b/c.txt", []byte("1")).Put("d.txt", []byte("2"))); err != nil {
		t.Fatal(err)
	}
	// The ref moves with updateRefs, which names the repository by its
	// node ID: the path lookup's query asks for it, so no GET /repos.
	if n := len(ts.Requests()); n != 5 {
		t.Fatalf("text-only commit sent %d requests, want 5: %v", n, routes(ts))
	}
	for _, r := range []string{routeBranch, routeCreateTree, routeCommit} {
		if ts.Count(r) != 1 {
			t.Errorf("%s sent %d times, want 1", r, ts.Count(r))
		}
	}
	if ts.Count(routeRepo) != 0 {
		t.Errorf("GET /repos sent %d times, want 0 (the node ID comes with the lookup): %v", ts.Count(routeRepo), routes(ts))
	}
	if ts.Count(routeUpdateRef) != 0 || ts.Count(routeGetTree) != 0 || lookups(ts) != 1 || mutations(ts) != 1 {
		t.Errorf("want one path lookup and updateRefs through GraphQL (%d lookups), no tree read (%d), no REST PATCH (%d): %v", lookups(ts), ts.Count(routeGetTree), ts.Count(routeUpdateRef), routes(ts))
	}
	ts.ResetRequests()
	if _, err := c.Commit(ctx, "main", committer.NewChangeSet("puts").Put("a/b/c.txt", []byte("3"))); err != nil {
		t.Fatal(err)
	}
	if ts.Count(routeRepo) != 0 || lookups(ts) > 1 {
		t.Errorf("a second commit read the repository again, or sent %d lookups, want at most 1: %v", lookups(ts), routes(ts))
	}

	// A file's delete is the same: one lookup, no directory read, however
	// deep.
	ts.ResetRequests()
	if _, err := c.Commit(ctx, "main", committer.NewChangeSet("delete").Delete("deep/er/still/file.txt")); err != nil {
		t.Fatal(err)
	}
	if n, g := ts.Count(routeGetTree), lookups(ts); n != 0 || g != 1 {
		t.Fatalf("delete read %d trees and sent %d lookups, want 0 and 1: %v", n, g, routes(ts))
	}
	if n := len(ts.Requests()); n != 5 {
		t.Fatalf("delete sent %d requests, want 5: %v", n, routes(ts))
	}

	// A directory's delete lists it (one recursive read) for the report.
	ts.ResetRequests()
	if _, err := c.Commit(ctx, "main", committer.NewChangeSet("delete dir").Delete("deep")); err != nil {
		t.Fatal(err)
	}
	if n := ts.Count(routeGetTree); n != 1 {
		t.Fatalf("directory delete read %d trees, want 1: %v", n, routes(ts))
	}

	// An edit reads the blob, by its SHA; the path was written by this
	// Committer's last commit, so no lookup.
	ts.ResetRequests()
	bump := func(old []byte, _ bool) ([]byte, error) { return append(old, '+'), nil }
	if _, err := c.Commit(ctx, "main", committer.NewChangeSet("edit").Edit("d.txt", bump)); err != nil {
		t.Fatal(err)
	}
	if ts.Count(routeGetTree) != 0 || ts.Count(routeGetBlob) != 1 || lookups(ts) != 0 {
		t.Fatalf("edit of a file this Committer wrote read %d trees, %d blobs, %d lookups, want 0, 1 and 0: %v",
			ts.Count(routeGetTree), ts.Count(routeGetBlob), lookups(ts), routes(ts))
	}
	if got := readFile(t, ts, "main", "d.txt"); got != "2+" {
		t.Fatalf("d.txt = %q", got)
	}
}

func routes(ts *githubtest.TestServer) []string {
	var out []string
	for _, r := range ts.Requests() {
		out = append(out, r.Method+" "+r.Path)
	}
	return out
}

func TestBinaryBlobUploadedOnceAcrossAttempts(t *testing.T) {
	ts, c := setup(t)
	bin := bytes.Repeat([]byte{0, 1, 2, 0xff}, 4096)
	i := 0
	ts.Inject(githubtest.Fault{Route: githubtest.RouteGraphQL, BodyContains: githubtest.MutationUpdateRefs, Times: 3, Before: func(*http.Request) {
		i++
		if _, err := ts.Seed(owner, repo, "main", "other writer", githubtest.File{Path: fmt.Sprintf("other%d", i), Content: []byte("x")}); err != nil {
			t.Error(err)
		}
	}})
	res, err := c.Commit(context.Background(), "main", committer.NewChangeSet("binary").Put("img.bin", bin).Put("big.txt", bytes.Repeat([]byte("a"), 300<<10)))
	if err != nil {
		t.Fatal(err)
	}
	if res.Attempts != 4 {
		t.Fatalf("attempts = %d, want 4", res.Attempts)
	}
	if n := ts.Count(routeBlob); n != 2 {
		t.Fatalf("%d blob uploads over %d attempts, want 2 (each blob once)", n, res.Attempts)
	}
	got, _, err := ts.ReadFile(owner, repo, "main", "img.bin")
	if err != nil || !bytes.Equal(got, bin) {
		t.Fatalf("img.bin differs: %v", err)
	}
}

func TestPutLocalFileStreams(t *testing.T) {
	ts, c := setup(t)
	dir := t.TempDir()
	data := bytes.Repeat([]byte("0123456789abcdef\x00"), 1<<16)
	p := filepath.Join(dir, "blob.bin")
	must(t, os.WriteFile(p, data, 0o755))
	if _, err := c.Commit(context.Background(), "main", committer.NewChangeSet("local").PutLocalFile("bin/tool", p, committer.ModeExecutable)); err != nil {
		t.Fatal(err)
	}
	got, mode, err := ts.ReadFile(owner, repo, "main", "bin/tool")
	if err != nil || !bytes.Equal(got, data) || mode != "100755" {
		t.Fatalf("bin/tool: mode %s, %d bytes, err %v", mode, len(got), err)
	}
}

func TestModesSymlinksAndDirectoryDelete(t *testing.T) {
	ts, c := setup(t)
	seed(t, ts, map[string]string{"old/a": "a", "old/sub/b": "b", "keep/c": "c"})
	cs := committer.NewChangeSet("modes").
		PutMode("bin/run", []byte("#!/bin/sh\necho hi\n"), committer.ModeExecutable).
		Symlink("current", "bin/run").
		Delete("old")
	res, err := c.Commit(context.Background(), "main", cs)
	if err != nil {
		t.Fatal(err)
	}
	files, err := ts.Files(owner, repo, "main")
	if err != nil {
		t.Fatal(err)
	}
	if files["bin/run"].Mode != "100755" || files["current"].Mode != "120000" || string(files["current"].Content) != "bin/run" {
		t.Fatalf("files = %+v", files)
	}
	for p := range files {
		if len(p) >= 4 && p[:4] == "old/" {
			t.Errorf("%s survived the directory delete", p)
		}
	}
	if _, ok := files["keep/c"]; !ok {
		t.Error("keep/c lost")
	}
	// A deleted directory lists every file it held.
	if fmt.Sprint(res.Changed) != "[bin/run current old/a old/sub/b]" {
		t.Errorf("changed = %v", res.Changed)
	}
	// An edit keeps the file's mode.
	if _, err := c.Commit(context.Background(), "main", committer.NewChangeSet("edit").Edit("bin/run", func(old []byte, _ bool) ([]byte, error) {
		return append(old, "echo bye\n"...), nil
	})); err != nil {
		t.Fatal(err)
	}
	if _, mode, _ := ts.ReadFile(owner, repo, "main", "bin/run"); mode != "100755" {
		t.Fatalf("edit changed the mode to %s", mode)
	}
}

func TestEditErrorCommitsNothing(t *testing.T) {
	ts, c := setup(t)
	before := head(t, ts, "main")
	boom := errors.New("boom")
	_, err := c.Commit(context.Background(), "main", committer.NewChangeSet("m").Put("a", []byte("a")).Edit("b", func([]byte, bool) ([]byte, error) { return nil, boom }))
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	var ce *committer.Error
	if !errors.As(err, &ce) || ce.Path != "b" {
		t.Fatalf("error does not name the path: %v", err)
	}
	if head(t, ts, "main") != before || writes(ts) != 0 {
		t.Fatal("something was written")
	}
}

func TestCreateBranch(t *testing.T) {
	ts, c := setup(t)
	base := head(t, ts, "main")
	ctx := context.Background()
	_, err := c.Commit(ctx, "feature", committer.NewChangeSet("m").Put("f", []byte("f")))
	if !errors.Is(err, committer.ErrNotFound) {
		t.Fatalf("missing branch without CreateBranchFrom: err = %v", err)
	}
	// Several writers create the same branch at once: one creates it, the
	// others build on it.
	const n = 6
	var wg sync.WaitGroup
	errs := make([]error, n)
	created := make([]bool, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := c.Commit(ctx, "feature", committer.NewChangeSet("m").Put(fmt.Sprintf("f%d", i), []byte("f")), committer.CreateBranchFrom("main"))
			errs[i] = err
			if err == nil {
				created[i] = res.CreatedBranch
			}
		}()
	}
	wg.Wait()
	nCreated := 0
	for i := range n {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if created[i] {
			nCreated++
		}
	}
	if nCreated != 1 {
		t.Fatalf("%d writers report creating the branch, want 1", nCreated)
	}
	files, _ := ts.Files(owner, repo, "feature")
	for i := range n {
		if _, ok := files[fmt.Sprintf("f%d", i)]; !ok {
			t.Errorf("f%d missing", i)
		}
	}
	if head(t, ts, "main") != base {
		t.Error("main moved")
	}
	// From a SHA.
	if _, err := c.Commit(ctx, "from-sha", committer.NewChangeSet("m").Put("g", []byte("g")), committer.CreateBranchFrom(base)); err != nil {
		t.Fatal(err)
	}
	// From a missing base.
	if _, err := c.Commit(ctx, "x", committer.NewChangeSet("m").Put("g", []byte("g")), committer.CreateBranchFrom("nope")); !errors.Is(err, committer.ErrNotFound) {
		t.Fatalf("missing base: err = %v", err)
	}
}

func TestExpectHead(t *testing.T) {
	ts, c := setup(t)
	h := head(t, ts, "main")
	if _, err := c.Commit(context.Background(), "main", committer.NewChangeSet("m").Put("a", []byte("a")), committer.ExpectHead(h)); err != nil {
		t.Fatal(err)
	}
	_, err := c.Commit(context.Background(), "main", committer.NewChangeSet("m").Put("b", []byte("b")), committer.ExpectHead(h))
	if !errors.Is(err, committer.ErrConflict) {
		t.Fatalf("stale expected head: err = %v", err)
	}
}

func TestSync(t *testing.T) {
	ts, c := setup(t)
	seed(t, ts, map[string]string{"site/keep.txt": "same\n", "site/change.txt": "old\n", "site/gone.txt": "x\n", "site/deep/gone2.txt": "y", "other.txt": "o"})
	dir := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(dir, "new"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "keep.txt"), []byte("same\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "change.txt"), []byte("new\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "new", "add.bin"), []byte{0, 1, 2}, 0o644))
	files, err := committer.LoadDir(dir, committer.LoadOptions{})
	must(t, err)
	plan, err := c.Plan(context.Background(), "main", committer.NewChangeSet("sync").Sync("site", files))
	must(t, err)
	want := map[string]committer.Action{"site/keep.txt": committer.Unchanged, "site/change.txt": committer.Modified,
		"site/new/add.bin": committer.Added, "site/gone.txt": committer.Deleted, "site/deep/gone2.txt": committer.Deleted}
	got := map[string]committer.Action{}
	for _, f := range plan.Files {
		got[f.Path] = f.Action
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("plan = %v, want %v", got, want)
	}
	ts.ResetRequests()
	if _, err := c.Commit(context.Background(), "main", committer.NewChangeSet("sync").Sync("site", files)); err != nil {
		t.Fatal(err)
	}
	if n := ts.Count(routeBlob); n != 1 {
		t.Errorf("%d blobs uploaded, want 1 (only the binary that differs)", n)
	}
	after, _ := ts.Files(owner, repo, "main")
	var paths []string
	for p := range after {
		paths = append(paths, p)
	}
	for _, p := range []string{"site/keep.txt", "site/change.txt", "site/new/add.bin", "other.txt"} {
		if _, ok := after[p]; !ok {
			t.Errorf("%s missing after sync (have %v)", p, paths)
		}
	}
	for _, p := range []string{"site/gone.txt", "site/deep/gone2.txt"} {
		if _, ok := after[p]; ok {
			t.Errorf("%s still there after sync", p)
		}
	}
}

func TestPlanSendsNoWrites(t *testing.T) {
	ts, c := setup(t)
	seed(t, ts, map[string]string{"a": "a", "b": "b"})
	ts.ResetRequests()
	plan, err := c.Plan(context.Background(), "main", committer.NewChangeSet("m").Put("a", []byte("a")).Put("b", []byte("B")).Put("c", []byte("c")).Delete("a2").Edit("b2", func([]byte, bool) ([]byte, error) { return []byte("x"), nil }))
	must(t, err)
	if writes(ts) != 0 {
		t.Fatalf("plan sent %d writes", writes(ts))
	}
	got := fmt.Sprint(plan.Files)
	if got != "[{a unchanged} {b modified} {c added} {a2 unchanged} {b2 added}]" {
		t.Fatalf("plan = %s", got)
	}
}

func TestErrorsClassified(t *testing.T) {
	ts, c := setupREST(t)
	cases := []struct {
		status int
		body   string
		kind   error
	}{
		{401, `{"message":"Bad credentials","documentation_url":"https://docs.github.com/rest","status":"401"}`, committer.ErrUnauthorized},
		{403, `{"message":"Resource not accessible by integration","documentation_url":"https://docs.github.com/rest","status":"403"}`, committer.ErrPermission},
		{404, `{"message":"Not Found","documentation_url":"https://docs.github.com/rest","status":"404"}`, committer.ErrNotFound},
	}
	for _, tc := range cases {
		remove := ts.Inject(githubtest.Fault{Route: routeBranch, Status: tc.status, Body: tc.body})
		_, err := c.Commit(context.Background(), "main", committer.NewChangeSet("m").Put("a", []byte("a")))
		remove()
		if !errors.Is(err, tc.kind) {
			t.Errorf("%d: err = %v, want %v", tc.status, err, tc.kind)
		}
		var ce *committer.Error
		if !errors.As(err, &ce) || ce.Hint == "" {
			t.Errorf("%d: no hint in %v", tc.status, err)
		}
	}
	remove := ts.Inject(githubtest.Fault{Route: routeUpdateRef, Status: 422, Body: `{"message":"Repository rule violations found\n\nChanges must be made through a pull request.\n\n","documentation_url":"https://docs.github.com/rest/git/refs#update-a-reference","status":"422"}`})
	defer remove()
	before := head(t, ts, "main")
	_, err := c.Commit(context.Background(), "main", committer.NewChangeSet("m").Put("a", []byte("a")))
	if !errors.Is(err, committer.ErrProtected) {
		t.Fatalf("protected: err = %v", err)
	}
	if ts.Count(routeUpdateRef) != 1 {
		t.Errorf("protected branch update tried %d times, want 1", ts.Count(routeUpdateRef))
	}
	if head(t, ts, "main") != before {
		t.Fatal("branch moved")
	}
}

// Real GitHub answers 404 "Branch not found" for any branch of an empty
// repository; the committer must still bootstrap it.
func TestEmptyRepositoryAnswering404(t *testing.T) {
	ts := githubtest.NewServer(t)
	must(t, ts.CreateRepo(owner, "empty", false))
	ts.Inject(githubtest.Fault{Route: routeBranch, Times: 1, Status: 404,
		Body: `{"message":"Branch not found","documentation_url":"https://docs.github.com/rest/branches/branches#get-a-branch","status":"404"}`})
	c, err := newWith(ts.Client, owner, "empty", committer.WithBackoffSleep(noSleep))
	must(t, err)
	if _, err := c.Commit(context.Background(), "main", committer.NewChangeSet("first").Put("a.txt", []byte("a"))); err != nil {
		t.Fatal(err)
	}
	if got, _, err := ts.ReadFile(owner, "empty", "main", "a.txt"); err != nil || string(got) != "a" {
		t.Fatalf("a.txt = %q, %v", got, err)
	}
}

func TestCreateBranchWithNothingToCommit(t *testing.T) {
	ts, c := setup(t)
	seed(t, ts, map[string]string{"a": "a"})
	base := head(t, ts, "main")
	res, err := c.Commit(context.Background(), "copy", committer.NewChangeSet("m").Put("a", []byte("a")), committer.CreateBranchFrom("main"))
	must(t, err)
	if !res.NoOp || !res.CreatedBranch || head(t, ts, "copy") != base {
		t.Fatalf("result %+v; branch at %s, want %s (no empty commit)", res, head(t, ts, "copy"), base)
	}
}

func TestSignerNeedsAuthorBeforeAnyRequest(t *testing.T) {
	ts, c := setup(t, committer.WithSigner(github.MessageSignerFunc(func(io.Writer, io.Reader) error { return nil })))
	ts.ResetRequests()
	_, err := c.Commit(context.Background(), "main", committer.NewChangeSet("m").Put("a", []byte("a")))
	if !errors.Is(err, committer.ErrInvalid) || len(ts.Requests()) != 0 {
		t.Fatalf("err = %v, %d requests", err, len(ts.Requests()))
	}
}

// Writers that run the same edit on the same head with the same message in
// the same second would create one identical commit; the second ref update
// would then "succeed" without moving the branch and lose an increment.
func TestIdenticalConcurrentEditsAllLand(t *testing.T) {
	ts, c := setup(t, committer.WithRetries(100, nil))
	seed(t, ts, map[string]string{"d/counter.txt": "0\n"})
	const n = 8
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := c.Commit(context.Background(), "main", committer.NewChangeSet("increment").Edit("d/counter.txt", incr))
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		must(t, err)
	}
	if got := readFile(t, ts, "main", "d/counter.txt"); got != fmt.Sprintf("%d\n", n) {
		t.Fatalf("counter = %q, want %d: identical commits swallowed increments", got, n)
	}
	hist, _ := ts.History(owner, repo, "main")
	if !strings.Contains(hist[0].Message, committer.EditIDTrailer+": ") {
		t.Errorf("message %q has no %s trailer", hist[0].Message, committer.EditIDTrailer)
	}
}

func TestEditIDTrailerPlacement(t *testing.T) {
	ts, c := setup(t)
	cs := committer.NewChangeSet("Bump\n\nBody.\n\nSigned-off-by: A <a@example.com>\n").Edit("x", incr)
	must2(t, c, cs)
	cs = committer.NewChangeSet("Puts only").Put("y", []byte("y"))
	must2(t, c, cs)
	hist, _ := ts.History(owner, repo, "main")
	if m := hist[1].Message; !strings.HasPrefix(m, "Bump\n\nBody.\n\nSigned-off-by: A <a@example.com>\n"+committer.EditIDTrailer+": ") {
		t.Errorf("trailer not in the trailer block: %q", m)
	}
	if m := hist[0].Message; m != "Puts only" {
		t.Errorf("a change set without edits got %q", m)
	}
	cs = committer.NewChangeSet("No id").Edit("x", incr)
	cs.OmitEditID = true
	must2(t, c, cs)
	hist, _ = ts.History(owner, repo, "main")
	if hist[0].Message != "No id" {
		t.Errorf("OmitEditID: message %q", hist[0].Message)
	}
}

func must2(t *testing.T, c *committer.Committer, cs *committer.ChangeSet) {
	t.Helper()
	if _, err := c.Commit(context.Background(), "main", cs); err != nil {
		t.Fatal(err)
	}
}
