package committer

import (
	"context"
	"errors"
	"sort"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/ghclient"
	"github.com/ghcommitter/ghcommitter/committer/internal/changes"
	"github.com/ghcommitter/ghcommitter/committer/internal/engine"
	"github.com/ghcommitter/ghcommitter/committer/internal/kind"
	"github.com/ghcommitter/ghcommitter/committer/internal/loop"
)

// This file stages a batch for a one-write engine (loop.OneWork), and
// tells one change set's own faults, which take it out of its batch, from
// the whole batch's.

// StageOne stages a batch for a one-write engine: a lone change set
// (only a Queue's squash batches through one; see job.group), or a
// squashed batch for GraphQL.

// A squashed batch for GraphQL is staged thus: the change sets in
// order, each on the view the ones before it left (edit functions run
// here), then the paths whose final content differs from head's tree are
// sent in one createCommitOnBranch. A change set whose precondition, edit
// or content fails, or whose caller gave up, is finished with its own
// error, and the others are staged again without it (batch.go: takeOut).
func (b *batch) StageOne(ctx context.Context, cands []engine.Writer, strict bool, head, tree string, attempt int) (*engine.Staged, *loop.OneCommit, error) {
	if !b.co.squash {
		return b.stageLone(ctx, cands, strict, head, tree, attempt)
	}
	for {
		st, u, again, err := b.stageOnce(ctx, cands[0], head, tree, attempt)
		if again || err == nil && st != nil && !sealAll(&b.live) {
			continue
		}
		if u == nil {
			return st, nil, err
		}
		return st, oneCommit(u), err
	}
}

// stageOnce is one try of StageOne; again: a change set was taken out
// after the others were staged with it.
func (b *batch) stageOnce(ctx context.Context, eng engine.Writer, head, tree string, attempt int) (*engine.Staged, *unit, bool, error) {
	c := b.c
	v := newViewAt(c, head, tree)
	if err := prefetchJobs(ctx, v, b.live); err != nil {
		return nil, nil, false, err
	}
	results := map[*job]*Result{}
	touched := map[string]*changes.Prepared{} // path -> the change set that last wrote it
	var changing []*job
	kept := b.live[:0]
	others := len(b.live) > 1
	for i, j := range b.live {
		res, changes, dropped, err := b.stageJob(ctx, v, j, head, attempt, touched, others)
		if dropped {
			continue
		}
		if err != nil {
			b.live = append(kept, b.live[i:]...)
			return nil, nil, false, err
		}
		kept = append(kept, j)
		results[j] = res
		if changes {
			changing = append(changing, j)
		}
	}
	b.live = kept
	if len(b.live) == 0 {
		return nil, nil, false, nil
	}
	st := &engine.Staged{Engine: eng, Head: head}
	if err := c.stageFinal(ctx, v, newViewAt(c, head, tree), touched, st); err != nil {
		return nil, nil, b.takeOutOwner(err, touched, head, attempt), err
	}
	if err := eng.Carries(st); err != nil {
		return nil, nil, false, &kind.Cause{Kind: ErrInvalid, Err: err}
	}
	b.finishWith(st, results, tree)
	if len(changing) == 0 {
		return st, nil, false, nil
	}
	cs, id := squashed(changing, b.id)
	msg := cs.Message
	if id == "" {
		id = b.id
		msg = changes.WithEditID(msg, id)
	}
	return st, &unit{cs: cs, message: msg, editID: id}, false, nil
}

// takeOutOwner takes out of the batch the change set whose path stageFinal
// failed on (err: its content could not be read again, or the engine
// cannot carry what it does there), and reports whether it did.
func (b *batch) takeOutOwner(err error, touched map[string]*changes.Prepared, head string, attempt int) bool {
	var pe *kind.Cause
	var se *sourceError
	if !engine.IsOneWriteError(err) && !errors.As(err, &se) || !errors.As(err, &pe) || touched[pe.Path] == nil {
		return false
	}
	for _, j := range b.live {
		if j.u.p == touched[pe.Path] {
			b.takeOut(&b.live, j, err, head, attempt)
			return true
		}
	}
	return false
}

