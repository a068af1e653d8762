package committer

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/go-github/v66/github"

	"github.com/ghcommitter/ghcommitter/committer/ghclient"
	"github.com/ghcommitter/ghcommitter/committer/internal/ghgraphql"
	"github.com/ghcommitter/ghcommitter/committer/internal/kind"
	"github.com/ghcommitter/ghcommitter/committer/internal/ratelimit"
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
	// after one (the client's ghclient.WithSecondaryLimitWait). It is 0 for every other error.
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

func short(sha string) string { return kind.Short(sha) }

// refusedError says GitHub's rate limit refused a request for now (a
// secondary limit, or a window the client saw open): it did not apply, and
// the next attempt waits first.
type refusedError struct {
	wait time.Duration // what GitHub asked for (Retry-After, or the window's end)
	bare bool          // no Retry-After: the driver waits at least its floor
	err  error
}

func (e *refusedError) Error() string { return e.err.Error() }
func (e *refusedError) Unwrap() error { return e.err }

// refused classifies the rate-limit answers to any request: GitHub
// answered (or the client held the request back), so it certainly did not
// apply. A secondary limit is a *refusedError (wait, then try again); a
// primary limit that lifts later than the client waits is final
// (classify makes it ErrRateLimited). It returns nil for any other error.
func refused(what string, err error) error {
	var gate *ghclient.RateLimitError
	if errors.As(err, &gate) {
		if gate.Secondary {
			return &refusedError{wait: max(gate.Wait, time.Second), err: err}
		}
		return fmt.Errorf("%s: %w", what, err)
	}
	var ab *github.AbuseRateLimitError
	if errors.As(err, &ab) {
		wait, bare := secondaryWait(ab)
		return &refusedError{wait: wait, bare: bare, err: err}
	}
	var rl *github.RateLimitError
	if errors.As(err, &rl) {
		return fmt.Errorf("%s: %w", what, err)
	}
	// go-github recognises a secondary limit only on some 403s; GitHub
	// also answers 429, which reaches us as a plain error reply. One
	// detector (internal/ratelimit) judges both, as the transport does.
	if er, ok := errorResponse(err); ok && ratelimit.IsSecondary(er.Response.StatusCode, er.Response.Header, er.Message, er.DocumentationURL) {
		wait := retryAfterOr(er.Response, 0)
		return &refusedError{wait: wait, bare: wait == 0, err: err}
	}
	var he *ghgraphql.HTTPError
	if errors.As(err, &he) && he.RateLimited() {
		if _, named := ratelimit.RetryAfter(he.Header, time.Now()); ratelimit.Spent(he.Header) && !named {
			return fmt.Errorf("%s: %w", what, err) // primary
		}
		wait := he.RetryAfter(time.Now())
		return &refusedError{wait: wait, bare: wait == 0, err: err}
	}
	var ge *ghgraphql.Errors
	if errors.As(err, &ge) && ge.RateLimited() {
		// RATE_LIMITED (HTTP 200): the GraphQL points of the hour are
		// spent until x-ratelimit-reset, which the client waits for
		// when it is near (a later window is ghclient's *RateLimitError).
		wait := ge.RetryAfter(time.Now())
		return &refusedError{wait: wait, bare: wait == 0, err: err}
	}
	return nil
}

// retryAfterOr is the reply's Retry-After (internal/ratelimit reads it, in
// seconds or as a date, for every layer), at least a second, or def when it
// has none.
func retryAfterOr(resp *http.Response, def time.Duration) time.Duration {
	if d, ok := ratelimit.RetryAfter(resp.Header, time.Now()); ok {
		return max(d, time.Second)
	}
	return def
}

