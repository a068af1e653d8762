package tree

import (
	"fmt"
	"testing"

	"github.com/ghcommitter/ghcommitter/committer/internal/changes"
	"github.com/ghcommitter/ghcommitter/committer/internal/object"
)

// A queue's batch resolves each change set on a view holding the effects of
// the ones before it: replacements must show there as what they made (a
// file turned directory is a directory, its old content gone).
func TestViewLayersReplacements(t *testing.T) {
	r := newRepo(t, map[string]string{"f": "file", "d/x": "x", "d/y/z": "z"})
	v := r.view()
	step := func(ch *changes.Prepared) (string, error) {
		t.Helper()
		res, err := r.rv.Resolve(t.Context(), v, ch, true)
		if err != nil {
			return "", err
		}
		v.Apply(res.Effects)
		return actions(res), nil
	}
	ch, err := step(ops(delOp("f"), putOp("f/a", "a"), delOp("d"), putOp("d", "now a file")))
	if err != nil {
		t.Fatal(err)
	}
	if ch != "[{f deleted} {f/a added} {d/x deleted} {d/y/z deleted} {d added}]" {
		t.Errorf("first = %s", ch)
	}
	// f is a directory now, d a file.
	ch, err = step(ops(putOp("f/b", "b"), putOp("f/a", "a"), editOp("d", func(old []byte, ok bool) ([]byte, error) {
		if !ok || string(old) != "now a file" {
			return nil, fmt.Errorf("edit saw %q, %v", old, ok)
		}
		return []byte("edited"), nil
	})))
	if err != nil {
		t.Fatal(err)
	}
	if ch != "[{f/b added} {f/a unchanged} {d modified}]" {
		t.Errorf("second = %s", ch)
	}
	for _, c := range []*changes.Prepared{
		ops(putOp("d/y/z", "z")), // d is a file in the batch
		ops(putOp("f", "f")),     // f is a directory in the batch
	} {
		if _, err := step(c); !isConflictErr(err) {
			t.Errorf("%s: err = %v, want a conflict", c.Ops[0].Path, err)
		}
	}
	// A sync of f sees f/a and f/b, and not the old file's content.
	ch, err = step(&changes.Prepared{Syncs: []changes.PreparedSync{{Dir: "f", Files: []changes.PreparedFile{{Rel: "b", Mode: object.ModeFile, Src: src("b")}}}}})
	if err != nil {
		t.Fatal(err)
	}
	if ch != "[{f/a deleted} {f/b unchanged}]" {
		t.Errorf("sync = %s", ch)
	}
}

func isConflictErr(err error) bool { ok, _ := isConflict(err); return ok }

func TestEntriesOverlap(t *testing.T) {
	mk := func(paths ...string) *Resolved {
		r := &Resolved{}
		for _, p := range paths {
			r.Entries = append(r.Entries, &object.TreeEntry{Path: p})
		}
		return r
	}
	for _, tc := range []struct {
		rs   []*Resolved
		want bool
	}{
		{[]*Resolved{mk("a", "b/c"), mk("a-b", "b/d", "c")}, false},
		{[]*Resolved{mk("a"), mk("a")}, true},   // the same path twice: last wins, but say so
		{[]*Resolved{mk("a"), mk("a/b")}, true}, // under an earlier entry
		{[]*Resolved{mk("a/b"), mk("a")}, true}, // above an earlier entry
		{[]*Resolved{mk("a/b", "a/c")}, false},  // within one change set
		{[]*Resolved{mk("x/a/b"), mk("x/a.txt"), mk("x/a-b/c")}, false},
	} {
		if got := EntriesOverlap(tc.rs); got != tc.want {
			var all [][]string
			for _, r := range tc.rs {
				var ps []string
				for _, e := range r.Entries {
					ps = append(ps, e.Path)
				}
				all = append(all, ps)
			}
			t.Errorf("EntriesOverlap(%v) = %v, want %v", all, got, tc.want)
		}
	}
}
