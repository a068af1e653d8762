package committer

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ghcommitter/ghcommitter/committer/internal/changes"
	"github.com/ghcommitter/ghcommitter/committer/internal/engine"
)

// Every commit a process makes to a branch — Commit, CommitPullRequest's
// commit, a Queue's — goes through one coordinator per (API, repository,
// branch): the process's writers never race each other there. A change
// set that finds the branch idle starts at once (no delay, no request more
// than alone); the ones that come while a batch is in flight wait and go
// together in the next one: one chain of commits (each its own) and one
// ref update. Change sets batch only with those of one group (groupKey):
// one credential and one set of commit-shaping options; the others wait
// their turn, in order.

// coordKey names a coordinator.
type coordKey struct {
	process string // "" for this process (see options.process)
	api     string // the REST API root
	repo    string // owner/name, lower case as GitHub compares them
	branch  string
}

// coordinators is the process's registry.
var coordinators = struct {
	mu sync.Mutex
	m  map[coordKey]*coordinator
}{m: map[coordKey]*coordinator{}}

// coordPrune is the registry size above which idle coordinators are dropped.
const coordPrune = 1024

// defaultMaxBatch is the most change sets one batch carries (WithMaxBatch).
const defaultMaxBatch = 64

// coordinatorFor returns the coordinator of branch, creating it.
func (c *Committer) coordinatorFor(branch string) *coordinator {
	k := coordKey{process: c.o.process, api: c.rest.BaseURL(), repo: strings.ToLower(c.Repository()), branch: branch}
	coordinators.mu.Lock()
	defer coordinators.mu.Unlock()
	co := coordinators.m[k]
	if co == nil {
		if len(coordinators.m) >= coordPrune {
			for key, o := range coordinators.m {
				if o.idle() {
					delete(coordinators.m, key)
				}
			}
		}
		co = &coordinator{}
		coordinators.m[k] = co
	}
	co.users.Add(1) // until submit returns: never pruned in between
	return co
}

// coordinator serializes and batches the commits to one branch.
type coordinator struct {
	users   atomic.Int32 // callers between coordinatorFor and submit's end
	mu      sync.Mutex
	pending []*job
	leading bool
	head    string // the head the last batch made, and its tree
	tree    string
}

func (co *coordinator) idle() bool {
	co.mu.Lock()
	defer co.mu.Unlock()
	return co.users.Load() == 0 && !co.leading && len(co.pending) == 0
}

// job is one caller's change set waiting for, or in, a batch.
type job struct {
	ctx context.Context
	c   *Committer // the caller's
	co  commitOptions
	u   *unit
	q   *Queue // the Queue it came through; nil for Commit
	// branch is the branch it commits to
	branch string
	done   chan struct{}
	res    *Result
	err    error
	// mu guards over (finished: res and err are set, done is closed) and
	// sealed (its batch is building trees and commits; see withdraw).
	mu     sync.Mutex
	over   bool
	sealed bool
}

func newJob(ctx context.Context, c *Committer, branch string, co commitOptions, u *unit) *job {
	return &job{ctx: ctx, c: c, branch: branch, co: co, u: u, done: make(chan struct{})}
}

// submit queues j and waits until it has landed or failed. If j.ctx ends
// while j still waits for a batch, or before its batch builds its trees
// and commits, it is withdrawn and ctx's error returned (the batch goes on
// without it); from then on the batch decides (a lone commit runs on j.ctx
// itself; a batch waits for the outcome of the writes it sent).
func (co *coordinator) submit(j *job) (*Result, error) {
	defer co.users.Add(-1)
	co.enqueue(j)
	return co.wait(j)
}

// submitAll queues jobs together, so that they go in one batch as far as
// its limits allow (see take), and waits for each as submit does.
func (co *coordinator) submitAll(jobs []*job) ([]*Result, []error) {
	defer co.users.Add(-1)
	co.enqueue(jobs...)
	res, errs := make([]*Result, len(jobs)), make([]error, len(jobs))
	for i, j := range jobs {
		res[i], errs[i] = co.wait(j)
	}
	return res, errs
}

// enqueue appends jobs to pending at once and starts the leader.
func (co *coordinator) enqueue(jobs ...*job) {
	co.mu.Lock()
	defer co.mu.Unlock()
	co.pending = append(co.pending, jobs...)
	if !co.leading {
		co.leading = true
		go co.lead()
	}
}

// wait waits for j's outcome, withdrawing it when j.ctx ends first (see
// submit).
func (co *coordinator) wait(j *job) (*Result, error) {
	select {
	case <-j.done:
		return j.res, j.err
	case <-j.ctx.Done():
	}
	co.mu.Lock()
	for i, pj := range co.pending {
		if pj == j {
			co.pending = append(co.pending[:i], co.pending[i+1:]...)
			co.mu.Unlock()
			return nil, j.c.fail("commit to", j.branch, nil, j.ctx.Err())
		}
	}
	co.mu.Unlock()
	if j.withdraw(j.c.fail("commit to", j.branch, nil, j.ctx.Err())) {
		return nil, j.err
	}
	<-j.done
	return j.res, j.err
}

