package committer

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ghcommitter/ghcommitter/committer/internal/changes"
	"github.com/ghcommitter/ghcommitter/committer/internal/engine"
	"github.com/ghcommitter/ghcommitter/committer/internal/kind"
)

// Engine is the GitHub API a commit is made through. See docs/engines.md
// for what each can carry and what it costs.
type Engine int

const (
	// EngineGitData builds the commit from Git Data objects (create tree,
	// create commit) and moves the branch with a fast-forward ref update:
	// three writes per attempt. It carries every change set: modes,
	// symlinks, submodules, directory deletes, large files, a chosen
	// author, your own signature. The default.
	EngineGitData Engine = iota
	// EngineGraphQL commits with GraphQL createCommitOnBranch: one write per
	// attempt, pinned to the head read (expectedHeadOid). Plain files
	// (mode 100644) only, up to MaxGraphQLBytes per commit, no chosen author
	// or committer, no signer of your own: GitHub signs the commit, so it
	// shows as Verified for any token.
	EngineGraphQL
	// EngineContents commits through the contents API (PUT or DELETE
	// contents/{path}): one write per attempt, one plain file of at most
	// MaxContentsFileBytes, guarded by the file's blob SHA and built by
	// GitHub on the branch's head at the time of the write. It cannot pin
	// a head (ExpectHead is ErrInvalid). GitHub signs these commits too.
	EngineContents
	// EngineAuto picks, on each attempt, the engine with the fewest writes
	// that carries the change set exactly: contents for one plain file
	// (or one file delete), GraphQL for plain files, Git Data otherwise.
	EngineAuto
)

// MaxGraphQLBytes is the largest GraphQL commit (file contents once
// base64-encoded, plus paths) that EngineGraphQL sends and EngineAuto
// picks GraphQL for: GitHub fails payloads around 40 MB.
const MaxGraphQLBytes = 25 << 20

// MaxContentsFileBytes is the largest file EngineContents writes and
// EngineAuto picks the contents API for (GitHub documents 1 MB as the
// limit of its contents API's reads, and its writes time out above it).
const MaxContentsFileBytes = 1 << 20

// engines holds each Engine's implementation (internal/engine), in the
// enum's order; Auto's Order is the one-write engines it picks among, best
// first.
var engines = [...]engine.Engine{
	EngineGitData:  engine.GitData{},
	EngineGraphQL:  engine.GraphQL{},
	EngineContents: engine.Contents{},
	EngineAuto:     engine.Auto{Order: []engine.Writer{engine.Contents{}, engine.GraphQL{}}, Else: engine.GitData{}},
}

// impl is e's implementation; e must be valid (WithEngine checks).
func (e Engine) impl() engine.Engine { return engines[e] }

// String returns the engine's name as the CLI's --engine spells it.
func (e Engine) String() string {
	if e < 0 || int(e) >= len(engines) {
		return fmt.Sprintf("Engine(%d)", int(e))
	}
	return engines[e].Name()
}

// ParseEngine reads an engine's name: git-data, graphql, contents or auto.
func ParseEngine(s string) (Engine, error) {
	names := make([]string, len(engines))
	for i, e := range engines {
		names[i] = e.Name()
		if strings.EqualFold(strings.TrimSpace(s), names[i]) {
			return Engine(i), nil
		}
	}
	return 0, fmt.Errorf("unknown engine %q: want one of %s", s, strings.Join(names, ", "))
}

// WithEngine makes the commit (or every commit of a Queue) through engine.
// An engine that cannot carry a change set exactly refuses it with
// ErrInvalid before any write, naming what it cannot carry; what is known
// only on the branch (an edit's output, the mode of a file already there)
// is refused after reading the head and still before any write. A Queue
// takes EngineGitData or, with Squash, EngineGraphQL. With EngineAuto,
// an attempt that ends up on Git Data because of what the head holds (an
// executable file's edit, a directory delete) builds on what it resolved
// to choose: edit functions run once per attempt on every engine. The
// default is EngineGitData.
func WithEngine(engine Engine) CommitOption {
	return func(o *commitOptions) error {
		if engine < 0 || int(engine) >= len(engines) {
			return fmt.Errorf("unknown engine %d", int(engine))
		}
		o.engine = engine
		return nil
	}
}

// change is what the engines' static refusal looks at of u under co.
func (c *Committer) change(u *unit, co commitOptions) engine.Change {
	return engine.Change{
		P: u.p, Tag: co.tag.Name != "", OmitEditID: u.cs.OmitEditID, Signed: c.o.signer != nil,
		Identity: u.cs.Author != nil || u.cs.Committer != nil, ExpectHead: co.expectHead != "",
	}
}

// candidates lists the one-write engines an attempt at u may use, best
// first, from what is known before any request; strict: co's engine is
// one of them, which refuses what it cannot carry (engine.Choose).
func (c *Committer) candidates(u *unit, co commitOptions) ([]engine.Writer, bool) {
	return engine.Choose(co.engine.impl(), c.change(u, co))
}

