package state

import (
	"net/http"
	"strings"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/rules"
)

// Auto-merge (GraphQL enablePullRequestAutoMerge and
// disablePullRequestAutoMerge; REST auto_merge): a pull request with
// auto-merge on is merged by the fake, as the user who enabled it, as soon
// as its requirements pass (mergeable_state clean or unstable), with the
// method and message given. Where the base branch requires a merge queue
// it is added to the queue instead (GitHub: "Automatically merging a pull
// request", "Managing a merge queue"). Requirements are looked at on the
// next request to the repository after anything changes (Settle): no
// request ever sees them passed and the pull request unmerged.

// AutoMerge is a pull request's auto-merge request.
type AutoMerge struct {
	Method         string // merge, squash or rebase
	Title, Message *string
	AuthorEmail    string
	By             Identity
	Enabled        time.Time
}

// Refusals of enablePullRequestAutoMerge. The first three are GitHub's, as
// gh prints them ("GraphQL: <message> (enablePullRequestAutoMerge)"):
// not allowed in indexable-inc/index#2948 and viperproject/viperserver#358
// (2026; enkit's #1172 of 2025 shows it with a "Pull request " prefix),
// clean in peter-evans/enable-pull-request-automerge#1118, clean and
// unstable in atvirokodosprendimai/wgmesh#173; the others are guesses in
// their form.
const (
	msgAutoMergeNotAllowed = "Auto merge is not allowed for this repository"
	msgAutoMergeClean      = "Pull request Pull request is in clean status"
	msgAutoMergeUnstable   = "Pull request Pull request is in unstable status"
	msgAutoMergeClosed     = "Pull request Pull request is closed"
	msgAutoMergeHead       = "Pull request Head sha didn't match expected head oid"
	msgAutoMergeDraft      = "Pull request Pull request is in draft state"
)

// EnableAutoMerge turns auto-merge on for p, or says why not (expected is
// expectedHeadOid, "" for any). Caller holds Mu for writing.
func (rp *Repo) EnableAutoMerge(p *Pull, am AutoMerge, expected string) *MergeRefusal {
	refuse := func(msg string) *MergeRefusal {
		return &MergeRefusal{Status: http.StatusUnprocessableEntity, Message: msg}
	}
	queued := rp.QueueRule(p.Base) != nil
	switch {
	case p.State != "open":
		return refuse(msgAutoMergeClosed)
	case !rp.Merge.AllowAutoMerge:
		return refuse(msgAutoMergeNotAllowed)
	case expected != "" && !strings.EqualFold(expected, rp.PullHead(p).String()):
		return refuse(msgAutoMergeHead)
	case p.Draft:
		return refuse(msgAutoMergeDraft)
	case !queued && !rp.Merge.Allows(am.Method):
		return refuse(methodNotAllowed[am.Method])
	}
	if !queued {
		switch rp.PullMergeability(p, am.By).State {
		case "clean":
			return refuse(msgAutoMergeClean)
		case "unstable":
			return refuse(msgAutoMergeUnstable)
		}
	}
	p.AutoMerge = &am
	return nil
}

// autoMergeStep merges (or queues) every open pull request with auto-merge
// on whose requirements pass; it reports whether any did. Caller holds Mu
// for writing.
func (rp *Repo) autoMergeStep(now time.Time) bool {
	changed := false
	for _, p := range rp.Pulls {
		am := p.AutoMerge
		if am == nil {
			continue
		}
		if p.State != "open" {
			p.AutoMerge = nil
			changed = true
			continue
		}
		if rp.QueueRule(p.Base) != nil {
			if rp.queueReady(p, am.By) && rp.Enqueue(p, am.By, "", false, now) == nil {
				p.AutoMerge, changed = nil, true
			}
			continue
		}
		if st := rp.PullMergeability(p, am.By).State; st != "clean" && st != "unstable" {
			continue
		}
		by := am.By
		if am.AuthorEmail != "" {
			by.Email = am.AuthorEmail
		}
		if rp.MergePull(p, MergeInput{Method: am.Method, Title: am.Title, Message: am.Message, By: by, Now: now}) == nil {
			p.AutoMerge, changed = nil, true
		}
	}
	return changed
}

// queueReady reports whether p meets its base branch's requirements other
// than going through the queue (what GitHub waits for before it queues an
// auto-merge pull request). Caller holds Mu.
func (rp *Repo) queueReady(p *Pull, by Identity) bool {
	head, okHead := rp.Refs["refs/heads/"+p.Head]
	base, okBase := rp.Refs["refs/heads/"+p.Base]
	if p.Draft || !okHead || !okBase || len(rp.MergeFiles(base, head).Conflicts) > 0 {
		return false
	}
	ch := rules.Change{Ref: "refs/heads/" + p.Base, Old: base, New: head,
		Pull: &rules.PullMerge{Head: head, Behind: !rp.IsAncestor(base, head), Queued: true}}
	return Refusal(rp, by, ch) == nil
}

// Settle brings the repository to what GitHub would show by now: the
// AutoChecks report, auto-merge pull requests merge, merge queues move.
// Caller holds Mu for writing.
func (rp *Repo) Settle(now time.Time) {
	for range 1000 { // each step does one thing; the next request goes on if this is not enough
		a := rp.runAutoChecks(now)
		b := rp.autoMergeStep(now)
		c := rp.queueStep(now)
		if !a && !b && !c {
			return
		}
	}
}

// Unsettled reports whether Settle may have anything to do. Caller holds
// Mu.
func (rp *Repo) Unsettled(now time.Time) bool {
	if len(rp.Checks.Auto) > 0 && rp.Checks.seen < len(rp.Updates) {
		return true
	}
	for _, d := range rp.Checks.due {
		if !now.Before(d.at) {
			return true
		}
	}
	for _, q := range rp.Queues {
		if len(q.Entries) > 0 {
			return true
		}
	}
	for _, p := range rp.Pulls {
		if p.AutoMerge != nil {
			return true
		}
	}
	return false
}
