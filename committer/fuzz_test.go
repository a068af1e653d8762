package committer_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ghcommitter/ghcommitter/committer/internal/gitmodel"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

// refValidPath is an independent statement of which paths a change set may
// write: relative (no leading "/"), no trailing "/", no empty, "." or ".."
// segment, no NUL, valid UTF-8, at most 4096 bytes, not empty, and nothing
// git's verify_path refuses with core.protectHFS and core.protectNTFS on
// (a byte-level port of is_hfs_dotgit and is_ntfs_dotgit from git's
// utf8.c and path.c).
func refValidPath(p string) bool {
	if p == "" || len(p) > 4096 || !utf8.ValidString(p) || strings.ContainsRune(p, 0) {
		return false
	}
	if p[0] == '/' || p[len(p)-1] == '/' {
		return false
	}
	for _, seg := range strings.Split(p, "/") {
		switch {
		case seg == "", seg == ".", seg == "..":
			return false
		case len(seg) == 4 && seg[0] == '.' && asciiLower(seg[1:]) == "git":
			return false
		case refHFSDotGit(seg):
			return false
		}
		// is_ntfs_dotgit runs at the start of each segment and after each
		// backslash.
		for i := 0; i <= len(seg); i++ {
			if (i == 0 || seg[i-1] == '\\') && refNTFSDotGit(seg[i:]) {
				return false
			}
		}
	}
	return true
}

// refHFSDotGit: the segment reads ".git" once the code points HFS+ ignores
// are dropped, comparing ASCII case-insensitively.
func refHFSDotGit(seg string) bool {
	var kept []rune
	for _, r := range seg {
		switch r {
		case 0x200c, 0x200d, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e,
			0x206a, 0x206b, 0x206c, 0x206d, 0x206e, 0x206f, 0xfeff:
			continue
		}
		kept = append(kept, r)
	}
	if len(kept) != 4 || kept[0] != '.' {
		return false
	}
	for i, want := range "git" {
		c := kept[i+1]
		if c > 127 || c|0x20 != want {
			return false
		}
	}
	return true
}

// refNTFSDotGit: ".git" or "git~1" (ASCII case-insensitive), then only
// dots and spaces up to the end or a slash or backslash.
func refNTFSDotGit(s string) bool {
	i := 0
	lower := func(c byte) byte {
		if c >= 'A' && c <= 'Z' {
			return c + 32
		}
		return c
	}
	switch {
	case len(s) >= 4 && s[0] == '.' && lower(s[1]) == 'g' && lower(s[2]) == 'i' && lower(s[3]) == 't':
		i = 4
	case len(s) >= 5 && lower(s[0]) == 'g' && lower(s[1]) == 'i' && lower(s[2]) == 't' && s[3] == '~' && s[4] == '1':
		i = 5
	default:
		return false
	}
	for ; i < len(s); i++ {
		switch s[i] {
		case '/', '\\':
			return true
		case '.', ' ':
		default:
			return false
		}
	}
	return true
}

func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func FuzzValidatePath(f *testing.F) {
	for _, s := range []string{
		"a", "a/b/c.txt", "", "/a", "a/", "a//b", "./a", "a/./b", "a/..", "../a", "..a", "a..",
		".git", ".GIT/config", "a/.Git/b", ".gitignore", "a/.git2", "git", "a\x00b", "\xff", "é/ü.txt",
		"a/.git/", "...", ". /a", "a\\b", strings.Repeat("a", 4096), strings.Repeat("a", 4097),
		strings.Repeat("ab/", 1365) + "a", "\u212a", ".gıt", ".g\u0130t",
		".git.", ".git .", "git~1", "GIT~1..", "git~2", ".g\u200cit", "\ufeff.GIT", "a\\.git", "a\\git~1 \\b", ".git\\x",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		err := committer.ValidatePath(p)
		if want := refValidPath(p); (err == nil) != want {
			t.Fatalf("ValidatePath(%q) = %v, reference says valid=%v", p, err, want)
		}
		if err != nil && err.Error() == "" {
			t.Fatalf("ValidatePath(%q): empty error message", p)
		}
	})
}

// modelFile is a file of the local model of a branch.
type modelFile struct {
	content []byte
	mode    string
}

