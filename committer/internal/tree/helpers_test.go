package tree

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/ghcommitter/ghcommitter/committer/internal/changes"
	"github.com/ghcommitter/ghcommitter/committer/internal/gitmodel"
	"github.com/ghcommitter/ghcommitter/committer/internal/kind"
	"github.com/ghcommitter/ghcommitter/committer/internal/object"
)

// repo is a MemStore holding one tree, with a Resolver on it.
type repo struct {
	t     *testing.T
	m     *MemStore
	rv    *Resolver
	root  string
	files map[string]MemFile // what root holds, as the model to compare with
}

func newRepo(t *testing.T, files map[string]string) *repo {
	t.Helper()
	m := NewMemStore()
	fs := map[string]MemFile{}
	for p, c := range files {
		fs[p] = MemFile{Content: []byte(c)}
	}
	r := &repo{t: t, m: m, files: fs}
	r.root = m.Write(fs)
	r.rv = &Resolver{Cache: NewCache(), Writer: m, InlineLimit: 1 << 10, MaxFileSize: 100 << 20}
	return r
}

func (r *repo) view() *View { return NewView(r.m, Tree{Commit: "c0ffee", Root: r.root}) }

// resolve resolves ch on the repo's tree; with full, a dry run.
func (r *repo) resolve(ch *changes.Prepared, full bool) (*Resolved, error) {
	return r.rv.Resolve(context.Background(), r.view(), ch, full)
}

// commit resolves ch, creates its tree and returns the tree's SHA.
func (r *repo) commit(ch *changes.Prepared) (*Resolved, string) {
	r.t.Helper()
	res, err := r.resolve(ch, false)
	if err != nil {
		r.t.Fatal(err)
	}
	if err := r.m.Upload(context.Background(), res.Uploads); err != nil {
		r.t.Fatal(err)
	}
	got, err := r.m.CreateTree(context.Background(), r.root, res.Entries)
	if err != nil {
		r.t.Fatal(err)
	}
	return res, got.SHA
}

// gitTree is git's SHA of the tree holding files.
func gitTree(t *testing.T, files map[string]string) string {
	t.Helper()
	fs := map[string]gitmodel.File{}
	for p, c := range files {
		fs[p] = gitmodel.File{Content: []byte(c), Mode: object.ModeFile}
	}
	sha, err := gitmodel.TreeSHA(fs)
	if err != nil {
		t.Fatal(err)
	}
	return sha
}

func src(content string) *changes.Source {
	s := changes.BytesSource([]byte(content))
	s.SHA = changes.BlobSHA([]byte(content))
	return s
}

func putOp(p, content string) changes.Op {
	return changes.Op{Kind: changes.OpPut, Path: p, Mode: object.ModeFile, Src: src(content)}
}

func delOp(p string) changes.Op { return changes.Op{Kind: changes.OpDelete, Path: p} }

func editOp(p string, f func(old []byte, ok bool) ([]byte, error)) changes.Op {
	return changes.Op{Kind: changes.OpEdit, Path: p, Edit: f}
}

func ops(o ...changes.Op) *changes.Prepared { return &changes.Prepared{Ops: o} }

func actions(r *Resolved) string { return fmt.Sprint(r.Changes) }

// isConflict reports whether err is a kind.Conflict cause, and its hint.
func isConflict(err error) (bool, string) {
	var c *kind.Cause
	if errors.As(err, &c) && errors.Is(c.Kind, kind.Conflict) {
		return true, c.Hint
	}
	return false, ""
}
