package committer

import (
	"context"
	"fmt"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/ghclient"
	"github.com/ghcommitter/ghcommitter/committer/internal/loop"
)

// batch is the work of the coordinator: the change sets landed by one
// landing write. A lone change set of Commit is a batch of one (lone): it
// runs on its caller's context and is sealed from the start, so it never
// leaves while the driver runs (the driver decides when it ends).
type batch struct {
	c        *Committer // the first change set's: it sends every request
	branch   string
	co       commitOptions
	coord    *coordinator // nil for a Plan's
	live     []*job
	members  []*job // every change set it started with (see cost)
	tally    ghclient.Tally
	attempt  int                // the attempt building (for jobCtx's events)
	outcomes map[string]outcome // by the tip each attempt built
	id       string             // the Edit-Id of a squash of several, over all attempts
	lone     bool
	landed   bool
	// pre is this attempt's resolution of a lone change set from
	// StageOne, when auto goes on through Git Data: Build uses it, so edit
	// functions run once.
	pre *preResolved
}

// outcome is what an attempt built: each change set's Result, and the
// tip's tree.
type outcome struct {
	results map[*job]*Result
	tree    string
}

func (b *batch) Prune(settling bool) bool {
	// Withdraw the callers that gave up; nothing of theirs has landed
	// (unless an earlier update of this batch had no clear answer: then
	// their fate is still open, and they wait for it). The others may
	// withdraw again until this attempt builds its trees (see sealAll).
	kept := b.live[:0]
	for _, j := range b.live {
		if settling || b.lone && !j.gone() {
			kept = append(kept, j)
			continue
		}
		if b.lone {
			continue
		}
		j.unseal()
		if err := j.ctx.Err(); err != nil {
			j.finish(nil, b.c.fail("commit to", b.branch, nil, err))
			continue
		}
		if !j.gone() {
			kept = append(kept, j)
		}
	}
	b.live = kept
	return len(b.live) > 0
}

func (b *batch) First() loop.Unit {
	if len(b.live) == 0 {
		return nil
	}
	return b.live[0].u
}

func (b *batch) Size() int { return len(b.live) }

func (b *batch) Drop(u loop.Unit, err error) bool {
	for i, j := range b.live {
		if j.u == u {
			j.finish(nil, err)
			b.live = append(b.live[:i], b.live[i+1:]...)
			return true
		}
	}
	return false
}

// committers are the distinct committers of the callers still in the
// batch: each one's observer sees the batch's events.
func (b *batch) committers() []*Committer {
	out := []*Committer{}
	if len(b.live) == 0 {
		return append(out, b.c) // after the work ended: its sender's
	}
	seen := map[*Committer]bool{}
	for _, j := range b.live {
		if !seen[j.c] {
			seen[j.c] = true
			out = append(out, j.c)
		}
	}
	return out
}

func (b *batch) Fail(err error) {
	for _, j := range b.live {
		j.finish(nil, j.u.boot.annotate(err))
	}
	b.live = nil
}

func (b *batch) Build(ctx context.Context, head, tree string, attempt int) (loop.Built, error) {
	b.attempt = attempt
	build := b.buildAll
	if b.co.rebuild != nil {
		build = b.buildRebuild
	}
	results, built, err := build(ctx, &b.live, b.id, head, tree, attempt)
	switch {
	case err != nil:
		return loop.Built{}, err
	case len(b.live) == 0:
		return loop.Built{Gone: true}, nil
	case built.Moved:
		return built, nil
	}
	b.outcomes[built.Tip] = outcome{results: results, tree: built.Tree}
	return built, nil
}

func (b *batch) Land(tip string, attempt int, created bool) {
	o := b.outcomes[tip]
	b.landed = true
	if b.coord != nil {
		b.coord.remember(tip, o.tree)
	}
	for _, j := range b.live {
		r := o.results[j]
		if r == nil {
			j.finish(nil, b.c.fail("commit to", b.branch, ErrUnknownOutcome, fmt.Errorf("the batch landed as %s, but this change set's part in it is not known", short(tip))))
			continue
		}
		// The branch was created once, with the batch's first commit:
		// one caller reports it (a squash is one commit; its first).
		r.Attempts, r.CreatedBranch = attempt, created
		r.Cost = b.cost(j)
		created = false
		landedResult(r)
		j.u.boot.apply(r)
		j.finish(r, nil)
	}
	b.live = nil
}

