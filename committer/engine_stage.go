package committer

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"

	"github.com/ghcommitter/ghcommitter/committer/internal/changes"
	"github.com/ghcommitter/ghcommitter/committer/internal/kind"
)

// staged is a change set resolved on one head for an engine that commits
// in one write (GraphQL or contents): the files it writes and deletes,
// with what the head holds at each.
type staged struct {
	engine Engine
	head   string
	adds   []stagedFile
	dels   []stagedFile
	res    *Result // a single change set's: Files and Changed filled
	// finish records the outcome: the commit that landed (or head, for a
	// no-op), its tree and its parent ("" for a no-op).
	finish func(commit, tree, parent string)
}

type stagedFile struct {
	path string
	data []byte // adds only
	old  string // the blob SHA on the head, "" when absent
}

// stage resolves u on head's tree without writing anything (edit
// functions run here, on this head's content) and picks the engine that
// carries it: engine itself, or for EngineAuto the first of cands that
// can (EngineGitData when none can). An explicit engine that cannot carry
// what the head makes of u is an ErrInvalid, before any write.
// keep, when not nil, is given the resolution (made without writing) as
// soon as it is made, so that an attempt that goes on through Git Data
// builds on it instead of running the edit functions again.
func (c *Committer) stage(ctx context.Context, u *unit, engine Engine, cands []Engine, head, tree string, keep func(*view, *resolved)) (*staged, error) {
	v := newViewAt(c, head, tree)
	r, err := c.resolve(ctx, v, u.p, true)
	if err != nil {
		return nil, err
	}
	if keep != nil {
		keep(v, r)
	}
	var changes []FileChange
	for _, f := range r.changes {
		if f.Action != Unchanged {
			changes = append(changes, f)
		}
	}
	st := &staged{head: head, res: newResult(c, "", changes)}
	if err := c.stageFiles(ctx, v, u.p, r, st); err != nil {
		return nil, err
	}
	if len(st.adds)+len(st.dels) == 0 {
		st.engine = engine
		return st, nil
	}
	if engine != EngineAuto {
		if err := st.refusal(engine); err != nil {
			var pe *kind.Cause
			if !errors.As(err, &pe) {
				err = &kind.Cause{Kind: ErrInvalid, Err: err}
			}
			return nil, err
		}
		st.engine = engine
		return st, nil
	}
	st.engine = EngineGitData
	for _, e := range cands {
		if st.refusal(e) == nil {
			st.engine = e
			break
		}
	}
	return st, nil
}

// stageFiles lists r's effects as files to write and delete. What a
// one-write engine cannot carry at all is an error: a directory deleted or
// replaced, a mode other than 100644, a path whose entry on the head is not
// a plain file.
func (c *Committer) stageFiles(ctx context.Context, v *view, p *changes.Prepared, r *resolved, st *staged) error {
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
			return oneWriteRefusal(e.Path, fmt.Sprintf("%s is a %s on the branch (mode %s); only the git-data engine can replace it", e.Path, kindOf(old), old.Mode))
		}
		if ok && e.Deleted && old.Type == "commit" {
			return oneWriteRefusal(e.Path, e.Path+" is a submodule; only the git-data engine can delete it")
		}
		switch {
		case e.Deleted && e.Dir:
			return oneWriteRefusal(e.Path, e.Path+" is a directory; only the git-data engine deletes a directory whole")
		case e.Deleted:
			st.dels = append(st.dels, stagedFile{path: e.Path, old: old.SHA})
			continue
		case Mode(e.Mode) != ModeFile:
			return oneWriteRefusal(e.Path, fmt.Sprintf("%s would have mode %s; GraphQL and the contents API write plain files (100644) only", e.Path, e.Mode))
		}
		if a := deletedAbove(deleted, e.Path); a != "" {
			return oneWriteRefusal(e.Path, fmt.Sprintf("%s turns from a file into a directory; only the git-data engine carries that", a))
		}
		data := e.Data
		if data == nil {
			if data, err = p.Read(e.Path); err != nil {
				return &kind.Cause{Path: e.Path, Err: err}
			}
		}
		f := stagedFile{path: e.Path, data: data}
		if ok {
			f.old = old.SHA
		}
		st.adds = append(st.adds, f)
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

// oneWriteError marks what no one-write engine can carry, so that auto
// falls back to Git Data while an explicit engine refuses.
type oneWriteError struct{ msg string }

func (e *oneWriteError) Error() string { return e.msg }

func oneWriteRefusal(path, msg string) error {
	return &kind.Cause{Path: path, Kind: ErrInvalid, Err: &oneWriteError{msg: msg}}
}

// refusal says why engine cannot carry st, or nil.
func (st *staged) refusal(engine Engine) error {
	switch engine {
	case EngineGraphQL:
		if n := st.encodedSize(); n > MaxGraphQLBytes {
			return fmt.Errorf("the graphql engine sends at most %d MiB per commit, and this one is %d bytes encoded: use the git-data engine", MaxGraphQLBytes>>20, n)
		}
	case EngineContents:
		if n := len(st.adds) + len(st.dels); n != 1 {
			return fmt.Errorf("the contents engine writes one file per commit, and this change set changes %d files on the branch: use the graphql or git-data engine", n)
		}
		if len(st.adds) == 1 && len(st.adds[0].data) > MaxContentsFileBytes {
			return &kind.Cause{Path: st.adds[0].path, Kind: ErrInvalid, Err: fmt.Errorf("the contents engine writes files of at most %d MiB, and this one is %d bytes: use the graphql or git-data engine", MaxContentsFileBytes>>20, len(st.adds[0].data))}
		}
	}
	return nil
}

func (st *staged) encodedSize() int {
	n := 0
	for _, a := range st.adds {
		n += base64.StdEncoding.EncodedLen(len(a.data)) + len(a.path)
	}
	for _, d := range st.dels {
		n += len(d.path)
	}
	return n
}

// isOneWriteError reports whether err says no one-write engine can carry
// the change set (auto then uses Git Data).
func isOneWriteError(err error) bool {
	var ow *oneWriteError
	return errors.As(err, &ow)
}
