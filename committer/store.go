package committer

import (
	"context"

	"github.com/ghcommitter/ghcommitter/committer/internal/changes"
	"github.com/ghcommitter/ghcommitter/committer/internal/object"
	"github.com/ghcommitter/ghcommitter/committer/internal/tree"
)

// The tree stage (internal/tree) as the commit loop uses it: the views,
// resolutions and effects of a change set, and the GitHub writer that
// creates its trees.

// maxInlineTotal is the inline content up to which a chained batch sends
// its trees' requests concurrently (see Queue.chainTrees); one change set's
// inline content is not bounded, its tree requests are (see tree.Chunks).
const maxInlineTotal = 1 << 20

type (
	view   = tree.View
	effect = tree.Effect
)

// resolved is a change set resolved against one head tree (see
// tree.Resolved), its changes as the Result lists them.
type resolved struct {
	tree.Resolved
	changes []FileChange
}

func newView(c *Committer, root string) *view { return tree.NewView(c.store, tree.Tree{Root: root}) }

// newViewAt is the view of the tree root of the commit head: what is at a
// changed path can then be looked up without reading the directories on
// the way (see tree.GitHub).
func newViewAt(c *Committer, head, root string) *view {
	return tree.NewView(c.store, tree.Tree{Commit: head, Root: root})
}

func (c *Committer) resolver() *tree.Resolver {
	return &tree.Resolver{Cache: c.cache, Writer: treeWriter{c}, InlineLimit: c.o.inlineLimit, MaxFileSize: MaxFileSize}
}

// resolve resolves p on v (see tree.Resolver.Resolve).
func (c *Committer) resolve(ctx context.Context, v *view, p *changes.Prepared, full bool) (*resolved, error) {
	return c.resolveBy(ctx, c.resolver(), v, p, full)
}

// resolveBy resolves p on v with rv.
func (c *Committer) resolveBy(ctx context.Context, rv *tree.Resolver, v *view, p *changes.Prepared, full bool) (*resolved, error) {
	r, err := rv.Resolve(ctx, v, p, full)
	if err != nil {
		return nil, err
	}
	out := &resolved{Resolved: *r}
	for _, f := range r.Changes {
		out.changes = append(out.changes, FileChange{Path: f.Path, Action: Action(f.Action)})
	}
	return out, nil
}

// entriesOverlap is tree.EntriesOverlap.
func entriesOverlap(rs []*resolved) bool {
	trs := make([]*tree.Resolved, len(rs))
	for i, r := range rs {
		trs[i] = &r.Resolved
	}
	return tree.EntriesOverlap(trs)
}

func kindOf(e object.TreeEntry) string { return tree.KindOf(e) }

// lookup finds path in the tree root, reading the directories on the way.
func (c *Committer) lookup(ctx context.Context, root, path string) (object.TreeEntry, bool, error) {
	return c.store.ReadPath(ctx, root, path)
}

// treeWriter is the tree stage's Writer: uploads and tree requests, with
// their progress events.
type treeWriter struct{ c *Committer }

func (w treeWriter) Upload(ctx context.Context, srcs []*changes.Source) error {
	return w.c.upload(ctx, srcs)
}

func (w treeWriter) CreateTree(ctx context.Context, base string, entries []*object.TreeEntry) (*object.Tree, error) {
	return w.c.createTreeInChunks(ctx, base, entries)
}

// createTreeInChunks creates the tree base plus entries, in the requests
// tree.Chunks makes, each built on the last, so the writes grow with the
// bytes sent rather than with the files. Entries that resolve makes never
// overlap, so how they are split cannot change the result. Every tree
// request of a commit, a batch (chained or squashed) and the subtrees of
// replaced paths goes through here.
func (c *Committer) createTreeInChunks(ctx context.Context, base string, entries []*object.TreeEntry) (*object.Tree, error) {
	var t *object.Tree
	first := base
	chunks := tree.Chunks(entries)
	for i, chunk := range chunks {
		got, err := c.rest.CreateTree(ctx, base, chunk)
		if err != nil {
			return nil, err
		}
		t, base = got, got.SHA
		c.observe(Event{Kind: EventTree, Done: i + 1, Total: len(chunks)})
	}
	c.cache.LearnTree(first, t.SHA, entries)
	return t, nil
}