// stageJob resolves one change set of a squashed one-write batch on v and
// layers its effects on v: its result, and whether it changes anything.
// What GraphQL cannot carry of it (a directory delete, a file that is not
// plain on the branch, a mode) takes it out of the batch with its own
// error (dropped: the others go on), before its effects are applied.
func (b *batch) stageJob(ctx context.Context, v *view, j *job, head string, attempt int, touched map[string]*changes.Prepared, others bool) (res *Result, changing, dropped bool, err error) {
	c := b.c
	drop := func(k, err error) (*Result, bool, bool, error) {
		e := c.fail("commit to", b.branch, k, err)
		e.Head, e.Attempts = head, attempt
		j.finish(nil, j.u.boot.annotate(e))
		return nil, false, true, nil
	}
	if j.gone() { // withdrawn by its caller
		return nil, false, true, nil
	}
	r, err := c.resolveJob(ctx, v, j, true, others)
	if memberFault(err) {
		return drop(nil, err)
	}
	if err != nil {
		return nil, false, false, err
	}
	if err := c.stageFiles(ctx, v, j.u.p, r, &engine.Staged{}); err != nil {
		if !memberFault(err) {
			return nil, false, false, err
		}
		return drop(ErrInvalid, err)
	}
	for _, e := range r.Effects {
		if e.Dir {
			return drop(nil, engine.OneWriteRefusal(e.Path, e.Path+" is a directory; only the git-data engine deletes a directory whole"))
		}
	}
	v.Apply(r.Effects)
	var changed []FileChange
	for _, f := range r.changes {
		if f.Action != Unchanged {
			changed = append(changed, f)
		}
	}
	for _, e := range r.Effects {
		touched[e.Path] = j.u.p
	}
	return newResult(c, b.branch, changed), len(r.Effects) > 0, false, nil
}

// stageFinal lists the paths whose final state (in v, after every change
// set) differs from head's tree (orig).
func (c *Committer) stageFinal(ctx context.Context, v, orig *view, touched map[string]*changes.Prepared, st *engine.Staged) error {
	paths := make([]string, 0, len(touched))
	for p := range touched {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		now, ok, err := v.Get(ctx, p)
		if err != nil {
			return err
		}
		was, had, err := orig.Get(ctx, p)
		if err != nil {
			return err
		}
		switch {
		case had && (was.Type != "blob" || Mode(was.Mode) != ModeFile):
			return engine.OneWriteRefusal(p, p+" is a "+kindOf(was)+" on the branch (mode "+was.Mode+"); only the git-data engine can change it")
		case !ok && had:
			st.Dels = append(st.Dels, engine.File{Path: p, Old: was.SHA})
		case !ok, had && now.SHA == was.SHA:
		case Mode(now.Mode) != ModeFile:
			return engine.OneWriteRefusal(p, p+" would have mode "+now.Mode+"; GraphQL writes plain files (100644) only")
		default:
			data, err := v.Content(ctx, p, now)
			if err != nil {
				if data, err = touched[p].Read(p); err != nil {
					return &kind.Cause{Path: p, Err: &sourceError{err}}
				}
			}
			st.Adds = append(st.Adds, engine.File{Path: p, Data: data, Old: was.SHA})
		}
	}
	return nil
}

// finishWith makes st record the batch's outcome for b.land.
func (b *batch) finishWith(st *engine.Staged, results map[*job]*Result, headTree string) {
	st.Finish = func(commit, tree, parent string) {
		for _, res := range results {
			res.Commit, res.Tree, res.Engine = commit, tree, st.Engine.Name()
			if parent == "" || len(res.Changed) == 0 {
				res.NoOp, res.Changed = true, []string{}
			} else {
				res.Parent = parent
			}
		}
		if parent == "" {
			tree = headTree
		}
		b.outcomes[commit] = outcome{results: results, tree: tree}
	}
}

