package state

import (
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/rules"
)

// BranchRedirect returns the branch that a GET of the missing branch name
// redirects to, or "". Caller holds Mu.
func (rp *Repo) BranchRedirect(name string) string {
	if to, ok := rp.Renamed[name]; ok {
		if _, exists := rp.Refs["refs/heads/"+to]; exists {
			return to
		}
	}
	if name == "master" && !rp.Empty() {
		if _, ok := rp.Refs["refs/heads/"+rp.DefaultBranch]; ok && rp.DefaultBranch != "master" {
			return rp.DefaultBranch
		}
	}
	return ""
}

// SortedRefs is the names of the refs under prefix, sorted. Caller holds Mu.
func (rp *Repo) SortedRefs(prefix string) []string {
	var names []string
	for name := range rp.Refs {
		if strings.HasPrefix(name, prefix) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}

// RefNameClash returns an existing ref that ref cannot exist beside, as
// one's name is a directory of the other's (refs/heads/main and
// refs/heads/main/sub), or "". Caller holds Mu.
func (rp *Repo) RefNameClash(ref string) string {
	for name := range rp.Refs {
		if strings.HasPrefix(name, ref+"/") || strings.HasPrefix(ref, name+"/") {
			return name
		}
	}
	return ""
}

// PutTag stores an annotated tag object. Caller holds Mu for writing.
func (rp *Repo) PutTag(t *object.Tag) plumbing.Hash {
	o := &plumbing.MemoryObject{}
	_ = t.Encode(o)
	h := o.Hash()
	t.Hash = h
	if _, ok := rp.Objects[h]; !ok {
		rp.Objects[h] = o
		rp.Tags[h] = t
	}
	return h
}

// Peel follows annotated tags to the object they finally name. Caller holds Mu.
func (rp *Repo) Peel(h plumbing.Hash) plumbing.Hash {
	for range 16 { // git peels nested tags; bound a (impossible) cycle
		t, ok := rp.Tags[h]
		if !ok {
			return h
		}
		h = t.Target
	}
	return h
}

// Reachable returns the commits reachable from h (h included). Caller holds Mu.
func (rp *Repo) Reachable(h plumbing.Hash) map[plumbing.Hash]bool {
	seen := map[plumbing.Hash]bool{}
	stack := []plumbing.Hash{h}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[x] {
			continue
		}
		seen[x] = true
		if c, ok := rp.Commits[x]; ok {
			stack = append(stack, c.ParentHashes...)
		}
	}
	return seen
}

// MergeBase returns the first commit reachable from head, breadth first,
// that base reaches too. Caller holds Mu.
func (rp *Repo) MergeBase(head plumbing.Hash, fromBase map[plumbing.Hash]bool) (plumbing.Hash, bool) {
	seen := map[plumbing.Hash]bool{}
	queue := []plumbing.Hash{head}
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		if fromBase[x] {
			return x, true
		}
		if seen[x] {
			continue
		}
		seen[x] = true
		if c, ok := rp.Commits[x]; ok {
			queue = append(queue, c.ParentHashes...)
		}
	}
	return plumbing.ZeroHash, false
}

// SortOldestFirst orders commits so that each comes after its parents
// among them (by generation, then committer date, then SHA). Caller holds Mu.
func (rp *Repo) SortOldestFirst(hs []plumbing.Hash) {
	gen := map[plumbing.Hash]int{}
	var depth func(h plumbing.Hash) int
	depth = func(h plumbing.Hash) int {
		if g, ok := gen[h]; ok {
			return g
		}
		gen[h] = 0
		c, ok := rp.Commits[h]
		if !ok {
			return 0
		}
		g := 0
		for _, p := range c.ParentHashes {
			g = max(g, depth(p)+1)
		}
		gen[h] = g
		return g
	}
	when := func(c *object.Commit) int64 { return c.Committer.When.Unix() }
	sort.Slice(hs, func(i, j int) bool {
		gi, gj := depth(hs[i]), depth(hs[j])
		if gi != gj {
			return gi < gj
		}
		if ti, tj := when(rp.Commits[hs[i]]), when(rp.Commits[hs[j]]); ti != tj {
			return ti < tj
		}
		return hs[i].String() < hs[j].String()
	})
}

