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
	Mu            sync.RWMutex
	Owner, Name   string
	ID            int64
	Private       bool
	Org           bool // created through POST /orgs/{org}/repos
	DefaultBranch string
	Created       time.Time

	gitobj.Store
	Verif   map[plumbing.Hash]sign.Verification
	Refs    map[string]plumbing.Hash // "refs/heads/main" -> commit
	Renamed map[string]string        // branch renamed away -> its new name (routes_branches.go)
	Updates []RefUpdate
	Pulls   []*pull
	Labels  []*label // routes_pulls_update.go

	Rulesets    []*rules.Set                        // rules.go
	Protections []*rules.Protection                 // classic branch protection
	Statuses    map[plumbing.Hash]map[string]string // commit statuses: context -> state
}

func newRepo(owner, name string, id int64, now time.Time) *repo {
	return &repo{
		Owner: owner, Name: name, ID: id, DefaultBranch: "main", Created: now,
		Store: gitobj.Store{
			Objects: map[plumbing.Hash]plumbing.EncodedObject{},
			Trees:   map[plumbing.Hash][]object.TreeEntry{},
			Commits: map[plumbing.Hash]*object.Commit{},
			Tags:    map[plumbing.Hash]*object.Tag{},
		},
		Statuses: map[plumbing.Hash]map[string]string{},
		Verif:    map[plumbing.Hash]sign.Verification{},
		Refs:     map[string]plumbing.Hash{},
	}
}

func (rp *repo) FullName() string { return rp.Owner + "/" + rp.Name }

// empty reports whether the repository has no refs (no commits). Caller holds mu.
func (rp *repo) Empty() bool { return len(rp.Refs) == 0 }

// resolve turns a branch name, "heads/x", "refs/heads/x", tag name or a
// full SHA into a commit hash, peeling annotated tags as git does. Caller
// holds mu.
func (rp *repo) Resolve(ref string) (plumbing.Hash, bool) {
	h, ok := rp.ResolveRaw(ref)
	return rp.Peel(h), ok
}

// resolveRaw is resolve without peeling tags; "HEAD" is the default
// branch. Caller holds mu.
func (rp *repo) ResolveRaw(ref string) (plumbing.Hash, bool) {
	if ref == "HEAD" {
		ref = "refs/heads/" + rp.DefaultBranch
	}
	for _, cand := range []string{ref, "refs/" + ref, "refs/heads/" + ref, "refs/tags/" + ref} {
		if h, ok := rp.Refs[cand]; ok {
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
func (rp *repo) ResolveTree(ref string) (plumbing.Hash, bool) {
	if len(ref) == 40 {
		h := plumbing.NewHash(ref)
		if _, ok := rp.Trees[h]; ok {
			return h, true
		}
	}
	h, ok := rp.Resolve(ref)
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
