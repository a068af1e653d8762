package committer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/ghclient"
	"github.com/google/go-github/v66/github"
)

// Commit applies cs to branch as one new commit and moves the branch to it
// by fast-forward, never by force.
//
// Each attempt reads the branch's head, resolves cs against the head's tree
// (re-running edit functions on the content there), creates the tree and the
// commit, and updates the ref with force=false. When another writer moved the
// branch first (GitHub answers 422 "Update is not a fast forward"), it waits
// (see WithBackoff) and tries again on the new head, up to WithMaxAttempts
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
// ghclient.Config.Credential) and the same engine, signer and
// CreateBranchFrom share a batch; the others, ExpectHead commits and the
// one-write engines go one after the other. A change set that fails in a
// batch (precondition, edit, what the engine cannot carry) gets its own
// error and the others land. A batch is sent by the Committer of its first
// change set: its client, attempts, backoff and landing grace apply,
// while every caller's observer and logger see the batch's events. While
// a commit waits for a batch, ctx ending withdraws it; once its batch is
// sent, Commit waits for the outcome. An edit function or observer must
// not commit to the same branch itself: it would wait for its own batch.
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
	if r, perr, ok := c.instead(ctx, branch, cs, co, err); ok {
		return r, perr
	}
	if res != nil && !res.NoOp && co.tag.name != "" {
		res.Tag = co.tag.name
	}
	return res, err
}

// unit is one change set on its way to the branch.
type unit struct {
	cs      *ChangeSet
	p       *prepared
	message string
	editID  string  // the EditIDTrailer value message ends with; "" when none
	boot    *booted // set when this change set started an empty repository
}

// begin validates a commit's options and change set, before any request:
// the one gate of Commit, Plan and Queue.Commit.
func (c *Committer) begin(op, branch string, cs *ChangeSet, opts []CommitOption) (commitOptions, *unit, error) {
	co, err := c.commitOptions(op, branch, opts)
	if err != nil {
		return co, nil, err
	}
	u, err := c.prepareUnit(op, branch, cs)
	return co, u, err
}

func (c *Committer) commitOptions(op, branch string, opts []CommitOption) (commitOptions, error) {
	var co commitOptions
	for _, opt := range opts {
		if opt == nil {
			continue
		}
		if err := opt(&co); err != nil {
			return co, c.fail(op, branch, ErrInvalid, err)
		}
	}
	if err := ValidateBranch(branch); err != nil {
		return co, c.fail(op, branch, ErrInvalid, err)
	}
	if co.expectHead != "" && !isSHA(co.expectHead) {
		return co, c.fail(op, branch, ErrInvalid, fmt.Errorf("expected head %q is not a 40-digit commit SHA", co.expectHead))
	}
	if err := co.tag.check(); err != nil {
		return co, c.fail(op, branch, ErrInvalid, err)
	}
	if co.onProtected != nil && co.tag.name != "" {
		return co, c.fail(op, branch, ErrInvalid, errors.New("Tag and WithPullRequestOnProtected cannot be combined: tag the merge commit once the pull request is merged"))
	}
	if co.createFrom != "" && !isSHA(co.createFrom) {
		if err := ValidateBranch(co.createFrom); err != nil {
			return co, c.fail(op, branch, ErrInvalid, fmt.Errorf("base ref: %w", err))
		}
	}
	return co, nil
}

func (c *Committer) prepareUnit(op, branch string, cs *ChangeSet) (*unit, error) {
	p, err := prepare(cs)
	if err != nil {
		return nil, c.fail(op, branch, ErrInvalid, err)
	}
	if c.o.signer != nil && cs.Author == nil {
		return nil, c.fail(op, branch, ErrInvalid, errors.New("signing a commit needs an author: set ChangeSet.Author"))
	}
	msg, id := commitMessage(cs, p)
	return &unit{cs: cs, p: p, message: msg, editID: id}, nil
}

