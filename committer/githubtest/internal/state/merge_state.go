package state

import (
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/rules"
)

// Mergeability is what GitHub shows of whether a pull request can merge.
// The fake computes it from the branches, the rules and the commit
// statuses, at once or, with Repo.MergeLag, MergeLag after the pull
// request last changed (GitHub computes it in the background: mergeable
// null and mergeable_state "unknown" until it has). A closed or merged
// pull request, or one whose branches are gone, is unknown.
type Mergeability struct {
	Known      bool   // false: mergeable and rebaseable are null
	Mergeable  bool   // no conflict (the path-level model of mergeable.go)
	Rebaseable bool   // its commits replay on the base without conflict
	State      string // REST mergeable_state: clean, behind, blocked, dirty, draft, unstable, unknown
}

// GraphQLState is Mergeability as GraphQL's MergeableState and
// MergeStateStatus.
func (m Mergeability) GraphQLState() (mergeable, status string) {
	switch {
	case !m.Known:
		return "UNKNOWN", "UNKNOWN"
	case !m.Mergeable:
		return "CONFLICTING", "DIRTY"
	}
	return "MERGEABLE", map[string]string{"clean": "CLEAN", "behind": "BEHIND", "blocked": "BLOCKED",
		"draft": "DRAFT", "unstable": "UNSTABLE"}[m.State]
}

// PullMergeability is p's mergeability for the user id (whose rule
// bypasses count). In order: dirty (a conflict), draft, blocked (a rule
// would refuse the merge: approvals, required checks, ...; not the merge
// queue, through which a clean pull request merges),
// behind (only being behind the base refuses it: the branch must be up to
// date), unstable (a commit status of the head is not success), clean.
// Caller holds Mu.
func (rp *Repo) PullMergeability(p *Pull, id Identity) Mergeability {
	head, okHead := rp.Refs["refs/heads/"+p.Head]
	base, okBase := rp.Refs["refs/heads/"+p.Base]
	if p.State != "open" || !okHead || !okBase {
		return Mergeability{State: "unknown"}
	}
	if rp.MergeLag > 0 && rp.Clock != nil && rp.Clock().Sub(rp.lastChange(p)) < rp.MergeLag {
		return Mergeability{State: "unknown"} // GitHub is still computing it
	}
	m := Mergeability{Known: true}
	if len(rp.MergeFiles(base, head).Conflicts) > 0 {
		m.State = "dirty"
		return m
	}
	m.Mergeable = true
	m.Rebaseable, _ = rp.replay(base, rp.pullCommits(base, head), nil)
	behind := !rp.IsAncestor(base, head)
	queued := rp.QueueRule(p.Base) != nil // the queue is how it merges: clean, not blocked (queue.go)
	judge := func(behind bool) bool {
		ch := rules.Change{Ref: "refs/heads/" + p.Base, Old: base, New: head, Pull: &rules.PullMerge{Head: head, Behind: behind, Queued: queued}}
		return Refusal(rp, id, ch) != nil
	}
	switch {
	case p.Draft:
		m.State = "draft"
	case judge(false):
		m.State = "blocked"
	case behind && judge(true):
		m.State = "behind"
	case rp.anyStatusNotSuccess(head):
		m.State = "unstable"
	default:
		m.State = "clean"
	}
	return m
}

func (rp *Repo) anyStatusNotSuccess(h plumbing.Hash) bool {
	for _, st := range rp.Statuses[h] {
		if st != "success" {
			return true
		}
	}
	for _, cr := range rp.LatestRuns(h) { // check runs count as statuses do (checks.go)
		if rp.CheckState(h, cr.Name) != "success" {
			return true
		}
	}
	return false
}

// lastChange is when p last changed as GitHub recomputes mergeability
// for: created or edited, or its head or base branch moved. Caller holds
// Mu.
func (rp *Repo) lastChange(p *Pull) time.Time {
	last := p.UpdatedAt()
	for i := len(rp.Updates) - 1; i >= 0; i-- {
		u := rp.Updates[i]
		if u.Ref == "refs/heads/"+p.Head || u.Ref == "refs/heads/"+p.Base {
			if u.At.After(last) {
				last = u.At
			}
			break
		}
	}
	return last
}