func (co *coordinator) lead() {
	for {
		co.mu.Lock()
		if len(co.pending) == 0 {
			co.leading = false
			co.mu.Unlock()
			return
		}
		jobs := co.take()
		co.mu.Unlock()
		co.run(jobs)
	}
}

// take removes the next batch from pending: the first job and, when it may
// share a batch, the jobs of its group behind it, within the batch's
// limits (WithMaxBatch, and the bytes its engine carries). Caller holds
// co.mu.
func (co *coordinator) take() []*job {
	first := co.pending[0]
	g, ok := first.group()
	if !ok {
		co.pending = co.pending[1:]
		return []*job{first}
	}
	limit := first.co.maxBatch
	if limit == 0 {
		limit = defaultMaxBatch
	}
	budget := batchBytes(first.co)
	var jobs, rest []*job
	var size int64
	for i, j := range co.pending {
		jg, ok := j.group()
		n := j.u.p.KnownBytes()
		if i == 0 || ok && jg == g && len(jobs) < limit && size+n <= budget {
			jobs = append(jobs, j)
			size += n
			continue
		}
		rest = append(rest, j)
	}
	co.pending = rest
	return jobs
}

// batchBytes is the content one batch of co carries at most (the
// engine's BatchBytes): a squashed GraphQL batch is one request, its content
// base64-encoded; a Git Data batch sends its content in blobs and tree
// requests, which this bounds too, so that a batch's requests stay the size
// of a few change sets'.
func batchBytes(co commitOptions) int64 { return co.engine.impl().BatchBytes() }

// groupKey says which change sets may share a batch: those with the same
// key. It holds what shapes their commits, who sends them, and every
// option that changes a guarantee (the engine, the signer, the ref-update
// mode; ExpectHead and Tag go alone): a batch is sent with its first
// change set's options, so a change set must never share one with options
// weaker than its own.
type groupKey struct {
	cred       string
	api        string
	engine     Engine
	createFrom string
	squash     *Queue // a squash lands only its own queue's change sets
	signer     any
	inline     int64
	// fastForward: the batch's ref update is REST's fast-forward
	// (WithFastForwardRefUpdates), not the strict compare-and-swap; a
	// change set of a strict Committer never lands by it.
	fastForward bool
}

// group returns j's key; ok is false when j goes alone: ExpectHead pins a
// head of its own, a tag points at its own commit, a one-write engine sends one change set per write
// (outside a squashed GraphQL Queue), and a signer that cannot be compared
// cannot be told to be the same.
func (j *job) group() (groupKey, bool) {
	co := j.co
	if co.alone() { // ExpectHead, a tag
		return groupKey{}, false
	}
	if !co.engine.impl().Batch(co.squash) {
		return groupKey{}, false
	}
	var signer any
	if s := j.c.o.signer; s != nil {
		if !reflect.TypeOf(s).Comparable() {
			return groupKey{}, false
		}
		signer = s
	}
	g := groupKey{cred: j.c.cred, api: j.c.o.graphqlURL, engine: co.engine, createFrom: co.createFrom, signer: signer, inline: j.c.o.inlineLimit, fastForward: j.c.o.fastForwardOnly}
	if co.squash {
		g.squash = j.q
	}
	return g, true
}

// run lands one batch. A lone change set of Commit is a batch of one that
// runs exactly as alone: on its caller's context, with the engines that
// may carry it in one write (auto's choice among them), sealed from the
// start. Anything else runs on its callers' contexts without their
// cancels: its landing writes outlive them (see batch).
func (co *coordinator) run(jobs []*job) {
	j := jobs[0]
	lone := len(jobs) == 1 && j.q == nil
	if lone && !j.seal() { // it runs on j.ctx: the driver decides when it ends
		return // withdrawn before it started
	}
	b := &batch{c: j.c, branch: j.branch, co: j.co, coord: co, live: jobs, outcomes: map[string]outcome{}, id: changes.NewEditID(), lone: lone}
	cfg := j.c.driverConfig(j.branch, j.co)
	ctx := context.WithoutCancel(j.ctx)
	if lone {
		ctx = j.ctx
		cfg.Cands, cfg.Strict = j.c.candidates(j.u, j.co)
	} else {
		cfg.Cands, cfg.Strict = engine.Choose(j.co.engine.impl(), engine.Change{}) // a batch's engine: Git Data, or GraphQL squashed
	}
	if j.q != nil {
		cfg.Known, cfg.Forget = co.known, co.forget
	}
	cfg.Ours = func(head string) bool { h, _ := co.known(); return h == head }
	j.c.newDriver("commit to", cfg, b, b.committers).Run(ctx)
	if !b.landed {
		// The head the last batch made may be gone: the next reads it.
		co.forget()
	}
}

// remember keeps the head a batch made, for the next Queue batch.
func (co *coordinator) remember(head, tree string) {
	co.mu.Lock()
	co.head, co.tree = head, tree
	co.mu.Unlock()
}

func (co *coordinator) known() (string, string) {
	co.mu.Lock()
	defer co.mu.Unlock()
	return co.head, co.tree
}

func (co *coordinator) forget() {
	co.remember("", "")
}

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
