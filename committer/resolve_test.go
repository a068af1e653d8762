package committer_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-github/v66/github"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

// treeRecorder records the entries of every create-tree request.
type treeRecorder struct {
	base http.RoundTripper
	mu   sync.Mutex
	reqs [][]string // entry paths of each request
}

func (tr *treeRecorder) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/git/trees") && r.Body != nil {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, err
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		var req struct {
			Tree []struct {
				Path string `json:"path"`
			} `json:"tree"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			return nil, err
		}
		var paths []string
		for _, e := range req.Tree {
			paths = append(paths, e.Path)
		}
		tr.mu.Lock()
		tr.reqs = append(tr.reqs, paths)
		tr.mu.Unlock()
	}
	return tr.base.RoundTrip(r)
}

// overlapping returns two entries of one request where one is at or under
// the other: the shape whose result GitHub does not document.
func (tr *treeRecorder) overlapping() string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	for _, paths := range tr.reqs {
		for i, a := range paths {
			for _, b := range paths[i+1:] {
				if overlaps(a, b) {
					return fmt.Sprintf("%q and %q in %v", a, b, paths)
				}
			}
		}
	}
	return ""
}

// setupRecorded is setup with a Committer whose create-tree requests are
// recorded.
func setupRecorded(t *testing.T) (*githubtest.TestServer, *committer.Committer, *treeRecorder) {
	t.Helper()
	ts, _ := setup(t)
	tr := &treeRecorder{base: ts.Client.Client().Transport}
	if tr.base == nil {
		tr.base = http.DefaultTransport
	}
	gh := github.NewClient(&http.Client{Transport: tr})
	gh.BaseURL, gh.UploadURL = ts.Client.BaseURL, ts.Client.UploadURL
	return ts, committerOn(t, gh, repo), tr
}

func files(t *testing.T, ts *githubtest.TestServer) string {
	t.Helper()
	fs, err := ts.Files(owner, repo, "main")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for p, f := range fs {
		out = append(out, p+"="+string(f.Content))
	}
	return fmt.Sprint(sorted(out))
}

// Issue 11.1: a sync where the remote has a file d/a and the local side a
// directory a/.
func TestSyncFileBecomesDirectory(t *testing.T) {
	ts, c, tr := setupRecorded(t)
	seed(t, ts, map[string]string{"d/a": "file", "d/keep": "k"})
	local := []committer.LocalFile{{Path: "a/b", Mode: committer.ModeFile, Data: []byte("b")}, {Path: "keep", Mode: committer.ModeFile, Data: []byte("k")}}
	res, err := c.Commit(context.Background(), "main", committer.NewChangeSet("sync").Sync("d", local))
	if err != nil {
		t.Fatal(err)
	}
	if got := files(t, ts); got != "[README.md=# mono\n d/a/b=b d/keep=k]" {
		t.Fatalf("files = %s", got)
	}
	if fmt.Sprint(res.Changed) != "[d/a d/a/b]" {
		t.Errorf("changed = %v, want d/a (deleted) and d/a/b (added)", res.Changed)
	}
	if o := tr.overlapping(); o != "" {
		t.Errorf("overlapping tree entries: %s", o)
	}
}

// Issue 11.2: the other way, a remote directory d/a/ and a local file a.
func TestSyncDirectoryBecomesFile(t *testing.T) {
	ts, c, tr := setupRecorded(t)
	seed(t, ts, map[string]string{"d/a/x": "x", "d/a/y/z": "z", "d/keep": "k"})
	local := []committer.LocalFile{{Path: "a", Mode: committer.ModeFile, Data: []byte("now a file")}, {Path: "keep", Mode: committer.ModeFile, Data: []byte("k")}}
	plan, err := c.Plan(context.Background(), "main", committer.NewChangeSet("sync").Sync("d", local))
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(plan.Files); got != "[{d/a added} {d/a/x deleted} {d/a/y/z deleted} {d/keep unchanged}]" {
		t.Errorf("plan = %s", got)
	}
	if _, err := c.Commit(context.Background(), "main", committer.NewChangeSet("sync").Sync("d", local)); err != nil {
		t.Fatal(err)
	}
	if got := files(t, ts); got != "[README.md=# mono\n d/a=now a file d/keep=k]" {
		t.Fatalf("files = %s", got)
	}
	// The mirror has converged: a second sync does nothing.
	res, err := c.Commit(context.Background(), "main", committer.NewChangeSet("sync").Sync("d", local))
	if err != nil || !res.NoOp {
		t.Fatalf("second sync = %+v, %v", res, err)
	}
	if o := tr.overlapping(); o != "" {
		t.Errorf("overlapping tree entries: %s", o)
	}
}

// Issue 11.3: a put through a file or onto a directory is refused, naming
// the path and how to replace it; nothing is committed, and a dry run says
// the same.
func TestPutThroughFileOrOntoDirectoryRefused(t *testing.T) {
	ts, c := setup(t)
	seed(t, ts, map[string]string{"t/a": "file", "t/d/x": "x", "t/l": "target"})
	if _, err := c.Commit(context.Background(), "main", committer.NewChangeSet("link").Symlink("t/s", "d")); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ put, blocker string }{
		{"t/a/b", "t/a"},
		{"t/a/b/c", "t/a"},
		{"t/d", "t/d"},
		{"t/s/y", "t/s"}, // a symlink is a file to git, even one to a directory
	}
	for _, tc := range cases {
		h := head(t, ts, "main")
		cs := committer.NewChangeSet("put").Put(tc.put, []byte("new")).Put("other", []byte("o"))
		_, err := c.Commit(context.Background(), "main", cs)
		if !errors.Is(err, committer.ErrConflict) {
			t.Fatalf("put %s: err = %v, want ErrConflict", tc.put, err)
		}
		msg := err.Error()
		var ce *committer.Error
		if !errors.As(err, &ce) || !strings.Contains(msg, fmt.Sprintf("%q", tc.put)) || !strings.Contains(ce.Hint, fmt.Sprintf("Delete(%q)", tc.blocker)) {
			t.Errorf("put %s: message %q should name the path and its hint (%q) say Delete(%q) and Put", tc.put, msg, ce.Hint, tc.blocker)
		}
		if head(t, ts, "main") != h {
			t.Fatalf("put %s: the branch moved", tc.put)
		}
		if _, err := c.Plan(context.Background(), "main", cs); !errors.Is(err, committer.ErrConflict) {
			t.Errorf("plan of put %s: err = %v, want ErrConflict", tc.put, err)
		}
	}
	if got := files(t, ts); got != "[README.md=# mono\n t/a=file t/d/x=x t/l=target t/s=d]" {
		t.Fatalf("files = %s", got)
	}
}

// Issue 11.3: the explicit forms, Delete and Put in one change set, replace
// the path whatever order they are given in; the plan lists every deleted
// file.
func TestDeleteAndPutReplace(t *testing.T) {
	for _, reversed := range []bool{false, true} {
		t.Run(fmt.Sprintf("reversed=%v", reversed), func(t *testing.T) {
			ts, c, tr := setupRecorded(t)
			seed(t, ts, map[string]string{"t/a": "file", "t/d/x": "x", "t/d/e/y": "y", "t/e/old": "old", "t/e/same": "same"})
			ops := []func(*committer.ChangeSet){
				func(cs *committer.ChangeSet) { cs.Delete("t/a") },
				func(cs *committer.ChangeSet) { cs.Put("t/a/b", []byte("b")) },
				func(cs *committer.ChangeSet) { cs.Delete("t/d") },
				func(cs *committer.ChangeSet) { cs.Put("t/d", []byte("d")) },
				func(cs *committer.ChangeSet) { cs.Delete("t/e") },
				func(cs *committer.ChangeSet) { cs.Put("t/e/same", []byte("same")) },
				func(cs *committer.ChangeSet) { cs.Put("t/e/new/z", []byte("z")) },
			}
			cs := committer.NewChangeSet("replace")
			for i := range ops {
				if reversed {
					i = len(ops) - 1 - i
				}
				ops[i](cs)
			}
			plan, err := c.Plan(context.Background(), "main", cs)
			if err != nil {
				t.Fatal(err)
			}
			want := "[{t/a deleted} {t/a/b added} {t/d added} {t/d/e/y deleted} {t/d/x deleted} {t/e/new/z added} {t/e/old deleted} {t/e/same unchanged}]"
			if got := fmt.Sprint(byPath(plan.Files)); got != want {
				t.Errorf("plan = %s\nwant   %s", got, want)
			}
			res, err := c.Commit(context.Background(), "main", cs)
			if err != nil {
				t.Fatal(err)
			}
			if got := files(t, ts); got != "[README.md=# mono\n t/a/b=b t/d=d t/e/new/z=z t/e/same=same]" {
				t.Fatalf("files = %s", got)
			}
			if got := fmt.Sprint(sorted(res.Changed)); got != "[t/a t/a/b t/d t/d/e/y t/d/x t/e/new/z t/e/old]" {
				t.Errorf("changed = %s", got)
			}
			if o := tr.overlapping(); o != "" {
				t.Errorf("overlapping tree entries: %s", o)
			}
		})
	}
}

// Replacing a file with a directory costs one more tree request (the new
// directory, built first); replacing a directory with a file costs none.
func TestReplaceRequestCounts(t *testing.T) {
	ts, c := setup(t)
	seed(t, ts, map[string]string{"f": "file", "d/x": "x"})
	ts.ResetRequests()
	if _, err := c.Commit(context.Background(), "main", committer.NewChangeSet("m").Delete("d").Put("d", []byte("d"))); err != nil {
		t.Fatal(err)
	}
	if n := ts.Count(routeCreateTree); n != 1 {
		t.Errorf("directory to file: %d tree requests, want 1", n)
	}
	ts.ResetRequests()
	if _, err := c.Commit(context.Background(), "main", committer.NewChangeSet("m").Delete("f").Put("f/a", []byte("a")).Put("f/b/c", []byte("c"))); err != nil {
		t.Fatal(err)
	}
	if n := ts.Count(routeCreateTree); n != 2 {
		t.Errorf("file to directory: %d tree requests, want 2", n)
	}
	if got := files(t, ts); got != "[README.md=# mono\n d=d f/a=a f/b/c=c]" {
		t.Fatalf("files = %s", got)
	}
}

// addSubmodule commits a submodule entry (mode 160000) at p through the API.
func addSubmodule(t *testing.T, ts *githubtest.TestServer, p string) {
	t.Helper()
	ctx := context.Background()
	gh := ts.Client
	h := head(t, ts, "main")
	base, _, err := gh.Git.GetCommit(ctx, owner, repo, h)
	if err != nil {
		t.Fatal(err)
	}
	const sub = "1234567890123456789012345678901234567890"
	tree, _, err := gh.Git.CreateTree(ctx, owner, repo, base.GetTree().GetSHA(), []*github.TreeEntry{{Path: github.String(p), Mode: github.String("160000"), Type: github.String("commit"), SHA: github.String(sub)}})
	if err != nil {
		t.Fatal(err)
	}
	cm, _, err := gh.Git.CreateCommit(ctx, owner, repo, &github.Commit{Message: github.String("submodule"), Tree: tree, Parents: []*github.Commit{{SHA: github.String(h)}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := gh.Git.UpdateRef(ctx, owner, repo, &github.Reference{Ref: github.String("refs/heads/main"), Object: &github.GitObject{SHA: cm.SHA}}, false); err != nil {
		t.Fatal(err)
	}
}

// Issue 11.4: sync keeps submodule entries, and leaves out local files of
// a submodule's checkout.
func TestSyncKeepsSubmodules(t *testing.T) {
	ts, c := setup(t)
	seed(t, ts, map[string]string{"vendor/lib.go": "old", "vendor/gone.go": "gone"})
	addSubmodule(t, ts, "vendor/sub")
	local := []committer.LocalFile{
		{Path: "lib.go", Mode: committer.ModeFile, Data: []byte("new")},
		{Path: "sub/README", Mode: committer.ModeFile, Data: []byte("the submodule's own file")},
	}
	cs := committer.NewChangeSet("sync").Sync("vendor", local)
	plan, err := c.Plan(context.Background(), "main", cs)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(plan.Files); got != "[{vendor/gone.go deleted} {vendor/lib.go modified}]" {
		t.Errorf("plan = %s", got)
	}
	if _, err := c.Commit(context.Background(), "main", cs); err != nil {
		t.Fatal(err)
	}
	tree, _, err := ts.Client.Git.GetTree(context.Background(), owner, repo, "main", true)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range tree.Entries {
		if e.GetType() != "tree" {
			got = append(got, e.GetPath()+":"+e.GetMode())
		}
	}
	if fmt.Sprint(got) != "[README.md:100644 vendor/lib.go:100644 vendor/sub:160000]" {
		t.Fatalf("tree = %v", got)
	}
	// A local file where the submodule's parent directory is would delete
	// the submodule: refused.
	_, err = c.Commit(context.Background(), "main", committer.NewChangeSet("sync").Sync(".", []committer.LocalFile{{Path: "README.md", Mode: committer.ModeFile, Data: []byte("# mono\n")}, {Path: "vendor", Mode: committer.ModeFile, Data: []byte("x")}}))
	if !errors.Is(err, committer.ErrConflict) || !strings.Contains(err.Error(), "vendor/sub") {
		t.Fatalf("err = %v, want an ErrConflict naming vendor/sub", err)
	}
}

// Issue 11.15: Changed never lists a path whose content did not change.
func TestChangedIsExact(t *testing.T) {
	ts, c := setup(t)
	seed(t, ts, map[string]string{"a": "a", "b/c": "c"})
	res, err := c.Commit(context.Background(), "main", committer.NewChangeSet("same").Put("a", []byte("a")).Put("b/c", []byte("c")))
	if err != nil || !res.NoOp || len(res.Changed) != 0 {
		t.Fatalf("same content: %+v, %v; want a no-op with nothing changed", res, err)
	}
	res, err = c.Commit(context.Background(), "main", committer.NewChangeSet("one").Put("a", []byte("a")).Put("b/c", []byte("C")).Delete("nope"))
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(res.Changed) != "[b/c]" {
		t.Fatalf("changed = %v, want [b/c]", res.Changed)
	}
	if fmt.Sprint(res.Files) != "[{b/c modified}]" {
		t.Errorf("files = %v", res.Files)
	}
	// A mode change alone is a change.
	res, err = c.Commit(context.Background(), "main", committer.NewChangeSet("mode").PutMode("a", []byte("a"), committer.ModeExecutable))
	if err != nil || fmt.Sprint(res.Changed) != "[a]" {
		t.Fatalf("mode change: %+v, %v", res, err)
	}
}

// A Committer works out the listing of every directory its tree request
// writes, so the next commit on its own head reads no directory again,
// whatever the shapes (nested puts, deletes, a file becoming a directory,
// a directory becoming a file, a directory emptied away).
func TestPredictedTreesNeedNoReads(t *testing.T) {
	ts, c := setup(t)
	seed(t, ts, map[string]string{"f": "file", "d/x": "x", "e/only": "o", "g/h/i": "i", "g/j": "j"})
	ctx := context.Background()
	cs := committer.NewChangeSet("shapes").
		Delete("f").Put("f/a/b", []byte("b")).Put("f/c", []byte{0, 1}).
		Delete("d").Put("d", []byte("d")).
		Delete("e/only").
		Put("g/h/new", []byte("n")).PutMode("g/j", []byte("j"), committer.ModeExecutable).Symlink("g/l", "j")
	if _, err := c.Commit(ctx, "main", cs); err != nil {
		t.Fatal(err)
	}
	ts.ResetRequests()
	next := committer.NewChangeSet("next").Put("f/a/b2", []byte("2")).Put("g/h/i", []byte("I")).Put("d2", []byte("x")).Put("f/c/z", []byte("z"))
	_, err := c.Plan(ctx, "main", next)
	if !errors.Is(err, committer.ErrConflict) { // f/c is a file
		t.Fatalf("plan: %v", err)
	}
	next = committer.NewChangeSet("next").Put("f/a/b2", []byte("2")).Put("g/h/i", []byte("I")).Put("d2", []byte("x"))
	plan, err := c.Plan(ctx, "main", next)
	if err != nil {
		t.Fatal(err)
	}
	if n := ts.Count(routeGetTree); n != 0 {
		t.Fatalf("the next plan read %d trees, want 0: %v", n, routes(ts))
	}
	if got := fmt.Sprint(plan.Files); got != "[{f/a/b2 added} {g/h/i modified} {d2 added}]" {
		t.Errorf("plan = %s", got)
	}
}

// Deleting a directory too big for GitHub to list in one request (over
// 100,000 entries) reports the directory itself rather than walking it
// level by level for a report.
func TestDeleteHugeDirectoryReportsItsPath(t *testing.T) {
	if testing.Short() {
		t.Skip("seeds 100,001 files")
	}
	ts, c := setup(t)
	files := make([]githubtest.File, 100_001)
	for i := range files {
		files[i] = githubtest.File{Path: fmt.Sprintf("big/d%03d/f%06d", i%300, i), Content: []byte("x")}
	}
	if _, err := ts.Seed(owner, repo, "main", "big", append(files, githubtest.File{Path: "keep", Content: []byte("k")})...); err != nil {
		t.Fatal(err)
	}
	ts.ResetRequests()
	res, err := c.Commit(context.Background(), "main", committer.NewChangeSet("rm").Delete("big"))
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(res.Changed) != "[big]" {
		t.Errorf("changed = %.200v", res.Changed)
	}
	if n := ts.Count(routeGetTree); n > 3 {
		t.Errorf("%d tree reads, want at most 3 (root, the recursive listing)", n)
	}
	if got := files2(t, ts); got != "[README.md keep]" {
		t.Errorf("files = %s", got)
	}
}

func files2(t *testing.T, ts *githubtest.TestServer) string {
	t.Helper()
	fs, err := ts.Files(owner, repo, "main")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for p := range fs {
		out = append(out, p)
	}
	return fmt.Sprint(sorted(out))
}

// A file replaced by a directory of more entries than GitHub takes in one
// tree request: the new directory is built in chunks.
func TestReplaceWithBigDirectory(t *testing.T) {
	ts, c := setup(t)
	seed(t, ts, map[string]string{"f": "file"})
	cs := committer.NewChangeSet("big").Delete("f")
	for i := range 6000 {
		cs.Put(fmt.Sprintf("f/%04d", i), []byte{byte(i), 0}) // binary: sent by SHA
	}
	if _, err := c.Commit(context.Background(), "main", cs); err != nil {
		t.Fatal(err)
	}
	fs, err := ts.Files(owner, repo, "main")
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 6001 {
		t.Fatalf("%d files, want 6001", len(fs))
	}
}

// byPath sorts a plan's files by path, for plans whose order follows
// operations given in varying order.
func byPath(fs []committer.FileChange) []committer.FileChange {
	out := slices.Clone(fs)
	slices.SortFunc(out, func(a, b committer.FileChange) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// Plan lists paths in the order of the operations they come from, then by
// path within one operation.
func TestPlanOrder(t *testing.T) {
	ts, c := setup(t)
	seed(t, ts, map[string]string{"z": "z", "d/b": "b", "d/a": "a", "s/x": "x"})
	cs := committer.NewChangeSet("m").Put("z", []byte("Z")).Delete("d").Put("a", []byte("a")).
		Sync("s", []committer.LocalFile{{Path: "y", Mode: committer.ModeFile, Data: []byte("y")}})
	plan, err := c.Plan(context.Background(), "main", cs)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(plan.Files); got != "[{z modified} {d/a deleted} {d/b deleted} {a added} {s/x deleted} {s/y added}]" {
		t.Errorf("plan = %s", got)
	}
}
