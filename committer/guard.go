package committer

import (
	"context"

	"github.com/ghcommitter/ghcommitter/committer/internal/ghgraphql"
	"github.com/ghcommitter/ghcommitter/committer/internal/loop"
	"github.com/ghcommitter/ghcommitter/committer/internal/object"
)

// guard looks at the branch between the writes of an attempt of a work
// that lost a race (on: loop.Contended): before its first write (a move
// seen then costs no write), alongside its trees (a move seen then costs
// the trees alone) and alongside its commits (a move seen then saves the
// ref update, which would lose). The looks are conditional reads, and
// none makes the attempt longer: the first comes with the path lookup
// (look, a RefLook), and the others go out with the writes, not after
// them. A look after the trees made each attempt a request longer, and a
// writer that starts just after another loses more the later the other
// lands (measured at 16 writers on separate machines, GitHub's limits
// scaled 60×, 24 runs each: 4.03 writes per landed change, the last
// writer landing at 9.3 s, with the look alongside the trees; 4.22 and
// 9.8 s with it after them; 4.17 and 9.5 s with none). A look of its own
// between the lookup and the trees did not save writes either, and made
// the last of 16 writers land later (4.06 writes per landed change and
// 9.6 s over 10 runs with it, 3.99 and 8.9 s over 20 with the lookup's):
// it made every contended attempt a request longer, and so the span in
// which two writers that start together read the same head and one of
// them must wait again.
type guard struct {
	on           bool
	c            *Committer
	branch, head string
	watch        func() (string, bool)
	now          string             // the head moved seen it at (Built.Head)
	look         *ghgraphql.RefLook // the path lookup's look at the branch, until moved uses it
}

// moved reports a move seen now: by the path lookup's look, when the
// lookup read the branch and nothing was waited since; else by a read of
// its own (after the first attempt's yield on a busy branch, or when the
// attempt made no lookup).
func (g *guard) moved(ctx context.Context) bool {
	if !g.on {
		return false
	}
	waited := loop.Yield(ctx)
	now, ok := "", false
	if g.look != nil && !waited {
		now, _, _, ok = g.look.Head()
		ok = ok && object.IsSHA(now)
	}
	g.look = nil
	if !ok {
		now, ok = g.c.refs.Tip(ctx, g.branch)
	}
	if ok && now != g.head {
		g.now = now
		return true
	}
	return false
}

// watching starts looking, alongside the commits, for a move that
// seen reports.
func (g *guard) watching(ctx context.Context) {
	if g.on && g.watch == nil {
		g.watch = g.c.refs.WatchMoved(ctx, g.branch, g.head)
	}
}

// seen waits for what watching saw.
func (g *guard) seen() bool {
	if g.watch == nil {
		return false
	}
	w := g.watch
	g.watch = nil
	now, moved := w()
	if moved {
		g.now = now
	}
	return moved
}

// newGuard is the guard of an attempt by c on branch at head, and the
// context its path lookups go under: on a contended attempt they read the
// branch too (the guard's look before the first write).
func newGuard(ctx context.Context, c *Committer, branch, head string) (*guard, context.Context) {
	g := &guard{on: loop.Contended(ctx), c: c, branch: branch, head: head}
	if !g.on {
		return g, ctx
	}
	g.look = &ghgraphql.RefLook{Branch: branch}
	return g, ghgraphql.WithRefLook(ctx, g.look)
}