// work is what one run of the attempt driver lands: one change set
// (Commit) or a batch of them (Queue).
type work interface {
	// prune finishes the callers that gave up and reports whether any is
	// left. With settling set, an earlier ref update of this work is still
	// unsettled, so nobody may leave: their change may yet land.
	prune(settling bool) bool
	// first returns the first change set still to land.
	first() *unit
	// size is the number of change sets still to land.
	size() int
	// drop finishes u alone with err, when the work can go on without it
	// (a batch); it reports false when err must end the whole work.
	drop(u *unit, err *Error) bool
	// build resolves the work on head's tree and creates its trees and
	// commits. It returns the new tip (head itself when nothing changes);
	// left is false when no caller is left.
	build(ctx context.Context, head, tree string, attempt int) (tip, tipTree string, left bool, err error)
	// land hands out the results: tip, which build returned, is on the
	// branch (or is its unchanged head).
	land(tip string, attempt int, created bool)
	// fail finishes every caller left with err.
	fail(err error)
}

// driver runs the attempts of one commit or batch: read the head, build,
// move the branch or settle, back off. It alone holds the exactly-once
// checks, rate-limit waits, bootstrap and branch creation.
type driver struct {
	c      *Committer
	op     string
	branch string
	co     commitOptions
	w      work
	// known returns a head this process made and the tree it has, to
	// skip reading the branch on the first attempt (a Queue's last batch).
	known func() (head, tree string)
	// forget drops that head after a lost race.
	forget func()
	// dryRun: only read (Plan); an empty repository is not bootstrapped.
	dryRun bool
	// watchers are the committers whose observers see the work's events
	// (a batch's callers); nil: c's alone.
	watchers func() []*Committer

	retries   int             // attempts made again without counting (errRetry)
	fromKnown bool            // this attempt built on known's head, not one read
	unsent    int             // attempts lost before any write, made again without counting (errUnsent)
	ours      map[string]bool // commits we created as new tips
	unsettled []string        // tips whose ref write had no clear answer
	lastHead  string
	pending   []pendingWrite // one-write commits whose reply was lost
	cands     []Engine       // the one-write engines auto may pick
	created   bool           // a one-write engine created the branch first
	wait      time.Duration  // at least this long before the next attempt
	lost      time.Duration  // how long the last lost attempt took
	// limited is the rate-limit refusal that ended the last attempt (nil
	// when it ended otherwise), and refusals counts such attempts: when
	// attempts run out, the work is ErrRateLimited, not a lost race.
	limited  *refusedError
	refusals int
}

// errRetry ends an attempt that must be made again without counting it
// (the repository stopped being empty while we bootstrapped it).
var errRetry = errors.New("retry")

func (d *driver) run(ctx context.Context) {
	d.ours = map[string]bool{}
	var at atomic.Int64 // the attempt the HTTP layer's waits are reported for
	ctx = d.observeWaits(ctx, &at)
	for attempt := 1; attempt <= d.c.o.maxAttempts; attempt++ {
		at.Store(int64(attempt))
		if attempt > 1 {
			if err := d.pause(ctx, attempt); err != nil {
				d.end(ctx, d.errAt(err, d.lastHead, attempt-1), attempt-1)
				return
			}
		}
		if !d.w.prune(d.open()) {
			return
		}
		done, err := d.attempt(ctx, attempt)
		if d.fromKnown && err != nil && ctx.Err() == nil && len(d.unsettled) == 0 && len(d.pending) == 0 {
			// The head this process remembered, not read, may be gone
			// (the repository was made anew, or the branch reset and
			// its objects dropped: GitHub answers 404, or 422 for a
			// base_tree it does not have). Nothing of the attempt can
			// have landed: read the branch and try again, without
			// counting; what holds on the head read fails the same way.
			d.fromKnown = false
			d.forget()
			attempt--
			continue
		}
		d.fromKnown = false
		if errors.Is(err, errUnsent) {
			// Lost before any write (see moved): made again without
			// counting, up to WithMaxAttempts times.
			if d.unsent < d.c.o.maxAttempts {
				d.unsent++
				attempt--
			}
			continue
		}
		if errors.Is(err, errRetry) && d.retries < d.c.o.maxAttempts {
			d.retries++
			attempt--
			continue
		}
		if errors.Is(err, errRetry) {
			err = d.errAt(errors.New("the repository kept changing between empty and not empty"), d.lastHead, attempt)
		}
		if err != nil {
			d.end(ctx, err, attempt)
			return
		}
		if done {
			return
		}
	}
	d.end(ctx, d.outOfAttempts(), d.c.o.maxAttempts)
}

