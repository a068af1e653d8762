// What a commit reports: Result (and Plan, PullRequestResult), the events
// of WithObserver, and Error with its kinds.

package committer

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/internal/kind"
	"github.com/ghcommitter/ghcommitter/committer/internal/prmerge"
	"github.com/ghcommitter/ghcommitter/committer/internal/refs"
	"github.com/ghcommitter/ghcommitter/committer/internal/rest"
	"github.com/ghcommitter/ghcommitter/committer/internal/tree"
)

// Result describes a commit that landed, or a change set that needed none.
type Result struct {
	Repository string `json:"repository"`
	Branch     string `json:"branch"`
	Commit     string `json:"commit"` // the new head; the unchanged head for a no-op
	Parent     string `json:"parent"` // the head the commit was built on
	Tree       string `json:"tree"`
	Attempts   int    `json:"attempts"`
	// Changed lists the paths the commit wrote or deleted. Small puts are
	// written without reading the branch first (see Written), so a put of
	// content that was already there can be listed.
	Changed []string     `json:"changed"`
	Files   []FileChange `json:"-"`
	// NoOp is true when the branch already held the change set's content:
	// no commit was made and the branch did not move.
	NoOp bool `json:"noop"`
	// CreatedBranch is true when this commit created the branch.
	CreatedBranch bool `json:"created_branch,omitempty"`
	// Bootstrapped is true when the repository was empty: GitHub's Git Data
	// API refuses to work on a repository with no commit, so its first
	// commit was made through the contents API with one of the change set's
	// own plain files (exactly as asked), and the rest of the change set, if
	// any, followed in a second commit (Commit; its Parent is the first).
	Bootstrapped bool `json:"bootstrapped,omitempty"`
	// Engine names the engine that made the commit (git-data, graphql or
	// contents; see WithEngine): with EngineAuto, the one it picked.
	Engine string `json:"engine,omitempty"`
	// Tag is the tag (Tag) that now points at Commit, moved in the same
	// ref update as the branch where GitHub has updateRefs.
	Tag string `json:"tag,omitempty"`
	// Cost is what the commit cost in requests to GitHub.
	Cost Cost `json:"cost"`
	// PullRequest is set when a pull-request rule refused the commit and
	// WithPullRequestOnProtected committed it to Branch (a head branch)
	// with a pull request into the protected branch instead.
	PullRequest *ProtectedPullRequest `json:"pull_request,omitempty"`
}

// Cost counts the requests a commit sent to GitHub, for metrics: its own
// (reading what it edits, uploading its blobs, its tree and commit), and
// its share of what its batch sent for all its members (reading the head,
// a squash's tree and commit, the ref update, lost attempts). A commit
// landed alone has no share: everything it sent is its own. Requests
// include writes; a retry is a request of its own.
type Cost struct {
	Writes   int `json:"writes"`
	Requests int `json:"requests"`
	// SharedWrites and SharedRequests are the batch's divided by the
	// change sets it landed: summed over them, with the own counts, they
	// give what the batch sent (change sets taken out of it keep their
	// own).
	SharedWrites   float64 `json:"shared_writes,omitempty"`
	SharedRequests float64 `json:"shared_requests,omitempty"`
}

// ProtectedPullRequest is the pull request Commit opened instead of
// committing to a branch whose pull-request rule refused the write
// (WithPullRequestOnProtected).
type ProtectedPullRequest struct {
	Number  int    `json:"number"`
	URL     string `json:"url"`
	Created bool   `json:"created"` // false: an open one from the head branch was reused
	Base    string `json:"base"`    // the protected branch
	// Operation is PullRequestCreated, PullRequestUpdated or
	// PullRequestUnchanged, as in PullRequestResult.
	Operation string `json:"operation,omitempty"`
	// Merge is what became of it, when the PullRequestOptions asked for
	// a merge or a wait.
	Merge *MergeOutcome `json:"merge,omitempty"`
}

// MergeOutcome is what became of the pull request (PullRequestResult.Merge):
// Merged, the merge commit, how it merged (Via: "merge-now", "auto-merge",
// "merge-queue", or "other" when something else merged it), the method
// asked for, whether auto-merge was enabled or the pull request queued,
// and a Note when something other than what was asked was done.
type MergeOutcome = prmerge.Outcome

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
	Took       time.Duration // EventLostRace: how long the lost attempt took, less its waits for the pacer
	Changes    int           // the change sets the attempt carries (1, or a batch's)
	// Shared is true for an event of a batch of several change sets that
	// each member's observer hears once (an attempt, a lost race, the
	// landing, a wait of a request sent for them all, such as the ref
	// update); a wait of a request sent for one change set alone (its
	// tree, its commit) reaches that change set's observer alone.
	Shared bool
	// EventUpload and EventTree: progress.
	Done, Total       int
	Bytes, TotalBytes int64
}

