package committer

import (
	"context"

	"github.com/ghcommitter/ghcommitter/committer/internal/loop"

	"github.com/ghcommitter/ghcommitter/committer/internal/engine"
)

// single is the work of Commit: one change set.
type single struct {
	c       *Committer
	branch  string
	u       *unit
	results map[string]*Result // by the tip each attempt built
	eng     engine.Engine      // the engine asked for
	res     *Result
	err     error
	// pre is this attempt's resolution from stageOne, when auto goes on
	// through Git Data: build uses it, so edit functions run once.
	pre *preResolved
}

// preResolved is a change set resolved on head without writing.
type preResolved struct {
	head string
	v    *view
	r    *resolved
}

func (s *single) StageOne(ctx context.Context, cands []engine.Writer, strict bool, head, tree string, attempt int) (*engine.Staged, *loop.OneCommit, error) {
	s.pre = nil
	st, res, err := s.c.stage(ctx, s.u, s.eng, cands, strict, head, tree, func(v *view, r *resolved) {
		s.pre = &preResolved{head: head, v: v, r: r}
	})
	if err != nil {
		if !strict && engine.IsOneWriteError(err) {
			return nil, nil, err
		}
		return nil, nil, s.failAt(head, attempt, err)
	}
	res.Branch = s.branch
	st.Finish = func(commit, tree, parent string) {
		r := *res
		r.Commit, r.Tree, r.Parent, r.Engine = commit, tree, parent, st.Engine.Name()
		if parent == "" {
			r.NoOp, r.Changed = true, []string{}
		}
		s.results[commit] = &r
	}
	return st, oneCommit(s.u), nil
}

func (s *single) Prune(bool) bool { return s.res == nil && s.err == nil }

func (s *single) First() loop.Unit { return s.u }

func (s *single) Size() int { return 1 }

func (s *single) Drop(loop.Unit, error) bool { return false }

func (s *single) Fail(err error) { s.err = s.u.boot.annotate(err) }

// failAt is the error of an attempt on head that cannot go on.
func (s *single) failAt(head string, attempt int, err error) error {
	e := s.c.fail("commit to", s.branch, nil, err)
	e.Head, e.Attempts = head, attempt
	return s.u.boot.annotate(e)
}

func (s *single) Build(ctx context.Context, head, tree string, attempt int) (loop.Built, error) {
	var r *resolved
	var err error
	if p := s.pre; p != nil && p.head == head {
		s.pre = nil
		r, err = s.c.completeResolve(ctx, p.v, p.r)
	} else {
		r, err = s.c.resolve(ctx, newViewAt(s.c, head, tree), s.u.p, false)
	}
	if err != nil {
		e := s.c.fail("commit to", s.branch, nil, err)
		e.Head, e.Attempts = head, attempt
		return loop.Built{}, s.u.boot.annotate(e)
	}
	res := newResult(s.c, s.branch, r.changes)
	res.Parent, res.Commit, res.Tree = head, head, tree
	if len(r.Entries) > 0 {
		contended := loop.Contended(ctx)
		if contended && s.c.refs.Moved(ctx, s.branch, head) {
			// Unsent unless resolve created subtrees (a replaced
			// directory's).
			return loop.Built{Moved: true, Unsent: len(r.Subtrees) == 0}, nil
		}
		if err := s.c.upload(ctx, r.Uploads); err != nil {
			return loop.Built{}, err
		}
		newTree, err := s.c.createTree(ctx, tree, r.Entries)
		if err != nil {
			return loop.Built{}, err
		}
		if newTree != tree {
			// Looked at again before the commit: a move seen now costs
			// the tree alone, where the watch below costs the commit too.
			if contended && s.c.refs.Moved(ctx, s.branch, head) {
				return loop.Built{Moved: true}, nil
			}
			moved := func() bool { return false }
			if contended {
				moved = s.c.refs.WatchMoved(ctx, s.branch, head)
			}
			commit, err := s.c.createCommit(ctx, s.u.cs, s.u.message, head, newTree)
			if moved() && err == nil {
				return loop.Built{Moved: true}, nil // the ref update would lose: not sent
			}
			if err != nil {
				return loop.Built{}, err
			}
			res.Commit, res.Tree = commit, newTree
		}
	}
	if res.Commit == head {
		res.NoOp, res.Parent, res.Changed = true, "", []string{}
	}
	s.results[res.Commit] = res
	return loop.Built{Tip: res.Commit, Tree: res.Tree}, nil
}

func (s *single) Land(tip string, attempt int, created bool) {
	r := s.results[tip]
	r.Attempts, r.CreatedBranch = attempt, created
	if r.Engine == "" {
		r.Engine = engine.GitData{}.Name() // built here: no one-write engine picked
	}
	s.u.boot.apply(r)
	s.res = r
}
