package committer

import (
	"context"
	"errors"
	"fmt"
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

// instead commits cs through a pull request into branch when err is a
// refusal by a pull-request rule and co asks for it; ok is false when it
// does not apply.
func (c *Committer) instead(ctx context.Context, branch string, cs *ChangeSet, co commitOptions, err error) (res *Result, ok bool, perr error) {
	var e *Error
	if co.onProtected == nil || !errors.As(err, &e) || !errors.Is(err, ErrProtected) || e.Rule != "pull_request" {
		return nil, false, nil
	}
	head := co.onProtected.protectedHead(cs.Message)
	if head == branch {
		return nil, true, err
	}
	c.o.logger.DebugContext(ctx, "a pull-request rule refused the commit; opening a pull request instead", "branch", branch, "head", head)
	pr, perr := c.CommitPullRequest(ctx, branch, head, cs, co.onProtected.pr)
	if pr == nil || pr.Commit == nil {
		return nil, true, perr
	}
	out := *pr.Commit
	out.PullRequest = &ProtectedPullRequest{Number: pr.Number, URL: pr.URL, Created: pr.Created, Base: branch, Operation: pr.Operation}
	return &out, true, perr
}

// Plan resolves cs against the branch's current head and reports, path by
// path, whether it would be added, modified, deleted or left unchanged. It
// runs edit functions and checks preconditions (a failed one is an
// ErrConflict, as for Commit) but sends only reads: no blob, tree, commit or
// ref is created.
func (c *Committer) Plan(ctx context.Context, branch string, cs *ChangeSet, opts ...CommitOption) (*Plan, error) {
	const op = "plan for"
	co, u, err := c.begin(op, branch, cs, opts)
	if err != nil {
		return nil, err
	}
	// A dry run refuses what the chosen engine cannot carry, as Commit does.
	if err := c.engineGate(op, branch, u, co); err != nil {
		return nil, err
	}
	if co.squash || co.maxBatch != 0 {
		return nil, c.fail(op, branch, ErrInvalid, errors.New("Squash and WithMaxBatch are options of a Queue, not of a plan"))
	}
	d := &driver{c: c, op: op, branch: branch, co: co, w: &single{c: c, branch: branch, u: u}, dryRun: true}
	plan := &Plan{Repository: c.Repository(), Branch: branch}
	hr, err := d.head(ctx, 1)
	if err != nil {
		return nil, err
	}
	head, tree, creating := hr.head, hr.tree, hr.creating
	plan.NewBranch = creating
	if co.expectHead != "" && head != co.expectHead {
		e := c.fail(op, branch, ErrConflict, fmt.Errorf("head is %s, expected %s", short(head), short(co.expectHead)))
		e.Head = head
		return nil, e
	}
	plan.Head = head
	res, err := c.resolve(ctx, newViewAt(c, head, tree), u.p, true)
	if err != nil {
		e := c.fail(op, branch, nil, err)
		e.Head = head
		return nil, e
	}
	plan.Files = res.changes
	return plan, nil
}
