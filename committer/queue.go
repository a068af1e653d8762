package committer

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// Queue serializes the commits that one process makes to one branch, so that
// they never race each other, and batches them: the change sets pending
// while a batch is in flight land together with a single ref update. By
// default each change set keeps its own commit (message, author), chained
// one on another; with Squash they land as one commit. Each caller gets its
// own Result. A change set whose precondition or edit function fails is
// taken out of the batch with its own error; the others still land.
//
// Across processes nothing changes: the batch's ref update is a fast-forward
// like any other, retried on a new head when another writer wins. A Queue
// also remembers the head its last batch made, so a commit that follows it
// skips reading the branch (three requests for a commit of small text files)
// unless another writer moved the branch in between.
//
// A Queue's goroutine runs only while change sets are pending.
type Queue struct {
	c        *Committer
	branch   string
	squash   bool
	maxBatch int
	co       commitOptions

	mu      sync.Mutex
	pending []*job
	leading bool
	head    string // the head our last batch made, and its tree
	tree    string
}

// QueueOption configures a Queue.
type QueueOption func(*Queue) error

// Squash lands each batch as one commit whose message lists the batch's
// messages. The default chains one commit per change set.
func Squash() QueueOption {
	return func(q *Queue) error { q.squash = true; return nil }
}

// WithMaxBatch bounds the change sets landed by one ref update. The default
// is 64.
func WithMaxBatch(n int) QueueOption {
	return func(q *Queue) error {
		if n < 1 || n > 1000 {
			return fmt.Errorf("max batch must be between 1 and 1000, got %d", n)
		}
		q.maxBatch = n
		return nil
	}
}

// QueueCreateBranchFrom creates the branch from ref when it is missing, as
// CreateBranchFrom does for Commit. The default is to fail with ErrNotFound.
func QueueCreateBranchFrom(ref string) QueueOption {
	return func(q *Queue) error { q.co.createFrom = ref; return nil }
}

// NewQueue returns a queue of commits to branch. Make one per branch and
// share it between the goroutines that write there.
func NewQueue(c *Committer, branch string, opts ...QueueOption) (*Queue, error) {
	q := &Queue{c: c, branch: branch, maxBatch: 64}
	for _, o := range opts {
		if err := o(q); err != nil {
			return nil, fmt.Errorf("committer: %w", err)
		}
	}
	if e := c.check("queue for", branch, q.co); e != nil {
		return nil, e
	}
	return q, nil
}

type job struct {
	ctx  context.Context
	cs   *ChangeSet
	p    *prepared
	done chan struct{}
	res  *Result
	err  error
}

func (j *job) finish(res *Result, err error) {
	j.res, j.err = res, err
	close(j.done)
}

// Commit queues cs and waits until it has landed (or failed) with its batch.
// If ctx ends while cs is still waiting for a batch, it is withdrawn and
// ctx's error returned; once its batch is being sent, Commit waits for the
// outcome, so a change set is never reported as failed and then lands.
func (q *Queue) Commit(ctx context.Context, cs *ChangeSet) (*Result, error) {
	p, err := prepare(cs)
	if err != nil {
		return nil, q.c.fail("commit to", q.branch, ErrInvalid, err)
	}
	j := &job{ctx: ctx, cs: cs, p: p, done: make(chan struct{})}
	q.mu.Lock()
	q.pending = append(q.pending, j)
	if !q.leading {
		q.leading = true
		go q.lead()
	}
	q.mu.Unlock()
	select {
	case <-j.done:
		return j.res, j.err
	case <-ctx.Done():
	}
	q.mu.Lock()
	for i, pj := range q.pending {
		if pj == j {
			q.pending = append(q.pending[:i], q.pending[i+1:]...)
			q.mu.Unlock()
			return nil, q.c.fail("commit to", q.branch, nil, ctx.Err())
		}
	}
	q.mu.Unlock()
	<-j.done
	return j.res, j.err
}

func (q *Queue) lead() {
	for {
		q.mu.Lock()
		if len(q.pending) == 0 {
			q.leading = false
			q.mu.Unlock()
			return
		}
		n := min(len(q.pending), q.maxBatch)
		batch := append([]*job(nil), q.pending[:n]...)
		q.pending = q.pending[n:]
		q.mu.Unlock()
		q.runBatch(batch)
	}
}