// engineGate refuses, before any request, a change set the chosen engine
// cannot carry, and gives the engines that may write in one write the
// Edit-Id trailer they settle a lost reply by: the change set's own, even
// when its message already holds one.
func (c *Committer) engineGate(op, branch string, u *unit, co commitOptions) error {
	if err := co.engine.impl().Refuse(c.change(u, co)); err != nil {
		return c.fail(op, branch, ErrInvalid, err)
	}
	if engine.SettlesByEditID(co.engine.impl()) && !u.cs.OmitEditID && u.editID == "" {
		u.editID = changes.NewEditID()
		u.message = changes.WithEditID(u.message, u.editID)
	}
	return nil
}

// stage resolves u on head's tree without writing anything (edit
// functions run here, on this head's content) and picks the engine that
// carries it (engine.Pick): with strict, cands[0] or its refusal, an
// ErrInvalid before any write; else the first of cands that can, and
// none (st.Engine nil: Git Data) when none can. A change set that changes
// nothing is named for eng. The Result is filled with the change set's
// Files and Changed.
// keep, when not nil, is given the resolution (made without writing) as
// soon as it is made, so that an attempt that goes on through Git Data
// builds on it instead of running the edit functions again.
func (c *Committer) stage(ctx context.Context, u *unit, eng engine.Engine, cands []engine.Writer, strict bool, head, tree string, keep func(*view, *resolved)) (*engine.Staged, *Result, error) {
	v := newViewAt(c, head, tree)
	r, err := c.resolve(ctx, v, u.p, true)
	if err != nil {
		return nil, nil, err
	}
	if keep != nil {
		keep(v, r)
	}
	var changed []FileChange
	for _, f := range r.changes {
		if f.Action != Unchanged {
			changed = append(changed, f)
		}
	}
	res := newResult(c, "", changed)
	st := &engine.Staged{Head: head}
	if err := c.stageFiles(ctx, v, u.p, r, st); err != nil {
		return nil, nil, err
	}
	if st.Empty() {
		st.Engine = eng // a no-op: named for the engine asked for
		return st, res, nil
	}
	w, err := engine.Pick(cands, strict, st)
	if err != nil {
		var pe *kind.Cause
		if !errors.As(err, &pe) {
			err = &kind.Cause{Kind: ErrInvalid, Err: err}
		}
		return nil, nil, err
	}
	if w != nil {
		st.Engine = w
		// The one write lands the pointers: their objects are stored first
		// (Git Data stores them in completeResolve).
		if err := c.resolver().StoreLFS(ctx, &r.Resolved); err != nil {
			return nil, nil, err
		}
	}
	return st, res, nil
}

// stageFiles lists r's effects as files to write and delete. What a
// one-write engine cannot carry at all is an error: a directory deleted or
// replaced, a mode other than 100644, a path whose entry on the head is not
// a plain file.
func (c *Committer) stageFiles(ctx context.Context, v *view, p *changes.Prepared, r *resolved, st *engine.Staged) error {
	deleted := map[string]bool{}
	for _, e := range r.Effects {
		if e.Deleted {
			deleted[e.Path] = true
		}
	}
	for _, e := range r.Effects {
		old, ok, err := v.Get(ctx, e.Path)
		if err != nil {
			return err
		}
		if ok && (old.Type != "blob" || Mode(old.Mode) != ModeFile) && !e.Deleted {
			return engine.OneWriteRefusal(e.Path, fmt.Sprintf("%s is a %s on the branch (mode %s); only the git-data engine can replace it", e.Path, kindOf(old), old.Mode))
		}
		if ok && e.Deleted && old.Type == "commit" {
			return engine.OneWriteRefusal(e.Path, e.Path+" is a submodule; only the git-data engine can delete it")
		}
		switch {
		case e.Deleted && e.Dir:
			return engine.OneWriteRefusal(e.Path, e.Path+" is a directory; only the git-data engine deletes a directory whole")
		case e.Deleted:
			st.Dels = append(st.Dels, engine.File{Path: e.Path, Old: old.SHA})
			continue
		case Mode(e.Mode) != ModeFile:
			return engine.OneWriteRefusal(e.Path, fmt.Sprintf("%s would have mode %s; GraphQL and the contents API write plain files (100644) only", e.Path, e.Mode))
		}
		if a := deletedAbove(deleted, e.Path); a != "" {
			return engine.OneWriteRefusal(e.Path, fmt.Sprintf("%s turns from a file into a directory; only the git-data engine carries that", a))
		}
		data := e.Data
		if data == nil {
			if data, err = p.Read(e.Path); err != nil {
				return &kind.Cause{Path: e.Path, Err: err}
			}
		}
		f := engine.File{Path: e.Path, Data: data}
		if ok {
			f.Old = old.SHA
		}
		st.Adds = append(st.Adds, f)
	}
	return nil
}

func deletedAbove(deleted map[string]bool, p string) string {
	for _, a := range changes.Ancestors(p) {
		if deleted[a] {
			return a
		}
	}
	return ""
}
