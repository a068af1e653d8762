package committer

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/ghcommitter/ghcommitter/committer/internal/changes"
	"github.com/ghcommitter/ghcommitter/committer/internal/object"
)

// treeEntry is one entry of a directory as GitHub's tree API lists it.
type treeEntry struct {
	name string
	mode string
	typ  string // "blob", "tree" or "commit"
	sha  string
}

// dir is a directory's entries by name.
type dir map[string]treeEntry

// objectCache holds immutable git objects by SHA, shared by every commit of
// one Committer, so that a directory or blob is read once however many
// attempts and commits need it. It is bounded: when full it is emptied.
type objectCache struct {
	mu       sync.Mutex
	dirs     map[string]dir
	blobs    map[string][]byte
	blobSize int64
	uploaded map[string]bool             // blob SHAs known to exist on GitHub
	trees    map[string]string           // subtree content key -> tree SHA
	paths    map[string]map[string]known // root tree SHA -> path -> what is there
	npaths   int                         // entries in paths
}

const (
	maxCachedDirs      = 4096
	maxCachedBlobBytes = 64 << 20
)

func newObjectCache() *objectCache {
	return &objectCache{dirs: map[string]dir{}, blobs: map[string][]byte{}, uploaded: map[string]bool{}, trees: map[string]string{}, paths: map[string]map[string]known{}}
}

func (c *objectCache) dir(sha string) (dir, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	d, ok := c.dirs[sha]
	return d, ok
}

func (c *objectCache) putDir(sha string, d dir) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.dirs) >= maxCachedDirs {
		c.dirs = map[string]dir{}
	}
	c.dirs[sha] = d
}

func (c *objectCache) blob(sha string) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	b, ok := c.blobs[sha]
	return b, ok
}

func (c *objectCache) putBlob(sha string, b []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if int64(len(b)) > maxCachedBlobBytes/4 {
		return
	}
	if c.blobSize+int64(len(b)) > maxCachedBlobBytes {
		c.blobs, c.blobSize = map[string][]byte{}, 0
	}
	c.blobs[sha] = b
	c.blobSize += int64(len(b))
}

func (c *objectCache) isUploaded(sha string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.uploaded[sha]
}

func (c *objectCache) markUploaded(sha string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.uploaded) > 1<<16 {
		c.uploaded = map[string]bool{}
	}
	c.uploaded[sha] = true
}

func (c *objectCache) tree(key string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	sha, ok := c.trees[key]
	return sha, ok
}

func (c *objectCache) putTree(key, sha string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.trees) > 1<<12 {
		c.trees = map[string]string{}
	}
	c.trees[key] = sha
}

// readDir returns the entries of the tree sha, from the cache or with one
// GET git/trees/{sha} request.
func (c *Committer) readDir(ctx context.Context, sha string) (dir, error) {
	if d, ok := c.cache.dir(sha); ok {
		return d, nil
	}
	t, err := c.rest.Tree(ctx, sha, false)
	if err != nil {
		return nil, fmt.Errorf("read tree %s: %w", short(sha), err)
	}
	d := make(dir, len(t.Entries))
	for _, e := range t.Entries {
		d[e.Path] = treeEntry{name: e.Path, mode: e.Mode, typ: e.Type, sha: e.SHA}
	}
	c.cache.putDir(sha, d)
	return d, nil
}

// lookup finds path in the tree root, reading only the directories on the
// way. It returns ok == false when the path (or a directory above it) is
// absent. A path that crosses a file ("a/b" where "a" is a file) is absent.
func (c *Committer) lookup(ctx context.Context, root, path string) (treeEntry, bool, error) {
	cur := root
	segs := strings.Split(path, "/")
	for i, seg := range segs {
		d, err := c.readDir(ctx, cur)
		if err != nil {
			return treeEntry{}, false, err
		}
		e, ok := d[seg]
		if !ok {
			return treeEntry{}, false, nil
		}
		if i == len(segs)-1 {
			return e, true, nil
		}
		if e.typ != "tree" {
			return treeEntry{}, false, nil
		}
		cur = e.sha
	}
	return treeEntry{}, false, nil
}

// cachedLookup reports whether path can be found in the tree root from
// directories already read, without a request.
func (c *Committer) cachedLookup(root, path string) bool {
	cur := root
	segs := strings.Split(path, "/")
	for i, seg := range segs {
		d, ok := c.cache.dir(cur)
		if !ok {
			return false
		}
		e, ok := d[seg]
		if !ok || i == len(segs)-1 || e.typ != "tree" {
			return true
		}
		cur = e.sha
	}
	return true
}