// outOfAttempts is the error of a work whose attempts all ended without
// landing: ErrRateLimited when GitHub's rate limit refused the last one,
// else ErrConflict (another writer moved the branch).
func (d *driver) outOfAttempts() *Error {
	n := d.c.o.maxAttempts
	if d.limited != nil {
		return d.rateLimited(n, fmt.Sprintf("GitHub's rate limit refused %d of %d attempts, the last one too", d.refusals, n))
	}
	msg := fmt.Sprintf("another writer moved the branch on each of %d attempts", n)
	if d.refusals > 0 {
		msg = fmt.Sprintf("another writer moved the branch on %d of %d attempts (GitHub's rate limit refused the others)", n-d.refusals, n)
	}
	e := d.c.fail(d.op, d.branch, ErrConflict, errors.New(msg))
	e.Head, e.Attempts = d.lastHead, n
	e.Hint = "raise the attempt limit (WithMaxAttempts) or spread the writers out"
	return e
}

// rateLimited is the ErrRateLimited of a work whose last attempt (of
// attempts) GitHub's rate limit refused, asking to wait d.wait.
func (d *driver) rateLimited(attempts int, msg string) *Error {
	cause := d.limited.err
	if ce := (*Error)(nil); errors.As(cause, &ce) && ce.Err != nil {
		cause = ce.Err // a read's error, already an *Error of this work
	}
	e := d.c.fail(d.op, d.branch, ErrRateLimited, fmt.Errorf("%s: %w", msg, cause))
	e.Head, e.Attempts, e.RetryAfter = d.lastHead, attempts, d.wait
	wait := d.wait
	if wait >= time.Second {
		wait = wait.Round(time.Second)
	}
	e.Hint = fmt.Sprintf("nothing was committed; wait %s before trying again, and spread the writers out", wait)
	return e
}

func (d *driver) pause(ctx context.Context, attempt int) error {
	wait := max(d.c.o.backoff(attempt, d.lost), d.wait)
	d.wait = 0
	d.debug(ctx, "backing off", "repo", d.c.Repository(), "branch", d.branch, "attempt", attempt, "wait", wait)
	return d.c.o.sleep(ctx, wait)
}

