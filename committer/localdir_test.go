package committer_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

// mkTree builds a local tree: "path" -> content, "path@" -> symlink target,
// "path*" -> executable, "path/" -> empty directory.
func mkTree(t *testing.T, root string, spec map[string]string) {
	t.Helper()
	for k, v := range spec {
		p := filepath.Join(root, strings.TrimRight(k, "@*/"))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		var err error
		switch {
		case strings.HasSuffix(k, "@"):
			err = os.Symlink(v, p)
		case strings.HasSuffix(k, "*"):
			err = os.WriteFile(p, []byte(v), 0o755)
		case strings.HasSuffix(k, "/"):
			err = os.MkdirAll(p, 0o755)
		default:
			err = os.WriteFile(p, []byte(v), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

func loadedPaths(files []committer.LocalFile) string {
	var out []string
	for _, f := range files {
		out = append(out, f.Path+":"+string(f.Mode))
	}
	return strings.Join(out, " ")
}

func TestLoadDirSkipsNestedGitInAnyCase(t *testing.T) {
	root := t.TempDir()
	mkTree(t, root, map[string]string{
		"a.txt":            "a",
		".git/config":      "[core]",
		"sub/.git":         "gitdir: ../.git/modules/sub", // a submodule checkout
		"sub/x":            "x",
		"wt/.GIT/HEAD":     "ref: refs/heads/main",
		"wt/y":             "y",
		"deep/er/.Git":     "gitdir: elsewhere",
		"deep/er/z":        "z",
		".gitignore":       "*.o",
		"keep/.git-thing":  "not a .git entry",
		"keep/.gitmodules": "[submodule]",
	})
	files, err := committer.LoadDir(root, committer.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := ".gitignore:100644 a.txt:100644 deep/er/z:100644 keep/.git-thing:100644 keep/.gitmodules:100644 sub/x:100644 wt/y:100644"
	if got := loadedPaths(files); got != want {
		t.Fatalf("loaded %s\nwant   %s", got, want)
	}
}

func TestLoadDirSymlinks(t *testing.T) {
	cases := []struct {
		name   string
		spec   map[string]string
		noMode bool
		want   string // loaded paths, or "error: fragment"
	}{
		{"in-tree link kept", map[string]string{"f": "f", "l@": "f"}, false, "f:100644 l:120000"},
		{"dangling in-tree link kept", map[string]string{"f": "f", "l@": "missing/file"}, false, "f:100644 l:120000"},
		{"dir link kept", map[string]string{"d/f": "f", "l@": "d"}, false, "d/f:100644 l:120000"},
		{"absolute", map[string]string{"l@": "/etc/passwd"}, false, "error: outside"},
		{"dotdot", map[string]string{"d/l@": "../../secret"}, false, "error: outside"},
		// The lexical check passes "b/../secret" (it reads "secret"), but
		// b is the tree's root on disk, so b/.. is its parent.
		{"through a link to the root", map[string]string{"b@": ".", "x@": "b/../secret", "secret": "s"}, false, "error: outside"},
		{"through a skipped .git", map[string]string{".git/up@": "/", "leak@": ".git/up/etc/passwd"}, true, "error: .git"},
		{"through a skipped .git, default mode", map[string]string{".git/up@": "/", "leak@": ".git/up/etc/passwd"}, false, "error: .git"},
		{"into a .git file", map[string]string{"s/.git": "gitdir: x", "l@": "s/.git"}, false, "error: .git"},
		{"loop", map[string]string{"a@": "b", "b@": "a"}, false, "error: too many levels"},
		{"followed with no mode", map[string]string{"f*": "f", "l@": "f"}, true, "f:100644 l:100644"},
		{"dangling with no mode", map[string]string{"l@": "missing"}, true, "error: following symlink"},
		{"dir link with no mode", map[string]string{"d/f": "f", "l@": "d"}, true, "error: directory"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "tree")
			mkTree(t, root, tc.spec)
			files, err := committer.LoadDir(root, committer.LoadOptions{NoFileMode: tc.noMode})
			if frag, ok := strings.CutPrefix(tc.want, "error: "); ok {
				if err == nil || !strings.Contains(err.Error(), frag) {
					t.Fatalf("err = %v, want one containing %q (loaded %s)", err, frag, loadedPaths(files))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := loadedPaths(files); got != tc.want {
				t.Fatalf("loaded %s, want %s", got, tc.want)
			}
		})
	}
}

func TestLoadDirNoFileModeReadsTheTarget(t *testing.T) {
	root := t.TempDir()
	mkTree(t, root, map[string]string{"d/f": "content", "l@": "d/f"})
	files, err := committer.LoadDir(root, committer.LoadOptions{NoFileMode: true})
	if err != nil {
		t.Fatal(err)
	}
	ts, c := setup(t)
	if _, err := c.Commit(context.Background(), "main", committer.NewChangeSet("sync").Sync("out", files)); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, ts, "main", "out/l"); got != "content" {
		t.Fatalf("out/l = %q", got)
	}
}

func TestLoadDirThroughSymlinkedRoot(t *testing.T) {
	dir := t.TempDir()
	mkTree(t, dir, map[string]string{"real/a": "a", "real/l@": "a", "out@": "real"})
	files, err := committer.LoadDir(filepath.Join(dir, "out"), committer.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := loadedPaths(files); got != "a:100644 l:120000" {
		t.Fatalf("loaded %s", got)
	}
}

func TestLoadFileRules(t *testing.T) {
	dir := t.TempDir()
	mkTree(t, dir, map[string]string{
		"repo/.git/config": "[remote] token",
		"cfg@":             "repo/.git",
		"f":                "f",
		"up@":              "../../x",
		"ok@":              "f",
	})
	for _, p := range []string{"repo/.git/config", "cfg/config"} {
		if _, err := committer.LoadFile(filepath.Join(dir, p), "x", committer.LoadOptions{}); err == nil || !strings.Contains(err.Error(), ".git") {
			t.Errorf("LoadFile(%s) = %v, want a .git refusal", p, err)
		}
		cs := committer.NewChangeSet("m").PutLocalFile("x", filepath.Join(dir, p), committer.ModeFile)
		_, c := setup(t)
		if _, err := c.Plan(context.Background(), "main", cs); err == nil || !strings.Contains(err.Error(), ".git") {
			t.Errorf("PutLocalFile(%s) = %v, want a .git refusal", p, err)
		}
	}
	if _, err := committer.LoadFile(filepath.Join(dir, "up"), "a/b", committer.LoadOptions{}); err == nil {
		t.Error("a link leaving the repository from a/b was kept")
	}
	f, err := committer.LoadFile(filepath.Join(dir, "ok"), "a/b", committer.LoadOptions{})
	if err != nil || f.Mode != committer.ModeSymlink || string(f.Data) != "f" {
		t.Errorf("LoadFile(ok) = %+v, %v", f, err)
	}
}

// TestSyncMirrorsProperty: after any sync the remote directory holds the
// local files exactly (content and mode), whatever was there before, a
// submodule entry there is kept, and a second sync of the same files is a
// no-op.
func TestSyncMirrorsProperty(t *testing.T) {
	n := 60
	if testing.Short() {
		n = 25
	}
	ts, c := setup(t)
	ctx := context.Background()
	for i := range n {
		r := rand.New(rand.NewPCG(7, uint64(i)))
		// What is on the branch before: random files, some clashing with
		// the local shapes (a file where a directory will be, and back).
		before := committer.NewChangeSet("before").Delete("deploy")
		for _, f := range genFiles(r, "", 1+r.IntN(5)) {
			before.PutMode("deploy/"+f.Path, f.Data, f.Mode)
		}
		if _, err := c.Commit(ctx, "main", before); err != nil {
			t.Fatal(err)
		}
		withSub := r.IntN(3) == 0
		if withSub {
			addSubmodule(t, ts, "deploy/sub9")
		}
		root := t.TempDir()
		spec := map[string]string{}
		for _, f := range genFiles(r, "", r.IntN(6)) {
			switch f.Mode {
			case committer.ModeSymlink:
				spec[f.Path+"@"] = "dangling" // stays in the tree
			case committer.ModeExecutable:
				spec[f.Path+"*"] = string(f.Data)
			default:
				spec[f.Path] = string(f.Data)
			}
		}
		if r.IntN(2) == 0 {
			spec[".git/config"] = "secret"
			spec["zz/.GIT"] = "gitdir: x"
			spec["zz/kept"] = "kept"
		}
		mkTree(t, root, spec)
		local, err := committer.LoadDir(root, committer.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Commit(ctx, "main", committer.NewChangeSet("sync").Sync("deploy", local)); err != nil {
			t.Fatalf("round %d: sync %s: %v", i, loadedPaths(local), err)
		}
		remote, err := ts.Files(owner, repo, "main")
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for p, f := range remote {
			if rel, ok := strings.CutPrefix(p, "deploy/"); ok {
				got[rel] = f.Mode + ":" + string(f.Content)
			}
		}
		want := map[string]string{}
		for _, f := range local {
			data := f.Data
			if f.Data == nil {
				if data, err = os.ReadFile(f.LocalPath); err != nil {
					t.Fatal(err)
				}
			}
			want[f.Path] = string(f.Mode) + ":" + string(data)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("round %d: remote deploy/ = %v, local = %v", i, got, want)
		}
		if withSub && !hasSubmodule(t, ts, "deploy/sub9") {
			t.Fatalf("round %d: the sync dropped the submodule", i)
		}
		res, err := c.Commit(ctx, "main", committer.NewChangeSet("again").Sync("deploy", local))
		if err != nil || !res.NoOp || len(res.Changed) != 0 {
			t.Fatalf("round %d: second sync = %+v, %v; want a no-op", i, res, err)
		}
	}
}

func hasSubmodule(t *testing.T, ts *githubtest.TestServer, p string) bool {
	t.Helper()
	tree, _, err := ts.Client.Git.GetTree(context.Background(), owner, repo, "main", true)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range tree.Entries {
		if e.GetPath() == p {
			return e.GetMode() == "160000"
		}
	}
	return false
}

// Issue 11.5, local paths: a file reached through a symlinked parent that
// leads outside the directory the path is given in is refused, by LoadFile
// and by PutLocalFile; the resolved path itself is accepted.
func TestLocalPathThroughSymlinkedParent(t *testing.T) {
	dir := t.TempDir()
	mkTree(t, dir, map[string]string{
		"secret/key":      "private",
		"work/config@":    "../secret", // a checkout whose config dir points out
		"work/b@":         ".",
		"work/in/app":     "app",
		"work/inlink@":    "in",
		"work/out-link@":  "../secret/key",
		"work/keep-link@": "in/app",
	})
	t.Chdir(filepath.Join(dir, "work"))
	refused := []string{"config/key", "b/../secret/key", "out-link"}
	for _, p := range refused {
		if _, err := committer.LoadFile(p, "x", committer.LoadOptions{NoFileMode: true}); err == nil || !strings.Contains(err.Error(), "outside") {
			t.Errorf("LoadFile(%s) = %v, want a refusal", p, err)
		}
		_, c := setup(t)
		if _, err := c.Plan(context.Background(), "main", committer.NewChangeSet("m").PutLocalFile("x", p, committer.ModeFile)); err == nil || !strings.Contains(err.Error(), "outside") {
			t.Errorf("PutLocalFile(%s) = %v, want a refusal", p, err)
		}
	}
	// Without following the last link, its parents are still resolved.
	if _, err := committer.LoadFile("b/../secret/key", "x", committer.LoadOptions{}); err == nil {
		t.Error("LoadFile(b/../secret/key) in the default mode was accepted")
	}
	if _, err := committer.LoadFile(dir+"/work/b/../secret/key", "x", committer.LoadOptions{}); err != nil {
		t.Errorf("absolute b/../secret/key (the caller's own path) = %v", err)
	}
	// Default mode keeps a link at the path itself, so only its parents
	// are resolved; a link in the tree is fine either way.
	for _, p := range []string{"inlink/app", "keep-link", "in/app"} {
		for _, noMode := range []bool{false, true} {
			f, err := committer.LoadFile(p, "x", committer.LoadOptions{NoFileMode: noMode})
			if err != nil {
				t.Errorf("LoadFile(%s, NoFileMode=%v) = %v", p, noMode, err)
				continue
			}
			if noMode || p != "keep-link" {
				if data, _ := os.ReadFile(f.LocalPath); string(data) != "app" {
					t.Errorf("LoadFile(%s) reads %q", p, data)
				}
			}
		}
	}
	// The resolved path, given as such, is the caller's choice.
	if _, err := committer.LoadFile(filepath.Join(dir, "secret", "key"), "x", committer.LoadOptions{}); err != nil {
		t.Errorf("LoadFile(absolute resolved path) = %v", err)
	}
}
