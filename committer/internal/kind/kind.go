// Package kind holds the library's error kinds and the one cause type that
// carries a kind, a path and a hint between the stages. The public package
// committer exports the kinds under their Err* names (the same values, so
// errors.Is matches them) and turns a Cause into its *committer.Error.
package kind

import "errors"

// The error kinds (committer.ErrConflict, ... are these values).
var (
	Conflict       = errors.New("conflict")
	Invalid        = errors.New("invalid input")
	NotFound       = errors.New("not found")
	Unauthorized   = errors.New("unauthorized")
	Permission     = errors.New("permission denied")
	Protected      = errors.New("protected branch")
	RateLimited    = errors.New("rate limited")
	UnknownOutcome = errors.New("outcome unknown")
	// The outcomes of waiting for a pull request's merge that are not a
	// merge (committer.WithMerge's Wait): the change is on the head branch.
	MergeTimeout = errors.New("pull request not merged in time")
	PullClosed   = errors.New("pull request closed without merging")
	Dequeued     = errors.New("pull request removed from the merge queue")
	CheckFailed  = errors.New("a required check failed")
	// PullStale: the pull request conflicts with its base, or is behind
	// where the rules require it to be up to date, and was not rebuilt on
	// the base's new head: its head branch holds another writer's commits,
	// or the change set no longer applies there.
	PullStale = errors.New("pull request stale and not rebuilt")
)

// Cause is an error with what the library knows about it: its kind (one of
// the kinds above, or nil), the path it is about ("" when none) and a hint
// in the library's terms ("" for the kind's default). Its text is Err's.
type Cause struct {
	Kind error
	Path string
	Err  error
	Hint string
}

func (e *Cause) Error() string { return e.Err.Error() }
func (e *Cause) Unwrap() error { return e.Err }

// Of returns err as a Cause of kind k.
func Of(k, err error) *Cause { return &Cause{Kind: k, Err: err} }

// At returns err as a Cause of kind k about path.
func At(path string, k, err error) *Cause { return &Cause{Kind: k, Path: path, Err: err} }

// Short abbreviates a SHA to the 12 characters git shows.
func Short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}