// attempt makes one attempt; done is true when the work is finished.
func (d *driver) attempt(ctx context.Context, attempt int) (done bool, err error) {
	d.observe(Event{Kind: EventAttempt, Branch: d.branch, Attempt: attempt, Changes: d.w.size()})
	d.limited = nil
	started := time.Now()
	// A stretched attempt is a lost attempt: the pacer's wait for the
	// attempt's writes comes before it reads the head, and they then go
	// back to back.
	ctx, release := ghclient.ReserveWrites(ctx, d.attemptWrites())
	defer release()
	head, tree, creating, err := d.head(ctx, attempt)
	if err != nil {
		return d.refusedOr(err, attempt)
	}
	if d.settled(ctx, head, attempt) || d.settledOneWrite(ctx, head, attempt) {
		return true, nil
	}
	if d.co.expectHead != "" && head != d.co.expectHead {
		e := d.c.fail(d.op, d.branch, ErrConflict, fmt.Errorf("head is %s, expected %s", short(head), short(d.co.expectHead)))
		e.Head = head
		return true, e
	}
	d.lastHead = head
	if d.lost > 0 {
		ctx = contendedContext(ctx) // a race was lost: look before writing (see moved)
	}
	if d.co.engine != EngineGitData {
		if done, err, handled := d.oneWrite(ctx, head, tree, creating, attempt, started); handled {
			return done, err
		}
		creating = creating && !d.created
	}
	tip, _, left, err := d.w.build(ctx, head, tree, attempt)
	if errors.Is(err, errMoved) {
		d.lostRace(ctx, head, attempt, started)
		if errors.Is(err, errUnsent) {
			return false, err // made again without counting (see run)
		}
		return false, nil
	}
	if err != nil {
		return d.refusedOr(err, attempt)
	}
	if !left {
		return true, nil
	}
	if tip == head && !creating {
		d.landed(tip, attempt, d.created)
		return true, nil
	}
	return d.move(ctx, head, tip, creating, attempt, started)
}

// attemptWrites is how many writes an attempt sends when nothing is
// uploaded: one through a one-write engine; else a tree and a commit per
// commit built, and the ref update. None in a dry run.
func (d *driver) attemptWrites() int {
	switch {
	case d.dryRun:
		return 0
	case d.co.engine == EngineGraphQL || d.co.engine == EngineContents || d.co.engine == EngineAuto && len(d.cands) > 0:
		return 1
	case d.co.squash:
		return 3
	}
	return 2*d.w.size() + 1
}

// refusedOr turns a rate-limit refusal into a wait before the next attempt
// and any other error into the work's error.
func (d *driver) refusedOr(err error, attempt int) (bool, error) {
	var re *refusedError
	if !errors.As(err, &re) {
		// A secondary limit on a read or an object write, once the
		// transport's own retries ran out: wait it out like one on the ref.
		_ = errors.As(refused("", err), &re)
	}
	if re != nil {
		d.wait = re.wait
		if re.bare {
			d.wait = max(d.wait, d.c.o.secondaryFloor)
		}
		d.limited = re
		d.refusals++
		d.observe(Event{Kind: EventRateLimitWait, Branch: d.branch, Attempt: attempt, Wait: d.wait})
		d.debug(context.Background(), "write refused by a rate limit", "repo", d.c.Repository(), "branch", d.branch, "wait", d.wait)
		if most := d.c.o.maxLimitWait; d.wait > most {
			// The transport fails a read with such a wait at once; so
			// does the commit loop, instead of sleeping it out.
			return true, d.rateLimited(attempt, fmt.Sprintf("GitHub's rate limit asks to wait %s, longer than the %s this client waits (ghclient.WithMaxRateLimitWait)", d.wait.Round(time.Second), most))
		}
		return false, nil
	}
	var e *Error
	if errors.As(err, &e) || errors.Is(err, errRetry) {
		return true, err
	}
	return true, d.errAt(err, d.lastHead, attempt)
}

// observe reports e to the observers of every caller of the work.
func (d *driver) observe(e Event) {
	if d.watchers == nil {
		d.c.observe(e)
		return
	}
	for _, c := range d.watchers() {
		c.observe(e)
	}
}

// debug logs msg to the logger of every caller of the work (each logger
// once).
func (d *driver) debug(ctx context.Context, msg string, args ...any) {
	if d.watchers == nil {
		d.c.o.logger.DebugContext(ctx, msg, args...)
		return
	}
	seen := map[*slog.Logger]bool{}
	for _, c := range d.watchers() {
		if l := c.o.logger; !seen[l] {
			seen[l] = true
			l.DebugContext(ctx, msg, args...)
		}
	}
}

func (d *driver) errAt(err error, head string, attempts int) *Error {
	e := d.c.fail(d.op, d.branch, nil, err)
	e.Head, e.Attempts = head, attempts
	return e
}

