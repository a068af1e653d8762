package committer

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/ghcommitter/ghcommitter/committer/githubtest"
	"github.com/ghcommitter/ghcommitter/committer/internal/kind"
	"github.com/ghcommitter/ghcommitter/committer/internal/object"
)

// A queue's batch resolves each change set on a view holding the effects of
// the ones before it: replacements must show there as what they made (a
// file turned directory is a directory, its old content gone).
func TestViewLayersReplacements(t *testing.T) {
	ts := githubtest.NewServer(t)
	if _, err := ts.Seed("acme", "mono", "main", "seed",
		githubtest.File{Path: "f", Content: []byte("file")},
		githubtest.File{Path: "d/x", Content: []byte("x")},
		githubtest.File{Path: "d/y/z", Content: []byte("z")},
	); err != nil {
		t.Fatal(err)
	}
	c, err := New("acme", "mono", WithHTTPClient(ts.Client.Client()), WithBaseURL(ts.URL))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	head, _ := ts.Head("acme", "mono", "main")
	cm, _ := ts.Commit("acme", "mono", head)
	v := newView(c, cm.Tree)
	step := func(cs *ChangeSet) ([]FileChange, error) {
		t.Helper()
		p, err := prepare(cs)
		if err != nil {
			t.Fatal(err)
		}
		r, err := c.resolve(ctx, v, p, true)
		if err != nil {
			return nil, err
		}
		v.apply(r.effects)
		return r.changes, nil
	}
	ch, err := step(NewChangeSet("1").Delete("f").Put("f/a", []byte("a")).Delete("d").Put("d", []byte("now a file")))
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(ch); got != "[{f deleted} {f/a added} {d/x deleted} {d/y/z deleted} {d added}]" {
		t.Errorf("first = %s", got)
	}
	// f is a directory now, d a file.
	ch, err = step(NewChangeSet("2").Put("f/b", []byte("b")).Put("f/a", []byte("a")).Edit("d", func(old []byte, ok bool) ([]byte, error) {
		if !ok || string(old) != "now a file" {
			return nil, fmt.Errorf("edit saw %q, %v", old, ok)
		}
		return []byte("edited"), nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(ch); got != "[{f/b added} {f/a unchanged} {d modified}]" {
		t.Errorf("second = %s", got)
	}
	for _, cs := range []*ChangeSet{
		NewChangeSet("3").Put("d/y/z", []byte("z")), // d is a file in the batch
		NewChangeSet("4").Put("f", []byte("f")),     // f is a directory in the batch
	} {
		var pe *kind.Cause
		if _, err := step(cs); !errors.As(err, &pe) || !errors.Is(pe.Kind, ErrConflict) {
			t.Errorf("%s: err = %v, want ErrConflict", cs.Message, err)
		}
	}
	// A sync of f sees f/a and f/b, and not the old file's content.
	ch, err = step(NewChangeSet("5").Sync("f", []LocalFile{{Path: "b", Mode: ModeFile, Data: []byte("b")}}))
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(ch); got != "[{f/a deleted} {f/b unchanged}]" {
		t.Errorf("sync = %s", got)
	}
}

func TestEntriesOverlap(t *testing.T) {
	mk := func(paths ...string) *resolved {
		r := &resolved{}
		for _, p := range paths {
			r.entries = append(r.entries, &object.TreeEntry{Path: p})
		}
		return r
	}
	for _, tc := range []struct {
		rs   []*resolved
		want bool
	}{
		{[]*resolved{mk("a", "b/c"), mk("a-b", "b/d", "c")}, false},
		{[]*resolved{mk("a"), mk("a")}, true},   // the same path twice: last wins, but say so
		{[]*resolved{mk("a"), mk("a/b")}, true}, // under an earlier entry
		{[]*resolved{mk("a/b"), mk("a")}, true}, // above an earlier entry
		{[]*resolved{mk("a/b", "a/c")}, false},  // within one change set
		{[]*resolved{mk("x/a/b"), mk("x/a.txt"), mk("x/a-b/c")}, false},
	} {
		if got := entriesOverlap(tc.rs); got != tc.want {
			var all [][]string
			for _, r := range tc.rs {
				var ps []string
				for _, e := range r.entries {
					ps = append(ps, e.Path)
				}
				all = append(all, ps)
			}
			t.Errorf("entriesOverlap(%v) = %v, want %v", all, got, tc.want)
		}
	}
}
