package committer

import (
	"errors"
	"fmt"
	"strings"
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
	// ErrInvalid: the change set, a path, a mode or a name is not valid.
	// Nothing was sent.
	ErrInvalid = errors.New("invalid input")
	// ErrNotFound: the repository, branch or base ref does not exist, or the
	// credentials cannot see it (GitHub answers 404 for both).
	ErrNotFound = errors.New("not found")
	// ErrUnauthorized: the credentials were refused (401 Bad credentials).
	ErrUnauthorized = errors.New("unauthorized")
	// ErrPermission: the credentials are valid but may not write here
	// (403, or 404 on a write).
	ErrPermission = errors.New("permission denied")
	// ErrProtected: the branch is protected by a rule that refuses direct
	// pushes; open a pull request instead.
	ErrProtected = errors.New("protected branch")
	// ErrUnknownOutcome: the final ref update got no answer and the ref could
	// not be read back, so whether the commit landed is unknown. Read the
	// branch before retrying.
	ErrUnknownOutcome = errors.New("outcome unknown")
)

// Error is the error returned by Committer methods. It says what failed where,
// and wraps both its Kind and the underlying cause (often a
// *github.ErrorResponse).
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
		b.WriteString(e.Err.Error())
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
