package tree

import (
	"context"
	"errors"
	"fmt"
	"testing"

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
func (r *repo) resolve(ch *Changes, full bool) (*Resolved, error) {
	return r.rv.Resolve(context.Background(), r.view(), ch, full)
}

// commit resolves ch, creates its tree and returns the tree's SHA.
func (r *repo) commit(ch *Changes) (*Resolved, string) {
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

func src(content string) *Source {
	return &Source{SHA: BlobSHA([]byte(content)), Size: int64(len(content)), Data: []byte(content)}
}

func putOp(p, content string) Op {
	return Op{Kind: OpPut, Path: p, Mode: object.ModeFile, Src: src(content)}
}

func delOp(p string) Op { return Op{Kind: OpDelete, Path: p} }

func editOp(p string, f func(old []byte, ok bool) ([]byte, error)) Op {
	return Op{Kind: OpEdit, Path: p, Edit: f}
}

func ops(o ...Op) *Changes { return &Changes{Ops: o} }

func changes(r *Resolved) string { return fmt.Sprint(r.Changes) }

// isConflict reports whether err is a kind.Conflict cause, and its hint.
func isConflict(err error) (bool, string) {
	var c *kind.Cause
	if errors.As(err, &c) && errors.Is(c.Kind, kind.Conflict) {
		return true, c.Hint
	}
	return false, ""
}