// runBatch lands a batch with one ref update per attempt.
func (q *Queue) runBatch(batch []*job) {
	c := q.c
	const op = "commit to"
	ctx := context.WithoutCancel(batch[0].ctx)
	log := c.o.logger.With("repo", c.Repository(), "branch", q.branch, "batch", len(batch))
	live := batch
	type outcome struct {
		results map[*job]*Result
		base    string // the head the batch was built on
	}
	ours := map[string]outcome{}
	failAll := func(err error) {
		for _, j := range live {
			j.finish(nil, err)
		}
	}
	var (
		lastHead  string
		wait      time.Duration
		lost      time.Duration // how long the last lost attempt took
		started   time.Time
		unsettled []string // batch tips whose ref update had no clear answer
	)
	for attempt := 1; attempt <= c.o.maxAttempts; attempt++ {
		if attempt > 1 {
			if err := c.o.sleep(ctx, max(c.o.backoff(attempt, lost), wait)); err != nil {
				failAll(c.fail(op, q.branch, nil, err))
				return
			}
			wait = 0
		}
		// Withdraw the callers that gave up; nothing of theirs has landed
		// (unless an earlier update of this batch had no clear answer: then
		// their fate is still open, and they wait for it).
		kept := live[:0]
		for _, j := range live {
			if err := j.ctx.Err(); err != nil && len(unsettled) == 0 {
				j.finish(nil, c.fail(op, q.branch, nil, err))
				continue
			}
			kept = append(kept, j)
		}
		live = kept
		if len(live) == 0 {
			return
		}
		started = time.Now()
		q.mu.Lock()
		head, tree := q.head, q.tree
		q.mu.Unlock()
		if attempt > 1 || head == "" {
			var err error
			head, tree, err = c.readHead(ctx, q.branch)
			if errors.Is(err, errBranchMissing) || errors.Is(err, errEmptyRepo) {
				// Creating the branch or bootstrapping the repository
				// goes through the single-commit path, one change set
				// at a time; the rest follow on the branch it makes.
				j := live[0]
				res, err := c.run(ctx, q.branch, j.cs, j.p, q.co)
				j.finish(res, err)
				live = live[1:]
				attempt--
				continue
			}
			if err != nil {
				failAll(c.fail(op, q.branch, nil, err))
				return
			}
		}
		if o, ok := ours[head]; ok {
			q.deliver(live, o.results, head, tree)
			return
		}
		for _, tip := range unsettled {
			in, err := c.landedIn(ctx, head, tip, ours[tip].base)
			if err != nil {
				failAll(c.fail(op, q.branch, nil, err))
				return
			}
			if in {
				q.deliver(live, ours[tip].results, head, tree)
				return
			}
		}
		lastHead = head
		results, tip, tipTree, err := q.build(ctx, &live, head, tree, attempt)
		if err != nil {
			failAll(c.fail(op, q.branch, nil, err))
			return
		}
		if len(live) == 0 {
			return
		}
		if tip == head {
			q.deliver(live, results, head, tree)
			return
		}
		ours[tip] = outcome{results: results, base: head}
		won, ambiguous, err := c.moveRef(ctx, q.branch, tip, head)
		if ambiguous && !won {
			unsettled = append(unsettled, tip)
		}
		var re *refusedError
		if errors.As(err, &re) {
			wait = re.wait
			continue
		}
		if err != nil {
			e := c.fail(op, q.branch, nil, err)
			e.Head, e.Attempts = head, attempt
			failAll(e)
			return
		}
		if won {
			log.DebugContext(ctx, "batch landed", "commit", tip, "attempt", attempt)
			q.deliver(live, results, tip, tipTree)
			return
		}
		q.mu.Lock()
		q.head, q.tree = "", ""
		q.mu.Unlock()
		lost = time.Since(started)
		log.DebugContext(ctx, "batch lost the race for the branch", "attempt", attempt, "took", lost)
	}
	e := c.fail(op, q.branch, ErrConflict, fmt.Errorf("another writer moved the branch on each of %d attempts", c.o.maxAttempts))
	e.Head, e.Attempts = lastHead, c.o.maxAttempts
	failAll(e)
}

// deliver hands each live job its result and remembers the new head.
func (q *Queue) deliver(live []*job, results map[*job]*Result, head, tree string) {
	q.mu.Lock()
	q.head, q.tree = head, tree
	q.mu.Unlock()
	for _, j := range live {
		j.finish(results[j], nil)
	}
}