// stageLone stages the lone change set of a batch of one (c.stage), and
// keeps its resolution for Build when auto goes on through Git Data.
func (b *batch) stageLone(ctx context.Context, cands []engine.Writer, strict bool, head, tree string, attempt int) (*engine.Staged, *loop.OneCommit, error) {
	b.pre = nil
	if len(b.live) == 0 {
		return nil, nil, nil
	}
	j := b.live[0]
	st, res, err := b.c.stage(ctx, j.u, j.co.engine.impl(), cands, strict, head, tree, func(v *view, r *resolved) {
		b.pre = &preResolved{head: head, v: v, r: r}
	})
	if err != nil {
		if !strict && engine.IsOneWriteError(err) {
			return nil, nil, err
		}
		e := b.c.fail("commit to", b.branch, nil, err)
		e.Head, e.Attempts = head, attempt
		return nil, nil, j.u.boot.annotate(e)
	}
	res.Branch = b.branch
	st.Finish = func(commit, tree, parent string) {
		r := *res
		r.Commit, r.Tree, r.Parent, r.Engine = commit, tree, parent, st.Engine.Name()
		if parent == "" {
			r.NoOp, r.Changed = true, []string{}
		}
		b.outcomes[commit] = outcome{results: map[*job]*Result{j: &r}, tree: tree}
	}
	return st, oneCommit(j.u), nil
}

// preResolved is a change set resolved on head without writing.
type preResolved struct {
	head string
	v    *view
	r    *resolved
}

// takePre returns the resolution StageOne made on head, once.
func (b *batch) takePre(head string) *preResolved {
	p := b.pre
	b.pre = nil
	if p == nil || p.head != head || len(b.live) != 1 {
		return nil
	}
	return p
}

// memberFault reports whether err is one change set's own failure, which
// takes it out of its batch: a kind.Cause of its resolution (precondition,
// edit function), or its content that could not be read again.
func memberFault(err error) bool {
	var pe *kind.Cause
	var se *sourceError
	return errors.As(err, &pe) || errors.As(err, &se)
}

// failJob finishes j with err, its own, found on head.
func (b *batch) failJob(j *job, err error, head string, attempt int) {
	e := b.c.fail("commit to", b.branch, nil, err)
	e.Head, e.Attempts = head, attempt
	j.finish(nil, j.u.boot.annotate(e))
}

// takeOut finishes j with err, its own, and removes it from live.
func (b *batch) takeOut(live *[]*job, j *job, err error, head string, attempt int) {
	b.failJob(j, err, head, attempt)
	for i, lj := range *live {
		if lj == j {
			*live = append((*live)[:i], (*live)[i+1:]...)
			return
		}
	}
}

// cost is what j, landing now with the live change sets, cost (see Cost).
func (b *batch) cost(j *job) Cost {
	own := Cost{Writes: j.tally.Writes(), Requests: j.tally.Requests()}
	writes, requests := b.tally.Writes(), b.tally.Requests()
	for _, m := range b.members {
		writes -= m.tally.Writes()
		requests -= m.tally.Requests()
	}
	if n := len(b.live); n > 1 {
		own.SharedWrites, own.SharedRequests = float64(writes)/float64(n), float64(requests)/float64(n)
		return own
	}
	own.Writes += writes
	own.Requests += requests
	return own
}

// paceHorizon and minPacedBatch bound a batch by the credential's write
// pacer (see paced).
const (
	paceHorizon   = 15 * time.Second
	minPacedBatch = 5
)

// paced is how many of the mates waiting, at most limit, a batch led by j
// carries: those whose writes the credential's pacer sends within
// paceHorizon (at least minPacedBatch), or all of them when fewer than
// minPacedBatch would be left for the next batch. At github.com's pacing
// (80 writes a minute after a burst of 8) a batch of 19 Git Data change
// sets spends 39 writes over about 25 s, and every caller of it lands at
// the end; capped, the batches land as they go — a caller's wait grows
// with its place, not with the whole batch — for a ref update or two more
// (at most 2.2 writes per landed change). A batch whose writes do not grow
// with its change sets (a squash) is not capped.
func (j *job) paced(limit int) int {
	n, ok := ghclient.WritesWithin(j.c.hc, paceHorizon)
	if !ok {
		return limit
	}
	eng := j.co.engine.impl()
	k := 1
	for k < limit && eng.Writes(k+1, j.co.squash) <= n {
		k++
	}
	if k = max(k, minPacedBatch); limit-k < minPacedBatch {
		return limit
	}
	return k
}
