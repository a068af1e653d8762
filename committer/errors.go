package committer

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-github/v66/github"
)

// Error kinds. Every error returned by this package is an *Error whose Kind is
// one of these (or nil for failures that fit none of them, such as an edit
// function's own error), so callers match them with errors.Is:
//
//	if errors.Is(err, committer.ErrConflict) { ... }
var (
	// ErrConflict: a precondition failed on the head that was read, or every
	// attempt lost the race for the branch. Nothing was committed.
	ErrConflict = errors.New("conflict")
	// ErrInvalid: the change set, a path, a mode or a name is not valid, or
	// cannot be carried out on this repository (such as a change set with no
	// plain file for an empty repository). Nothing was written.
	ErrInvalid = errors.New("invalid input")
	// ErrNotFound: the repository, branch or base ref does not exist, or the
	// credentials cannot see it (GitHub answers 404 for both).
	ErrNotFound = errors.New("not found")
	// ErrUnauthorized: the credentials were refused (401 Bad credentials).
	ErrUnauthorized = errors.New("unauthorized")
	// ErrPermission: the credentials are valid but may not do this (403).
	ErrPermission = errors.New("permission denied")
	// ErrProtected: the branch is protected by a rule that refuses direct
	// pushes; open a pull request instead.
	ErrProtected = errors.New("protected branch")
	// ErrUnknownOutcome: a write that moves the branch (the ref update, or
	// the first commit of an empty repository) got no answer and reading the
	// branch back could not tell whether it landed. Read the branch before
	// retrying.
	ErrUnknownOutcome = errors.New("outcome unknown")
)

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

	// Status is the HTTP status of GitHub's error reply (0 when the failure
	// was not an error reply, such as a timeout).
	Status int
	// Message is GitHub's own message in that reply ("Update is not a fast
	// forward", "Bad credentials", ...).
	Message string
	// RequestID is the reply's X-GitHub-Request-Id, which GitHub Support asks
	// for.
	RequestID string
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
	case e.Err != nil:
		b.WriteString(causeText(e.Err))
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

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// refusedError says GitHub refused a ref update for now (a secondary rate
// limit): it did not apply, and the next attempt should wait first.
type refusedError struct {
	wait time.Duration // what GitHub asked for (Retry-After, or the reset)
	bare bool          // no Retry-After: the driver waits at least its floor
	err  error
}

func (e *refusedError) Error() string { return e.err.Error() }
func (e *refusedError) Unwrap() error { return e.err }

// refused classifies the rate-limit replies to a write: GitHub answered,
// so the write certainly did not apply. A secondary limit is a
// *refusedError (wait, then try again); a primary limit is final. It
// returns nil for any other error.
func refused(what string, err error) error {
	var ab *github.AbuseRateLimitError
	if errors.As(err, &ab) {
		wait, bare := secondaryWait(ab)
		return &refusedError{wait: wait, bare: bare, err: err}
	}
	var rl *github.RateLimitError
	if errors.As(err, &rl) {
		return fmt.Errorf("%s: %w", what, err)
	}
	// go-github recognises a secondary limit only on a 403; GitHub also
	// answers 429, which reaches us as a plain error reply.
	if er, ok := errorResponse(err); ok && er.Response.StatusCode == http.StatusTooManyRequests {
		wait := retryAfterOr(er.Response, 0)
		return &refusedError{wait: wait, bare: wait == 0, err: err}
	}
	return nil
}

// retryAfterOr is the reply's Retry-After in seconds (at least a second),
// or def when it has none.
func retryAfterOr(resp *http.Response, def time.Duration) time.Duration {
	if v := resp.Header.Get("Retry-After"); v != "" {
		if secs, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
			return max(time.Duration(secs)*time.Second, time.Second)
		}
	}
	return def
}

// secondaryWait is how long to wait after a secondary rate limit: its
// Retry-After when GitHub sent one; else bare is true (the driver waits at
// least its floor, a minute by default, as GitHub's documentation asks) and
// wait is the reset go-github derived from x-ratelimit-reset, before which
// it refuses to send anything.
func secondaryWait(ab *github.AbuseRateLimitError) (wait time.Duration, bare bool) {
	if ab.Response != nil {
		if d := retryAfterOr(ab.Response, 0); d > 0 {
			return d, false
		}
	}
	return ab.GetRetryAfter(), true
}

// errorResponse returns GitHub's error reply in err's chain, if any.
func errorResponse(err error) (*github.ErrorResponse, bool) {
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		return er, true
	}
	return nil, false
}

// statusOf returns the HTTP status of GitHub's error reply in err, or 0.
func statusOf(err error) int {
	if er, ok := errorResponse(err); ok {
		return er.Response.StatusCode
	}
	return 0
}

