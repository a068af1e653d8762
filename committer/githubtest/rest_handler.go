package githubtest

import (
	"time"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/sign"
)

// restHandler answers the REST routes of the git data API (blobs, trees,
// commits, tags, refs). It holds what those handlers use of the Server:
// the clock, the create-tree timeout and the check of a client's commit
// signature against the registered GPG keys.
type restHandler struct {
	now       func() time.Time
	treeMax   treeLimits
	verifySig func(payload, signature, committerEmail string, now time.Time) sign.Verification
}
