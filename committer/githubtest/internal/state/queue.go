package state

import (
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/rules"
)

// The merge queue of a branch whose ruleset has the merge_queue rule
// (GitHub: "Managing a merge queue", "About merge queues"). Entries are
// built in order, up to max_entries_to_build at once: entry i's commit is
// the pull request merged (by the rule's merge_method) onto entry i-1's
// commit, or onto the base branch for the first, and it is pushed to
// refs/heads/gh-readonly-queue/{base}/pr-{n}-{sha}, where sha is the
// commit it builds on (a guess: GitHub's documents name the branch but not
// the sha). The required checks of the base branch are read on that
// commit. When the first k entries (k up to max_entries_to_merge, at least
// min_entries_to_merge unless min_entries_to_merge_wait_minutes went by
// since the first was queued) pass ("ALLGREEN": every one of them;
// "HEADGREEN": the k-th), the base branch moves to the k-th commit and the
// k pull requests are merged. An entry whose checks fail, or report
// nothing for check_response_timeout_minutes, or that conflicts, is
// removed and the entries after it are built again; so is one whose pull
// request is closed or whose head moves. merge_group webhook events are
// not sent (the fake has no webhooks).

// Queue is the merge queue of one base branch.
type Queue struct {
	Base    string
	Entries []*QueueEntry
}

// QueueEntry is one pull request in a merge queue.
type QueueEntry struct {
	Pull     *Pull
	By       Identity
	Enqueued time.Time
	Jump     bool
	Head     plumbing.Hash // the pull request's head when queued
	Built    bool
	On, Tip  plumbing.Hash // the commit its merge group builds on, and its own commit
	Ref      string        // its gh-readonly-queue branch
	BuiltAt  time.Time
}

// QueueRule is the merge_queue rule's parameters of base, or nil. Caller
// holds Mu.
func (rp *Repo) QueueRule(base string) map[string]any {
	return rules.QueueRule(rp.Rulesets, rp.DefaultBranch, "refs/heads/"+base)
}

// QueueOf is p's merge queue entry and its position (1-based), or nil.
// Caller holds Mu.
func (rp *Repo) QueueOf(p *Pull) (*QueueEntry, int) {
	if q := rp.Queues[p.Base]; q != nil {
		for i, e := range q.Entries {
			if e.Pull == p {
				return e, i + 1
			}
		}
	}
	return nil, 0
}

// EntryState is the entry's MergeQueueEntryState. Caller holds Mu.
func (rp *Repo) EntryState(e *QueueEntry) string {
	if !e.Built {
		return "QUEUED"
	}
	if rp.checksOn(e.Pull.Base, e.Tip) == "success" {
		return "MERGEABLE"
	}
	return "AWAITING_CHECKS"
}

// Refusals of enqueuePullRequest and dequeuePullRequest: guesses in the
// form of GitHub's auto-merge ones.
const (
	msgNoQueue    = "Pull request Merge queue is not enabled for this branch"
	msgNotReady   = "Pull request Pull request is not mergeable"
	msgNotInQueue = "Pull request Pull request is not in the merge queue"
)

// Enqueue adds p to its base branch's merge queue (jump: at the front),
// or says why not; a pull request already queued stays where it is.
// Caller holds Mu for writing.
func (rp *Repo) Enqueue(p *Pull, by Identity, expected string, jump bool, now time.Time) *MergeRefusal {
	refuse := func(msg string) *MergeRefusal {
		return &MergeRefusal{Status: http.StatusUnprocessableEntity, Message: msg}
	}
	head := rp.PullHead(p)
	switch {
	case p.State != "open":
		return refuse(msgAutoMergeClosed)
	case rp.QueueRule(p.Base) == nil:
		return refuse(msgNoQueue)
	case expected != "" && !strings.EqualFold(expected, head.String()):
		return refuse(msgAutoMergeHead)
	case p.Draft:
		return refuse(msgAutoMergeDraft)
	}
	if e, _ := rp.QueueOf(p); e != nil {
		return nil
	}
	if !rp.queueReady(p, by) {
		return refuse(msgNotReady)
	}
	if rp.Queues == nil {
		rp.Queues = map[string]*Queue{}
	}
	q := rp.Queues[p.Base]
	if q == nil {
		q = &Queue{Base: p.Base}
		rp.Queues[p.Base] = q
	}
	e := &QueueEntry{Pull: p, By: by, Enqueued: now, Jump: jump, Head: head}
	if jump {
		rp.unbuild(q, 0, now)
		q.Entries = append([]*QueueEntry{e}, q.Entries...)
	} else {
		q.Entries = append(q.Entries, e)
	}
	return nil
}

// Dequeue removes p from its merge queue. Caller holds Mu for writing.
func (rp *Repo) Dequeue(p *Pull, now time.Time) *MergeRefusal {
	if _, pos := rp.QueueOf(p); pos > 0 {
		rp.removeEntry(rp.Queues[p.Base], pos-1, now)
		return nil
	}
	return &MergeRefusal{Status: http.StatusUnprocessableEntity, Message: msgNotInQueue}
}

// removeEntry takes entry i out and has those after it built again.
func (rp *Repo) removeEntry(q *Queue, i int, now time.Time) {
	rp.unbuild(q, i, now)
	q.Entries = slices.Delete(q.Entries, i, i+1)
}

// unbuild deletes the branches of entries i and after, to build them again.
func (rp *Repo) unbuild(q *Queue, i int, now time.Time) {
	for _, e := range q.Entries[i:] {
		if e.Built {
			if _, ok := rp.Refs[e.Ref]; ok {
				rp.SetRef(e.Ref, plumbing.ZeroHash, false, now)
			}
			e.Built, e.Ref = false, ""
		}
	}
}