// listFilesUpTo lists every file under the tree sha, recursively, with paths
// relative to it, and every directory (dirs). It asks for the recursive
// listing in one request; when GitHub truncates it, with walk it walks
// level by level, and without walk it returns complete == false.
func (c *Committer) listFilesUpTo(ctx context.Context, sha string, walk bool) (files, dirs map[string]treeEntry, complete bool, err error) {
	t, err := c.rest.Tree(ctx, sha, true)
	if err != nil {
		return nil, nil, false, fmt.Errorf("read tree %s: %w", short(sha), err)
	}
	files, dirs = map[string]treeEntry{}, map[string]treeEntry{}
	if t.Truncated && !walk {
		return nil, nil, false, nil
	}
	if !t.Truncated {
		for _, e := range t.Entries {
			te := treeEntry{name: e.Path, mode: e.Mode, typ: e.Type, sha: e.SHA}
			if e.Type == "tree" {
				dirs[e.Path] = te
			} else {
				files[e.Path] = te
			}
		}
		return files, dirs, true, nil
	}
	var descend func(prefix, sha string) error
	descend = func(prefix, sha string) error {
		d, err := c.readDir(ctx, sha)
		if err != nil {
			return err
		}
		for name, e := range d {
			e.name = prefix + name
			if e.typ == "tree" {
				dirs[e.name] = e
				if err := descend(e.name+"/", e.sha); err != nil {
					return err
				}
				continue
			}
			files[e.name] = e
		}
		return nil
	}
	return files, dirs, true, descend("", sha)
}

// readBlob returns a blob's content, from the cache or with one GET
// git/blobs/{sha} request.
func (c *Committer) readBlob(ctx context.Context, sha string) ([]byte, error) {
	if b, ok := c.cache.blob(sha); ok {
		return b, nil
	}
	data, err := c.rest.Blob(ctx, sha)
	if err != nil {
		return nil, fmt.Errorf("read blob %s: %w", short(sha), err)
	}
	if got := BlobSHA(data); got != sha {
		return nil, fmt.Errorf("read blob %s: content hashes to %s", short(sha), short(got))
	}
	c.cache.putBlob(sha, data)
	return data, nil
}

// buildSubtrees creates the directories that r writes whole (see subtree),
// all in one tree request without a base, one top-level entry per subtree,
// and sets each subtree's entry SHA from the reply. Their blobs are uploaded
// first. A subtree built before (in an earlier attempt) is not built again.
func (c *Committer) buildSubtrees(ctx context.Context, r *resolved) error {
	var todo []*subtree
	for _, st := range r.subtrees {
		if sha, ok := c.cache.tree(st.key()); ok {
			st.entry.SHA = sha
			continue
		}
		todo = append(todo, st)
	}
	if len(todo) == 0 {
		return nil
	}
	if err := c.upload(ctx, r.uploads); err != nil {
		return err
	}
	var entries []*object.TreeEntry
	for i, st := range todo {
		for _, e := range st.entries {
			cp := *e
			cp.Path = strconv.Itoa(i) + "/" + e.Path
			entries = append(entries, &cp)
		}
	}
	t, err := c.createTreeInChunks(ctx, "", entries)
	if err != nil {
		return fmt.Errorf("create tree of the replaced paths: %w", err)
	}
	shas := map[string]string{}
	for _, e := range t.Entries {
		if e.Type == "tree" {
			shas[e.Path] = e.SHA
		}
	}
	for i, st := range todo {
		sha := shas[strconv.Itoa(i)]
		if !changes.IsSHA(sha) {
			return fmt.Errorf("create tree of the replaced paths: reply has no tree %d for %q", i, st.path)
		}
		st.entry.SHA = sha
		c.cache.putTree(st.key(), sha)
	}
	return nil
}

// Bounds on one create-tree request. GitHub times big ones out with a 422
// ("Consider building the tree incrementally"); what it has to process in
// time is the content sent inline, so a request carries at most
// maxChunkInlineBytes of it in at most maxChunkInlineEntries entries (the
// reports put the edge near 2.5 MB, or 200-250 inline files: see
// githubtest.DefaultTreeTimeoutBytes), and at most maxTreeChunk entries of
// any kind (entries that carry a blob's SHA, or delete a path).
const (
	maxChunkInlineBytes   = 1_000_000
	maxChunkInlineEntries = 200
	maxTreeChunk          = 1000
)

// treeChunks splits entries into the requests createTreeInChunks sends, in
// order, each within the bounds above.
func treeChunks(entries []*object.TreeEntry) [][]*object.TreeEntry {
	var chunks [][]*object.TreeEntry
	start, inline, bytes := 0, 0, 0
	for i, e := range entries {
		n, b := 0, 0
		if e.Content != nil {
			n, b = 1, len(e.Inline())
		}
		if i > start && (i-start+1 > maxTreeChunk || inline+n > maxChunkInlineEntries || bytes+b > maxChunkInlineBytes) {
			chunks = append(chunks, entries[start:i])
			start, inline, bytes = i, 0, 0
		}
		inline, bytes = inline+n, bytes+b
	}
	return append(chunks, entries[start:])
}

// createTreeInChunks creates the tree base plus entries, in the requests
// treeChunks makes, each built on the last, so the writes grow with the
// bytes sent rather than with the files. Entries that resolve makes never
// overlap, so how they are split cannot change the result. Every tree
// request of a commit, a batch (chained or squashed) and the subtrees of
// replaced paths goes through here.
func (c *Committer) createTreeInChunks(ctx context.Context, base string, entries []*object.TreeEntry) (*object.Tree, error) {
	var t *object.Tree
	first := base
	chunks := treeChunks(entries)
	for i, chunk := range chunks {
		got, err := c.rest.CreateTree(ctx, base, chunk)
		if err != nil {
			return nil, err
		}
		t, base = got, got.SHA
		c.observe(Event{Kind: EventTree, Done: i + 1, Total: len(chunks)})
	}
	c.cache.learnTree(first, t.SHA, entries)
	return t, nil
}