// Parents resolves create-commit's parents, or returns GitHub's message for
// the first bad one. Caller holds rp.Mu.
func (rp *Repo) Parents(shas []string) ([]plumbing.Hash, string) {
	var out []plumbing.Hash
	for _, p := range shas {
		if !isLowerSHA(p) {
			return nil, MsgParentsMalformed
		}
		ph := plumbing.NewHash(p)
		if _, ok := rp.Commits[ph]; !ok {
			return nil, "Parent SHA does not exist or is not a commit object"
		}
		out = append(out, ph)
	}
	return out, ""
}

// MsgParentsMalformed is GitHub's reply to a parent that is not 40
// lowercase hex digits (Simply-Static#335).
const MsgParentsMalformed = "Each SHA in the 'parents' parameter must be exactly 40 characters and contain only [0-9a-f]."

// isLowerSHA reports whether s is 40 lowercase hex digits.
func isLowerSHA(s string) bool {
	if len(s) != 40 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// ContentsBranch resolves the branch for a contents write. Caller holds Mu.
func (rp *Repo) ContentsBranch(branch string) (ref string, head plumbing.Hash, root plumbing.Hash, ok bool) {
	if branch == "" {
		branch = rp.DefaultBranch
	}
	ref = "refs/heads/" + branch
	head, ok = rp.Refs[ref]
	if ok {
		root = rp.Commits[head].TreeHash
	}
	return ref, head, root, ok || rp.Empty()
}

// BaseTree resolves a base_tree: a tree SHA, or a commit SHA peeled to its
// tree (octokit-commit-multiple-files sends the head commit's SHA, and
// github.com accepts it). Caller holds rp.Mu.
func (rp *Repo) BaseTree(sha string) (plumbing.Hash, bool) {
	if !isSHA(sha) {
		return plumbing.ZeroHash, false
	}
	h := plumbing.NewHash(sha)
	if _, ok := rp.Trees[h]; ok {
		return h, true
	}
	if c, ok := rp.Commits[h]; ok {
		return c.TreeHash, true
	}
	return plumbing.ZeroHash, false
}

// isSHA reports whether s is 40 lowercase or uppercase hex digits.
func isSHA(s string) bool { return IsHex(s, 40) }

// IsHex reports whether s is n hex digits, either case.
func IsHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for _, c := range s {
		if !strings.ContainsRune("0123456789abcdefABCDEF", c) {
			return false
		}
	}
	return true
}

// ClassicProtection is the classic protection of branch, or nil. Caller
// holds Mu.
func (rp *Repo) ClassicProtection(branch string) *rules.Protection {
	for _, p := range rp.Protections {
		if rules.GlobMatch(p.Pattern, branch) {
			return p
		}
	}
	return nil
}

// BranchProtected is GET branches/{b}'s "protected": classic protection
// or an applying ruleset (GitHub shows rulesets there too; a guess for
// rulesets that only restrict creations). Caller holds Mu.
func (rp *Repo) BranchProtected(branch string) bool {
	if rp.ClassicProtection(branch) != nil {
		return true
	}
	for _, rs := range rp.Rulesets {
		if rs.Applies(rp.DefaultBranch, "refs/heads/"+branch) && len(rs.Rules) > 0 {
			return true
		}
	}
	return false
}

// SplitProtection tells GET branches/{b}/protection from a branch whose
// name ends in "/protection". Caller holds Mu.
func (rp *Repo) SplitProtection(name string) (string, bool) {
	b, ok := strings.CutSuffix(name, "/protection")
	if !ok {
		return "", false
	}
	if _, exists := rp.Refs["refs/heads/"+name]; exists {
		return "", false
	}
	return b, true
}

// ValidRefName checks "refs/x/y": starts with refs/ and has two slashes.
func ValidRefName(ref string) bool {
	if !strings.HasPrefix(ref, "refs/") || strings.Count(ref, "/") < 2 {
		return false
	}
	for _, seg := range strings.Split(ref, "/") {
		if seg == "" || strings.HasPrefix(seg, ".") || strings.HasSuffix(seg, ".lock") {
			return false
		}
	}
	// git check-ref-format: no "..", no control characters, no trailing ".".
	for _, c := range ref {
		if c < 0x20 || c == 0x7f {
			return false
		}
	}
	return !strings.ContainsAny(ref, " ~^:?*[\\") && !strings.Contains(ref, "@{") &&
		!strings.Contains(ref, "..") && !strings.HasSuffix(ref, ".")
}
