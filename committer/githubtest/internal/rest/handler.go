package rest

import (
	"time"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/sign"
)

// Handler answers the REST routes of package rest. It holds what those
// handlers use of the Server: the clock, the create-tree timeout, the
// check of a client's commit signature against the registered GPG keys and
// the contents writes' race hooks.
type Handler struct {
	Now       func() time.Time
	TreeMax   TreeLimits
	VerifySig func(payload, signature, committerEmail string, now time.Time) sign.Verification
	// ContentsRaces runs the hooks of MoveBranchDuringNextContentsWrite.
	ContentsRaces *Races
}

// obj is a JSON object of a reply.
type obj = map[string]any
