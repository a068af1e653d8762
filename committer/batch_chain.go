package committer

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/ghcommitter/ghcommitter/committer/ghclient"
	"github.com/ghcommitter/ghcommitter/committer/internal/changes"
	"github.com/ghcommitter/ghcommitter/committer/internal/loop"
	"github.com/ghcommitter/ghcommitter/committer/internal/object"
)

// step is one change set of a batch that changes something, resolved.
type step struct {
	j *job
	r *resolved
}

// madeSubtrees reports whether resolving the steps created trees (a
// replaced directory's): an attempt that stops after it sent writes.
func madeSubtrees(steps []step) bool {
	for _, st := range steps {
		if len(st.r.Subtrees) > 0 {
			return true
		}
	}
	return false
}

// buildSquashed lands the steps as one commit on head.
func (b *batch) buildSquashed(ctx context.Context, g *guard, steps []step, results map[*job]*Result, id, head, tree string) (loop.Built, error) {
	tip, tipTree := head, tree
	all := &resolved{}
	jobs := make([]*job, len(steps))
	rs := make([]*resolved, len(steps))
	for i, st := range steps {
		all.Entries = append(all.Entries, st.r.Entries...)
		all.Uploads = append(all.Uploads, st.r.Uploads...)
		jobs[i], rs[i] = st.j, st.r
	}
	g.watching(ctx) // the look before the commit, alongside the tree (see guard)
	newTree, err := b.trees(ctx, rs, all, tree)
	moved := g.seen()
	if err != nil {
		return loop.Built{}, err
	}
	if newTree != tree {
		if moved {
			return loop.Built{Moved: true, Head: g.now}, nil
		}
		g.watching(ctx)
		scs, _ := squashed(jobs, id)
		commit, err := b.c.createCommit(ctx, scs, scs.Message, head, newTree)
		if g.seen() && err == nil {
			return loop.Built{Moved: true, Head: g.now}, nil // the ref update would lose: not sent
		}
		if err != nil {
			return loop.Built{}, err
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
	return loop.Built{Tip: tip, Tree: tipTree}, nil
}

// trees creates the tree of a squashed batch: rs's entries on tree, all
// of them (all) in one request, unless two change sets' entries overlap
// (a path that is a file in one and a directory in the next): a request
// never holds an entry at or under another, so the trees are then built
// one change set at a time, each on the last.
func (b *batch) trees(ctx context.Context, rs []*resolved, all *resolved, tree string) (string, error) {
	if !entriesOverlap(rs) {
		return b.tree1(ctx, tree, all)
	}
	newTree := tree
	for _, r := range rs {
		t, err := b.tree1(ctx, newTree, r)
		if err != nil {
			return "", err
		}
		newTree = t
	}
	return newTree, nil
}

// buildChain lands the steps as one commit each, chained on head.
func (b *batch) buildChain(ctx context.Context, g *guard, steps []step, results map[*job]*Result, tree, head string) (loop.Built, error) {
	rs := make([]*resolved, len(steps))
	own := make([]*job, len(steps))
	for i, st := range steps {
		rs[i], own[i] = st.r, st.j
	}
	trees, stop, err := b.chainTrees(ctx, tree, rs, own)
	if err != nil {
		return loop.Built{}, err
	}
	defer stop()
	defer g.seen() // the watch's wait must be called
	tip, tipTree := head, tree
	g.watching(ctx) // the look before the first commit, alongside the trees (see guard)
	// Commits chain on each other, so they are created one by one, each as
	// soon as its tree is ready.
	for i, st := range steps {
		t, err := trees(i)
		if err != nil {
			return loop.Built{}, err
		}
		res := results[st.j]
		res.Parent, res.Tree, res.Commit = tip, t, tip
		if t == tipTree {
			res.NoOp, res.Changed, res.Parent = true, []string{}, ""
			continue
		}
		if tip == head {
			if g.seen() {
				return loop.Built{Moved: true, Head: g.now}, nil
			}
			g.watching(ctx)
		}
		commit, err := b.c.createCommit(b.jobCtx(ctx, st.j), st.j.u.cs, st.j.u.message, tip, t)
		if err != nil {
			return loop.Built{}, err
		}
		res.Commit = commit
		tip, tipTree = commit, t
	}
	if tip != head && g.seen() {
		return loop.Built{Moved: true, Head: g.now}, nil // the ref update would lose: not sent
	}
	for _, res := range results {
		if res.NoOp {
			res.Commit, res.Tree = tip, tipTree // its content is on the tip
		}
	}
	return loop.Built{Tip: tip, Tree: tipTree}, nil
}

// chainTrees returns, for each resolved change set of a chained batch, a
// way to get the tree after it (applied in order on base). When the batch
// only writes files (no deletes) and its inline content is small, tree k is
// created as base plus the entries of change sets 1..k — later entries for a
// path win, as in GitHub's tree API — so the trees do not depend on each
// other: they are created concurrently, in order, while the caller creates
// the commits. Otherwise each is created on the one before, when asked for.
// stop ends the background work.
// Tree k's requests are change set own[k]'s.
func (b *batch) chainTrees(ctx context.Context, base string, rs []*resolved, own []*job) (get func(i int) (string, error), stop func(), err error) {
	var uploads []*changes.Source
	var cumBytes, inline int64
	parallel := len(rs) > 1
	for _, r := range rs {
		uploads = append(uploads, r.Uploads...)
		for _, e := range r.Entries {
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
			t, err := b.tree1(b.jobCtx(ctx, own[i]), prev, rs[i])
			prev = t
			return t, err
		}, func() {}, nil
	}
	get, stop = b.parallelTrees(ctx, base, rs, own)
	return get, stop, nil
}

// parallelTrees builds tree k of the chain (base plus the entries of
// rs[:k+1]) for every k at once, at most o.concurrency requests at a time:
// get(i) waits for tree i, stop cancels what is left and waits.
func (b *batch) parallelTrees(ctx context.Context, base string, rs []*resolved, own []*job) (get func(i int) (string, error), stop func()) {
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
					entries = append(entries, r.Entries...)
				}
				t, err := b.c.createTree(b.jobCtx(ctx, own[i]), base, entries)
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
	return get, func() { cancel(); wg.Wait() }
}

// maxChainBytes bounds the inline content sent by all the concurrent tree
// requests of one chained batch, which repeat earlier change sets' entries.
const maxChainBytes = 8 << 20

// tree1 uploads r's blobs and creates its tree on base.
func (b *batch) tree1(ctx context.Context, base string, r *resolved) (string, error) {
	if len(r.Entries) == 0 {
		return base, nil
	}
	if err := b.c.upload(ctx, r.Uploads); err != nil {
		return "", err
	}
	return b.c.createTree(ctx, base, r.Entries)
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

// jobCtx is ctx for a request sent for j alone: it is counted as j's own
// (Result.Cost), and a wait the transport makes it do is reported to j's
// observer alone, not to the batch's (see Event.Shared).
func (b *batch) jobCtx(ctx context.Context, j *job) context.Context {
	ctx = ghclient.WithTally(ctx, &j.tally)
	attempt, changes := b.attempt, len(b.live)
	return ghclient.WithWaitNotify(ctx, func(w ghclient.Wait) {
		if j.c.o.observer == nil {
			return
		}
		k := EventRateLimitWait
		if w.Kind == ghclient.WaitPacer {
			k = EventWritePaced
		}
		j.c.observe(Event{Kind: k, Branch: b.branch, Attempt: attempt, Wait: w.Duration, Changes: changes})
	})
}

// buildRebuild builds a lone change set's rebuild of a pull request's
// head branch (rebuildOnto): the change set resolved on the base's head
// (edit functions run on the content there, preconditions checked there),
// as one commit whose parents are the base's head and the branch's head
// (head): the branch moves by fast-forward. The commit is made even when
// the change set changes nothing on the base: its tree is then the base's.
func (b *batch) buildRebuild(ctx context.Context, live *[]*job, _, head, _ string, attempt int) (map[*job]*Result, loop.Built, error) {
	on := b.co.rebuild
	results, steps, err := b.resolveAll(ctx, live, on.head, on.tree, attempt)
	if err != nil || len(*live) == 0 {
		return results, loop.Built{}, err
	}
	j, t := (*live)[0], on.tree
	if len(steps) > 0 {
		if t, err = b.tree1(b.jobCtx(ctx, j), on.tree, steps[0].r); err != nil {
			return nil, loop.Built{}, err
		}
	}
	commit, err := b.c.createCommit(b.jobCtx(ctx, j), j.u.cs, j.u.message, on.head, t, head)
	if err != nil {
		return nil, loop.Built{}, err
	}
	res := results[j]
	res.Commit, res.Tree, res.Parent, res.NoOp = commit, t, on.head, false
	return results, loop.Built{Tip: commit, Tree: t}, nil
}
