package tree

import (
	"strings"
	"testing"

	"github.com/ghcommitter/ghcommitter/committer/internal/changes"
	"github.com/ghcommitter/ghcommitter/committer/internal/object"
)

var base = map[string]string{"a": "1", "d/b": "2", "d/c": "3", "d/e/f": "4", "top": "t"}

// with is base changed by sets (a value "" deletes the path).
func with(sets map[string]string) map[string]string {
	out := map[string]string{}
	for p, c := range base {
		out[p] = c
	}
	for p, c := range sets {
		if c == "" {
			delete(out, p)
		} else {
			out[p] = c
		}
	}
	return out
}

// Puts, deletes and edits resolve to the tree git would make, each path's
// action reported, and the whole change set asked about in one batch.
func TestResolvePutDeleteEdit(t *testing.T) {
	r := newRepo(t, base)
	ch := ops(
		putOp("a", "1"),     // unchanged: no entry
		putOp("d/b", "new"), // modified
		delOp("d/c"),
		delOp("nothing"), // absent: nothing to do
		editOp("d/e/f", func(old []byte, _ bool) ([]byte, error) { return append(old, '!'), nil }),
		editOp("n/x", func(old []byte, ok bool) ([]byte, error) {
			if ok {
				t.Errorf("edit of an absent path saw it, %q", old)
			}
			return []byte("x"), nil
		}),
	)
	res, sha := r.commit(ch)
	if got, want := actions(res), "[{d/b modified} {d/c deleted} {d/e/f modified} {n/x added}]"; got != want {
		t.Errorf("changes = %s, want %s", got, want)
	}
	if want := gitTree(t, with(map[string]string{"d/b": "new", "d/c": "", "d/e/f": "4!", "n/x": "x"})); sha != want {
		t.Errorf("tree = %s, git makes %s", sha, want)
	}
	if r.m.Lookups != 1 {
		t.Errorf("%d lookups, want 1: every path and the directories above them in one batch", r.m.Lookups)
	}
	full, err := r.resolve(ch, true)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := actions(full), "[{a unchanged} {d/b modified} {d/c deleted} {nothing unchanged} {d/e/f modified} {n/x added}]"; got != want {
		t.Errorf("dry run changes = %s, want %s", got, want)
	}
}

// A change set that writes what the tree holds makes no entry.
func TestResolveNoOp(t *testing.T) {
	r := newRepo(t, base)
	res, err := r.resolve(ops(putOp("a", "1"), putOp("d/e/f", "4"), delOp("gone"),
		editOp("top", func(old []byte, _ bool) ([]byte, error) { return old, nil })), false)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Entries) != 0 || len(res.Changes) != 0 || len(res.Uploads) != 0 {
		t.Errorf("entries %d, changes %v, uploads %d: want none", len(res.Entries), res.Changes, len(res.Uploads))
	}
	// A mode change is a change.
	ex := putOp("a", "1")
	ex.Mode = object.ModeExecutable
	res, err = r.resolve(ops(ex), false)
	if err != nil {
		t.Fatal(err)
	}
	if got := actions(res); got != "[{a modified}]" {
		t.Errorf("mode change = %s", got)
	}
}

// A put through a file or onto a directory is refused, with a hint, unless
// the change set deletes what is in the way; then it replaces it.
func TestResolveReplacements(t *testing.T) {
	r := newRepo(t, base)
	for _, ch := range []*changes.Prepared{
		ops(putOp("a/x", "x")),    // through the file a
		ops(putOp("d", "file")),   // onto the directory d
		ops(putOp("d/b/y", "y")),  // through the file d/b
		ops(putOp("top/z/w", "")), // through the file top, deeper
	} {
		_, err := r.resolve(ch, true)
		ok, hint := isConflict(err)
		if !ok || !strings.Contains(hint, "Delete(") {
			t.Errorf("%s: err = %v (hint %q), want a conflict that says how to replace it", ch.Ops[0].Path, err, hint)
		}
	}
	res, sha := r.commit(ops(delOp("a"), putOp("a/x", "x"), delOp("d"), putOp("d", "file")))
	if got, want := actions(res), "[{a deleted} {a/x added} {d/b deleted} {d/c deleted} {d/e/f deleted} {d added}]"; got != want {
		t.Errorf("changes = %s, want %s", got, want)
	}
	if want := gitTree(t, map[string]string{"a/x": "x", "d": "file", "top": "t"}); sha != want {
		t.Errorf("tree = %s, git makes %s", sha, want)
	}
	if len(res.Subtrees) != 1 || res.Subtrees[0].entry.SHA == "" {
		t.Errorf("subtrees %v: want a/ built whole, its SHA set", res.Subtrees)
	}
	// A deleted directory written again holds only what the puts write.
	res, sha = r.commit(ops(delOp("d"), putOp("d/b", "2"), putOp("d/n", "n")))
	if got, want := actions(res), "[{d/c deleted} {d/e/f deleted} {d/n added}]"; got != want {
		t.Errorf("rewritten directory: changes = %s, want %s", got, want)
	}
	if want := gitTree(t, map[string]string{"a": "1", "d/b": "2", "d/n": "n", "top": "t"}); sha != want {
		t.Errorf("rewritten directory: tree = %s, git makes %s", sha, want)
	}
}