// head reads the branch's head; a missing branch is created from the base
// of CreateBranchFrom (creating is then true) and an empty repository is
// bootstrapped.
func (d *driver) head(ctx context.Context, attempt int) (head, tree string, creating bool, err error) {
	if attempt == 1 && d.known != nil {
		if head, tree = d.known(); head != "" {
			d.fromKnown = true
			return head, tree, false, nil
		}
	}
	head, tree, err = d.c.readHead(ctx, d.branch)
	switch {
	case errors.Is(err, errBranchMissing):
		if d.co.createFrom == "" {
			var re *redirectedError
			if errors.As(err, &re) {
				return "", "", false, d.c.missingBranch(d.op, d.branch, re)
			}
			return "", "", false, d.c.missingBranch(d.op, d.branch, nil)
		}
		head, tree, err = d.c.resolveBase(ctx, d.co.createFrom)
		if err != nil {
			return "", "", false, d.c.fail(d.op, d.branch, nil, err)
		}
		return head, tree, true, nil
	case errors.Is(err, errEmptyRepo) && d.dryRun:
		if _, err := d.c.planBootstrap(ctx, d.w.first().p); err != nil {
			return "", "", false, d.c.fail(d.op, d.branch, nil, err)
		}
		return "", "", false, nil
	case errors.Is(err, errEmptyRepo):
		head, tree, err = d.bootstrap(ctx)
		return head, tree, false, err
	case err != nil:
		return "", "", false, d.c.fail(d.op, d.branch, nil, err)
	}
	return head, tree, false, nil
}

// bootstrap starts an empty repository with the first change set that can
// start it; one that cannot is taken out of a batch with its own error.
func (d *driver) bootstrap(ctx context.Context) (head, tree string, err error) {
	for {
		u := d.w.first()
		if u == nil {
			return "", "", errRetry
		}
		head, tree, err = d.c.bootstrap(ctx, d.branch, u)
		var pe *pathError
		if errors.As(err, &pe) && d.w.drop(u, d.c.fail(d.op, d.branch, nil, err)) {
			continue
		}
		if err != nil && !errors.Is(err, errRetry) {
			var re *refusedError
			if errors.As(err, &re) {
				return "", "", err
			}
			return "", "", d.c.fail(d.op, d.branch, nil, err)
		}
		return head, tree, err
	}
}

// settled lands the work when head is, or descends from, a commit of ours
// whose ref write had no clear answer: a change set never lands twice.
// Unsettled commits are checked first, before anything is built.
func (d *driver) settled(ctx context.Context, head string, attempt int) bool {
	if d.ours[head] {
		d.landed(head, attempt, false)
		return true
	}
	for _, tip := range d.unsettled {
		in, err := d.c.landedIn(ctx, head, tip)
		if err != nil {
			e := d.c.fail(d.op, d.branch, ErrUnknownOutcome, fmt.Errorf("an earlier ref update had no answer, and whether it landed cannot be told: %w", err))
			e.Head, e.Attempts = head, attempt
			e.Hint = "read the branch before retrying"
			d.w.fail(e)
			return true
		}
		if in {
			d.debug(ctx, "our earlier commit landed", "commit", tip, "head", head)
			d.landed(tip, attempt, false)
			return true
		}
	}
	return false
}

func (d *driver) landed(tip string, attempt int, created bool) {
	d.observe(Event{Kind: EventLanded, Branch: d.branch, Attempt: attempt, Commit: tip, Changes: d.w.size()})
	d.w.land(tip, attempt, created)
}