// Error kinds. The errors of a Committer's work (its methods, NewQueue and
// Queue.Commit) are *Error values whose Kind is one of these (or nil for
// failures that fit none of them, such as an edit function's own error),
// so callers match them with errors.Is:
//
//	if errors.Is(err, committer.ErrConflict) { ... }
//
// The package's other functions (New, the Validate and Parse functions,
// LoadDir and LoadFile) return plain errors, which carry no kind.
var (
	// ErrConflict: a precondition failed on the head that was read, or every
	// attempt lost the race for the branch. Nothing was committed.
	ErrConflict = kind.Conflict
	// ErrInvalid: the change set, a path, a mode or a name is not valid, or
	// cannot be carried out on this repository (such as a change set with no
	// plain file for an empty repository). Nothing was written.
	ErrInvalid = kind.Invalid
	// ErrNotFound: the repository, branch or base ref does not exist, or the
	// credentials cannot see it (GitHub answers 404 for both).
	ErrNotFound = kind.NotFound
	// ErrUnauthorized: the credentials were refused (401 Bad credentials).
	ErrUnauthorized = kind.Unauthorized
	// ErrPermission: the credentials are valid but may not do this (403).
	ErrPermission = kind.Permission
	// ErrProtected: the branch is protected by a rule that refuses direct
	// pushes; open a pull request instead.
	ErrProtected = kind.Protected
	// ErrRateLimited: GitHub's rate limit refused the requests of every
	// attempt (a secondary limit, 403 or 429, with or without Retry-After)
	// or a primary limit lifts later than the client waits. Nothing was
	// committed; Error.RetryAfter says how long to wait before trying again.
	ErrRateLimited = kind.RateLimited
	// ErrUnknownOutcome: a write that moves the branch (the ref update, or
	// the first commit of an empty repository) got no answer and reading the
	// branch back could not tell whether it landed. Read the branch before
	// retrying.
	ErrUnknownOutcome = kind.UnknownOutcome
	// ErrMergeTimeout, ErrPullRequestClosed, ErrDequeued, ErrCheckFailed:
	// CommitPullRequest's wait for the merge (PullRequestOptions.Wait)
	// ended without one: not merged within Wait, closed, removed from the
	// merge queue, or a check the base branch requires failed. The change
	// is on the head branch; the *PullRequestResult says what was done.
	ErrMergeTimeout      = kind.MergeTimeout
	ErrPullRequestClosed = kind.PullClosed
	ErrDequeued          = kind.Dequeued
	ErrCheckFailed       = kind.CheckFailed
	// ErrPullRequestStale: the stale pull request was not rebuilt (see
	// PullRequestOptions.NoRebuild): its head branch holds another
	// writer's commits, or the change set no longer applies on the base's
	// head. The pull request and its head branch are left as they were.
	ErrPullRequestStale = kind.PullStale
)

// EditPanic is the cause (see errors.As) of the error of a change set
// whose edit function panicked: the panic is recovered where the edit
// function runs, so the process and every other commit in flight live on.
// It carries the panic's value and the stack where it happened.
type EditPanic = tree.EditPanic

// ErrEditTooSlow is the cause (see errors.Is) of the error of a change set
// taken out of its batch because its edit function was still running
// WithBatchEditGrace after it was called, while the rest of the batch
// waited for it; its result, when it comes, is discarded.
var ErrEditTooSlow = errors.New("edit function still running when the rest of its batch was ready")

// BatchError is CommitAll's error when some of its change sets did not
// land: Errs holds one error per change set, in order, nil for those that
// landed. errors.Is and errors.As see each of them.
type BatchError struct {
	Errs []error
}

func (e *BatchError) Error() string {
	var failed []string
	for i, err := range e.Errs {
		if err != nil {
			failed = append(failed, fmt.Sprintf("change set %d of %d: %v", i+1, len(e.Errs), err))
		}
	}
	return strings.Join(failed, "; ")
}