// A sync makes a directory hold exactly the files given: what is gone is
// deleted, what is the same is left, a submodule is kept.
func TestResolveSync(t *testing.T) {
	m := NewMemStore()
	sub := strings.Repeat("ab", 20)
	root := m.Write(map[string]MemFile{
		"s/a": {Content: []byte("1")}, "s/b": {Content: []byte("2")}, "s/e/f": {Content: []byte("3")},
		"s/mod": {Content: []byte(sub), Mode: object.ModeSubmodule}, "out": {Content: []byte("o")},
	})
	r := &repo{t: t, m: m, root: root, rv: &Resolver{Cache: NewCache(), Writer: m, InlineLimit: 1 << 10, MaxFileSize: 1 << 20}}
	sync := changes.PreparedSync{Dir: "s", Files: []changes.PreparedFile{
		{Rel: "a", Mode: object.ModeFile, Src: src("1")},
		{Rel: "e", Mode: object.ModeFile, Src: src("e is a file now")},
		{Rel: "n/x", Mode: object.ModeFile, Src: src("x")},
		{Rel: "mod/inside", Mode: object.ModeFile, Src: src("left out")},
	}}
	res, sha := r.commit(&changes.Prepared{Syncs: []changes.PreparedSync{sync}})
	if got, want := actions(res), "[{s/b deleted} {s/e added} {s/e/f deleted} {s/n/x added}]"; got != want {
		t.Errorf("changes = %s, want %s", got, want)
	}
	files, _, err := m.List(t.Context(), Tree{Root: sha}, "", true)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for p, e := range files {
		got = append(got, p+" "+e.Type)
	}
	if want := "out blob,s/a blob,s/e blob,s/mod commit,s/n/x blob"; strings.Join(sorted(got), ",") != want {
		t.Errorf("tree holds %v, want %s", sorted(got), want)
	}
	// A sync of a file is refused.
	if _, err := r.resolve(&changes.Prepared{Syncs: []changes.PreparedSync{{Dir: "out"}}}, true); err == nil {
		t.Error("a sync of a file: no error")
	}
}

// Preconditions compare the head's blob with the one expected.
func TestResolvePreconditions(t *testing.T) {
	r := newRepo(t, base)
	for _, tc := range []struct {
		pre changes.Precondition
		ok  bool
	}{
		{changes.Precondition{Path: "a", SHA: changes.BlobSHA([]byte("1"))}, true},
		{changes.Precondition{Path: "a", SHA: changes.BlobSHA([]byte("2"))}, false},
		{changes.Precondition{Path: "gone", Absent: true}, true},
		{changes.Precondition{Path: "a", Absent: true}, false},
		{changes.Precondition{Path: "d", SHA: changes.BlobSHA([]byte("1"))}, false}, // a directory
		{changes.Precondition{Path: "gone", AnyOf: []string{"", "x"}}, true},
		{changes.Precondition{Path: "a", AnyOf: []string{""}}, false},
	} {
		_, err := r.resolve(&changes.Prepared{Pres: []changes.Precondition{tc.pre}}, true)
		if conflict, _ := isConflict(err); tc.ok && err != nil || !tc.ok && !conflict {
			t.Errorf("%+v: err = %v, want ok %v", tc.pre, err, tc.ok)
		}
	}
}
