package committer

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/internal/kind"
	"github.com/ghcommitter/ghcommitter/committer/internal/rest"
	"github.com/ghcommitter/ghcommitter/committer/internal/tree"
)

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
func (c *Committer) missingBranch(op, branch string, cause error) *Error {
	err := fmt.Errorf("branch %q does not exist", branch)
	if cause != nil {
		err = fmt.Errorf("branch %q does not exist: %w", branch, cause)
	}
	e := c.fail(op, branch, ErrNotFound, err)
	e.Hint = "create it from a base with CreateBranchFrom"
	return e
}

// Rules that explain themselves: after a write refused by a rule
// (ErrProtected), the rule is named (Error.Rule) and the hint says the way
// through. Rulesets are read with GET rules/branches/{branch} after the
// refusal, never before a commit; classic branch protection is known by
// its refusal's message and GET branches/{branch}'s protected.

// ruleMessages maps what GitHub's refusals say to the rule's type, as GET
// rules/branches names it (classic protection's refusals say the same
// things for the same requirements).
var ruleMessages = []struct{ says, typ string }{
	{"through a pull request", "pull_request"},
	{"approving review", "pull_request"},
	{"verified signature", "required_signatures"},
	{"must be signed", "required_signatures"},
	{"merge queue", "merge_queue"},
	{"status check", "required_status_checks"},
	{"cannot force-push", "non_fast_forward"},
	{"creations being restricted", "creation"},
	{"cannot update this protected ref", "update"},
	{"file path", "file_path_restriction"},
	{"file size", "max_file_size"},
}

// RuleHints is the way through a refusal by each rule type (Error.Hint).
var ruleHints = map[string]string{
	"pull_request":           "the branch takes changes through pull requests: commit with CommitPullRequest (to a new branch, with a pull request into this one), or WithPullRequestOnProtected",
	"required_signatures":    "the branch needs verified signatures: commit through the graphql or contents engine (GitHub signs their commits), or sign with WithSigner using a key registered on GitHub",
	"merge_queue":            "the branch takes changes through its merge queue: open a pull request (CommitPullRequest) and add it to the queue; direct pushes need a bypass",
	"required_status_checks": "the branch needs status checks that pass on the new commit: commit to another branch and open a pull request (CommitPullRequest)",
}
