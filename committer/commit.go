package committer

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/ghcommitter/ghcommitter/committer/internal/changes"
	"github.com/ghcommitter/ghcommitter/committer/internal/prmerge"
	"github.com/ghcommitter/ghcommitter/committer/internal/rest"
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

// CommitAll commits the change sets css to branch as one batch: each its
// own commit (message, author, Result), chained on the one before in the
// order given, with one ref update (with the Git Data engine, 2×N+1 writes
// for N change sets of small text files). It is what N concurrent calls
// of Commit would do, without the race for the coordinator: an idle
// branch's first Commit runs alone, while CommitAll's change sets go
// together. More change sets than a batch carries (64, or fewer when
// their contents are large) go in consecutive batches, in order.
//
// Every change set and option is validated before any request: one that is
// invalid (ErrInvalid), or that its engine cannot carry, refuses the whole
// call, with an error that names it (change set i of N), and nothing is
// sent. Then the rules of any batch hold (see Commit): a change set whose
// precondition or edit function fails, or that cannot land for a reason
// of its own, is taken out with its own error, and the others land. The
// results come back in the order of css, nil for a change set that did not
// land; the error is nil when every one landed, else a *BatchError with
// each one's error. The options are Commit's; ExpectHead, Tag,
// WithPullRequestOnProtected, Squash and WithMaxBatch have no meaning for
// many commits and are refused.
func (c *Committer) CommitAll(ctx context.Context, branch string, css []*ChangeSet, opts ...CommitOption) ([]*Result, error) {
	const op = "commit to"
	co, err := c.commitOptions(op, branch, opts)
	if err != nil {
		return nil, err
	}
	if co.alone() || co.onProtected != nil || co.squash || co.maxBatch != 0 {
		return nil, c.fail(op, branch, ErrInvalid, errors.New("ExpectHead, Tag, WithPullRequestOnProtected, Squash and WithMaxBatch have no meaning for CommitAll: commit with Committer.Commit or a Queue"))
	}
	if len(css) == 0 {
		return nil, c.fail(op, branch, ErrInvalid, errors.New("CommitAll needs at least one change set"))
	}
	jobs, set := make([]*job, len(css)), new(byte) // set: see take
	for i, cs := range css {
		u, err := c.prepareUnit(op, branch, cs)
		if err == nil {
			err = c.engineGate(op, branch, u, co)
		}
		if err != nil {
			return nil, fmt.Errorf("change set %d of %d: %w", i+1, len(css), err)
		}
		jobs[i] = newJob(ctx, c, branch, co, u)
		jobs[i].set = set
	}
	res, errs := c.coordinatorFor(branch).submitAll(jobs)
	if errors.Join(errs...) == nil {
		return res, nil
	}
	return res, &BatchError{Errs: errs}
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
	out.PullRequest = &ProtectedPullRequest{Number: pr.Number, URL: pr.URL, Created: pr.Created, Base: branch, Operation: pr.Operation, Merge: pr.Merge}
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
	cfg := c.driverConfig(branch, co)
	cfg.DryRun = true
	b := &batch{c: c, branch: branch, co: co, live: []*job{newJob(ctx, c, branch, co, u)}, lone: true}
	d := c.newDriver(op, cfg, b, b.committers)
	plan := &Plan{Repository: c.Repository(), Branch: branch}
	hr, err := d.Head(ctx, 1)
	if err != nil {
		return nil, err
	}
	head, tree, creating := hr.Head, hr.Tree, hr.Creating
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

// CommitPullRequest commits cs to the branch head, creating head from base
// when it does not exist (see CreateBranchFrom), then opens a pull request
// from head into base, for branches that refuse direct pushes. When a pull
// request from head into base is already open, it is reused: the new commit
// simply adds to it, and its title and body are updated to this call's
// (pr.Title and pr.Body, or the message's defaults) where they differ,
// unless pr.KeepTitle or pr.KeepBody keeps them. pr's labels, reviewers and
// assignees are added in both cases.
//
// base and head are validated, and must differ, before any request is sent.
// The commit is made exactly as by Commit, through the same coordinator of
// head (fast-forward only, retried on a new head of head when another
// writer wins), with opts: WithEngine picks its engine, ExpectHead pins
// head's head, and CreateBranchFrom names another ref than base to create
// head from (the default is base). Opening the pull request is sent once
// and never retried; when it fails after the commit landed, the error is
// returned with a *PullRequestResult whose Commit says what landed.
//
// pr.Merge then merges the pull request at once, enables auto-merge or
// queues it, pinned to the commit that landed on head, and pr.Wait waits
// for the merge; a stale pull request is rebuilt on the base's head (see
// PullRequestOptions). PullRequestResult.Merge says what became of it,
// also when that fails after the commit landed.
//
// The token needs contents: write to commit and pull-requests: write to open
// the pull request. See https://docs.github.com/rest/pulls/pulls#create-a-pull-request.
func (c *Committer) CommitPullRequest(ctx context.Context, base, head string, cs *ChangeSet, pr PullRequestOptions, opts ...CommitOption) (*PullRequestResult, error) {
	const op = "open pull request for"
	if err := ValidateBranch(base); err != nil {
		return nil, c.fail(op, head, ErrInvalid, fmt.Errorf("base branch: %w", err))
	}
	if err := ValidateBranch(head); err != nil {
		return nil, c.fail(op, head, ErrInvalid, fmt.Errorf("head branch: %w", err))
	}
	if head == base {
		return nil, c.fail(op, head, ErrInvalid, fmt.Errorf("head and base are both %q: a pull request needs a separate head branch", head))
	}
	if cs == nil {
		return nil, c.fail(op, head, ErrInvalid, errors.New("change set must not be nil"))
	}
	if err := pr.checkMerge(); err != nil {
		return nil, c.fail(op, head, ErrInvalid, err)
	}
	res, err := c.Commit(ctx, head, cs, append([]CommitOption{CreateBranchFrom(base)}, opts...)...)
	if err != nil {
		return nil, err
	}
	out, err := c.openPullRequest(ctx, base, head, cs, pr, &PullRequestResult{Commit: res})
	if err != nil || out.Number == 0 || (pr.Merge == MergeNone && pr.Wait == 0) {
		return out, err
	}
	m, err := prmerge.Run(ctx, c.mergeEnv(head, cs, opts), prmerge.Target{Number: out.Number, Base: base, Head: res.Commit},
		prmerge.Request{Mode: pr.Merge, Method: pr.MergeMethod, Wait: pr.Wait, Progress: pr.OnWait, Rebuild: !pr.NoRebuild})
	if out.Merge = m; err != nil {
		return out, c.fail("merge pull request for", head, nil, err)
	}
	return out, nil
}

// openPullRequest opens the pull request from head into base after the
// commit res landed on head, or reuses (and updates) the open one.
func (c *Committer) openPullRequest(ctx context.Context, base, head string, cs *ChangeSet, pr PullRequestOptions, out *PullRequestResult) (*PullRequestResult, error) {
	title, body := changes.SplitMessage(cs.Message)
	if pr.Title != "" {
		title = pr.Title
	}
	if pr.Body != "" {
		body = pr.Body
	}
	// The commit landed: opening the pull request is sent like a landing
	// write (see WithLandingGrace), so a cancel does not leave it unknown.
	l := c.startLanding(ctx)
	got, err := c.rest.CreatePull(l.Ctx, rest.NewPullRequest{Title: title, Body: body, Head: head, Base: base, Draft: pr.Draft})
	err = l.Done(err)
	if err == nil {
		out.Number, out.URL, out.Created, out.Operation = got.Number, got.URL, true, PullRequestCreated
		return out, c.decorate(ctx, head, base, got, pr)
	}
	if !rest.Unprocessable(err) || rest.FieldError(err) {
		return out, c.prFail(head, base, err)
	}
	// 422 without a bad field: a pull request from head into base is already
	// open, or head holds no commit that base lacks. Look for the open one.
	rctx, cancel := c.settleContext(ctx)
	defer cancel()
	open, ferr := c.rest.OpenPull(rctx, base, head)
	if ferr != nil {
		return out, c.prFail(head, base, ferr)
	}
	if open == nil {
		if out.Commit.NoOp {
			return out, nil // nothing to propose
		}
		return out, c.prFail(head, base, err)
	}
	pr.Title, pr.Body = title, body // this call's, defaults included
	return c.reusePullRequest(ctx, base, head, *open, pr, out)
}

// reusePullRequest updates the open pull request from head into base to
// pr's title, body, labels, reviewers and assignees.
func (c *Committer) reusePullRequest(ctx context.Context, base, head string, open rest.PullRequest, pr PullRequestOptions, out *PullRequestResult) (*PullRequestResult, error) {
	out.Number, out.URL, out.Operation = open.Number, open.URL, PullRequestUnchanged
	if !out.Commit.NoOp {
		out.Operation = PullRequestUpdated
	}
	edited, err := c.editPullRequest(ctx, head, base, open, pr)
	if edited {
		out.Operation = PullRequestUpdated
	}
	if err != nil {
		return out, err
	}
	return out, c.decorate(ctx, head, base, open, pr)
}

// editPullRequest sets a reused pull request's title and body to pr's
// where they differ and are not kept, and reports whether it did.
func (c *Committer) editPullRequest(ctx context.Context, head, base string, open rest.PullRequest, pr PullRequestOptions) (bool, error) {
	var title, body *string
	if !pr.KeepTitle && pr.Title != "" && pr.Title != open.Title {
		title = &pr.Title
	}
	if !pr.KeepBody && pr.Body != open.Body {
		body = &pr.Body
	}
	if title == nil && body == nil {
		return false, nil
	}
	l := c.startLanding(ctx)
	err := c.rest.EditPull(l.Ctx, open.Number, title, body)
	if err = l.Done(err); err != nil {
		return false, c.prFail(head, base, fmt.Errorf("update pull request #%d: %w", open.Number, err))
	}
	return true, nil
}

// decorate adds pr's labels, reviewers and assignees that p lacks.
func (c *Committer) decorate(ctx context.Context, head, base string, p rest.PullRequest, pr PullRequestOptions) error {
	labels := missing(pr.Labels, p.Labels, false)
	reviewers := missing(pr.Reviewers, p.Reviewers, true)
	assignees := missing(pr.Assignees, p.Assignees, true)
	n := p.Number
	l := c.startLanding(ctx)
	var err error
	if len(labels) > 0 && err == nil {
		err = wrapIf(c.rest.AddLabels(l.Ctx, n, labels), "add labels to #%d", n)
	}
	if len(reviewers) > 0 && err == nil {
		err = wrapIf(c.rest.RequestReviewers(l.Ctx, n, reviewers), "request reviewers for #%d", n)
	}
	if len(assignees) > 0 && err == nil {
		err = wrapIf(c.rest.AddAssignees(l.Ctx, n, assignees), "add assignees to #%d", n)
	}
	if err = l.Done(err); err != nil {
		e := c.prFail(head, base, err)
		if rest.Status(err) == http.StatusUnprocessableEntity {
			// Not the pull request itself: what was asked of it.
			e.Hint = fmt.Sprintf("the commit landed on %s and pull request #%d is open; GitHub refused a label, reviewer or assignee: check them (a review cannot be requested from the pull request's author)", head, n)
		}
		return e
	}
	return nil
}

func (c *Committer) prFail(head, base string, err error) *Error {
	e := c.fail("open pull request for", head, nil, fmt.Errorf("into %s: %w", base, err))
	switch rest.Status(err) {
	case http.StatusForbidden, http.StatusNotFound:
		e.Hint = "the commit landed on " + head + "; opening the pull request needs the pull-requests: write permission"
	case http.StatusUnprocessableEntity:
		e.Kind = ErrInvalid
		e.Hint = "the commit landed on " + head + "; check that " + base + " exists and that " + head + " has commits " + base + " lacks"
	}
	return e
}

// mergeEnv is prmerge's Env for head's pull request, of cs: Rebuild
// commits cs to head again on the base's head (git-data: GraphQL makes no
// merge commit); Ours knows cs's commits by message, Edit-Id aside.
func (c *Committer) mergeEnv(head string, cs *ChangeSet, opts []CommitOption) prmerge.Env {
	msg := changes.WithoutEditID(cs.Message)
	return prmerge.Env{REST: c.rest, GQL: c.gql, Owner: c.owner, Repo: c.repo, Sleep: c.o.sleep,
		Ours: func(message string) bool { return changes.WithoutEditID(message) == msg },
		Rebuild: func(ctx context.Context, old, baseHead, baseTree string) (string, error) {
			o := append(slices.Clone(opts), WithEngine(EngineGitData), ExpectHead(old), rebuildOnto(baseHead, baseTree))
			res, err := c.Commit(ctx, head, cs, o...)
			if err != nil {
				return "", err
			}
			return res.Commit, nil
		}}
}
