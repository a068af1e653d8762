package state

import (
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/rules"
)

// Commit statuses and check runs (REST statuses/{sha}, check-runs,
// GraphQL statusCheckRollup). A required check of a rule is met by a
// commit status of that context in state success, or by a check run of
// that name completed with conclusion success, neutral or skipped (GitHub:
// "About protected branches", required status checks). AutoChecks answer
// every new head of the branches they match, so that a test needs no
// script to report on each head.

// CommitStatus is one commit status (POST statuses/{sha}).
type CommitStatus struct {
	ID                                  int64
	SHA                                 plumbing.Hash
	State, Context, Description, Target string
	Creator                             Identity
	Created                             time.Time
}

// CheckRun is one check run.
type CheckRun struct {
	ID                            int64
	SHA                           plumbing.Hash
	Name, Status, Conclusion      string // Status queued, in_progress, completed; Conclusion once completed
	ExternalID, DetailsURL, Title string
	Summary                       string
	Started                       time.Time
	Completed                     *time.Time
}

// AutoCheck is "check Name reports Conclusion (success or failure) on
// every new head of the branches matching Pattern, After that long".
type AutoCheck struct {
	Name, Pattern, Conclusion string
	After                     time.Duration
}

// Checks is a repository's commit statuses, check runs and automatic
// checks.
type Checks struct {
	StatusLog []*CommitStatus
	Runs      []*CheckRun
	Auto      []AutoCheck
	seq       int64
	seen      int                  // Updates scanned for AutoChecks
	due       map[*CheckRun]dueRun // runs AutoChecks complete when their time comes
}

type dueRun struct {
	conclusion string
	at         time.Time
}

func (c *Checks) nextID() int64 { c.seq++; return c.seq }

// AddStatus records a commit status and its context's latest state.
// Caller holds Mu for writing.
func (rp *Repo) AddStatus(st *CommitStatus) {
	st.ID = rp.Checks.nextID()
	rp.Checks.StatusLog = append(rp.Checks.StatusLog, st)
	if rp.Statuses[st.SHA] == nil {
		rp.Statuses[st.SHA] = map[string]string{}
	}
	rp.Statuses[st.SHA][st.Context] = st.State
}

// AddCheckRun records a check run. Caller holds Mu for writing.
func (rp *Repo) AddCheckRun(cr *CheckRun) {
	cr.ID = rp.Checks.nextID()
	rp.Checks.Runs = append(rp.Checks.Runs, cr)
}

// CheckRunByID is check run id, or nil. Caller holds Mu.
func (rp *Repo) CheckRunByID(id int64) *CheckRun {
	for _, cr := range rp.Checks.Runs {
		if cr.ID == id {
			return cr
		}
	}
	return nil
}

// LatestStatuses is the latest status of each context on h, in the order
// the contexts first reported. Caller holds Mu.
func (rp *Repo) LatestStatuses(h plumbing.Hash) []*CommitStatus {
	return latestOn(h, rp.Checks.StatusLog, func(st *CommitStatus) (plumbing.Hash, string) { return st.SHA, st.Context })
}

// LatestRuns is the latest check run of each name on h. Caller holds Mu.
func (rp *Repo) LatestRuns(h plumbing.Hash) []*CheckRun {
	return latestOn(h, rp.Checks.Runs, func(cr *CheckRun) (plumbing.Hash, string) { return cr.SHA, cr.Name })
}

// latestOn is the last of items on h for each name, in the order the
// names first appear; of says what an item is on, and its name.
func latestOn[T any](h plumbing.Hash, items []T, of func(T) (plumbing.Hash, string)) []T {
	idx := map[string]int{}
	var out []T
	for _, it := range items {
		sha, name := of(it)
		if sha != h {
			continue
		}
		if i, ok := idx[name]; ok {
			out[i] = it
			continue
		}
		idx[name] = len(out)
		out = append(out, it)
	}
	return out
}

// CheckState is what a required check named context reads on h: a commit
// status's state, else "success" or "failure" from the latest check run
// of that name ("pending" while it runs), else "".
func (rp *Repo) CheckState(h plumbing.Hash, context string) string {
	if st := rp.Statuses[h][context]; st != "" {
		return st
	}
	for _, cr := range rp.LatestRuns(h) {
		if cr.Name != context {
			continue
		}
		switch {
		case cr.Status != "completed":
			return "pending"
		case cr.Conclusion == "success", cr.Conclusion == "neutral", cr.Conclusion == "skipped":
			return "success"
		}
		return "failure"
	}
	return ""
}

// CombinedState is the combined state of the commit statuses of h
// (REST combined status): failure if any is error or failure, pending if
// any is pending or none exists, else success. Caller holds Mu.
func CombinedState(sts []*CommitStatus) string {
	out := "success"
	if len(sts) == 0 {
		return "pending"
	}
	for _, st := range sts {
		switch st.State {
		case "error", "failure":
			return "failure"
		case "pending":
			out = "pending"
		}
	}
	return out
}

// runAutoChecks starts the AutoChecks on the branch heads the ref updates
// since the last call set, and completes the runs whose time has come;
// it reports whether anything changed. Caller holds Mu for writing.
func (rp *Repo) runAutoChecks(now time.Time) bool {
	c := &rp.Checks
	changed := false
	for ; c.seen < len(rp.Updates); c.seen++ {
		u := rp.Updates[c.seen]
		branch, ok := strings.CutPrefix(u.Ref, "refs/heads/")
		if !ok || u.New == "" {
			continue
		}
		for _, a := range c.Auto {
			if !rules.GlobMatch(a.Pattern, branch) {
				continue
			}
			cr := &CheckRun{SHA: plumbing.NewHash(u.New), Name: a.Name, Status: "in_progress", Started: u.At}
			rp.AddCheckRun(cr)
			if c.due == nil {
				c.due = map[*CheckRun]dueRun{}
			}
			c.due[cr] = dueRun{a.Conclusion, u.At.Add(a.After)}
			changed = true
		}
	}
	for cr, d := range c.due {
		if end := d.at; !now.Before(end) {
			cr.Status, cr.Conclusion, cr.Completed = "completed", d.conclusion, &end
			delete(c.due, cr)
			changed = true
		}
	}
	return changed
}

// MarkSeen has AutoChecks answer only the ref updates after the first n.
func (c *Checks) MarkSeen(n int) { c.seen = n }
