package state

import (
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Log lists the commits reachable from start as `git log start [-- path]`
// does by default: newest committer date first, commits of the same date
// in the order the walk met them (parents in their order), as git's
// date-ordered commit list. With path it simplifies history as git does
// by default: a commit is listed when its entry at path differs from every
// parent's (a root commit: when path exists in it), and a merge whose entry
// equals a parent's is followed only into the first such parent. Caller
// holds Mu.
func (rp *Repo) Log(start plumbing.Hash, path string) []*object.Commit {
	c, ok := rp.Commits[start]
	if !ok {
		return nil
	}
	var out []*object.Commit
	queue := []*object.Commit{c}
	seen := map[plumbing.Hash]bool{start: true}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		parents, show := rp.simplify(c, path)
		if show {
			out = append(out, c)
		}
		for _, p := range parents {
			if pc, ok := rp.Commits[p]; ok && !seen[p] {
				seen[p] = true
				queue = insertByDate(queue, pc)
			}
		}
	}
	return out
}

// simplify is the parents git log follows from c and whether it shows c
// (try_to_simplify_commit with git's default history simplification).
func (rp *Repo) simplify(c *object.Commit, path string) ([]plumbing.Hash, bool) {
	if path == "" {
		return c.ParentHashes, true
	}
	now, has := rp.LookupPath(c.TreeHash, path)
	if len(c.ParentHashes) == 0 {
		return nil, has
	}
	for _, p := range c.ParentHashes {
		pc, ok := rp.Commits[p]
		if !ok {
			continue
		}
		before, hadBefore := rp.LookupPath(pc.TreeHash, path)
		if has == hadBefore && now.Hash == before.Hash && now.Mode == before.Mode {
			return []plumbing.Hash{p}, false
		}
	}
	return c.ParentHashes, true
}

// insertByDate puts c after every queued commit that is not older than it
// (git's commit_list_insert_by_date).
func insertByDate(queue []*object.Commit, c *object.Commit) []*object.Commit {
	at := len(queue)
	for i, q := range queue {
		if q.Committer.When.Unix() < c.Committer.When.Unix() {
			at = i
			break
		}
	}
	queue = append(queue, nil)
	copy(queue[at+1:], queue[at:])
	queue[at] = c
	return queue
}
