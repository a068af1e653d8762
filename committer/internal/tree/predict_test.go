package tree

import (
	"context"
	"sort"
	"testing"

	"github.com/ghcommitter/ghcommitter/committer/internal/changes"
)

func sorted(s []string) []string { sort.Strings(s); return s }

// The trees a change set makes are predicted with git's SHAs, from the
// listings read before, and cached: the next resolution on the new tree
// needs none of them again.
func TestPredictedTreesAreGits(t *testing.T) {
	r := newRepo(t, base)
	r.m.CacheListings(r.rv.Cache)
	for _, ch := range []*changes.Prepared{
		ops(putOp("d/b", "new"), delOp("d/c"), putOp("x/y/z", "deep")),
		ops(delOp("d")),                        // a directory goes
		ops(delOp("d/e/f")),                    // its directory with it
		ops(delOp("a"), putOp("a/now", "dir")), // a file turns directory
	} {
		res, err := r.resolve(ch, false)
		if err != nil {
			t.Fatal(err)
		}
		predicted, ok := predict(r.rv.Cache, r.root, res.Entries)
		if !ok {
			t.Fatalf("%v: no prediction", ch.Ops)
		}
		got, err := r.m.CreateTree(context.Background(), r.root, res.Entries)
		if err != nil {
			t.Fatal(err)
		}
		if predicted != got.SHA {
			t.Errorf("%v: predicted %s, created %s", ch.Ops, predicted, got.SHA)
		}
		if _, ok := r.rv.Cache.dir(got.SHA); !ok {
			t.Errorf("%v: the new root's listing is not cached", ch.Ops)
		}
	}
	if sha := treeSHA(dir{}); sha != "4b825dc642cb6eb9a060e54bf8d69288fbee4904" {
		t.Errorf("empty tree = %s", sha)
	}
}

// MemStore's trees have git's SHAs.
func TestMemStoreIsGit(t *testing.T) {
	files := map[string]string{"a": "1", "b/c": "2", "b/d/e": "3", "b.txt": "4", "b-x/y": "5"}
	r := newRepo(t, files)
	if want := gitTree(t, files); r.root != want {
		t.Errorf("root = %s, git makes %s", r.root, want)
	}
}