// Unwrap returns the change sets' errors (those that did not land).
func (e *BatchError) Unwrap() []error {
	var errs []error
	for _, err := range e.Errs {
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// Error is the error returned by Committer methods. It says what failed where,
// and wraps both its Kind and the underlying cause. When GitHub answered
// with an error, Status, Message and RequestID say what it answered; the
// concrete types in the cause chain are not part of this package's API.
type Error struct {
	Op       string // "commit to", "plan for", ...
	Repo     string // owner/name
	Branch   string
	Path     string // the offending path, when there is one
	Kind     error  // one of the Err* kinds, or nil
	Err      error  // the cause
	Head     string // the last head commit seen, when known
	Attempts int    // attempts made, when any
	Hint     string // what to do about it, when there is something to do

	// Status is the HTTP status of the GitHub reply that caused the failure:
	// an error reply, a rate limit (also one the transport gave up waiting
	// for), 200 for a GraphQL reply with errors, the 3xx of a redirect that
	// was not followed. It is 0 when no reply caused it (a timeout, a
	// request held back by a rate-limit window seen earlier).
	Status int
	// Message is GitHub's own message in that reply ("Update is not a fast
	// forward", "Bad credentials", ...).
	Message string
	// RequestID is the reply's X-GitHub-Request-Id, which GitHub Support asks
	// for.
	RequestID string
	// RetryAfter is, for an ErrRateLimited, how long to wait before trying
	// again: the Retry-After GitHub sent, the time until its primary limit
	// resets, or (a secondary limit that named no wait) the least wait
	// after one (the client's ghclient.RateLimits.SecondaryWait). It is 0 for every other error.
	RetryAfter time.Duration
	// Rule is, for an ErrProtected, the type of the rule that refused the
	// write, as GET rules/branches/{branch} names it (pull_request,
	// required_signatures, required_status_checks, merge_queue, update,
	// creation, non_fast_forward, ...), or "branch_protection" for classic
	// protection that its message does not name; "" when it cannot be
	// told. Hint then says the way through.
	Rule string
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", e.Op, e.Repo)
	if e.Branch != "" {
		fmt.Fprintf(&b, "@%s", e.Branch)
	}
	b.WriteString(": ")
	if e.Path != "" {
		fmt.Fprintf(&b, "path %q: ", e.Path)
	}
	switch {
	case e.Err != nil && errors.Is(e.Kind, ErrUnknownOutcome):
		// Said first: whoever reads only the start (or greps for it) must
		// not take it for "not committed".
		b.WriteString("outcome unknown: ")
		b.WriteString(rest.Text(e.Err))
	case e.Err != nil:
		b.WriteString(rest.Text(e.Err))
	case e.Kind != nil:
		b.WriteString(e.Kind.Error())
	}
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " (after %d attempts", e.Attempts)
		if e.Head != "" {
			fmt.Fprintf(&b, "; last head %s", short(e.Head))
		}
		b.WriteString(")")
	}
	if e.Hint != "" {
		b.WriteString("; ")
		b.WriteString(e.Hint)
	}
	return b.String()
}

// Unwrap exposes both the kind and the cause to errors.Is and errors.As.
func (e *Error) Unwrap() []error {
	var errs []error
	if e.Kind != nil {
		errs = append(errs, e.Kind)
	}
	if e.Err != nil {
		errs = append(errs, e.Err)
	}
	return errs
}

func short(sha string) string { return kind.Short(sha) }

func (c *Committer) fail(op, branch string, k, err error) *Error {
	e := &Error{Op: op, Repo: c.Repository(), Branch: branch, Kind: k, Err: err}
	var pe *kind.Cause
	if errors.As(err, &pe) {
		e.Path = pe.Path
		e.Err = pe.Err
		if e.Kind == nil {
			e.Kind = pe.Kind
		}
		e.Hint = pe.Hint
	}
	e.Status, e.Message, e.RequestID = rest.Details(err)
	ck, hint := rest.Classify(err)
	if e.Kind == nil {
		e.Kind = ck
	}
	if e.Hint == "" && (ck == nil || errors.Is(e.Kind, ck)) {
		e.Hint = hint
	}
	if errors.Is(e.Kind, ErrRateLimited) {
		e.RetryAfter = rest.LimitWait(err, c.o.secondaryFloor)
	}
	return e
}

// missingBranch is the error for a branch that does not exist (or whose
// name only redirects to another branch) when no base to create it from
// was given.
// A cause that only says so (refs.ErrBranchMissing, with GitHub's reply)
// gives the error its status and request id, not more words.
func (c *Committer) missingBranch(op, branch string, cause error) *Error {
	err := fmt.Errorf("branch %q does not exist", branch)
	var re *refs.RedirectedError
	if errors.As(cause, &re) {
		err = fmt.Errorf("branch %q does not exist: %w", branch, cause)
	}
	e := c.fail(op, branch, ErrNotFound, err)
	e.Status, e.Message, e.RequestID = rest.Details(cause)
	e.Hint = "create it from a base with CreateBranchFrom"
	return e
}
