package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/ghcommitter/ghcommitter/committer/internal/ghgraphql"
	"github.com/ghcommitter/ghcommitter/committer/internal/kind"
	"github.com/ghcommitter/ghcommitter/committer/internal/landing"
	"github.com/ghcommitter/ghcommitter/committer/internal/rest"
)

// Contents commits through the contents API (PUT or DELETE
// contents/{path}): one write per attempt, one plain file of at most
// MaxContentsFileBytes, guarded by the file's blob SHA and built by GitHub
// on the branch's head at the time of the write. See
// https://docs.github.com/rest/repos/contents#create-or-update-file-contents
// and #delete-a-file.
type Contents struct{}

// MaxContentsFileBytes is the largest file Contents writes (GitHub
// documents 1 MB as the limit of its contents API's reads, and its writes
// time out above it).
const MaxContentsFileBytes = 1 << 20

// Name implements Engine.
func (Contents) Name() string { return "contents" }

// Refuse implements Engine.
func (c Contents) Refuse(ch Change) error {
	if err := oneWriteRefuse(c.Name(), ch); err != nil {
		return err
	}
	p := ch.P
	switch {
	case ch.ExpectHead:
		return errors.New("the contents engine cannot pin the branch's head (GitHub builds the commit on whatever head it finds): ExpectHead needs the graphql or git-data engine")
	case len(p.Syncs) > 0:
		return errors.New("the contents engine writes one file per commit and cannot carry a directory sync: use the graphql or git-data engine")
	case len(p.Ops) != 1:
		return fmt.Errorf("the contents engine writes one file per commit, and the change set has %d operations: use the graphql or git-data engine", len(p.Ops))
	}
	for _, pre := range p.Pres {
		if pre.Path != p.Ops[0].Path {
			return &kind.Cause{Path: pre.Path, Kind: kind.Invalid, Err: errors.New("the contents engine can only guard the file it writes: a precondition on another path needs the graphql or git-data engine")}
		}
	}
	return nil
}

// Writes implements Engine.
func (Contents) Writes(int, bool) int { return 1 }

// Batch implements Engine: one file per commit, never batched.
func (Contents) Batch(bool) bool { return false }

// Queue implements Engine.
func (c Contents) Queue(bool) error { return errNoQueue(c) }

// BatchBytes implements Engine.
func (Contents) BatchBytes() int64 { return 0 }

// Carries implements Writer.
func (Contents) Carries(st *Staged) error {
	if n := len(st.Adds) + len(st.Dels); n != 1 {
		return fmt.Errorf("the contents engine writes one file per commit, and this change set changes %d files on the branch: use the graphql or git-data engine", n)
	}
	if len(st.Adds) == 1 && len(st.Adds[0].Data) > MaxContentsFileBytes {
		return &kind.Cause{Path: st.Adds[0].Path, Kind: kind.Invalid, Err: fmt.Errorf("the contents engine writes files of at most %d MiB, and this one is %d bytes: use the graphql or git-data engine", MaxContentsFileBytes>>20, len(st.Adds[0].Data))}
	}
	return nil
}

// Pinned implements Writer: a contents write is guarded by its file's
// blob SHA and built on whatever the head is.
func (Contents) Pinned() bool { return false }

// Write implements Writer: st's one file, guarded by its blob SHA on the
// head read (none: it must be absent).
func (Contents) Write(ctx context.Context, env *Env, c Commit, st *Staged) (Written, error) {
	cw := rest.ContentsWrite{Message: c.Message, Branch: c.Branch, Author: c.Author, Committer: c.Committer}
	var got rest.ContentsCommit
	var err error
	l := landing.Start(ctx, env.LandingGrace)
	if len(st.Adds) == 1 {
		f := st.Adds[0]
		cw.Path, cw.Content, cw.SHA = f.Path, f.Data, f.Old
		got, err = env.REST.PutContents(l.Ctx, cw)
	} else {
		f := st.Dels[0]
		cw.Path, cw.SHA = f.Path, f.Old
		got, err = env.REST.DeleteContents(l.Ctx, cw)
	}
	err = l.Done(err)
	if err != nil && l.Unsent() {
		return Written{}, l.NotSent("contents write")
	}
	if err != nil {
		return outcome(rest.ToContents, "contents write", err)
	}
	w := Written{Commit: got.Commit, Tree: got.Tree, Parent: st.Head}
	if got.Parent != "" {
		w.Parent = got.Parent
	}
	if w.Tree == "" {
		w.Tree = readTree(ctx, env, w.Commit) // landed whatever this read says
	}
	return w, nil
}

// Settle implements Writer: a contents commit is built on whatever head
// GitHub found, so the chain from the head down to parent is searched.
func (Contents) Settle(ctx context.Context, env *Env, branch, parent, id string) (string, ghgraphql.Outcome, error) {
	return settle(ctx, env, branch, parent, id, ghgraphql.Since)
}
