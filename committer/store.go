package committer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/ghcommitter/ghcommitter/committer/internal/changes"
	"github.com/ghcommitter/ghcommitter/committer/internal/kind"
	"github.com/ghcommitter/ghcommitter/committer/internal/object"
	"github.com/ghcommitter/ghcommitter/committer/internal/refs"
	"github.com/ghcommitter/ghcommitter/committer/internal/rest"
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
	return &tree.Resolver{Cache: c.cache, Writer: treeWriter{c}, InlineLimit: c.o.inlineLimit, MaxFileSize: MaxFileSize, LFS: c.lfs}
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

// upload creates the blobs that are not known to exist yet, at most
// o.concurrency at a time. A blob uploaded once is never uploaded again by
// this Committer; the same blob listed twice is uploaded once.
func (c *Committer) upload(ctx context.Context, srcs []*changes.Source) error {
	seen := map[string]bool{}
	var todo []*changes.Source
	for _, s := range srcs {
		if !seen[s.SHA] && !c.cache.IsUploaded(s.SHA) {
			seen[s.SHA] = true
			todo = append(todo, s)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sem := make(chan struct{}, c.o.concurrency)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
		done  int
		sent  int64
		total int64
	)
	for _, s := range todo {
		total += s.Size
	}
	for _, s := range todo {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return
			}
			defer func() { <-sem }()
			err := c.uploadOne(ctx, s)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if first == nil {
					first = err
					cancel()
				}
				return
			}
			done++
			sent += s.Size
			c.observe(Event{Kind: EventUpload, Done: done, Total: len(todo), Bytes: sent, TotalBytes: total})
		}()
	}
	wg.Wait()
	if first != nil {
		return first
	}
	return ctx.Err()
}

func (c *Committer) uploadOne(ctx context.Context, s *changes.Source) error {
	c.o.logger.DebugContext(ctx, "upload blob", "sha", s.SHA, "size", s.Size)
	var got string
	var err error
	if s.InMemory() {
		got, err = c.rest.CreateBlob(ctx, s.Data)
	} else {
		got, err = c.rest.StreamBlob(ctx, s.Size, sourceOpener(s.Reader))
	}
	if err != nil {
		return fmt.Errorf("upload blob %s (%d bytes): %w", short(s.SHA), s.Size, err)
	}
	if got != s.SHA {
		// The content read now is not what was hashed: it changed.
		return &sourceError{fmt.Errorf("upload blob: GitHub stored %s, expected %s: the content changed since it was hashed", short(got), short(s.SHA))}
	}
	c.cache.MarkUploaded(s.SHA)
	return nil
}

// sourceError is the failure to read a change set's content again (a
// PutReader's open, a local file gone or changed since it was hashed):
// the change set's own.
type sourceError struct{ err error }

func (e *sourceError) Error() string { return "read content: " + e.err.Error() }
func (e *sourceError) Unwrap() error { return e.err }

// sourceOpener wraps open so that its failures, and its reader's, are
// sourceErrors.
func sourceOpener(open func() (io.ReadCloser, error)) func() (io.ReadCloser, error) {
	return func() (io.ReadCloser, error) {
		rc, err := open()
		if err != nil {
			return nil, &sourceError{err}
		}
		return sourceReader{rc}, nil
	}
}

type sourceReader struct{ io.ReadCloser }

func (r sourceReader) Read(p []byte) (int, error) {
	n, err := r.ReadCloser.Read(p)
	if err != nil && err != io.EOF {
		err = &sourceError{err}
	}
	return n, err
}

// createTree creates a tree of entries on base (in chunks: see
// createTreeInChunks).
func (c *Committer) createTree(ctx context.Context, base string, entries []*object.TreeEntry) (string, error) {
	t, err := c.createTreeInChunks(ctx, base, entries)
	if err != nil {
		return "", fmt.Errorf("create tree: %w", err)
	}
	return t.SHA, nil
}

