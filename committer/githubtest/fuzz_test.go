package githubtest_test

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/internal/gitmodel"

	"github.com/google/go-github/v66/github"

	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

// emptyTreeSHA is git's empty tree: git never stores one as a subdirectory.
const emptyTreeSHA = gitmodel.EmptyTree

type fzFile struct {
	content []byte
	mode    string
}

// fzTreeSHA computes the root tree SHA of files with go-git's object encoding
// (committer/internal/gitmodel), independently of the library and the fake.
func fzTreeSHA(t testing.TB, files map[string]fzFile) string {
	t.Helper()
	model := make(map[string]gitmodel.File, len(files))
	for p, f := range files {
		model[p] = gitmodel.File{Content: f.content, Mode: f.mode}
	}
	sha, err := gitmodel.TreeSHA(model)
	if err != nil {
		t.Fatal(err)
	}
	return sha
}

// fzEmptySubtrees lists the directories of tree sha that are empty trees.
func fzEmptySubtrees(t testing.TB, ts *githubtest.TestServer, sha string) []string {
	t.Helper()
	tr, _, err := ts.Client.Git.GetTree(context.Background(), "acme", "mono", sha, true)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range tr.Entries {
		if e.GetType() == "tree" && e.GetSHA() == emptyTreeSHA {
			out = append(out, e.GetPath())
		}
	}
	return out
}

// TestCreateTreeDeletePrunesEmptyDirectories: git has no empty directories;
// a delete that empties a directory removes it, and its parents that become
// empty too.
func TestCreateTreeDeletePrunesEmptyDirectories(t *testing.T) {
	ts := githubtest.NewServer(t)
	files := map[string]fzFile{"keep.txt": {[]byte("k\n"), "100644"}, "a/b/c/f.txt": {[]byte("f\n"), "100644"}}
	start, err := ts.Seed("acme", "mono", "main", "seed",
		githubtest.File{Path: "keep.txt", Content: []byte("k\n")}, githubtest.File{Path: "a/b/c/f.txt", Content: []byte("f\n")})
	if err != nil {
		t.Fatal(err)
	}
	base, _ := ts.Commit("acme", "mono", start)
	if base.Tree != fzTreeSHA(t, files) {
		t.Fatalf("seeded tree %s != go-git's", base.Tree)
	}
	for _, del := range []string{"a/b/c/f.txt", "a/b/c", "a/b", "a"} {
		t.Run(strings.ReplaceAll(del, "/", "_"), func(t *testing.T) {
			got := fzCreateTreeRaw(t, ts, base.Tree, []map[string]any{{"path": del, "mode": "040000", "type": "tree", "sha": nil}})
			want := fzTreeSHA(t, map[string]fzFile{"keep.txt": files["keep.txt"]})
			if got != want {
				if empty := fzEmptySubtrees(t, ts, got); len(empty) > 0 {
					t.Fatalf("empty trees left at %v", empty)
				}
				t.Fatalf("deleting %s: tree %s, want %s (keep.txt alone)", del, got, want)
			}
		})
	}
}

// fzCreateTreeRaw posts a create-tree request with entries as given (so
// "sha": null survives) and returns the new tree's SHA, or "" and the
// status for an error reply.
func fzCreateTreeRaw(t testing.TB, ts *githubtest.TestServer, base string, entries []map[string]any) string {
	t.Helper()
	sha, status := fzCreateTreeStatus(t, ts, base, entries)
	if status != http.StatusCreated {
		t.Fatalf("create tree: status %d", status)
	}
	return sha
}

func fzCreateTreeStatus(t testing.TB, ts *githubtest.TestServer, base string, entries []map[string]any) (string, int) {
	t.Helper()
	body := map[string]any{"base_tree": base, "tree": entries}
	req, err := ts.Client.NewRequest(http.MethodPost, "repos/acme/mono/git/trees", body)
	if err != nil {
		t.Fatal(err)
	}
	var out github.Tree
	resp, err := ts.Client.Do(context.Background(), req, &out)
	var er *github.ErrorResponse
	switch {
	case err == nil:
		return out.GetSHA(), resp.StatusCode
	case errors.As(err, &er) && er.Response != nil:
		return "", er.Response.StatusCode
	}
	t.Fatal(err)
	return "", 0
}

// fzBase is the base tree of FuzzCreateTree: directories d*, files f*.
var fzBase = map[string]fzFile{
	"f0":          {[]byte("root\n"), "100644"},
	"f1":          {[]byte("f0"), "120000"},
	"d0/f0":       {[]byte("d0 f0\n"), "100644"},
	"d0/f1":       {[]byte{0, 1, 0xff}, "100755"},
	"d0/d1/f2":    {[]byte("x"), "100644"},
	"d1/f3":       {[]byte("d1 f3\n"), "100644"},
	"d2/d0/d1/f0": {[]byte("deep\n"), "100644"},
}

