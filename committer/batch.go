package committer

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/ghcommitter/ghcommitter/committer/internal/changes"
	"github.com/ghcommitter/ghcommitter/committer/internal/kind"
	"github.com/ghcommitter/ghcommitter/committer/internal/object"
)

// Queue is an explicit handle on the coordinator through which every
// commit this process makes to one branch goes (see Commit): its change
// sets land in batches, one ref update per batch, with the queue's own
// options. By default each change set keeps its own commit (message,
// author), chained one on another, exactly as concurrent calls of Commit
// do; with Squash the queue's change sets land as one commit. Each caller
// gets its own Result. A change set whose precondition or edit function
// fails is taken out of the batch with its own error; the others still
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
	if co.tag.name != "" {
		return nil, c.fail(op, branch, ErrInvalid, errors.New("Tag has no meaning for a Queue (a tagged commit lands alone): commit with Committer.Commit"))
	}
	if err := queueEngine(co); err != nil {
		return nil, c.fail(op, branch, ErrInvalid, err)
	}
	if co.maxBatch == 0 {
		co.maxBatch = defaultMaxBatch
	}
	return &Queue{c: c, branch: branch, co: co}, nil
}

// Commit queues cs and waits until it has landed (or failed) with its batch.
// It refuses exactly what Committer.Commit refuses, with the same Kind,
// before any request. If ctx ends while cs is still waiting for a batch, it
// is withdrawn and ctx's error returned; once its batch is being sent,
// Commit waits for the outcome, so a change set is never reported as failed
// and then lands.
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

// batch is the work of a Queue: the change sets landed by one ref update.
type batch struct {
	c        *Committer // the first change set's: it sends every request
	branch   string
	co       commitOptions
	coord    *coordinator
	live     []*job
	outcomes map[string]outcome // by the tip each attempt built
	id       string             // the Edit-Id of a squash of several, over all attempts
}

type outcome struct {
	results map[*job]*Result
	tree    string
}

func (b *batch) prune(settling bool) bool {
	// Withdraw the callers that gave up; nothing of theirs has landed
	// (unless an earlier update of this batch had no clear answer: then
	// their fate is still open, and they wait for it).
	kept := b.live[:0]
	for _, j := range b.live {
		if err := j.ctx.Err(); err != nil && !settling {
			j.finish(nil, b.c.fail("commit to", b.branch, nil, err))
			continue
		}
		kept = append(kept, j)
	}
	b.live = kept
	return len(b.live) > 0
}

func (b *batch) first() *unit {
	if len(b.live) == 0 {
		return nil
	}
	return b.live[0].u
}

func (b *batch) size() int { return len(b.live) }

func (b *batch) drop(u *unit, err *Error) bool {
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
	var out []*Committer
	seen := map[*Committer]bool{}
	for _, j := range b.live {
		if !seen[j.c] {
			seen[j.c] = true
			out = append(out, j.c)
		}
	}
	return out
}

func (b *batch) fail(err error) {
	for _, j := range b.live {
		j.finish(nil, j.u.boot.annotate(err))
	}
	b.live = nil
}

func (b *batch) build(ctx context.Context, head, tree string, attempt int) (string, string, bool, error) {
	results, tip, tipTree, err := b.buildAll(ctx, &b.live, b.id, head, tree, attempt)
	if err != nil {
		return "", "", false, err
	}
	if len(b.live) == 0 {
		return "", "", false, nil
	}
	b.outcomes[tip] = outcome{results: results, tree: tipTree}
	return tip, tipTree, true, nil
}

func (b *batch) land(tip string, attempt int, created bool) {
	o := b.outcomes[tip]
	b.coord.remember(tip, o.tree)
	for _, j := range b.live {
		r := o.results[j]
		if r == nil {
			j.finish(nil, b.c.fail("commit to", b.branch, ErrUnknownOutcome, fmt.Errorf("the batch landed as %s, but this change set's part in it is not known", short(tip))))
			continue
		}
		// The branch was created once, with the batch's first commit:
		// one caller reports it (a squash is one commit; its first).
		r.Attempts, r.CreatedBranch = attempt, created
		created = false
		j.u.boot.apply(r)
		j.finish(r, nil)
	}
	b.live = nil
}

// step is one change set of a batch that changes something, resolved.
type step struct {
	j *job
	r *resolved
}

