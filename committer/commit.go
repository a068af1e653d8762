package committer

import (
	"context"
	"errors"
)

// Commit applies cs to branch as one new commit and moves the branch to it
// by fast-forward, never by force.
//
// Each attempt reads the branch's head, resolves cs against the head's tree
// (re-running edit functions on the content there), creates the tree and the
// commit, and updates the ref with force=false. When another writer moved the
// branch first (GitHub answers 422 "Update is not a fast forward"), it waits
// (see WithRetries) and tries again on the new head, up to WithRetries'
// attempts; running out is an ErrConflict. Only the answers that mean
// another writer moved the branch count as lost races (see docs/engines.md):
// a rate limit is waited out (ErrRateLimited, with Error.RetryAfter, when
// it refuses the last attempt too), a protection rule is ErrProtected, a
// refused redirect fails at once. When the ref update gets no
// answer (timeout, reset, 5xx), it reads the ref back and asks GitHub
// whether the new commit is in the branch's history: if it is, the commit
// landed; if that cannot be told, the error is ErrUnknownOutcome. The ref
// update is never re-sent blindly, so a change set lands at most once.
//
// cs is validated as a whole before any request; an invalid change set is an
// ErrInvalid error and nothing is sent. A failed precondition is an
// ErrConflict and nothing is committed. When the branch already holds the
// change set's content, no commit is made and Result.NoOp is true. On an
// empty repository, see Result.Bootstrapped.
//
// Commits of one process never race each other: every Commit (and every
// Queue.Commit) to a branch goes through the process's one coordinator of
// that branch (API, repository, branch). A commit that finds the branch
// idle runs at once, as alone: no extra request, no delay. Those that come
// while it is in flight wait, and land together next: each as its own
// commit (message, author, Result), chained on the one before, with one
// ref update. Only change sets of one credential (the client's, see
// ghclient.Config.Credential) and the same engine, signer, ref-update mode
// (WithFastForwardRefUpdates or not) and CreateBranchFrom share a batch:
// no option that changes a guarantee is ever lent to a batch-mate. The
// others, ExpectHead commits and the one-write engines go one after the
// other. A batch is sent by the Committer of its first change set: its
// client, attempts, backoff and landing grace apply, while every caller's
// observer and logger see the batch's events.
//
// Batch-mates cannot harm each other. A change set that fails in a batch
// (precondition, an edit function's error or panic, content that cannot
// be read again, what the engine cannot carry) gets its own error and the
// batch is built again on the same head without it; the others land. A
// panicking edit function is recovered where it runs: the error carries an
// *EditPanic (value and stack), alone or in a batch. While a commit waits
// for a batch, or its batch resolves its change sets, ctx ending withdraws
// it with ctx's error and the batch goes on without it; once its batch
// builds trees and commits, Commit waits for the outcome. An edit
// function that keeps its batch-mates waiting is given WithBatchEditGrace
// after it was called; then its change set is taken out (ErrEditTooSlow)
// and its result, when it comes, discarded. A commit alone runs on ctx.
// An edit function or observer must not commit to the same branch
// itself: it would wait for its own batch.
func (c *Committer) Commit(ctx context.Context, branch string, cs *ChangeSet, opts ...CommitOption) (*Result, error) {
	const op = "commit to"
	co, u, err := c.begin(op, branch, cs, opts)
	if err != nil {
		return nil, err
	}
	if co.squash || co.maxBatch != 0 {
		return nil, c.fail(op, branch, ErrInvalid, errors.New("Squash and WithMaxBatch are options of a Queue, not of a single commit"))
	}
	if err := c.engineGate(op, branch, u, co); err != nil {
		return nil, err
	}
	res, err := c.coordinatorFor(branch).submit(newJob(ctx, c, branch, co, u))
	if r, ok, perr := c.instead(ctx, branch, cs, co, err); ok {
		return r, perr
	}
	if res != nil && !res.NoOp && co.tag.Name != "" {
		res.Tag = co.tag.Name
	}
	return res, err
}
