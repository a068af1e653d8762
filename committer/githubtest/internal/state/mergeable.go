package state

import (
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Mergeability in the fake: go-git has no 3-way merge, so the fake merges
// at the level of paths. Since the merge base, a path changed on one side
// only takes that side's entry; a path both sides changed to the same entry
// takes it; a path both sides changed to different entries (contents, mode,
// or one side deleting it) is a conflict, even where git's line-level merge
// would combine the two edits. Renames are not followed (a path renamed on
// one side and changed on the other is a conflict here; git's rename
// detection merges it), and a file on one side where the other has a
// directory is a conflict. Where the model says "no conflict" its tree is
// the one git's merge writes (merge_test.go checks it against
// `git merge-tree --write-tree`).

// MergeSettings are a repository's merge settings: the merge methods it
// allows (allow_merge_commit, allow_squash_merge, allow_rebase_merge) and
// delete_branch_on_merge.
type MergeSettings struct {
	AllowMergeCommit, AllowSquashMerge, AllowRebaseMerge bool
	DeleteBranchOnMerge                                  bool
	AllowAutoMerge                                       bool // allow_auto_merge (automerge.go); off on a new repository
}

// DefaultMergeSettings are a new repository's on GitHub: every method
// allowed, head branches kept.
func DefaultMergeSettings() MergeSettings {
	return MergeSettings{AllowMergeCommit: true, AllowSquashMerge: true, AllowRebaseMerge: true}
}

// Allows reports whether the settings allow method (merge, squash, rebase).
func (m MergeSettings) Allows(method string) bool {
	switch method {
	case "merge":
		return m.AllowMergeCommit
	case "squash":
		return m.AllowSquashMerge
	case "rebase":
		return m.AllowRebaseMerge
	}
	return false
}

// files maps every non-directory path of tree root to its entry. Caller
// holds Mu.
func (rp *Repo) files(root plumbing.Hash) map[string]object.TreeEntry {
	m := map[string]object.TreeEntry{}
	rp.WalkTree(root, "", func(p string, e object.TreeEntry) bool {
		if e.Mode != filemode.Dir {
			m[p] = e
		}
		return true
	})
	return m
}

func (rp *Repo) commitFiles(h plumbing.Hash) map[string]object.TreeEntry {
	c, ok := rp.Commits[h]
	if !ok {
		return map[string]object.TreeEntry{}
	}
	return rp.files(c.TreeHash)
}

// sameEntry compares the entries of a path on two sides (absent is a state).
func sameEntry(a, b map[string]object.TreeEntry, p string) bool {
	x, okx := a[p]
	y, oky := b[p]
	return okx == oky && (!okx || x.Hash == y.Hash && x.Mode == y.Mode)
}

// BestMergeBase is the best common ancestor of a and b, as git merge-base
// picks it; with several (criss-cross histories) the most recently
// committed. ok is false when they share no history. Caller holds Mu.
func (rp *Repo) BestMergeBase(a, b plumbing.Hash) (plumbing.Hash, bool) {
	inA := rp.Reachable(a)
	var common []plumbing.Hash
	seen := map[plumbing.Hash]bool{}
	stack := []plumbing.Hash{b}
	for len(stack) > 0 {
		h := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[h] {
			continue
		}
		seen[h] = true
		if inA[h] {
			common = append(common, h)
			continue
		}
		if c, ok := rp.Commits[h]; ok {
			stack = append(stack, c.ParentHashes...)
		}
	}
	var best []plumbing.Hash
	for _, c := range common {
		dominated := false
		for _, o := range common {
			if o != c && rp.IsAncestor(c, o) {
				dominated = true
				break
			}
		}
		if !dominated {
			best = append(best, c)
		}
	}
	if len(best) == 0 {
		return plumbing.ZeroHash, false
	}
	sort.Slice(best, func(i, j int) bool {
		return rp.Commits[best[i]].Committer.When.After(rp.Commits[best[j]].Committer.When)
	})
	return best[0], true
}

// threeWay merges the files of ours and theirs since base by path; the
// conflicting paths are listed, sorted.
func threeWay(base, ours, theirs map[string]object.TreeEntry) (map[string]object.TreeEntry, []string) {
	out := map[string]object.TreeEntry{}
	for p, e := range base {
		out[p] = e
	}
	paths := map[string]bool{}
	for _, side := range []map[string]object.TreeEntry{base, ours, theirs} {
		for p := range side {
			paths[p] = true
		}
	}
	var conflicts []string
	for p := range paths {
		take := theirs
		switch {
		case sameEntry(ours, base, p):
		case sameEntry(theirs, base, p), sameEntry(ours, theirs, p):
			take = ours
		default:
			conflicts = append(conflicts, p)
			continue
		}
		if e, ok := take[p]; ok {
			out[p] = e
		} else {
			delete(out, p)
		}
	}
	conflicts = append(conflicts, fileDirClashes(out)...)
	sort.Strings(conflicts)
	return out, conflicts
}

// fileDirClashes lists the files of m that other paths of m need as a
// directory.
func fileDirClashes(m map[string]object.TreeEntry) []string {
	var out []string
	for p := range m {
		for i := strings.IndexByte(p, '/'); i >= 0; i = nextSlash(p, i) {
			if _, ok := m[p[:i]]; ok {
				out = append(out, p[:i])
			}
		}
	}
	return out
}

func nextSlash(p string, i int) int {
	j := strings.IndexByte(p[i+1:], '/')
	if j < 0 {
		return -1
	}
	return i + 1 + j
}

// Merged is what merging head into base gives by the path-level model.
type Merged struct {
	Base      plumbing.Hash // the merge base (zero: no common history)
	Files     map[string]object.TreeEntry
	Conflicts []string
}

// MergeFiles merges head into base (commits) by the path-level model.
// Caller holds Mu.
func (rp *Repo) MergeFiles(base, head plumbing.Hash) Merged {
	mb, ok := rp.BestMergeBase(base, head)
	var baseFiles map[string]object.TreeEntry
	if ok {
		baseFiles = rp.commitFiles(mb)
	} else {
		baseFiles = map[string]object.TreeEntry{}
	}
	files, conflicts := threeWay(baseFiles, rp.commitFiles(base), rp.commitFiles(head))
	return Merged{Base: mb, Files: files, Conflicts: conflicts}
}