// build resolves the live jobs in order on top of head, each seeing the
// ones before it, and creates their trees and commits. Jobs whose
// precondition or edit fails are finished with their own error and dropped
// from live. It returns the new tip (head itself if nothing changed). id
// is the batch's Edit-Id, for a squash of several change sets.
func (b *batch) buildAll(ctx context.Context, live *[]*job, id, head, tree string, attempt int) (map[*job]*Result, string, string, error) {
	results, steps, err := b.resolveAll(ctx, live, head, tree, attempt)
	if err != nil || len(steps) == 0 {
		return results, head, tree, err
	}
	if b.co.squash {
		tip, tipTree, err := b.buildSquashed(ctx, steps, results, id, head, tree)
		return results, tip, tipTree, err
	}
	tip, tipTree, err := b.buildChain(ctx, steps, results, tree, head)
	return results, tip, tipTree, err
}

// resolveAll resolves the live jobs in order, each on the view the ones
// before it left, and finishes those that fail alone.
func (b *batch) resolveAll(ctx context.Context, live *[]*job, head, tree string, attempt int) (map[*job]*Result, []step, error) {
	c := b.c
	v := newViewAt(c, head, tree)
	if err := v.prefetchJobs(ctx, *live); err != nil {
		return nil, nil, err
	}
	results := map[*job]*Result{}
	var steps []step
	kept := (*live)[:0]
	defer func() {
		// Whatever happens, live keeps exactly the jobs not yet finished.
		*live = kept
	}()
	for i, j := range *live {
		r, err := c.resolve(ctx, v, j.u.p, false)
		var pe *kind.Cause
		if errors.As(err, &pe) {
			e := c.fail("commit to", b.branch, nil, err)
			e.Head, e.Attempts = head, attempt
			j.finish(nil, j.u.boot.annotate(e))
			continue
		}
		if err != nil {
			kept = append(kept, (*live)[i:]...)
			return nil, nil, err
		}
		kept = append(kept, j)
		v.apply(r.effects)
		res := newResult(c, b.branch, r.changes)
		res.Attempts = attempt
		results[j] = res
		if len(r.entries) > 0 {
			steps = append(steps, step{j, r})
		} else {
			res.NoOp, res.Commit, res.Tree = true, head, tree
		}
	}
	return results, steps, nil
}

