package committer

import (
	"time"
)

// EventKind says what an Event reports.
type EventKind int

// The events WithObserver reports.
const (
	// EventAttempt: an attempt starts (Attempt is its number, from 1).
	EventAttempt EventKind = iota + 1
	// EventLostRace: another writer moved the branch first; the change is
	// rebuilt on the new head in the next attempt (Head is the head it was
	// built on, Took how long the attempt took).
	EventLostRace
	// EventRateLimitWait: GitHub refused a write for now (a secondary rate
	// limit), and the next attempt waits at least Wait; or a request of
	// the attempt waits Wait for a rate-limit window of its credential
	// before it is sent (the HTTP layer's gate). A wait longer than the
	// client accepts (ghclient.RateLimits.MaxWait) is never waited: the
	// commit fails with ErrRateLimited.
	EventRateLimitWait
	// EventLanded: the commit landed (Commit is the new head, or the head
	// that already held the change for a no-op).
	EventLanded
	// EventWritePaced: a write of the attempt waits Wait for the write
	// pacer, which spaces the credential's writes as GitHub asks
	// (ghclient.RateLimits.Pacing).
	EventWritePaced
	// EventUpload: a blob upload finished: Done of Total blobs this
	// attempt uploads, Bytes of TotalBytes (a progress event: it names the
	// Repository, not the Branch or Attempt).
	EventUpload
	// EventTree: a create-tree request finished: Done of Total for the
	// tree being built (a large tree is built in chunks; a progress event,
	// like EventUpload).
	EventTree
)

func (k EventKind) String() string {
	switch k {
	case EventAttempt:
		return "attempt"
	case EventLostRace:
		return "lost race"
	case EventRateLimitWait:
		return "rate-limit wait"
	case EventLanded:
		return "landed"
	case EventWritePaced:
		return "write paced"
	case EventUpload:
		return "upload"
	case EventTree:
		return "tree"
	}
	return "unknown"
}

// Event is one step of a commit's life, reported to the function given to
// WithObserver.
type Event struct {
	Kind       EventKind
	Repository string // owner/name
	Branch     string
	Attempt    int
	Head       string        // the head the attempt built on, when known
	Commit     string        // EventLanded: the commit on the branch
	Wait       time.Duration // EventRateLimitWait, EventWritePaced
	Took       time.Duration // EventLostRace: how long the lost attempt took
	Changes    int           // the change sets the attempt carries (1, or a batch's)
	// EventUpload and EventTree: progress.
	Done, Total       int
	Bytes, TotalBytes int64
}