// messageIs reports whether err is GitHub's error reply with this message
// (compared without case).
func messageIs(err error, msg string) bool {
	er, ok := errorResponse(err)
	return ok && strings.EqualFold(strings.TrimSpace(er.Message), msg)
}

// apiDetails returns the status, message and request ID of the GitHub reply
// behind err, if one is.
func apiDetails(err error) (status int, message, requestID string) {
	var resp *http.Response
	if er, ok := errorResponse(err); ok {
		resp, message = er.Response, er.Message
	}
	var ab *github.AbuseRateLimitError
	if resp == nil && errors.As(err, &ab) && ab.Response != nil {
		resp, message = ab.Response, ab.Message
	}
	var rl *github.RateLimitError
	if resp == nil && errors.As(err, &rl) && rl.Response != nil {
		resp, message = rl.Response, rl.Message
	}
	if resp == nil {
		return 0, "", ""
	}
	return resp.StatusCode, message, resp.Header.Get("X-GitHub-Request-Id")
}

// refOutcome is what a refused ref write means for the commit loop.
type refOutcome int

const (
	refError      refOutcome = iota // an error: stop
	refLostRace                     // another writer won: try again on the new head
	refMissing                      // the branch is not there (deleted, or renamed away)
	refNameTaken                    // a creation refused for the name (see classifyCreate)
	refProtection                   // a branch protection rule or ruleset refused it
)

// classifyUpdate says what GitHub's 4xx answer to PATCH git/refs/heads/B
// means. Only "Update is not a fast forward" and "Reference cannot be
// updated" mean that another writer moved the branch; "Reference does not
// exist" means the branch is gone; "Object does not exist", rule violations
// and any other reply are errors.
func classifyUpdate(err error) refOutcome {
	switch {
	case isProtected(err):
		return refProtection
	case statusOf(err) != http.StatusUnprocessableEntity:
		return refError
	case messageIs(err, "Update is not a fast forward"), messageIs(err, "Reference cannot be updated"):
		return refLostRace
	case messageIs(err, "Reference does not exist"):
		return refMissing
	}
	return refError
}

// classifyCreate says what GitHub's 4xx answer to POST git/refs means.
// "Reference already exists" is a lost creation race; any other 422 (an
// invalid name, or "Reference update failed" for a name that clashes with
// an existing branch such as refs/heads/main against refs/heads/main/sub)
// is an error.
func classifyCreate(err error) refOutcome {
	switch {
	case isProtected(err):
		return refProtection
	case statusOf(err) == http.StatusUnprocessableEntity && messageIs(err, "Reference already exists"):
		return refLostRace
	case statusOf(err) == http.StatusUnprocessableEntity:
		return refNameTaken
	}
	return refError
}

// isProtected reports whether a refused ref write comes from branch
// protection or a ruleset rather than from a lost race.
func isProtected(err error) bool {
	er, ok := errorResponse(err)
	if !ok {
		return false
	}
	m := strings.ToLower(er.Message)
	for _, s := range []string{"protected branch", "rule violation", "through a pull request", "required status check", "cannot force-push"} {
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}

// classify maps a cause to an error kind and a hint about what to do. The
// hints name this package's API; the CLI adds its own flag names.
func classify(err error) (error, string) {
	var rl *github.RateLimitError
	if errors.As(err, &rl) {
		return nil, fmt.Sprintf("the API rate limit is exhausted until %s", rl.Rate.Reset.Time.Format(time.RFC3339))
	}
	var ab *github.AbuseRateLimitError
	if errors.As(err, &ab) {
		return nil, "hit GitHub's secondary rate limit; slow down and retry later"
	}
	er, ok := errorResponse(err)
	if !ok {
		return nil, ""
	}
	switch code := er.Response.StatusCode; {
	case code == http.StatusUnauthorized:
		return ErrUnauthorized, "the token is missing, expired or revoked"
	case code == http.StatusForbidden && !isProtected(err):
		return ErrPermission, "the token needs the contents: write permission on this repository (repo scope for a classic token)"
	case code == http.StatusNotFound:
		return ErrNotFound, "check the repository name, and that the token can see it and has contents: write (GitHub answers 404 to tokens without access)"
	case isProtected(err):
		return ErrProtected, "the branch is protected: commit to another branch and open a pull request (CommitPullRequest)"
	case code == http.StatusUnprocessableEntity && messageIs(err, "Reference name is invalid"):
		return ErrInvalid, ""
	case code == http.StatusUnprocessableEntity && messageIs(err, "Reference update failed"):
		return nil, "the branch name may clash with an existing branch (refs/heads/a and refs/heads/a/b cannot both exist)"
	}
	return nil, ""
}