// checksOn is "success" when every required check of base passes on h,
// "failure" when one fails, else "pending". Caller holds Mu.
func (rp *Repo) checksOn(base string, h plumbing.Hash) string {
	out := "success"
	for _, c := range rules.RequiredChecks(rp.Rulesets, rp.Protections, rp.DefaultBranch, "refs/heads/"+base) {
		switch rp.CheckState(h, c) {
		case "success":
		case "failure", "error":
			return "failure"
		default:
			out = "pending"
		}
	}
	return out
}

// queueStep moves every merge queue on; it reports whether anything
// changed. Caller holds Mu for writing.
func (rp *Repo) queueStep(now time.Time) bool {
	bases := make([]string, 0, len(rp.Queues))
	for b := range rp.Queues {
		bases = append(bases, b)
	}
	sort.Strings(bases)
	changed := false
	for _, b := range bases {
		q := rp.Queues[b]
		params := rp.QueueRule(b)
		baseTip, ok := rp.Refs["refs/heads/"+b]
		if params == nil || !ok || len(q.Entries) == 0 {
			continue
		}
		if rp.dropStale(q, baseTip, now) || rp.build(q, params, baseTip, now) || rp.mergeGroup(q, params, now) {
			changed = true
		}
	}
	return changed
}

// dropStale removes entries whose pull request closed or whose head
// moved, and has entries built on a base that moved built again.
func (rp *Repo) dropStale(q *Queue, baseTip plumbing.Hash, now time.Time) bool {
	for i, e := range q.Entries {
		if e.Pull.State != "open" || rp.PullHead(e.Pull) != e.Head {
			rp.removeEntry(q, i, now)
			return true
		}
	}
	prev := baseTip
	for i, e := range q.Entries {
		if !e.Built {
			break
		}
		if e.On != prev {
			rp.unbuild(q, i, now)
			return true
		}
		prev = e.Tip
	}
	return false
}

// build builds the entries not built yet, up to max_entries_to_build.
func (rp *Repo) build(q *Queue, params map[string]any, baseTip plumbing.Hash, now time.Time) bool {
	limit := rules.QueueParam(params, "max_entries_to_build", 5)
	method := strings.ToLower(rules.QueueStringParam(params, "merge_method", "MERGE"))
	prev := baseTip
	for i, e := range q.Entries {
		if i >= limit {
			break
		}
		if e.Built {
			prev = e.Tip
			continue
		}
		m := rp.MergeFiles(prev, e.Head)
		in := MergeInput{Method: method, By: e.By, Now: now}
		tip, ok, err := plumbing.ZeroHash, false, error(nil)
		if len(m.Conflicts) == 0 {
			tip, ok, err = rp.mergeCommits(e.Pull, in, prev, e.Head, m)
		}
		if err != nil || !ok {
			rp.removeEntry(q, i, now) // it conflicts with the entries before it
			return true
		}
		e.Built, e.On, e.Tip, e.BuiltAt = true, prev, tip, now
		e.Ref = "refs/heads/gh-readonly-queue/" + q.Base + "/pr-" + strconv.Itoa(e.Pull.Number) + "-" + prev.String()
		rp.SetRef(e.Ref, tip, false, now)
		return true
	}
	return false
}

// mergeGroup merges the longest passing group at the front of the queue,
// or removes the first entry whose checks failed or timed out.
func (rp *Repo) mergeGroup(q *Queue, params map[string]any, now time.Time) bool {
	maxMerge := rules.QueueParam(params, "max_entries_to_merge", 5)
	minMerge := rules.QueueParam(params, "min_entries_to_merge", 1)
	wait := time.Duration(rules.QueueParam(params, "min_entries_to_merge_wait_minutes", 5)) * time.Minute
	timeout := time.Duration(rules.QueueParam(params, "check_response_timeout_minutes", 60)) * time.Minute
	headGreen := rules.QueueStringParam(params, "grouping_strategy", "ALLGREEN") == "HEADGREEN"
	k := 0
	for i, e := range q.Entries {
		if !e.Built {
			break
		}
		switch rp.checksOn(q.Base, e.Tip) {
		case "failure":
			rp.removeEntry(q, i, now)
			return true
		case "success":
			if i < maxMerge {
				k = i + 1
			}
			continue
		}
		if !now.Before(e.BuiltAt.Add(timeout)) {
			rp.removeEntry(q, i, now)
			return true
		}
		if !headGreen {
			break
		}
	}
	if k == 0 || (k < minMerge && now.Before(q.Entries[0].Enqueued.Add(wait))) {
		return false
	}
	rp.mergeEntries(q, k, now)
	return true
}

// mergeEntries moves the base branch to entry k-1's commit and marks the
// first k pull requests merged.
func (rp *Repo) mergeEntries(q *Queue, k int, now time.Time) {
	group := q.Entries[:k]
	rp.SetRef("refs/heads/"+q.Base, group[k-1].Tip, false, now)
	for _, e := range group {
		p := e.Pull
		rp.SetRef(e.Ref, plumbing.ZeroHash, false, now)
		t := now
		p.State, p.Closed, p.MergedAt, p.Updated = "closed", &t, &t, now
		p.MergeCommit, p.MergedBy = e.Tip.String(), e.By
		p.HeadSHA, p.BaseSHA = e.Head.String(), e.On.String()
		if rp.Merge.DeleteBranchOnMerge && rp.mayDeleteHead(p, e.Head, e.By) {
			rp.SetRef("refs/heads/"+p.Head, plumbing.ZeroHash, false, now)
		}
	}
	q.Entries = slices.Delete(q.Entries, 0, k)
}