// build resolves the live jobs in order on top of head, each seeing the
// ones before it, and creates their trees and commits. Jobs whose
// precondition, edit or content fails, or whose caller gave up, are
// finished with their own error and dropped from live, and the others
// resolved again without them (see takeOut). It returns the new
// tip (head itself if nothing changed), or that the branch moved first
// (see guard). id is the batch's Edit-Id, for a squash of several change
// sets.
func (b *batch) buildAll(ctx context.Context, live *[]*job, id, head, tree string, attempt int) (map[*job]*Result, loop.Built, error) {
	g, rctx := newGuard(ctx, b.c, b.branch, head)
	for {
		results, steps, err := b.resolveAll(rctx, live, head, tree, attempt)
		if err != nil || len(steps) == 0 {
			return results, loop.Built{Tip: head, Tree: tree}, err
		}
		if g.moved(ctx) {
			// Unsent unless resolve created subtrees (a replaced
			// directory's).
			return nil, loop.Built{Moved: true, Unsent: !madeSubtrees(steps), Head: g.now}, nil
		}
		again, err := b.uploadEach(ctx, live, steps, head, attempt)
		if err != nil {
			return nil, loop.Built{}, err
		}
		if again || !sealAll(live) {
			continue
		}
		var built loop.Built
		if b.co.squash {
			built, err = b.buildSquashed(ctx, g, steps, results, id, head, tree)
		} else {
			built, err = b.buildChain(ctx, g, steps, results, tree, head)
		}
		return results, built, err
	}
}

// prefetchJobs is View.Prefetch for every change set of a batch at once, so
// a batch costs one lookup however many change sets it holds.
func prefetchJobs(ctx context.Context, v *view, jobs []*job) error {
	var paths, texts []string
	for _, j := range jobs {
		paths = append(paths, j.u.p.Lookups()...)
		texts = append(texts, j.u.p.Texts()...)
	}
	return v.Prefetch(ctx, paths, texts)
}

// resolveAll resolves the live jobs in order, each on the view the ones
// before it left, and finishes those that fail alone.
func (b *batch) resolveAll(ctx context.Context, live *[]*job, head, tree string, attempt int) (map[*job]*Result, []step, error) {
	c := b.c
	v := newViewAt(c, head, tree)
	pre := b.takePre(head)
	if pre == nil {
		if err := prefetchJobs(ctx, v, *live); err != nil {
			return nil, nil, err
		}
	}
	results := map[*job]*Result{}
	var steps []step
	kept := (*live)[:0]
	defer func() {
		// Whatever happens, live keeps exactly the jobs not yet finished.
		*live = kept
	}()
	others := len(*live) > 1
	for i, j := range *live {
		if j.gone() { // withdrawn by its caller
			continue
		}
		var r *resolved
		var err error
		if pre != nil {
			r, err = c.completeResolve(ctx, pre.v, pre.r)
		} else {
			r, err = c.resolveJob(b.jobCtx(ctx, j), v, j, false, others)
		}
		if memberFault(err) {
			b.failJob(j, err, head, attempt)
			continue
		}
		if err != nil {
			kept = append(kept, (*live)[i:]...)
			return nil, nil, err
		}
		kept = append(kept, j)
		v.Apply(r.Effects)
		res := newResult(c, b.branch, r.changes)
		res.Attempts = attempt
		results[j] = res
		if len(r.Entries) > 0 {
			steps = append(steps, step{j, r})
		} else {
			res.NoOp, res.Commit, res.Tree = true, head, tree
		}
	}
	return results, steps, nil
}

