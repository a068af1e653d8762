package tree

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sort"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/ghcommitter/ghcommitter/committer/internal/changes"
	"github.com/ghcommitter/ghcommitter/committer/internal/ghgraphql"
	"github.com/ghcommitter/ghcommitter/committer/internal/object"
	"github.com/ghcommitter/ghcommitter/committer/internal/rest"
)

// GitHub is the Store of one repository on GitHub: what its Cache knows,
// GraphQL path lookups (ghgraphql.Paths) for many paths in one query, and
// REST directory reads (git/trees) for the rest. Listings and blobs are
// cached by SHA.
type GitHub struct {
	rest         *rest.Client
	gql          *ghgraphql.Client // nil: REST only
	owner, repo  string
	cache        *Cache
	logger       *slog.Logger
	repositoryID func(id string) // told the repository's node ID a lookup returns
	// noPathQueries is set once the GraphQL endpoint turned out not to be
	// there: path lookups read directories over REST (see prefetch).
	noPathQueries atomic.Bool
}

// NewGitHub returns the store of owner/repo; repositoryID, if not nil, is
// told the repository's node ID when a path lookup returns it.
func NewGitHub(rc *rest.Client, gql *ghgraphql.Client, owner, repo string, cache *Cache, logger *slog.Logger, repositoryID func(string)) *GitHub {
	return &GitHub{rest: rc, gql: gql, owner: owner, repo: repo, cache: cache, logger: logger, repositoryID: repositoryID}
}

// Lookup answers what at has at paths (see Store): with cheap, after one
// GraphQL query for the paths (and the directories above them) it does
// not know yet, it answers from what it knows; otherwise every path, from
// what it knows, else reading the directories from the deepest known one.
func (g *GitHub) Lookup(ctx context.Context, at Tree, paths []string, cheap bool) ([]Stat, error) {
	out := make([]Stat, len(paths))
	if cheap {
		if err := g.prefetch(ctx, at, paths); err != nil {
			return nil, err
		}
		for i, p := range paths {
			if k, decided, _, _ := g.cache.knownAt(at.Root, p); decided {
				out[i] = statOf(k.e, k.ok)
			}
		}
		return out, nil
	}
	for i, p := range paths {
		e, ok, err := g.find(ctx, at.Root, p)
		if err != nil {
			return nil, err
		}
		out[i] = statOf(e, ok)
	}
	return out, nil
}

// find finds path in the tree root: from what is known of it (see
// prefetch and LearnTree), else reading the directories from the deepest
// known one. A directory found may have no SHA (see known).
func (g *GitHub) find(ctx context.Context, root, path string) (object.TreeEntry, bool, error) {
	if root == "" {
		return object.TreeEntry{}, false, nil
	}
	k, decided, from, rel := g.cache.knownAt(root, path)
	switch {
	case decided:
		return k.e, k.ok, nil
	case from != "":
		e, ok, err := g.ReadPath(ctx, from, rel)
		if rest.Status(err) != http.StatusNotFound {
			return e, ok, err
		}
		// A directory SHA learnt for this tree that GitHub does not have:
		// never trusted over the tree itself.
		g.logger.DebugContext(ctx, "a learnt directory is not on GitHub; reading from the root", "tree", short(from), "path", path)
	}
	return g.ReadPath(ctx, root, path)
}

// List lists the directory dir of at (see Store), and learns the listing.
func (g *GitHub) List(ctx context.Context, at Tree, dir string, walk bool) (map[string]object.TreeEntry, bool, error) {
	sha := at.Root
	if dir != "" {
		e, ok, err := g.find(ctx, at.Root, dir)
		if err == nil && ok && e.Type == object.TypeTree && e.SHA == "" {
			e, ok, err = g.ReadPath(ctx, at.Root, dir) // its listing needs its SHA
		}
		if err != nil {
			return nil, false, err
		}
		sha = ""
		if ok && e.Type == object.TypeTree {
			sha = e.SHA
		}
	}
	if sha == "" {
		return map[string]object.TreeEntry{}, true, nil
	}
	files, dirs, complete, err := g.listFilesUpTo(ctx, sha, walk)
	if err != nil || !complete {
		return nil, complete, err
	}
	g.cache.learnListing(at.Root, dir, sha, files, dirs)
	return files, true, nil
}