func (c *Committer) createCommit(ctx context.Context, cs *ChangeSet, message, parent, tree string, also ...string) (string, error) {
	nc := rest.NewCommit{Message: message, Tree: tree, Parent: parent, Also: also, Author: toAuthor(cs.Author), Committer: toAuthor(cs.Committer)}
	if c.o.signer != nil {
		if nc.Author == nil {
			return "", errors.New("signing a commit needs an author")
		}
		if nc.Author.Date.IsZero() {
			nc.Author.Date = rest.Now()
		}
		if nc.Committer == nil {
			cp := *nc.Author
			nc.Committer = &cp
		}
		if nc.Committer.Date.IsZero() {
			nc.Committer.Date = nc.Author.Date
		}
		nc.Sign = c.o.signer.Sign
	}
	sha, err := c.rest.CreateCommit(ctx, nc)
	if err != nil {
		return "", fmt.Errorf("create commit: %w", err)
	}
	return sha, nil
}

// toAuthor is a Signature in the object model (nil for none).
func toAuthor(s *Signature) *object.Signature {
	if s == nil {
		return nil
	}
	return &object.Signature{Name: s.Name, Email: s.Email, Date: s.Date}
}

// File is a file as ReadFile found it.
type File struct {
	Path    string
	Content []byte
	SHA     string // its blob's
	// Mode is "100644", "100755", or "120000" for a symbolic link (whose
	// Content is then its target).
	Mode   string
	Commit string // the commit it was read at
}

// ReadFile reads the file at path as it is at ref, a branch name or a
// commit SHA: one request for the branch's head (or the commit), a path
// lookup, and a read of its blob (none for a blob already read). A branch,
// commit or path that is not there, and a path that is a directory or a
// submodule, is ErrNotFound; an invalid path is ErrInvalid.
func (c *Committer) ReadFile(ctx context.Context, ref, path string) (*File, error) {
	const op = "read a file of"
	if err := changes.ValidatePath(path); err != nil {
		return nil, c.fail(op, ref, ErrInvalid, err)
	}
	var commit, root string
	var err error
	if object.IsSHA(ref) {
		commit, root, err = c.refs.CommitTree(ctx, ref)
	} else {
		commit, root, err = c.refs.ReadHead(ctx, ref)
		if errors.Is(err, refs.ErrBranchMissing) || errors.Is(err, refs.ErrEmptyRepo) {
			return nil, c.fail(op, ref, ErrNotFound, fmt.Errorf("branch %q: %w", ref, err))
		}
	}
	if err != nil {
		return nil, c.fail(op, ref, nil, err)
	}
	// The path query resolution uses (one GraphQL request, whatever the
	// directories' sizes); the directories, read one by one, only where it
	// cannot answer. The file's content comes in the same query where it
	// is text.
	st, err := c.store.Lookup(tree.WithTexts(ctx, []string{path}), tree.Tree{Root: root, Commit: commit}, []string{path}, true)
	if err != nil {
		return nil, c.fail(op, ref, nil, err)
	}
	e, ok := st[0].Entry, st[0].Kind != tree.Absent
	if st[0].Kind == tree.Unknown {
		e, ok, err = c.lookup(ctx, root, path)
	}
	switch {
	case err != nil:
		return nil, c.fail(op, ref, nil, err)
	case !ok:
		return nil, c.fail(op, ref, ErrNotFound, fmt.Errorf("%s is not in %s", path, kind.Short(commit)))
	case e.Type != object.TypeBlob:
		return nil, c.fail(op, ref, ErrNotFound, fmt.Errorf("%s is a %s in %s, not a file", path, kindOf(e), kind.Short(commit)))
	}
	content, err := c.store.Blob(ctx, e.SHA)
	if err != nil {
		return nil, c.fail(op, ref, nil, err)
	}
	return &File{Path: path, Content: content, SHA: e.SHA, Mode: e.Mode, Commit: commit}, nil
}