// build resolves the live jobs in order on top of head, each seeing the
// ones before it, and creates their trees and commits. Jobs whose
// precondition or edit fails are finished with their own error and dropped
// from live. It returns the new tip (head itself if nothing changed).
func (q *Queue) build(ctx context.Context, live *[]*job, head, tree string, attempt int) (map[*job]*Result, string, string, error) {
	c := q.c
	v := newView(c, tree)
	results := map[*job]*Result{}
	tip, tipTree := head, tree
	var (
		entries  []*resolved
		included []*job
	)
	failed := map[*job]bool{}
	defer func() {
		// Whatever happens, live keeps exactly the jobs not yet finished.
		kept := (*live)[:0]
		for _, j := range *live {
			if !failed[j] {
				kept = append(kept, j)
			}
		}
		*live = kept
	}()
	for _, j := range *live {
		r, err := c.resolve(ctx, v, j.p, false)
		if err != nil {
			var pe *pathError
			if errors.As(err, &pe) {
				e := c.fail("commit to", q.branch, nil, err)
				e.Head, e.Attempts = head, attempt
				j.finish(nil, e)
				failed[j] = true
				continue
			}
			return nil, "", "", err
		}
		v.apply(r.effects)
		res := &Result{Repository: c.Repository(), Branch: q.branch, Attempts: attempt, Files: r.changes, Changed: []string{}}
		for _, f := range r.changes {
			if f.Action != Unchanged {
				res.Changed = append(res.Changed, f.Path)
			}
		}
		results[j] = res
		if q.squash {
			if len(r.entries) > 0 {
				entries = append(entries, r)
				included = append(included, j)
			}
			continue
		}
		newTree, err := q.tree1(ctx, tipTree, r)
		if err != nil {
			return nil, "", "", err
		}
		res.Parent, res.Tree, res.Commit = tip, newTree, tip
		if newTree == tipTree {
			res.NoOp, res.Changed, res.Parent = true, []string{}, ""
			continue
		}
		commit, err := c.createCommit(ctx, j.cs, tip, newTree)
		if err != nil {
			return nil, "", "", fmt.Errorf("create commit: %w", err)
		}
		res.Commit = commit
		tip, tipTree = commit, newTree
	}
	if q.squash {
		all := &resolved{}
		for _, r := range entries {
			all.entries = append(all.entries, r.entries...)
			all.uploads = append(all.uploads, r.uploads...)
		}
		newTree, err := q.tree1(ctx, tree, all)
		if err != nil {
			return nil, "", "", err
		}
		if newTree != tree {
			commit, err := c.createCommit(ctx, squashed(included), head, newTree)
			if err != nil {
				return nil, "", "", fmt.Errorf("create commit: %w", err)
			}
			tip, tipTree = commit, newTree
		}
		for _, res := range results {
			res.Commit, res.Tree = tip, tipTree
			if tip == head || len(res.Changed) == 0 {
				res.NoOp, res.Changed = true, []string{}
			} else {
				res.Parent = head
			}
		}
	}
	return results, tip, tipTree, nil
}

// tree1 uploads r's blobs and creates its tree on base.
func (q *Queue) tree1(ctx context.Context, base string, r *resolved) (string, error) {
	if len(r.entries) == 0 {
		return base, nil
	}
	if err := q.c.upload(ctx, r.uploads); err != nil {
		return "", err
	}
	t, _, err := q.c.client.Git.CreateTree(ctx, q.c.owner, q.c.repo, base, r.entries)
	if err != nil {
		return "", fmt.Errorf("create tree: %w", err)
	}
	return t.GetSHA(), nil
}

// squashed is the change set whose message and identity a squashed batch
// commit carries.
func squashed(jobs []*job) *ChangeSet {
	if len(jobs) == 1 {
		return jobs[0].cs
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Squash %d changes\n\n", len(jobs))
	for _, j := range jobs {
		first, _, _ := strings.Cut(strings.TrimSpace(j.cs.Message), "\n")
		fmt.Fprintf(&b, "* %s\n", first)
	}
	cs := &ChangeSet{Message: b.String()}
	same := func(get func(*ChangeSet) *Signature) *Signature {
		s0 := get(jobs[0].cs)
		for _, j := range jobs[1:] {
			s := get(j.cs)
			if s0 == nil || s == nil || *s != *s0 {
				return nil
			}
		}
		return s0
	}
	cs.Author = same(func(c *ChangeSet) *Signature { return c.Author })
	cs.Committer = same(func(c *ChangeSet) *Signature { return c.Committer })
	return cs
}
