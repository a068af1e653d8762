package committer

import (
	"context"
	"errors"
)

// Queue is an explicit handle on the coordinator through which every
// commit this process makes to one branch goes (see Commit): its change
// sets land in batches, one ref update per batch, with the queue's own
// options. By default each change set keeps its own commit (message,
// author), chained one on another, exactly as concurrent calls of Commit
// do; with Squash the queue's change sets land as one commit. Each caller
// gets its own Result. Batch-mates cannot harm each other (see Commit): a
// change set whose precondition or edit function fails, whose edit
// function panics (*EditPanic) or outlasts WithBatchEditGrace
// (ErrEditTooSlow), whose content cannot be read again or that the engine
// cannot carry, is taken out of the batch with its own error, and the
// batch is built again on the same head without it; the others still
// land.
//
// Across processes nothing changes: the batch's ref update is a fast-forward
// like any other, retried on a new head when another writer wins. A Queue
// also remembers the head its branch's last batch made, so a commit that
// follows it skips reading the branch (three requests for a commit of
// small text files) unless another writer moved the branch in between.
//
// The coordinator's goroutine runs only while change sets are pending.
type Queue struct {
	c      *Committer
	branch string
	co     commitOptions
}

// NewQueue returns a queue of commits to branch. It takes the options
// of Commit that have a meaning for every commit of a queue
// (CreateBranchFrom, WithEngine) and the queue's own (Squash,
// WithMaxBatch). Queues of one branch (and Commit) share the process's
// coordinator of that branch, so they never race each other; change sets
// of different queues, credentials or options are serialized, never put
// in one batch.
func NewQueue(c *Committer, branch string, opts ...CommitOption) (*Queue, error) {
	const op = "queue for"
	co, err := c.commitOptions(op, branch, opts)
	if err != nil {
		return nil, err
	}
	if co.expectHead != "" {
		return nil, c.fail(op, branch, ErrInvalid, errors.New("ExpectHead has no meaning for a Queue: commit with Committer.Commit"))
	}
	if co.onProtected != nil {
		return nil, c.fail(op, branch, ErrInvalid, errors.New("WithPullRequestOnProtected has no meaning for a Queue: commit with Committer.Commit"))
	}
	if co.tag.Name != "" {
		return nil, c.fail(op, branch, ErrInvalid, errors.New("Tag has no meaning for a Queue (a tagged commit lands alone): commit with Committer.Commit"))
	}
	if err := co.engine.impl().Queue(co.squash); err != nil {
		return nil, c.fail(op, branch, ErrInvalid, err)
	}
	if co.maxBatch == 0 {
		co.maxBatch = defaultMaxBatch
	}
	return &Queue{c: c, branch: branch, co: co}, nil
}

// Commit queues cs and waits until it has landed (or failed) with its batch.
// It refuses exactly what Committer.Commit refuses, with the same Kind,
// before any request. If ctx ends while cs is still waiting for a batch,
// or while its batch resolves its change sets, it is withdrawn and ctx's
// error returned, and the batch goes on without it; once its batch builds
// trees and commits, Commit waits for the outcome, so a change set is
// never reported as failed and then lands.
func (q *Queue) Commit(ctx context.Context, cs *ChangeSet) (*Result, error) {
	u, err := q.c.prepareUnit("commit to", q.branch, cs)
	if err != nil {
		return nil, err
	}
	if err := q.c.engineGate("commit to", q.branch, u, q.co); err != nil {
		return nil, err
	}
	j := newJob(ctx, q.c, q.branch, q.co, u)
	j.q = q
	return q.c.coordinatorFor(q.branch).submit(j)
}
