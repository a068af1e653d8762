package committer

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/internal/kind"
)

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

// uploadEach uploads each step's blobs, one change set at a time: a
// change set whose content cannot be read again is taken out (again is
// then true: the batch must be resolved anew without it).
func (b *batch) uploadEach(ctx context.Context, live *[]*job, steps []step, head string, attempt int) (again bool, err error) {
	for _, st := range steps {
		err := b.c.upload(ctx, st.r.Uploads)
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