// gitTreeSHA computes the root tree SHA of files with go-git's object encoding
// (committer/internal/gitmodel), independently of the library and the fake.
func gitTreeSHA(t testing.TB, files map[string]modelFile) string {
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

// fuzzBase is the branch every FuzzTreeBuild input starts from. Directories
// are named d*, files f* (and keep.txt), so a path is never a file in one
// place and a directory in another.
var fuzzBase = map[string]modelFile{
	"keep.txt":    {[]byte("keep\n"), "100644"},
	"f0":          {[]byte("d0/f0"), "120000"},
	"f1":          {[]byte("root f1\n"), "100644"},
	"d0/f0":       {[]byte("d0 f0\n"), "100644"},
	"d0/f1":       {[]byte{0xff, 0x00, 0x01}, "100644"},
	"d0/d1/f2":    {[]byte("#!/bin/sh\n"), "100755"},
	"d1/f0":       {[]byte("d1 f0\n"), "100644"},
	"d2/d0/d1/f3": {[]byte("deep\n"), "100644"},
}

// fuzzReader hands out the fuzz input byte by byte, then zeros.
type fuzzReader struct {
	b []byte
	i int
}

func (r *fuzzReader) byte() byte {
	if r.i >= len(r.b) {
		r.i++
		return 0
	}
	r.i++
	return r.b[r.i-1]
}

func (r *fuzzReader) more() bool { return r.i < len(r.b) }

func (r *fuzzReader) bytes(n int) []byte {
	out := make([]byte, n)
	for i := range out {
		out[i] = r.byte()
	}
	return out
}

// path draws a path over the small alphabet; leaf "f" gives a file name,
// "d" a directory name, "" either. 1 in 16 paths has a bad segment.
func (r *fuzzReader) path(leaf string) string {
	var segs []string
	for range int(r.byte() % 3) {
		segs = append(segs, fmt.Sprintf("d%d", r.byte()%3))
	}
	b := r.byte()
	switch {
	case leaf == "f" || leaf == "" && b%2 == 0:
		segs = append(segs, fmt.Sprintf("f%d", b/2%4))
	default:
		segs = append(segs, fmt.Sprintf("d%d", b/2%3))
	}
	if c := r.byte(); c%16 == 0 {
		bad := []string{"", ".", "..", ".git", ".Git", "/"}[int(c/16)%6]
		segs[int(c/64)%len(segs)] = bad
	}
	return strings.Join(segs, "/")
}

type fuzzOp struct {
	kind    string // put, delete, edit
	path    string
	content []byte
	mode    string
	editErr bool
}

// decodeChangeSet turns fuzz bytes into a change set and the operations it
// holds, for the model.
func decodeChangeSet(data []byte) (*committer.ChangeSet, []fuzzOp) {
	r := &fuzzReader{b: data}
	cs := committer.NewChangeSet("fuzz")
	var ops []fuzzOp
	for n := 1 + int(r.byte()%6); n > 0; n-- {
		var o fuzzOp
		switch k := r.byte() % 8; {
		case k < 3: // text put
			o = fuzzOp{kind: "put", path: r.path("f"), mode: []string{"100644", "100755", "120000"}[r.byte()%3]}
			o.content = []byte(fmt.Sprintf("text %x\n", r.bytes(int(r.byte()%12))))
		case k < 5: // binary put: forces a blob upload
			o = fuzzOp{kind: "put", path: r.path("f"), mode: "100644"}
			o.content = append([]byte{0xfe}, r.bytes(int(r.byte()%24))...)
		case k < 7:
			o = fuzzOp{kind: "delete", path: r.path("")}
		default:
			o = fuzzOp{kind: "edit", path: r.path("f"), content: r.bytes(1 + int(r.byte()%4))}
			o.editErr = o.content[0] == 0xee
		}
		switch o.kind {
		case "put":
			cs.PutMode(o.path, o.content, committer.Mode(o.mode))
		case "delete":
			cs.Delete(o.path)
		case "edit":
			suffix, fail := o.content, o.editErr
			cs.Edit(o.path, func(old []byte, exists bool) ([]byte, error) {
				if fail {
					return nil, errors.New("edit refuses")
				}
				return fuzzEdit(old, exists, suffix), nil
			})
		}
		ops = append(ops, o)
	}
	_ = r.more()
	return cs, ops
}

func fuzzEdit(old []byte, exists bool, suffix []byte) []byte {
	out := slices.Clone(old)
	slices.Reverse(out)
	if !exists {
		out = []byte("new:")
	}
	return append(out, suffix...)
}

// modelValid says whether ops form a valid change set: valid paths, no path
// twice, no path under another.
func modelValid(ops []fuzzOp) bool {
	seen := map[string]bool{}
	for _, o := range ops {
		if !refValidPath(o.path) || seen[o.path] {
			return false
		}
		seen[o.path] = true
	}
	for a := range seen {
		for b := range seen {
			if strings.HasPrefix(b, a+"/") {
				return false
			}
		}
	}
	return true
}

// modelApply applies ops to files.
func modelApply(files map[string]modelFile, ops []fuzzOp) map[string]modelFile {
	out := maps.Clone(files)
	for _, o := range ops {
		switch o.kind {
		case "put":
			out[o.path] = modelFile{o.content, o.mode}
		case "delete":
			for p := range out {
				if p == o.path || strings.HasPrefix(p, o.path+"/") {
					delete(out, p)
				}
			}
		case "edit":
			f, ok := out[o.path]
			if !ok {
				f.mode = "100644"
			}
			f.content = fuzzEdit(f.content, ok, o.content)
			out[o.path] = f
		}
	}
	return out
}

func FuzzTreeBuild(f *testing.F) {
	for _, s := range [][]byte{
		{0},
		{2, 0, 1, 0, 1, 0, 5, 'a', 'b', 'c', 'd', 'e', 3, 2, 1, 2, 5, 0, 4, 9, 9, 9, 9},
		{5, 6, 0, 1, 1, 7, 2, 0, 2, 1, 1, 6, 0, 0, 1, 0, 7, 1, 2, 2, 3, 0, 1, 0xee},
		{3, 3, 0, 6, 1, 8, 7, 1, 1, 2, 1, 0, 5, 1, 2, 3, 4, 5},
		{1, 0, 0, 0, 16, 0, 0, 0},
	} {
		f.Add(s)
	}
	ts := githubtest.NewServer(f, githubtest.WithNow(aheadClock()))
	if err := ts.CreateRepo(owner, repo, false); err != nil {
		f.Fatal(err)
	}
	c, err := newWith(ts.Client, owner, repo, committer.WithBackoffSleep(noSleep))
	if err != nil {
		f.Fatal(err)
	}
	var base []githubtest.File
	for _, p := range slices.Sorted(maps.Keys(fuzzBase)) {
		base = append(base, githubtest.File{Path: p, Content: fuzzBase[p].content, Mode: fuzzBase[p].mode})
	}
	baseTree := gitTreeSHA(f, fuzzBase)
	n := 0
	f.Fuzz(func(t *testing.T, data []byte) {
		n++
		branch := fmt.Sprintf("fuzz-%d", n)
		start, err := ts.Seed(owner, repo, branch, "base", base...)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := ts.Commit(owner, repo, start); got.Tree != baseTree {
			t.Fatalf("the fake's base tree %s != go-git's %s", got.Tree, baseTree)
		}
		cs, ops := decodeChangeSet(data)
		before := len(ts.Requests())
		res, err := c.Commit(context.Background(), branch, cs)
		if !modelValid(ops) {
			if !errors.Is(err, committer.ErrInvalid) {
				t.Fatalf("ops %+v: err = %v, want ErrInvalid", ops, err)
			}
			if sent := len(ts.Requests()) - before; sent != 0 {
				t.Fatalf("an invalid change set sent %d requests", sent)
			}
			return
		}
		editFails := slices.ContainsFunc(ops, func(o fuzzOp) bool { return o.kind == "edit" && o.editErr })
		if editFails {
			if err == nil || errors.Is(err, committer.ErrInvalid) {
				t.Fatalf("ops %+v: err = %v, want the edit function's error", ops, err)
			}
			if h, _ := ts.Head(owner, repo, branch); h != start {
				t.Fatal("a failed edit moved the branch")
			}
			return
		}
		if err != nil {
			t.Fatalf("ops %+v: %v", ops, err)
		}
		want := modelApply(fuzzBase, ops)
		got, err := ts.Files(owner, repo, branch)
		if err != nil {
			t.Fatal(err)
		}
		for p, w := range want {
			g, ok := got[p]
			if !ok {
				t.Errorf("%s missing from the branch", p)
			} else if string(g.Content) != string(w.content) || g.Mode != w.mode {
				t.Errorf("%s = %q mode %s, want %q mode %s", p, g.Content, g.Mode, w.content, w.mode)
			}
		}
		for p := range got {
			if _, ok := want[p]; !ok {
				t.Errorf("%s is on the branch but not in the model", p)
			}
		}
		wantTree := gitTreeSHA(t, want)
		h, _ := ts.Head(owner, repo, branch)
		hc, err := ts.Commit(owner, repo, h)
		if err != nil {
			t.Fatal(err)
		}
		if hc.Tree != wantTree {
			if empty := emptySubtrees(t, ts, hc.Tree); len(empty) > 0 && !t.Failed() {
				t.Errorf("the fake left empty trees at %v; ops %+v", empty, ops)
			}
			t.Errorf("the fake's tree %s != go-git's %s for the model", hc.Tree, wantTree)
		}
		if res.NoOp != (wantTree == baseTree) {
			t.Errorf("NoOp = %v, but the model's tree changed = %v", res.NoOp, wantTree != baseTree)
		}
		if !res.NoOp && (res.Tree != wantTree || res.Commit != h || res.Parent != start) {
			t.Errorf("result %+v, want tree %s on commit %s with parent %s", res, wantTree, h, start)
		}
		if t.Failed() {
			t.Logf("ops: %+v", ops)
		}
	})
}

// emptySubtrees lists the directories of tree sha that are git's empty
// tree, which git never stores.
func emptySubtrees(t testing.TB, ts *githubtest.TestServer, sha string) []string {
	t.Helper()
	tr, _, err := ts.Client.Git.GetTree(context.Background(), owner, repo, sha, true)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range tr.Entries {
		if e.GetType() == "tree" && e.GetSHA() == "4b825dc642cb6eb9a060e54bf8d69288fbee4904" {
			out = append(out, e.GetPath())
		}
	}
	return out
}