// FuzzCreateTree compares the fake's POST git/trees (base_tree with inline
// content, blob SHAs, and "sha": null deletes of files and directories)
// with go-git's encoding of the same files.
func FuzzCreateTree(f *testing.F) {
	for _, s := range [][]byte{
		{0},
		{3, 0, 1, 0, 2, 'h', 'i', 1, 2, 1, 2, 3, 4, 5, 2, 0, 0, 0},
		{2, 2, 1, 0, 1, 3, 2, 0, 2, 0},
		{4, 1, 0, 0, 0, 0, 7, 1, 1, 2, 0, 1, 0xff, 0, 2, 2, 1, 2, 1, 2},
	} {
		f.Add(s)
	}
	ts := githubtest.NewServer(f, githubtest.WithNow(fuzzClock()))
	var files []githubtest.File
	for _, p := range slices.Sorted(maps.Keys(fzBase)) {
		files = append(files, githubtest.File{Path: p, Content: fzBase[p].content, Mode: fzBase[p].mode})
	}
	start, err := ts.Seed("acme", "mono", "main", "base", files...)
	if err != nil {
		f.Fatal(err)
	}
	c, _ := ts.Commit("acme", "mono", start)
	baseTree := c.Tree
	if want := fzTreeSHA(f, fzBase); baseTree != want {
		f.Fatalf("seeded tree %s != go-git's %s", baseTree, want)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		i := 0
		next := func() byte {
			i++
			if i > len(data) {
				return 0
			}
			return data[i-1]
		}
		path := func(file bool) string {
			var segs []string
			for range int(next() % 3) {
				segs = append(segs, fmt.Sprintf("d%d", next()%3))
			}
			if b := next(); file || b%2 == 0 {
				segs = append(segs, fmt.Sprintf("f%d", b/2%4))
			} else {
				segs = append(segs, fmt.Sprintf("d%d", b/2%3))
			}
			return strings.Join(segs, "/")
		}
		want := maps.Clone(fzBase)
		var entries []map[string]any
		var paths []string
		deleteMissing := false
		for n := 1 + int(next()%5); n > 0; n-- {
			k := next() % 4
			p := path(k != 3)
			paths = append(paths, p)
			mode := []string{"100644", "100755", "120000"}[next()%3]
			content := []byte(fmt.Sprintf("c%x", next()))
			switch k {
			case 0: // inline content
				entries = append(entries, map[string]any{"path": p, "mode": mode, "type": "blob", "content": string(content)})
				want[p] = fzFile{content, mode}
			case 1, 2: // a blob created first (binary for k == 2)
				if k == 2 {
					content = append([]byte{0xff, 0}, content...)
				}
				blob := &github.Blob{Content: github.String(string(content)), Encoding: github.String("utf-8")}
				if k == 2 {
					blob = &github.Blob{Content: github.String(base64.StdEncoding.EncodeToString(content)), Encoding: github.String("base64")}
				}
				b, _, err := ts.Client.Git.CreateBlob(context.Background(), "acme", "mono", blob)
				if err != nil {
					t.Fatal(err)
				}
				entries = append(entries, map[string]any{"path": p, "mode": mode, "type": "blob", "sha": b.GetSHA()})
				want[p] = fzFile{content, mode}
			case 3: // delete a file or a directory
				entries = append(entries, map[string]any{"path": p, "mode": "100644", "type": "blob", "sha": nil})
				found := false
				for q := range want {
					if q == p || strings.HasPrefix(q, p+"/") {
						delete(want, q)
						found = true
					}
				}
				if !found {
					deleteMissing = true
				}
			}
		}
		// Two entries on one path, or one under another, are left undefined.
		for a, pa := range paths {
			for b, pb := range paths {
				if a != b && (pa == pb || strings.HasPrefix(pb, pa+"/")) {
					return
				}
			}
		}
		got, status := fzCreateTreeStatus(t, ts, baseTree, entries)
		if deleteMissing {
			if status != http.StatusUnprocessableEntity {
				t.Fatalf("deleting a missing path: status %d, want 422 (entries %v)", status, entries)
			}
			return
		}
		if status != http.StatusCreated {
			t.Fatalf("status %d for entries %v", status, entries)
		}
		if w := fzTreeSHA(t, want); got != w {
			if empty := fzEmptySubtrees(t, ts, got); len(empty) > 0 {
				t.Fatalf("empty trees left at %v", empty)
			}
			t.Fatalf("tree %s, go-git says %s; entries %v", got, w, entries)
		}
	})
}

// fuzzClock runs a second ahead on every reading, so that the fake's hourly
// rate limit resets long before a fuzzing worker's requests exhaust it.
func fuzzClock() func() time.Time {
	var n atomic.Int64
	start := time.Now()
	return func() time.Time { return start.Add(time.Duration(n.Add(1)) * time.Second) }
}