// Batch-mates cannot harm each other (see Commit): a batch is an
// optimisation, and each of its change sets keeps its own guarantees
// (groupKey), its own error and its own deadline. What is one member's
// failure — a precondition, an edit function's error or panic, an edit
// still running past WithBatchEditGrace, content that cannot be read
// again, a context that ended before the batch's trees and commits were
// built — takes that member out with its own error, and the batch is
// resolved again on the same head without it, so that no commit holds a
// part of a member that is not in the batch. The stage every batch goes
// through: resolveAll (chained and squashed Git Data batches, and so
// Commit's and CommitPullRequest's) and stageOne (a squashed GraphQL
// Queue), with the edit functions run by tree.Resolver.RunEdit.

// finish hands j its outcome, once: it reports false when j already had
// one (it withdrew, or was taken out).
func (j *job) finish(res *Result, err error) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.over {
		return false
	}
	j.over, j.res, j.err = true, res, err
	close(j.done)
	return true
}

// withdraw finishes j with err unless its batch is building its trees
// and commits (sealed): from then on the batch decides.
func (j *job) withdraw(err error) bool {
	j.mu.Lock()
	sealed := j.sealed
	j.mu.Unlock()
	return !sealed && j.finish(nil, err)
}

// seal keeps j in its batch until the attempt ends; false: j is gone.
func (j *job) seal() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.sealed = !j.over
	return j.sealed
}

func (j *job) unseal() {
	j.mu.Lock()
	j.sealed = false
	j.mu.Unlock()
}

func (j *job) isSealed() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.sealed
}

func (j *job) gone() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.over
}

// sealAll seals the live jobs before their batch's first tree or commit
// is built. It reports false when one of them withdrew meanwhile: it is
// taken out, the others are unsealed, and the batch must be resolved
// again without it.
func sealAll(live *[]*job) bool {
	kept := (*live)[:0]
	ok := true
	for _, j := range *live {
		if j.seal() {
			kept = append(kept, j)
		} else {
			ok = false
		}
	}
	*live = kept
	if !ok {
		for _, j := range kept {
			j.unseal()
		}
	}
	return ok
}

// resolveJob resolves j's change set on v (see resolve) with its edit
// functions run by editRunner.
func (c *Committer) resolveJob(ctx context.Context, v *view, j *job, full, others bool) (*resolved, error) {
	rv := c.resolver()
	rv.RunEdit = editRunner(j, others)
	return c.resolveBy(ctx, rv, v, j.u.p, full)
}

// editRunner runs j's edit functions on a goroutine of their own and
// stops waiting when j's context ends or, when the batch holds others,
// after j's WithBatchEditGrace. A sealed j (an earlier write of its batch
// is not settled yet: its change may have landed) is waited for.
func editRunner(j *job, others bool) func(call func() ([]byte, error)) ([]byte, error) {
	return func(call func() ([]byte, error)) ([]byte, error) {
		if j.isSealed() {
			return call()
		}
		type result struct {
			data []byte
			err  error
		}
		ch := make(chan result, 1) // an abandoned edit's result goes here, unread
		go func() {
			data, err := call()
			ch <- result{data, err}
		}()
		var grace <-chan time.Time
		if others {
			t := time.NewTimer(j.c.o.editGrace)
			defer t.Stop()
			grace = t.C
		}
		select {
		case r := <-ch:
			return r.data, r.err
		case <-j.ctx.Done():
			return nil, fmt.Errorf("the caller's context ended while it ran: %w", j.ctx.Err())
		case <-grace:
			return nil, fmt.Errorf("%w (WithBatchEditGrace %s): taken out of the batch", ErrEditTooSlow, j.c.o.editGrace)
		}
	}
}

// uploadEach uploads each step's blobs, one change set at a time: a
// change set whose content cannot be read again is taken out (again is
// then true: the batch must be resolved anew without it).
func (b *batch) uploadEach(ctx context.Context, live *[]*job, steps []step, head string, attempt int) (again bool, err error) {
	for _, st := range steps {
		err := b.c.upload(b.jobCtx(ctx, st.j), st.r.Uploads)
		if err == nil {
			continue
		}
		if !memberFault(err) {
			return false, err
		}
		b.takeOut(live, st.j, err, head, attempt)
		again = true
	}
	return again, nil
}
