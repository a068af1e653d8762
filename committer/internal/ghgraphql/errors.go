package ghgraphql

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/internal/ratelimit"
)

// GitHub's GraphQL error types that callers act on.
const (
	TypeStaleData   = "STALE_DATA"   // createCommitOnBranch: the branch is not at expectedHeadOid
	TypeNotFound    = "NOT_FOUND"    // repository, branch or node not found
	TypeRateLimited = "RATE_LIMITED" // primary GraphQL rate limit (HTTP 200)
	TypeForbidden   = "FORBIDDEN"    // e.g. repository rule violations
	// TypeInsufficientScopes: the token lacks a scope the operation needs.
	TypeInsufficientScopes = "INSUFFICIENT_SCOPES"
	// TypeUnprocessable: a mutation refused for its input (updateRefs: a
	// ref that cannot be moved as asked, named in the message).
	TypeUnprocessable = "UNPROCESSABLE"
	// TypeBranchProtection: createCommitOnBranch refused by a classic
	// branch protection rule (rulesets answer other types: see the
	// committer's classification of a rule's message).
	TypeBranchProtection = "BRANCH_PROTECTION_RULE_VIOLATION"
)

// Location is a position in the query.
type Location struct {
	Line   int `json:"line"`
	Column int `json:"column"`
}

// Error is one entry of a reply's errors[].
type Error struct {
	Type       string         `json:"type,omitempty"`
	Path       []any          `json:"path,omitempty"`
	Locations  []Location     `json:"locations,omitempty"`
	Message    string         `json:"message"`
	Extensions map[string]any `json:"extensions,omitempty"`
}

// Errors is a reply with errors[] (GitHub answers them with HTTP 200). Data
// may still hold what resolved.
type Errors struct {
	Op     string // the operation, for the message
	Errors []Error
	Status int
	Header http.Header
}

func (e *Errors) Error() string {
	var b strings.Builder
	b.WriteString("GitHub GraphQL " + e.Op + ": ")
	for i, x := range e.Errors {
		if i > 0 {
			b.WriteString("; ")
		}
		if x.Type != "" {
			b.WriteString(x.Type + ": ")
		}
		b.WriteString(x.Message)
	}
	return b.String()
}

// Has reports whether any error has type typ.
func (e *Errors) Has(typ string) bool {
	for _, x := range e.Errors {
		if x.Type == typ {
			return true
		}
	}
	return false
}

// RateLimited reports whether GitHub refused the query for the primary
// GraphQL rate limit (RATE_LIMITED, answered with HTTP 200).
func (e *Errors) RateLimited() bool { return e.Has(TypeRateLimited) }

// RequestID is the reply's X-GitHub-Request-Id.
func (e *Errors) RequestID() string { return e.Header.Get("X-GitHub-Request-Id") }

// Message is the first error's message.
func (e *Errors) Message() string {
	if len(e.Errors) == 0 {
		return ""
	}
	return e.Errors[0].Message
}

// RetryAfter is how long the reply asks the client to wait (see
// HTTPError.RetryAfter).
func (e *Errors) RetryAfter(now time.Time) time.Duration { return retryAfter(e.Header, now) }

// HTTPError is a reply with a status other than 200. Body holds at most
// MaxErrorBody bytes of it.
type HTTPError struct {
	Op               string
	Status           int
	Header           http.Header
	Message          string // "message" of a JSON body, if any
	DocumentationURL string
	Body             []byte
}

func (e *HTTPError) Error() string {
	msg := e.Message
	if msg == "" {
		msg = http.StatusText(e.Status)
	}
	return "GitHub GraphQL " + e.Op + ": HTTP " + strconv.Itoa(e.Status) + ": " + msg
}

// RequestID is the reply's X-GitHub-Request-Id.
func (e *HTTPError) RequestID() string { return e.Header.Get("X-GitHub-Request-Id") }

// RateLimited reports whether the reply is a primary or secondary rate
// limit (403 or 429, as GitHub documents and go-github classifies them;
// any 429 that is not a primary limit is a secondary one, whatever its
// body says; see committer/internal/ratelimit, which the REST transport
// uses too).
func (e *HTTPError) RateLimited() bool {
	return ratelimit.IsPrimary(e.Status, e.Header) || ratelimit.IsSecondary(e.Status, e.Header, e.Message, e.DocumentationURL)
}

// RetryAfter is how long GitHub asks the client to wait: Retry-After, else
// until x-ratelimit-reset when the primary limit is spent; 0 when the reply
// says nothing (a bare secondary limit: wait at least a minute).
func (e *HTTPError) RetryAfter(now time.Time) time.Duration {
	return retryAfter(e.Header, now)
}

func retryAfter(h http.Header, now time.Time) time.Duration {
	d, _ := ratelimit.Wait(h, now)
	return d
}

// NoReplyError is a request that was sent without a reply being read: a
// connection reset, a timeout, a body cut short. For a mutation the outcome
// is unknown (Mutation is true): settle it before anything else.
type NoReplyError struct {
	Op       string
	Mutation bool
	Err      error
}

func (e *NoReplyError) Error() string {
	return "GitHub GraphQL " + e.Op + ": no reply: " + e.Err.Error()
}

func (e *NoReplyError) Unwrap() error { return e.Err }

// IsStale reports whether err is createCommitOnBranch's STALE_DATA: the
// branch was not at expectedHeadOid, nothing was committed.
func IsStale(err error) bool {
	var e *Errors
	return errors.As(err, &e) && e.Has(TypeStaleData)
}

// IsNotFound reports whether err is a NOT_FOUND error.
func IsNotFound(err error) bool {
	var e *Errors
	return errors.As(err, &e) && e.Has(TypeNotFound)
}