// prefetch learns what the tree at has at paths and at every directory
// above them, in one GraphQL query (Commit.file(path:) per path: see
// ghgraphql.Paths) rather than reading each directory on the way, so
// resolving a change set costs the same under a directory of 20,000
// entries as under one of 10. Paths already known, or found in directories
// already read, are not asked for. Without the commit, or when the query
// fails (GraphQL unavailable, rate-limited, refused), nothing is learnt and
// find reads the directories over REST.
func (g *GitHub) prefetch(ctx context.Context, at Tree, paths []string) error {
	if at.Root == "" || at.Commit == "" || g.gql == nil || g.noPathQueries.Load() {
		return nil
	}
	want := map[string]bool{}
	for _, p := range paths {
		if p == "" {
			continue
		}
		want[p] = true
		for _, a := range changes.Ancestors(p) {
			want[a] = true
		}
	}
	var ask []string
	for p := range want {
		if _, decided, _, _ := g.cache.knownAt(at.Root, p); decided || g.cachedLookup(at.Root, p) || !utf8.ValidString(p) {
			continue
		}
		ask = append(ask, p)
	}
	if len(ask) == 0 {
		return nil
	}
	sort.Strings(ask)
	got, id, err := g.gql.Paths(ctx, g.owner, g.repo, at.Commit, ask)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var he *ghgraphql.HTTPError
		if errors.As(err, &he) && (he.Status == http.StatusNotFound || he.Status == http.StatusGone || he.Status == http.StatusNotImplemented) {
			g.noPathQueries.Store(true) // no GraphQL endpoint here: REST from now on
		}
		g.logger.DebugContext(ctx, "path lookup failed; reading directories instead", "paths", len(ask), "error", err)
		return nil
	}
	if g.repositoryID != nil {
		g.repositoryID(id) // the strict ref update's (internal/refs): no GET /repos for it
	}
	for _, p := range ask {
		e, ok := got[p]
		g.cache.putPath(at.Root, p, known{e: object.TreeEntry{Path: p, Mode: e.Mode, Type: e.Type, SHA: e.OID}, ok: ok})
		if ok && e.Text != nil && changes.BlobSHA([]byte(*e.Text)) == e.OID {
			g.cache.putBlob(e.OID, []byte(*e.Text)) // a .gitattributes file: read with its entry
		}
	}
	return nil
}

// readDir returns the entries of the tree sha, from the cache or with one
// GET git/trees/{sha} request.
func (g *GitHub) readDir(ctx context.Context, sha string) (dir, error) {
	if d, ok := g.cache.dir(sha); ok {
		return d, nil
	}
	t, err := g.rest.Tree(ctx, sha, false)
	if err != nil {
		return nil, fmt.Errorf("read tree %s: %w", short(sha), err)
	}
	d := make(dir, len(t.Entries))
	for _, e := range t.Entries {
		d[e.Path] = object.TreeEntry{Path: e.Path, Mode: e.Mode, Type: e.Type, SHA: e.SHA}
	}
	g.cache.putDir(sha, d)
	return d, nil
}

// ReadPath finds path in the tree root, reading only the directories on
// the way, whatever is known. It returns ok == false when the path (or a directory above it) is
// absent. A path that crosses a file ("a/b" where "a" is a file) is absent.
func (g *GitHub) ReadPath(ctx context.Context, root, path string) (object.TreeEntry, bool, error) {
	cur := root
	segs := strings.Split(path, "/")
	for i, seg := range segs {
		d, err := g.readDir(ctx, cur)
		if err != nil {
			return object.TreeEntry{}, false, err
		}
		e, ok := d[seg]
		if !ok {
			return object.TreeEntry{}, false, nil
		}
		if i == len(segs)-1 {
			return e, true, nil
		}
		if e.Type != "tree" {
			return object.TreeEntry{}, false, nil
		}
		cur = e.SHA
	}
	return object.TreeEntry{}, false, nil
}

// cachedLookup reports whether path can be found in the tree root from
// directories already read, without a request.
func (g *GitHub) cachedLookup(root, path string) bool {
	cur := root
	segs := strings.Split(path, "/")
	for i, seg := range segs {
		d, ok := g.cache.dir(cur)
		if !ok {
			return false
		}
		e, ok := d[seg]
		if !ok || i == len(segs)-1 || e.Type != "tree" {
			return true
		}
		cur = e.SHA
	}
	return true
}

// listFilesUpTo lists every file under the tree sha, recursively, with paths
// relative to it, and every directory (dirs). It asks for the recursive
// listing in one request; when GitHub truncates it, with walk it walks
// level by level, and without walk it returns complete == false.
func (g *GitHub) listFilesUpTo(ctx context.Context, sha string, walk bool) (files, dirs map[string]object.TreeEntry, complete bool, err error) {
	t, err := g.rest.Tree(ctx, sha, true)
	if err != nil {
		return nil, nil, false, fmt.Errorf("read tree %s: %w", short(sha), err)
	}
	files, dirs = map[string]object.TreeEntry{}, map[string]object.TreeEntry{}
	if t.Truncated && !walk {
		return nil, nil, false, nil
	}
	if !t.Truncated {
		for _, e := range t.Entries {
			te := object.TreeEntry{Path: e.Path, Mode: e.Mode, Type: e.Type, SHA: e.SHA}
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
		d, err := g.readDir(ctx, sha)
		if err != nil {
			return err
		}
		for name, e := range d {
			e.Path = prefix + name
			if e.Type == "tree" {
				dirs[e.Path] = e
				if err := descend(e.Path+"/", e.SHA); err != nil {
					return err
				}
				continue
			}
			files[e.Path] = e
		}
		return nil
	}
	return files, dirs, true, descend("", sha)
}

// Blob returns a blob's content, from the cache or with one GET
// git/blobs/{sha} request.
func (g *GitHub) Blob(ctx context.Context, sha string) ([]byte, error) {
	if b, ok := g.cache.blob(sha); ok {
		return b, nil
	}
	data, err := g.rest.Blob(ctx, sha)
	if err != nil {
		return nil, fmt.Errorf("read blob %s: %w", short(sha), err)
	}
	if got := changes.BlobSHA(data); got != sha {
		return nil, fmt.Errorf("read blob %s: content hashes to %s", short(sha), short(got))
	}
	g.cache.putBlob(sha, data)
	return data, nil
}