// secondaryWait is how long to wait after a secondary rate limit: its
// Retry-After when GitHub sent one; else bare is true (the driver waits at
// least its floor, a minute by default, as GitHub's documentation asks) and
// wait is the reset go-github derived from x-ratelimit-reset, before which
// it refuses to send anything.
func secondaryWait(ab *github.AbuseRateLimitError) (wait time.Duration, bare bool) {
	if heldBack(ab) {
		// go-github's own refusal to send before a window it saw ends:
		// the reply that opened it was waited for already.
		return max(ab.GetRetryAfter(), time.Second), false
	}
	if ab.Response != nil {
		if d := retryAfterOr(ab.Response, 0); d > 0 {
			return d, false
		}
	}
	return ab.GetRetryAfter(), true
}

// heldBack reports go-github's refusal to send a request inside a
// secondary-limit window it saw earlier: its reply is made up, without a
// header GitHub sends.
func heldBack(ab *github.AbuseRateLimitError) bool {
	return ab.Response != nil && len(ab.Response.Header) == 0
}

// limitWait is how long a final rate limit in err asks to wait: until the
// primary limit's reset, the window ghclient saw, a secondary limit's
// Retry-After, or floor after one that named none.
func limitWait(err error, floor time.Duration) time.Duration {
	var re *refusedError
	if !errors.As(err, &re) {
		errors.As(refused("", err), &re) // a secondary limit
	}
	if re != nil {
		if re.bare {
			return max(re.wait, floor)
		}
		return re.wait
	}
	var gate *ghclient.RateLimitError
	var rl *github.RateLimitError
	var he *ghgraphql.HTTPError
	var ge *ghgraphql.Errors
	switch {
	case errors.As(err, &gate):
		return gate.Wait
	case errors.As(err, &rl):
		return max(time.Until(rl.Rate.Reset.Time), 0)
	case errors.As(err, &he):
		return he.RetryAfter(time.Now())
	case errors.As(err, &ge):
		return ge.RetryAfter(time.Now())
	}
	return 0
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
// behind err, if one is: a REST error reply, a rate limit (go-github's or
// the transport's), a refused redirect, or a GraphQL reply.
func apiDetails(err error) (status int, message, requestID string) {
	var resp *http.Response
	if er, ok := errorResponse(err); ok {
		resp, message = er.Response, er.Message
	}
	var ab *github.AbuseRateLimitError
	if resp == nil && errors.As(err, &ab) && ab.Response != nil && !heldBack(ab) {
		resp, message = ab.Response, ab.Message
	}
	var rl *github.RateLimitError
	if resp == nil && errors.As(err, &rl) && rl.Response != nil {
		resp, message = rl.Response, rl.Message
	}
	if resp != nil {
		return resp.StatusCode, message, resp.Header.Get("X-GitHub-Request-Id")
	}
	var gate *ghclient.RateLimitError
	var fh *ghclient.ForeignHostError
	var rd *ghclient.RedirectError
	var he *ghgraphql.HTTPError
	var ge *ghgraphql.Errors
	switch {
	case errors.As(err, &gate):
		return gate.StatusCode, "", gate.RequestID
	case errors.As(err, &fh):
		return fh.Status, "", fh.RequestID
	case errors.As(err, &rd):
		return rd.Status, "", rd.RequestID
	case errors.As(err, &he):
		return he.Status, he.Message, he.RequestID()
	case errors.As(err, &ge):
		return ge.Status, ge.Message(), ge.RequestID()
	}
	return 0, "", ""
}

// answerTo names the write whose answer judge reads: the one that lands a
// commit or creates its branch.
type answerTo int

const (
	toUpdateRef  answerTo = iota // PATCH git/refs/heads/B, force=false (git-data)
	toCreateRef                  // POST git/refs (a new branch, any engine)
	toGraphQL                    // createCommitOnBranch (graphql)
	toContents                   // PUT or DELETE contents/{path} (contents)
	toUpdateRefs                 // GraphQL updateRefs with beforeOid (git-data; see judgeRefs)
)

// verdict is what GitHub's answer to a landing write means for the
// commit loop.
type verdict int

const (
	verdictFailed    verdict = iota // final: classify names the error's kind
	verdictLostRace                 // another writer moved the branch (or the file) first: try again on the new head
	verdictLimited                  // a rate limit refused it (a *refusedError): wait, then try again
	verdictUnknown                  // no answer, or a 5xx: settle by reading the branch, never send it again blindly
	verdictMissing                  // the branch is not there ("Reference does not exist")
	verdictTagExists                // updateRefs: the tag moved with the branch exists and may not move
)

// judge is the one table of what GitHub's answer to a landing write means,
// for every engine and for the single commit, the Queue and pull requests
// alike (they share the driver). Only the answers that mean another writer
// moved the branch (or the file) are lost races:
//
//   - ref update: 422 "Update is not a fast forward", "Reference cannot
//     be updated";
//   - branch creation: 422 "Reference already exists";
//   - createCommitOnBranch: STALE_DATA;
//   - contents: 409 "is at X but expected Y" (the branch moved during
//     the write), 409 "P does not match SHA" (the file changed), 422
//     `"sha" wasn't supplied` (the file appeared).
//
// A rate limit is a wait (ErrRateLimited when every attempt is refused);
// no answer or a 5xx is settled by reading the branch. Everything else is
// final, of the kind classify gives it: a refused redirect (a failure
// naming the host), a protection rule (ErrProtected), a path that cannot
// be sent or that GitHub refuses (ErrInvalid), 401, 403, 404, and any
// other 4xx (such as a creation's "Reference update failed" for a name
// that clashes with an existing branch, refs/heads/a against
// refs/heads/a/b). The returned error is err, or the *refusedError for a
// wait.
func judge(w answerTo, err error) (verdict, error) {
	if re := refused("write", err); re != nil {
		var r *refusedError
		if errors.As(re, &r) {
			return verdictLimited, r
		}
		return verdictFailed, re
	}
	switch {
	case notSent(err) || isProtected(err):
		return verdictFailed, err
	case isLostRace(w, err):
		return verdictLostRace, err
	case w == toUpdateRef && statusOf(err) == http.StatusUnprocessableEntity && messageIs(err, "Reference does not exist"):
		return verdictMissing, err
	case noAnswer(w, err):
		return verdictUnknown, err
	}
	return verdictFailed, err
}

// isLostRace reports the answers that mean another writer moved the
// branch or the file first (see judge).
func isLostRace(w answerTo, err error) bool {
	s := statusOf(err)
	switch w {
	case toUpdateRef:
		return s == http.StatusUnprocessableEntity && (messageIs(err, "Update is not a fast forward") || messageIs(err, "Reference cannot be updated"))
	case toCreateRef:
		return s == http.StatusUnprocessableEntity && messageIs(err, "Reference already exists")
	case toGraphQL:
		return ghgraphql.IsStale(err)
	case toContents:
		er, ok := errorResponse(err)
		if !ok {
			return false
		}
		m := strings.TrimSpace(er.Message)
		switch s {
		case http.StatusConflict:
			return contentsMoved(m)
		case http.StatusUnprocessableEntity:
			return strings.HasSuffix(m, `"sha" wasn't supplied.`)
		}
	}
	return false
}

// judgeRefs is judge for updateRefs' answer to the move of branchRef (a
// full ref name) with beforeOid, and of tagRef ("" for none) beside it: a
// refusal naming the tag means it exists (final: ErrConflict); a STALE_DATA that names the branch is a
// lost race (it was not at the head the commit was built on); an answer
// that does not name the branch, or names it without saying why (an
// error of a type GitHub does not document here), does not say whether
// anything was applied, and is settled by reading the branch like a lost
// reply; rate limits, rules, NOT_FOUND and FORBIDDEN are read as on every
// other write.
func judgeRefs(err error, branchRef, tagRef string) (verdict, error) {
	var ge *ghgraphql.Errors
	if !errors.As(err, &ge) || ge.RateLimited() || isProtected(err) || ge.Has(ghgraphql.TypeNotFound) || ge.Has(ghgraphql.TypeForbidden) || ge.Has(ghgraphql.TypeInsufficientScopes) {
		return judge(toUpdateRefs, err)
	}
	for _, x := range ge.Errors {
		if tagRef != "" && ghgraphql.NamesRef(x.Message, tagRef) && (x.Type == ghgraphql.TypeStaleData || x.Type == ghgraphql.TypeUnprocessable && strings.Contains(x.Message, "already exists")) {
			return verdictTagExists, err // the tag is there (a zero beforeOid, or a move without force)
		}
		if !ghgraphql.NamesRef(x.Message, branchRef) {
			continue
		}
		switch x.Type {
		case ghgraphql.TypeStaleData:
			return verdictLostRace, err
		case ghgraphql.TypeUnprocessable:
			return verdictFailed, err // named, with the reason: final
		}
	}
	return verdictUnknown, err
}

// contentsMoved reports a contents 409 that says the branch or the file
// is no longer what the write was built on: "is at <sha> but expected
// <sha>", or "<path> does not match <sha>".
func contentsMoved(m string) bool {
	if at, ok := strings.CutPrefix(m, "is at "); ok {
		now, was, ok := strings.Cut(at, " but expected ")
		return ok && isSHA(now) && isSHA(was)
	}
	if i := strings.LastIndex(m, " does not match "); i > 0 {
		return isSHA(m[i+len(" does not match "):])
	}
	return false
}

// noAnswer reports a write whose outcome GitHub did not tell: no reply
// (a timeout, a reset, a cancel), or a 5xx; for GraphQL also an error
// without a type ("Something went wrong while executing your query":
// GitHub may have committed before failing).
func noAnswer(w answerTo, err error) bool {
	if w != toGraphQL && w != toUpdateRefs {
		s := statusOf(err)
		return s == 0 || s >= 500
	}
	var nr *ghgraphql.NoReplyError
	var he *ghgraphql.HTTPError
	var ge *ghgraphql.Errors
	switch {
	case errors.As(err, &nr):
		return true
	case errors.As(err, &he):
		return he.Status >= 500
	case errors.As(err, &ge):
		return len(ge.Errors) > 0 && ge.Errors[0].Type == ""
	}
	return false
}

// notSent reports a write that certainly did not apply although no error
// reply says so: a redirect the client refused to follow (to another
// host, one that would turn it into a GET, a loop), or a URL that could
// not be built (a path that cannot be sent).
func notSent(err error) bool {
	var fh *ghclient.ForeignHostError
	var rd *ghclient.RedirectError
	return errors.As(err, &fh) || errors.As(err, &rd) || unsendable(err)
}

// unsendable reports a request whose URL could not be built from its
// path: nothing was sent.
func unsendable(err error) bool {
	var ue *url.Error
	return errors.As(err, &ue) && ue.Op == "parse"
}

// protectionMarkers are what GitHub's refusals by branch protection and
// rulesets say, in REST and GraphQL replies alike (the classic rules'
// messages are those of a refused push: "At least 1 approving review is
// required by reviewers with write access.", "Commits must have verified
// signatures.").
var protectionMarkers = []string{"protected branch", "rule violation", "through a pull request", "required status check", "cannot force-push",
	"approving review", "must have verified signatures", "verified signature", "merge queue"}

// isProtected reports whether GitHub refused a write for branch
// protection or a ruleset: a REST reply (a ref update's 422, a contents
// write's 409 "Could not update file: Required status check …", a 403), a
// GraphQL BRANCH_PROTECTION_RULE_VIOLATION, or a GraphQL error that says
// so.
func isProtected(err error) bool {
	var msgs []string
	if er, ok := errorResponse(err); ok {
		msgs = append(msgs, er.Message)
	}
	var ge *ghgraphql.Errors
	if errors.As(err, &ge) {
		if ge.Has(ghgraphql.TypeBranchProtection) {
			return true
		}
		for _, x := range ge.Errors {
			msgs = append(msgs, x.Message)
		}
	}
	var he *ghgraphql.HTTPError
	if errors.As(err, &he) {
		msgs = append(msgs, he.Message)
	}
	for _, m := range msgs {
		m = strings.ToLower(m)
		for _, s := range protectionMarkers {
			if strings.Contains(m, s) {
				return true
			}
		}
	}
	return false
}

// classify maps a cause to an error kind and a hint about what to do: the
// one table of kinds for REST replies, GraphQL replies and the
// transport's own errors. The hints name this package's API; the CLI adds
// its own flag names.
func classify(err error) (error, string) {
	var gate *ghclient.RateLimitError
	var rl *github.RateLimitError
	var ab *github.AbuseRateLimitError
	var fh *ghclient.ForeignHostError
	var rd *ghclient.RedirectError
	var he *ghgraphql.HTTPError
	var ge *ghgraphql.Errors
	switch {
	case errors.As(err, &gate):
		return ErrRateLimited, fmt.Sprintf("GitHub's rate limit for this credential lifts at %s: retry after that", gate.Reset.UTC().Format(time.RFC3339))
	case errors.As(err, &rl):
		return ErrRateLimited, fmt.Sprintf("the API rate limit is exhausted until %s", rl.Rate.Reset.Time.UTC().Format(time.RFC3339))
	case errors.As(err, &ab), statusOf(err) == http.StatusTooManyRequests:
		return ErrRateLimited, "hit GitHub's secondary rate limit; slow down and retry later"
	case errors.As(err, &he) && he.RateLimited():
		return ErrRateLimited, "hit GitHub's GraphQL rate limit; slow down and retry later"
	case errors.As(err, &fh):
		return nil, "GitHub answered with a redirect to another host, which is never followed (credentials stay on the API's host): check the API URL (WithBaseURL) and the repository's name"
	case errors.As(err, &rd):
		return nil, "GitHub's redirect was not followed: check the API URL (WithBaseURL) and the repository's name"
	case unsendable(err):
		return ErrInvalid, ""
	case isProtected(err):
		return ErrProtected, "the branch is protected: commit to another branch and open a pull request (CommitPullRequest)"
	case errors.As(err, &he):
		return classifyStatus(he.Status, he.Message)
	case errors.As(err, &ge):
		switch {
		case ge.RateLimited():
			return ErrRateLimited, "GitHub's GraphQL rate limit is spent; retry after it resets"
		case ge.Has(ghgraphql.TypeNotFound):
			return ErrNotFound, hintNotFound
		case ge.Has(ghgraphql.TypeForbidden), ge.Has(ghgraphql.TypeInsufficientScopes):
			return ErrPermission, hintPermission
		}
		return nil, ""
	}
	er, ok := errorResponse(err)
	if !ok {
		return nil, ""
	}
	return classifyStatus(er.Response.StatusCode, er.Message)
}

const (
	hintPermission = "the token needs the contents: write permission on this repository (repo scope for a classic token)"
	hintNotFound   = "check the repository name, and that the token can see it and has contents: write (GitHub answers 404 to tokens without access)"
)

// classifyStatus maps a REST or GraphQL error reply's status and message
// to a kind and a hint (protection and rate limits are told apart
// before).
func classifyStatus(code int, message string) (error, string) {
	m := strings.TrimSpace(message)
	switch {
	case code == http.StatusUnauthorized:
		return ErrUnauthorized, "the token is missing, expired or revoked"
	case code == http.StatusForbidden:
		return ErrPermission, hintPermission
	case code == http.StatusNotFound:
		return ErrNotFound, hintNotFound
	case code == http.StatusUnprocessableEntity && strings.EqualFold(m, "Reference name is invalid"):
		return ErrInvalid, ""
	case code == http.StatusUnprocessableEntity && strings.Contains(strings.ToLower(m), "malformed path component"):
		return ErrInvalid, "GitHub refuses this path: rename it"
	case code == http.StatusUnprocessableEntity && strings.EqualFold(m, "Reference update failed"):
		return nil, "the branch name may clash with an existing branch (refs/heads/a and refs/heads/a/b cannot both exist)"
	}
	return nil, ""
}