// buildSquashed lands the steps as one commit on head.
func (b *batch) buildSquashed(ctx context.Context, steps []step, results map[*job]*Result, id, head, tree string) (string, string, error) {
	tip, tipTree := head, tree
	all := &resolved{}
	jobs := make([]*job, len(steps))
	rs := make([]*resolved, len(steps))
	for i, st := range steps {
		all.entries = append(all.entries, st.r.entries...)
		all.uploads = append(all.uploads, st.r.uploads...)
		jobs[i], rs[i] = st.j, st.r
	}
	// One tree request for all, unless two change sets' entries overlap
	// (a path that is a file in one and a directory in the next): a
	// request never holds an entry at or under another, so the trees are
	// then built one change set at a time, each on the last.
	newTree := tree
	if entriesOverlap(rs) {
		for _, r := range rs {
			t, err := b.tree1(ctx, newTree, r)
			if err != nil {
				return "", "", err
			}
			newTree = t
		}
	} else {
		t, err := b.tree1(ctx, tree, all)
		if err != nil {
			return "", "", err
		}
		newTree = t
	}
	if newTree != tree {
		scs, _ := squashed(jobs, id)
		commit, err := b.c.createCommit(ctx, scs, scs.Message, head, newTree)
		if err != nil {
			return "", "", err
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
	return tip, tipTree, nil
}

// buildChain lands the steps as one commit each, chained on head.
func (b *batch) buildChain(ctx context.Context, steps []step, results map[*job]*Result, tree, head string) (string, string, error) {
	rs := make([]*resolved, len(steps))
	for i, st := range steps {
		rs[i] = st.r
	}
	trees, stop, err := b.chainTrees(ctx, tree, rs)
	if err != nil {
		return "", "", err
	}
	defer stop()
	tip, tipTree := head, tree
	// Commits chain on each other, so they are created one by one, each as
	// soon as its tree is ready.
	for i, st := range steps {
		t, err := trees(i)
		if err != nil {
			return "", "", err
		}
		res := results[st.j]
		res.Parent, res.Tree, res.Commit = tip, t, tip
		if t == tipTree {
			res.NoOp, res.Changed, res.Parent = true, []string{}, ""
			continue
		}
		commit, err := b.c.createCommit(ctx, st.j.u.cs, st.j.u.message, tip, t)
		if err != nil {
			return "", "", err
		}
		res.Commit = commit
		tip, tipTree = commit, t
	}
	for _, res := range results {
		if res.NoOp {
			res.Commit, res.Tree = tip, tipTree // its content is on the tip
		}
	}
	return tip, tipTree, nil
}

// chainTrees returns, for each resolved change set of a chained batch, a
// way to get the tree after it (applied in order on base). When the batch
// only writes files (no deletes) and its inline content is small, tree k is
// created as base plus the entries of change sets 1..k — later entries for a
// path win, as in GitHub's tree API — so the trees do not depend on each
// other: they are created concurrently, in order, while the caller creates
// the commits. Otherwise each is created on the one before, when asked for.
// stop ends the background work.
func (b *batch) chainTrees(ctx context.Context, base string, rs []*resolved) (get func(i int) (string, error), stop func(), err error) {
	var uploads []*changes.Source
	var cumBytes, inline int64
	parallel := len(rs) > 1
	for _, r := range rs {
		uploads = append(uploads, r.uploads...)
		for _, e := range r.entries {
			if e.Deletes() {
				parallel = false // a delete: keep the exact sequential semantics
			}
			inline += int64(len(e.Inline()))
		}
		cumBytes += inline
	}
	if inline > maxInlineTotal || cumBytes > maxChainBytes || parallel && entriesOverlap(rs) {
		// Tree k would hold entries of several change sets at or under
		// each other: build each on the last instead.
		parallel = false
	}
	if err := b.c.upload(ctx, uploads); err != nil {
		return nil, nil, err
	}
	if !parallel {
		prev := base
		return func(i int) (string, error) {
			t, err := b.tree1(ctx, prev, rs[i])
			prev = t
			return t, err
		}, func() {}, nil
	}
	type result struct {
		sha string
		err error
	}
	done := make([]chan result, len(rs))
	for i := range done {
		done[i] = make(chan result, 1)
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	next := make(chan int)
	for range b.c.o.concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				var entries []*object.TreeEntry
				for _, r := range rs[:i+1] {
					entries = append(entries, r.entries...)
				}
				t, err := b.c.createTree(ctx, base, entries)
				done[i] <- result{sha: t, err: err}
			}
		}()
	}
	go func() {
		defer close(next)
		for i := range rs {
			select {
			case next <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	get = func(i int) (string, error) {
		select {
		case r := <-done[i]:
			return r.sha, r.err
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	stop = func() {
		cancel()
		wg.Wait()
	}
	return get, stop, nil
}

// maxChainBytes bounds the inline content sent by all the concurrent tree
// requests of one chained batch, which repeat earlier change sets' entries.
const maxChainBytes = 8 << 20

// tree1 uploads r's blobs and creates its tree on base.
func (b *batch) tree1(ctx context.Context, base string, r *resolved) (string, error) {
	if len(r.entries) == 0 {
		return base, nil
	}
	if err := b.c.upload(ctx, r.uploads); err != nil {
		return "", err
	}
	return b.c.createTree(ctx, base, r.entries)
}

// squashed is the change set whose message and identity a squashed batch
// commit carries, and the Edit-Id its message ends with ("" when none).
// A batch of one is that change set's commit, with its own Edit-Id; a
// squash of several gets the batch's (id) when any of them has one. The
// members' Edit-Ids are not in the squashed message, whose Edit-Id is the
// batch's alone.
func squashed(jobs []*job, id string) (*ChangeSet, string) {
	if len(jobs) == 1 {
		cs := *jobs[0].u.cs
		cs.Message = jobs[0].u.message
		return &cs, jobs[0].u.editID
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Squash %d changes\n\n", len(jobs))
	for _, j := range jobs {
		first, _, _ := strings.Cut(strings.TrimSpace(j.u.cs.Message), "\n")
		fmt.Fprintf(&b, "* %s\n", first)
	}
	cs := &ChangeSet{Message: b.String()}
	own := ""
	for _, j := range jobs {
		if j.u.editID != "" {
			own = id
			cs.Message = changes.WithEditID(cs.Message, id)
			break
		}
	}
	same := func(get func(*ChangeSet) *Signature) *Signature {
		s0 := get(jobs[0].u.cs)
		for _, j := range jobs[1:] {
			s := get(j.u.cs)
			if s0 == nil || s == nil || *s != *s0 {
				return nil
			}
		}
		return s0
	}
	cs.Author = same(func(c *ChangeSet) *Signature { return c.Author })
	cs.Committer = same(func(c *ChangeSet) *Signature { return c.Committer })
	return cs, own
}