// move creates or fast-forwards the branch to tip and acts on the outcome.
func (d *driver) move(ctx context.Context, head, tip string, creating bool, attempt int, started time.Time) (bool, error) {
	if tip != head {
		d.ours[tip] = true
	}
	var mv refMove
	var err error
	if creating {
		mv, err = d.c.createTagged(ctx, d.branch, tip, d.co.tag)
	} else {
		mv, err = d.c.moveRef(ctx, d.branch, head, tip, d.co.tag)
	}
	if mv.ambiguous && !mv.won {
		d.unsettled = append(d.unsettled, tip)
	}
	var re *refusedError
	switch {
	case mv.missing && d.co.createFrom == "":
		return true, d.c.missingBranch(d.op, d.branch, err)
	case mv.missing: // try again: the next attempt creates it
	case errors.As(err, &re):
		return d.refusedOr(err, attempt)
	case err != nil:
		e := d.c.fail(d.op, d.branch, nil, err)
		e.Head, e.Attempts = head, attempt
		return true, e
	case mv.won:
		d.landed(tip, attempt, creating || d.created)
		return true, nil
	}
	if d.forget != nil {
		d.forget()
	}
	d.lost = time.Since(started)
	d.observe(Event{Kind: EventLostRace, Branch: d.branch, Attempt: attempt, Head: head, Took: d.lost, Changes: d.w.size()})
	d.debug(ctx, "lost the race for the branch", "repo", d.c.Repository(), "branch", d.branch, "attempt", attempt, "head", head, "took", d.lost)
	return false, nil
}

// single is the work of Commit: one change set.
type single struct {
	c       *Committer
	branch  string
	u       *unit
	results map[string]*Result // by the tip each attempt built
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

func (s *single) stageOne(ctx context.Context, engine Engine, cands []Engine, head, tree string, attempt int) (*staged, *unit, error) {
	s.pre = nil
	st, err := s.c.stage(ctx, s.u, engine, cands, head, tree, func(v *view, r *resolved) {
		s.pre = &preResolved{head: head, v: v, r: r}
	})
	if err != nil {
		if engine == EngineAuto && isOneWriteError(err) {
			return nil, nil, err
		}
		return nil, nil, s.failAt(head, attempt, err)
	}
	st.res.Branch = s.branch
	st.finish = func(commit, tree, parent string) {
		r := *st.res
		r.Commit, r.Tree, r.Parent, r.Engine = commit, tree, parent, st.engine.String()
		if parent == "" {
			r.NoOp, r.Changed = true, []string{}
		}
		s.results[commit] = &r
	}
	return st, s.u, nil
}

func (s *single) prune(bool) bool { return s.res == nil && s.err == nil }

func (s *single) first() *unit { return s.u }

func (s *single) size() int { return 1 }

func (s *single) drop(*unit, *Error) bool { return false }

func (s *single) fail(err error) { s.err = s.u.boot.annotate(err) }

// failAt is the error of an attempt on head that cannot go on.
func (s *single) failAt(head string, attempt int, err error) error {
	e := s.c.fail("commit to", s.branch, nil, err)
	e.Head, e.Attempts = head, attempt
	return s.u.boot.annotate(e)
}

func (s *single) build(ctx context.Context, head, tree string, attempt int) (string, string, bool, error) {
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
		return "", "", false, s.u.boot.annotate(e)
	}
	res := newResult(s.c, s.branch, r.changes)
	res.Parent, res.Commit, res.Tree = head, head, tree
	if len(r.entries) > 0 {
		contended := isContended(ctx)
		if contended && s.c.moved(ctx, s.branch, head) {
			if len(r.subtrees) > 0 {
				return "", "", false, errMovedAfterWrites // resolve created them
			}
			return "", "", false, errUnsent
		}
		if err := s.c.upload(ctx, r.uploads); err != nil {
			return "", "", false, err
		}
		newTree, err := s.c.createTree(ctx, tree, r.entries)
		if err != nil {
			return "", "", false, err
		}
		if newTree != tree {
			// Looked at again before the commit: a move seen now costs
			// the tree alone, where the watch below costs the commit too.
			if contended && s.c.moved(ctx, s.branch, head) {
				return "", "", false, errMovedAfterWrites
			}
			moved := func() bool { return false }
			if contended {
				moved = s.c.watchMoved(ctx, s.branch, head)
			}
			commit, err := s.c.createCommit(ctx, s.u.cs, s.u.message, head, newTree)
			if moved() && err == nil {
				return "", "", false, errMovedAfterWrites // the ref update would lose: not sent
			}
			if err != nil {
				return "", "", false, err
			}
			res.Commit, res.Tree = commit, newTree
		}
	}
	if res.Commit == head {
		res.NoOp, res.Parent, res.Changed = true, "", []string{}
	}
	s.results[res.Commit] = res
	return res.Commit, res.Tree, true, nil
}

