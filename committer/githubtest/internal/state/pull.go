package state

import (
	"net/http"
	"strconv"
	"time"
)

// Pull is a pull request (also the issue GitHub keeps beside it).
type Pull struct {
	Number           int
	Title, Body      string
	Head, Base       string // branch names
	HeadOwner        string
	State            string
	Draft            bool
	Created          time.Time
	User             Identity
	HeadSHA, BaseSHA string

	Updated   time.Time  // zero: never updated
	Closed    *time.Time // closed_at
	Labels    []string   // label names, in the order added
	Assignees []string   // logins
	Reviewers []string   // requested reviewers' logins

	MergedAt    *time.Time // set when merged (merge.go); HeadSHA and BaseSHA are then frozen
	MergeCommit string     // merge_commit_sha once merged
	MergedBy    Identity
	AutoMerge   *AutoMerge // auto-merge enabled (automerge.go)
}

// Label is a repository label.
type Label struct{ Name, Color, Description string }

// PullAt returns pull number n (of the path), or nil. Caller holds Mu.
func (rp *Repo) PullAt(r *http.Request, key string) *Pull {
	n, err := strconv.Atoi(r.PathValue(key))
	if err != nil || n < 1 || n > len(rp.Pulls) {
		return nil
	}
	return rp.Pulls[n-1]
}

// EnsureLabel creates a label GitHub's way when an issue gets one that
// does not exist (color ededed). Caller holds Mu for writing.
func (rp *Repo) EnsureLabel(name string) {
	for _, l := range rp.Labels {
		if l.Name == name {
			return
		}
	}
	rp.Labels = append(rp.Labels, &Label{Name: name, Color: "ededed"})
}

// UpdatedAt is updated_at: Updated, else Created.
func (p *Pull) UpdatedAt() time.Time {
	if p.Updated.IsZero() {
		return p.Created
	}
	return p.Updated
}

// Identity is who a request is authenticated as.
type Identity struct {
	Token        string
	Installation int64 // non-zero for installation tokens
	Login        string
	Name, Email  string
	UserID       int64
}
