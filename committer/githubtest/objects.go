package githubtest

import (
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/gitobj"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/rules"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/sign"
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

	gitobj.Store
	verif   map[plumbing.Hash]sign.Verification
	refs    map[string]plumbing.Hash // "refs/heads/main" -> commit
	renamed map[string]string        // branch renamed away -> its new name (routes_branches.go)
	updates []RefUpdate
	pulls   []*pull
	labels  []*label // routes_pulls_update.go

	rulesets    []*rules.Set                        // rules.go
	protections []*rules.Protection                 // classic branch protection
	statuses    map[plumbing.Hash]map[string]string // commit statuses: context -> state
}

func newRepo(owner, name string, id int64, now time.Time) *repo {
	return &repo{
		owner: owner, name: name, id: id, defaultBranch: "main", created: now,
		Store: gitobj.Store{
			Objects: map[plumbing.Hash]plumbing.EncodedObject{},
			Trees:   map[plumbing.Hash][]object.TreeEntry{},
			Commits: map[plumbing.Hash]*object.Commit{},
			Tags:    map[plumbing.Hash]*object.Tag{},
		},
		statuses: map[plumbing.Hash]map[string]string{},
		verif:    map[plumbing.Hash]sign.Verification{},
		refs:     map[string]plumbing.Hash{},
	}
}

func (rp *repo) fullName() string { return rp.owner + "/" + rp.name }

// empty reports whether the repository has no refs (no commits). Caller holds mu.
func (rp *repo) empty() bool { return len(rp.refs) == 0 }

// resolve turns a branch name, "heads/x", "refs/heads/x", tag name or a
// full SHA into a commit hash, peeling annotated tags as git does. Caller
// holds mu.
func (rp *repo) resolve(ref string) (plumbing.Hash, bool) {
	h, ok := rp.resolveRaw(ref)
	return rp.peel(h), ok
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
			if _, ok := rp.Objects[h]; ok {
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
		if _, ok := rp.Trees[h]; ok {
			return h, true
		}
	}
	h, ok := rp.resolve(ref)
	if !ok {
		return plumbing.ZeroHash, false
	}
	if c, ok := rp.Commits[h]; ok {
		return c.TreeHash, true
	}
	if _, ok := rp.Trees[h]; ok {
		return h, true
	}
	return plumbing.ZeroHash, false
}
