package githubtest

import (
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// repo holds one repository: its git objects (encoded with go-git so every
// SHA is what git computes), its refs and its pull requests.
type repo struct {
	mu            sync.RWMutex
	owner, name   string
	id            int64
	private       bool
	org           bool // created through POST /orgs/{org}/repos
	defaultBranch string
	created       time.Time

	objStore
	verif   map[plumbing.Hash]verification
	refs    map[string]plumbing.Hash // "refs/heads/main" -> commit
	renamed map[string]string        // branch renamed away -> its new name (routes_branches.go)
	updates []RefUpdate
	pulls   []*pull
	labels  []*label // routes_pulls_update.go

	rulesets    []*ruleset                          // rules.go
	protections []*protection                       // classic branch protection
	statuses    map[plumbing.Hash]map[string]string // commit statuses: context -> state
}

// objStore holds a repository's git objects, encoded with go-git so every
// SHA is what git computes. Its methods' callers hold the repo's mu.
type objStore struct {
	objects map[plumbing.Hash]plumbing.EncodedObject
	trees   map[plumbing.Hash][]object.TreeEntry // decoded, sorted
	commits map[plumbing.Hash]*object.Commit
	tags    map[plumbing.Hash]*object.Tag // annotated tag objects (routes_tags.go)
}

type verification struct {
	Verified   bool    `json:"verified"`
	Reason     string  `json:"reason"`
	Signature  *string `json:"signature"`
	Payload    *string `json:"payload"`
	VerifiedAt *string `json:"verified_at"`
}

func newRepo(owner, name string, id int64, now time.Time) *repo {
	return &repo{
		owner: owner, name: name, id: id, defaultBranch: "main", created: now,
		objStore: objStore{
			objects: map[plumbing.Hash]plumbing.EncodedObject{},
			trees:   map[plumbing.Hash][]object.TreeEntry{},
			commits: map[plumbing.Hash]*object.Commit{},
			tags:    map[plumbing.Hash]*object.Tag{},
		},
		statuses: map[plumbing.Hash]map[string]string{},
		verif:    map[plumbing.Hash]verification{},
		refs:     map[string]plumbing.Hash{},
	}
}

func (rp *repo) fullName() string { return rp.owner + "/" + rp.name }

// empty reports whether the repository has no refs (no commits). Caller holds mu.
func (rp *repo) empty() bool { return len(rp.refs) == 0 }

// putBlob stores content as a blob. Caller holds mu for writing.
func (st *objStore) putBlob(content []byte) plumbing.Hash {
	h := plumbing.ComputeHash(plumbing.BlobObject, content)
	if _, ok := st.objects[h]; ok {
		return h
	}
	o := &plumbing.MemoryObject{}
	o.SetType(plumbing.BlobObject)
	_, _ = o.Write(content)
	st.objects[h] = o
	return h
}

// putTree stores a tree; entries are sorted in git order first. Caller holds mu.
func (st *objStore) putTree(entries []object.TreeEntry) (plumbing.Hash, error) {
	sort.Sort(object.TreeEntrySorter(entries))
	o := &plumbing.MemoryObject{}
	t := &object.Tree{Entries: entries}
	if err := t.Encode(o); err != nil {
		return plumbing.ZeroHash, err
	}
	h := o.Hash()
	if _, ok := st.objects[h]; !ok {
		st.objects[h] = o
		st.trees[h] = entries
	}
	return h, nil
}

// putCommit stores a commit. Caller holds mu.
func (st *objStore) putCommit(c *object.Commit) plumbing.Hash {
	o := &plumbing.MemoryObject{}
	_ = c.Encode(o)
	h := o.Hash()
	c.Hash = h
	if _, ok := st.objects[h]; !ok {
		st.objects[h] = o
		st.commits[h] = c
	}
	return h
}

func (st *objStore) objType(h plumbing.Hash) plumbing.ObjectType {
	if o, ok := st.objects[h]; ok {
		return o.Type()
	}
	return plumbing.InvalidObject
}

func (st *objStore) blob(h plumbing.Hash) ([]byte, bool) {
	o, ok := st.objects[h]
	if !ok || o.Type() != plumbing.BlobObject {
		return nil, false
	}
	rd, err := o.Reader()
	if err != nil {
		return nil, false
	}
	defer rd.Close()
	b, err := io.ReadAll(rd)
	return b, err == nil
}

// resolve turns a branch name, "heads/x", "refs/heads/x", tag name or a
// full SHA into a commit hash, peeling annotated tags as git does. Caller
// holds mu.
func (rp *repo) resolve(ref string) (plumbing.Hash, bool) {
	h, ok := rp.resolveRaw(ref)
	return rp.peel(h), ok
}

// treeOf is the tree of a commit, or a tree itself. Caller holds mu.
func (st *objStore) treeOf(h plumbing.Hash) (plumbing.Hash, bool) {
	if c, ok := st.commits[h]; ok {
		return c.TreeHash, true
	}
	_, ok := st.trees[h]
	return h, ok
}

// resolveRaw is resolve without peeling tags; "HEAD" is the default
// branch. Caller holds mu.
func (rp *repo) resolveRaw(ref string) (plumbing.Hash, bool) {
	if ref == "HEAD" {
		ref = "refs/heads/" + rp.defaultBranch
	}
	for _, cand := range []string{ref, "refs/" + ref, "refs/heads/" + ref, "refs/tags/" + ref} {
		if h, ok := rp.refs[cand]; ok {
			return h, true
		}
	}
	if len(ref) == 40 {
		h := plumbing.NewHash(ref)
		if h.String() == strings.ToLower(ref) {
			if _, ok := rp.objects[h]; ok {
				return h, true
			}
		}
	}
	return plumbing.ZeroHash, false
}

// resolveTree resolves a tree SHA, or a ref/commit to its tree. Caller holds mu.
func (rp *repo) resolveTree(ref string) (plumbing.Hash, bool) {
	if len(ref) == 40 {
		h := plumbing.NewHash(ref)
		if _, ok := rp.trees[h]; ok {
			return h, true
		}
	}
	h, ok := rp.resolve(ref)
	if !ok {
		return plumbing.ZeroHash, false
	}
	if c, ok := rp.commits[h]; ok {
		return c.TreeHash, true
	}
	if _, ok := rp.trees[h]; ok {
		return h, true
	}
	return plumbing.ZeroHash, false
}

// isAncestor reports whether anc is reachable from desc (or equal). Caller holds mu.
func (st *objStore) isAncestor(anc, desc plumbing.Hash) bool {
	seen := map[plumbing.Hash]bool{}
	stack := []plumbing.Hash{desc}
	for len(stack) > 0 {
		h := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if h == anc {
			return true
		}
		if seen[h] {
			continue
		}
		seen[h] = true
		if c, ok := st.commits[h]; ok {
			stack = append(stack, c.ParentHashes...)
		}
	}
	return false
}

// lookupPath finds the entry at path inside tree root. Caller holds mu.
func (st *objStore) lookupPath(root plumbing.Hash, path string) (object.TreeEntry, bool) {
	if path == "" {
		return object.TreeEntry{Mode: filemode.Dir, Hash: root}, true
	}
	cur := root
	parts := strings.Split(path, "/")
	for i, p := range parts {
		entries, ok := st.trees[cur]
		if !ok {
			return object.TreeEntry{}, false
		}
		e, ok := findEntry(entries, p)
		if !ok {
			return object.TreeEntry{}, false
		}
		if i == len(parts)-1 {
			return e, true
		}
		if e.Mode != filemode.Dir {
			return object.TreeEntry{}, false
		}
		cur = e.Hash
	}
	return object.TreeEntry{}, false
}

func findEntry(entries []object.TreeEntry, name string) (object.TreeEntry, bool) {
	for _, e := range entries {
		if e.Name == name {
			return e, true
		}
	}
	return object.TreeEntry{}, false
}

// walkTree calls fn for every entry below root, depth first in tree order.
// fn returns false to stop. Caller holds mu.
func (st *objStore) walkTree(root plumbing.Hash, prefix string, fn func(path string, e object.TreeEntry) bool) bool {
	for _, e := range st.trees[root] {
		p := e.Name
		if prefix != "" {
			p = prefix + "/" + e.Name
		}
		if !fn(p, e) {
			return false
		}
		if e.Mode == filemode.Dir && !st.walkTree(e.Hash, p, fn) {
			return false
		}
	}
	return true
}

func modeString(m filemode.FileMode) string {
	switch m {
	case filemode.Dir:
		return "040000"
	case filemode.Executable:
		return "100755"
	case filemode.Symlink:
		return "120000"
	case filemode.Submodule:
		return "160000"
	}
	return "100644"
}

func typeOfMode(m filemode.FileMode) string {
	switch m {
	case filemode.Dir:
		return "tree"
	case filemode.Submodule:
		return "commit"
	}
	return "blob"
}
