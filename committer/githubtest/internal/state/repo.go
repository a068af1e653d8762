package state

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

// Repo holds one repository: its git objects (encoded with go-git so every
// SHA is what git computes), its refs and its pull requests.
type Repo struct {
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
	Renamed map[string]string        // branch renamed away -> its new name (githubtest's routes_branches.go)
	Updates []RefUpdate
	Pulls   []*Pull
	Labels  []*Label // githubtest's routes_pulls_update.go

	Rulesets    []*rules.Set                        // githubtest's rules.go
	Protections []*rules.Protection                 // classic branch protection
	Statuses    map[plumbing.Hash]map[string]string // commit statuses: context -> state
	Merge       MergeSettings                       // merge methods allowed, delete_branch_on_merge (mergeable.go)
	MergeLag    time.Duration                       // mergeability is unknown this long after a pull request changes (merge_state.go)
	Clock       func() time.Time                    // the server's clock, for MergeLag
	Checks      Checks                              // statuses, check runs, AutoChecks (checks.go)
	Queues      map[string]*Queue                   // merge queues by base branch (queue.go)
}

// NewRepo is an empty repository whose default branch is main.
func NewRepo(owner, name string, id int64, now time.Time) *Repo {
	return &Repo{
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
		Merge:    DefaultMergeSettings(),
	}
}

// FullName is "owner/name".
func (rp *Repo) FullName() string { return rp.Owner + "/" + rp.Name }

// Empty reports whether the repository has no refs (no commits). Caller holds Mu.
func (rp *Repo) Empty() bool { return len(rp.Refs) == 0 }

// Resolve turns a branch name, "heads/x", "refs/heads/x", tag name or a
// full SHA into a commit hash, peeling annotated tags as git does. Caller
// holds Mu.
func (rp *Repo) Resolve(ref string) (plumbing.Hash, bool) {
	h, ok := rp.ResolveRaw(ref)
	return rp.Peel(h), ok
}

// ResolveRaw is Resolve without peeling tags; "HEAD" is the default
// branch. Caller holds Mu.
func (rp *Repo) ResolveRaw(ref string) (plumbing.Hash, bool) {
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

// ResolveTree resolves a tree SHA, or a ref/commit to its tree. Caller holds Mu.
func (rp *Repo) ResolveTree(ref string) (plumbing.Hash, bool) {
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

// RefUpdate is one change to a ref. Old is "" for a create, New is "" for a
// delete.
type RefUpdate struct {
	Ref, Old, New string
	Forced        bool
	FastForward   bool
	At            time.Time
}

// SetRef moves ref to h (zero hash deletes) and records the update. Caller holds Mu.
func (rp *Repo) SetRef(ref string, h plumbing.Hash, forced bool, at time.Time) {
	old, had := rp.Refs[ref]
	u := RefUpdate{Ref: ref, Forced: forced, At: at}
	if had {
		u.Old = old.String()
	}
	if h.IsZero() {
		delete(rp.Refs, ref)
	} else {
		rp.Refs[ref] = h
		u.New = h.String()
		u.FastForward = had && rp.IsAncestor(old, h)
	}
	rp.Updates = append(rp.Updates, u)
}

// DefaultBranchName is DefaultBranch. It, CommitAt, RefHashes,
// ReachablePeeled, Verified and Status are what rule evaluation
// (rules.Repo) reads. Caller holds rp.Mu.
func (rp *Repo) DefaultBranchName() string { return rp.DefaultBranch }

// CommitAt is commit h. Caller holds Mu.
func (rp *Repo) CommitAt(h plumbing.Hash) (*object.Commit, bool) {
	c, ok := rp.Commits[h]
	return c, ok
}

// RefHashes is the hashes every ref points at. Caller holds Mu.
func (rp *Repo) RefHashes() []plumbing.Hash {
	out := make([]plumbing.Hash, 0, len(rp.Refs))
	for _, h := range rp.Refs {
		out = append(out, h)
	}
	return out
}

// ReachablePeeled is Reachable of h peeled. Caller holds Mu.
func (rp *Repo) ReachablePeeled(h plumbing.Hash) map[plumbing.Hash]bool {
	return rp.Reachable(rp.Peel(h))
}

// Verified reports whether commit h shows as verified. Caller holds Mu.
func (rp *Repo) Verified(h plumbing.Hash) bool { return rp.Verif[h].Verified }

// Status is the state of commit h's status context, or "". Caller holds Mu.
func (rp *Repo) Status(h plumbing.Hash, context string) string { return rp.CheckState(h, context) }

// PutSignedCommit signs c as GitHub's web flow, stores it with a Verified
// verification and returns its hash. Caller holds rp.Mu for writing.
func (rp *Repo) PutSignedCommit(c *object.Commit, now time.Time) (plumbing.Hash, error) {
	v, err := sign.WebFlowSign(c, now)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	h := rp.PutCommit(c)
	rp.Verif[h] = v
	return h, nil
}

// ChangesPath reports whether c's entry at path differs from its first
// parent's. Caller holds Mu.
func (rp *Repo) ChangesPath(c *object.Commit, path string) bool {
	now, had := rp.LookupPath(c.TreeHash, path)
	if len(c.ParentHashes) == 0 {
		return had
	}
	pc, ok := rp.Commits[c.ParentHashes[0]]
	if !ok {
		return had
	}
	before, hadBefore := rp.LookupPath(pc.TreeHash, path)
	return had != hadBefore || now.Hash != before.Hash || now.Mode != before.Mode
}