func (s *single) land(tip string, attempt int, created bool) {
	r := s.results[tip]
	r.Attempts, r.CreatedBranch = attempt, created
	if r.Engine == "" {
		r.Engine = EngineGitData.String()
	}
	s.u.boot.apply(r)
	s.res = r
}

// completeResolve makes a resolution made without writing (resolve with
// full set) into what resolve makes for a commit: its subtrees created,
// the trees it makes predicted, only the paths it changes listed.
func (c *Committer) completeResolve(ctx context.Context, v *view, r *resolved) (*resolved, error) {
	if err := c.buildSubtrees(ctx, r); err != nil {
		return nil, err
	}
	if len(v.over) == 0 {
		c.predictTrees(v.root, r)
	}
	changes := r.changes[:0:0]
	for _, f := range r.changes {
		if f.Action != Unchanged {
			changes = append(changes, f)
		}
	}
	r.changes = changes
	return r, nil
}

func newResult(c *Committer, branch string, changes []FileChange) *Result {
	r := &Result{Repository: c.Repository(), Branch: branch, Files: changes, Changed: []string{}}
	for _, f := range changes {
		if f.Action != Unchanged {
			r.Changed = append(r.Changed, f.Path)
		}
	}
	return r
}

// createTree creates a tree of entries on base (in chunks: see
// createTreeInChunks).
func (c *Committer) createTree(ctx context.Context, base string, entries []*github.TreeEntry) (string, error) {
	t, err := c.createTreeInChunks(ctx, base, entries)
	if err != nil {
		return "", fmt.Errorf("create tree: %w", err)
	}
	return t.GetSHA(), nil
}

func (c *Committer) createCommit(ctx context.Context, cs *ChangeSet, message, parent, tree string) (string, error) {
	commit := &github.Commit{
		Message: github.String(message),
		Tree:    &github.Tree{SHA: github.String(tree)},
		Parents: []*github.Commit{{SHA: github.String(parent)}},
	}
	if parent == "" {
		commit.Parents = nil
	}
	commit.Author = toAuthor(cs.Author)
	commit.Committer = toAuthor(cs.Committer)
	var opts *github.CreateCommitOptions
	if c.o.signer != nil {
		if commit.Author == nil {
			return "", errors.New("signing a commit needs an author")
		}
		if commit.Author.Date == nil {
			commit.Author.Date = &github.Timestamp{Time: time.Now().Truncate(time.Second)}
		}
		if commit.Committer == nil {
			cp := *commit.Author
			commit.Committer = &cp
		}
		if commit.Committer.Date == nil {
			commit.Committer.Date = commit.Author.Date
		}
		opts = &github.CreateCommitOptions{Signer: github.MessageSignerFunc(c.o.signer.Sign)}
	}
	got, _, err := c.client.Git.CreateCommit(ctx, c.owner, c.repo, commit, opts)
	if err != nil {
		return "", fmt.Errorf("create commit: %w", err)
	}
	return got.GetSHA(), nil
}

func toAuthor(s *Signature) *github.CommitAuthor {
	if s == nil {
		return nil
	}
	a := &github.CommitAuthor{Name: github.String(s.Name), Email: github.String(s.Email)}
	if !s.Date.IsZero() {
		a.Date = &github.Timestamp{Time: s.Date}
	}
	return a
}
