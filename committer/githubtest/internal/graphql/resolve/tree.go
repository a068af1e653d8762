package resolve

import (
	"encoding/base64"
	"path"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/graphql"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/state"
)

// Path lookups: Commit.file(path:) and Tree.entries answer TreeEntry
// {mode, type, oid, name, path, size, object, …}, as GitHub's schema
// defines them, so a client learns what is at many paths in one query
// (one aliased file(path:) or object(expression: "<oid>:<path>") per path).
// mode is git's mode as a number (100644 → 33188, 040000 → 16384), type
// is "blob", "tree" or "commit" (a submodule); a path that is not there
// is null.

// gqlFileLocked is Commit.file(path:): the entry at p in the commit's
// tree, or nil. Caller holds mu.
func gqlFileLocked(rp *state.Repo, c *object.Commit, p string) graphql.Object {
	p = strings.Trim(p, "/")
	if p == "" {
		return nil
	}
	e, ok := rp.LookupPath(c.TreeHash, p)
	if !ok {
		return nil
	}
	return gqlTreeEntry{rp: rp, path: p, e: e}
}

type gqlTreeEntry struct {
	rp   *state.Repo
	path string // full path from the root
	e    object.TreeEntry
}

func (gqlTreeEntry) TypeName() string { return "TreeEntry" }

func (g gqlTreeEntry) Field(_ *graphql.Exec, name string, _ map[string]any) (any, error) {
	g.rp.Mu.RLock()
	defer g.rp.Mu.RUnlock()
	base := path.Base(g.path)
	switch name {
	case "mode":
		return int(g.e.Mode), nil
	case "name":
		return base, nil
	case "nameRaw":
		return base64.StdEncoding.EncodeToString([]byte(base)), nil
	case "path":
		return g.path, nil
	case "pathRaw":
		return base64.StdEncoding.EncodeToString([]byte(g.path)), nil
	case "oid":
		return g.e.Hash.String(), nil
	case "type":
		switch g.e.Mode {
		case filemode.Dir:
			return "tree", nil
		case filemode.Submodule:
			return "commit", nil
		}
		return "blob", nil
	case "size":
		data, _ := g.rp.Blob(g.e.Hash)
		return len(data), nil // 0 for a tree or a submodule
	case "object":
		if g.e.Mode == filemode.Dir {
			return gqlTree{rp: g.rp, oid: g.e.Hash, path: g.path}, nil
		}
		return gqlGitObjectLocked(g.rp, g.e.Hash), nil // nil for a submodule's commit
	case "repository":
		return gqlRepo{rp: g.rp}, nil
	case "isGenerated":
		return false, nil
	case "extension":
		if ext := path.Ext(base); ext != "" && g.e.Mode != filemode.Dir {
			return ext, nil
		}
		return nil, nil
	case "lineCount":
		data, ok := g.rp.Blob(g.e.Hash)
		if !ok || g.e.Mode == filemode.Symlink || isBinary(data) {
			return nil, nil
		}
		n := strings.Count(string(data), "\n")
		if len(data) > 0 && data[len(data)-1] != '\n' {
			n++
		}
		return n, nil
	}
	return nil, graphql.Unserved("TreeEntry", name)
}

// gqlEntriesLocked is Tree.entries: the tree's entries in git order, with
// paths under prefix. Caller holds mu.
func gqlEntriesLocked(rp *state.Repo, tree plumbing.Hash, prefix string) []graphql.Object {
	entries, ok := rp.Trees[tree]
	if !ok {
		return nil
	}
	out := make([]graphql.Object, 0, len(entries))
	for _, e := range entries {
		out = append(out, gqlTreeEntry{rp: rp, path: path.Join(prefix, e.Name), e: e})
	}
	return out
}
