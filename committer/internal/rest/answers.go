package rest

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
	"github.com/ghcommitter/ghcommitter/committer/internal/object"
)

// Answer names the write whose answer Judge reads: the one that lands a
// commit or creates its branch.
type Answer int

// The landing writes, by the request that carries them.
const (
	ToUpdateRef  Answer = iota // PATCH git/refs/heads/B, force=false (git-data)
	ToCreateRef                // POST git/refs (a new branch, any engine)
	ToGraphQL                  // createCommitOnBranch (graphql)
	ToContents                 // PUT or DELETE contents/{path} (contents)
	ToUpdateRefs               // GraphQL updateRefs with beforeOid (git-data; see JudgeRefs)
)

// Verdict is what GitHub's answer to a landing write means for the
// commit loop.
type Verdict int

// The verdicts Judge gives.
const (
	Failed    Verdict = iota // final: Classify names the error's kind
	LostRace                 // another writer moved the branch (or the file) first: try again on the new head
	Limited                  // a rate limit refused it (a *Refused): wait, then try again
	Unknown                  // no answer, or a 5xx: settle by reading the branch, never send it again blindly
	Missing                  // the branch is not there ("Reference does not exist")
	TagExists                // updateRefs: the tag moved with the branch exists and may not move
)

// Judge is the one table of what GitHub's answer to a landing write means,
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
// A rate limit is a wait (kind.RateLimited when every attempt is Refusal);
// no answer or a 5xx is settled by reading the branch. Everything else is
// final, of the kind Classify gives it: a Refusal redirect (a failure
// naming the host), a protection rule (kind.Protected), a path that cannot
// be sent or that GitHub refuses (kind.Invalid), 401, 403, 404, and any
// other 4xx (such as a creation's "Reference update failed" for a name
// that clashes with an existing branch, refs/heads/a against
// refs/heads/a/b). The returned error is err, or the *Refused for a
// wait.
func Judge(w Answer, err error) (Verdict, error) {
	if re := Refusal("write", err); re != nil {
		var r *Refused
		if errors.As(re, &r) {
			return Limited, r
		}
		return Failed, re
	}
	switch {
	case NotSent(err) || IsProtected(err):
		return Failed, err
	case isLostRace(w, err):
		return LostRace, err
	case w == ToUpdateRef && Status(err) == http.StatusUnprocessableEntity && MessageIs(err, "Reference does not exist"):
		return Missing, err
	case noAnswer(w, err):
		return Unknown, err
	}
	return Failed, err
}

// isLostRace reports the answers that mean another writer moved the
// branch or the file first (see Judge).
func isLostRace(w Answer, err error) bool {
	s := Status(err)
	switch w {
	case ToUpdateRef:
		return s == http.StatusUnprocessableEntity && (MessageIs(err, "Update is not a fast forward") || MessageIs(err, "Reference cannot be updated"))
	case ToCreateRef:
		return s == http.StatusUnprocessableEntity && MessageIs(err, "Reference already exists")
	case ToGraphQL:
		return ghgraphql.IsStale(err)
	case ToContents:
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

// JudgeRefs is Judge for updateRefs' answer to the move of branchRef (a
// full ref name) with beforeOid, and of tagRef ("" for none) beside it: a
// refusal naming the tag means it exists (final: kind.Conflict); a STALE_DATA that names the branch is a
// lost race (it was not at the head the commit was built on); an answer
// that does not name the branch, or names it without saying why (an
// error of a type GitHub does not document here), does not say whether
// anything was applied, and is settled by reading the branch like a lost
// reply; rate limits, rules, NOT_FOUND and FORBIDDEN are read as on every
// other write.
func JudgeRefs(err error, branchRef, tagRef string) (Verdict, error) {
	var ge *ghgraphql.Errors
	if !errors.As(err, &ge) || ge.RateLimited() || IsProtected(err) || ge.Has(ghgraphql.TypeNotFound) || ge.Has(ghgraphql.TypeForbidden) || ge.Has(ghgraphql.TypeInsufficientScopes) {
		return Judge(ToUpdateRefs, err)
	}
	for _, x := range ge.Errors {
		if tagRef != "" && ghgraphql.NamesRef(x.Message, tagRef) && (x.Type == ghgraphql.TypeStaleData || x.Type == ghgraphql.TypeUnprocessable && strings.Contains(x.Message, "already exists")) {
			return TagExists, err // the tag is there (a zero beforeOid, or a move without force)
		}
		if !ghgraphql.NamesRef(x.Message, branchRef) {
			continue
		}
		switch x.Type {
		case ghgraphql.TypeStaleData:
			return LostRace, err
		case ghgraphql.TypeUnprocessable:
			return Failed, err // named, with the reason: final
		}
	}
	return Unknown, err
}

// contentsMoved reports a contents 409 that says the branch or the file
// is no longer what the write was built on: "is at <sha> but expected
// <sha>", or "<path> does not match <sha>".
func contentsMoved(m string) bool {
	if at, ok := strings.CutPrefix(m, "is at "); ok {
		now, was, ok := strings.Cut(at, " but expected ")
		return ok && object.IsSHA(now) && object.IsSHA(was)
	}
	if i := strings.LastIndex(m, " does not match "); i > 0 {
		return object.IsSHA(m[i+len(" does not match "):])
	}
	return false
}

// noAnswer reports a write whose outcome GitHub did not tell: no reply
// (a timeout, a reset, a cancel), or a 5xx; for GraphQL also an error
// without a type ("Something went wrong while executing your query":
// GitHub may have committed before failing).
func noAnswer(w Answer, err error) bool {
	if w != ToGraphQL && w != ToUpdateRefs {
		s := Status(err)
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

// NotSent reports a write that certainly did not apply although no error
// reply says so: a redirect the client Refusal to follow (to another
// host, one that would turn it into a GET, a loop), or a URL that could
// not be built (a path that cannot be sent).
func NotSent(err error) bool {
	var fh *ghclient.ForeignHostError
	var rd *ghclient.RedirectError
	return errors.As(err, &fh) || errors.As(err, &rd) || Unsendable(err)
}

// Unsendable reports a request whose URL could not be built from its
// path: nothing was sent.
func Unsendable(err error) bool {
	var ue *url.Error
	return errors.As(err, &ue) && ue.Op == "parse"
}

// protectionMarkers are what GitHub's refusals by branch protection and
// rulesets say, in REST and GraphQL replies alike (the classic rules'
// messages are those of a Refusal push: "At least 1 approving review is
// required by reviewers with write access.", "Commits must have verified
// signatures.").
var protectionMarkers = []string{"protected branch", "rule violation", "through a pull request", "required status check", "cannot force-push",
	"approving review", "must have verified signatures", "verified signature", "merge queue"}

// IsProtected reports whether GitHub Refusal a write for branch
// protection or a ruleset: a REST reply (a ref update's 422, a contents
// write's 409 "Could not update file: Required status check …", a 403), a
// GraphQL BRANCH_PROTECTION_RULE_VIOLATION, or a GraphQL error that says
// so.
func IsProtected(err error) bool {
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

// Classify maps a cause to an error kind and a hint about what to do: the
// one table of kinds for REST replies, GraphQL replies and the
// transport's own errors. The hints name this package's API; the CLI adds
// its own flag names.
func Classify(err error) (error, string) {
	var gate *ghclient.RateLimitError
	var rl *github.RateLimitError
	var ab *github.AbuseRateLimitError
	var fh *ghclient.ForeignHostError
	var rd *ghclient.RedirectError
	var he *ghgraphql.HTTPError
	var ge *ghgraphql.Errors
	switch {
	case errors.As(err, &gate):
		return kind.RateLimited, fmt.Sprintf("GitHub's rate limit for this credential lifts at %s: retry after that", gate.Reset.UTC().Format(time.RFC3339))
	case errors.As(err, &rl):
		return kind.RateLimited, fmt.Sprintf("the API rate limit is exhausted until %s", rl.Rate.Reset.Time.UTC().Format(time.RFC3339))
	case errors.As(err, &ab), Status(err) == http.StatusTooManyRequests:
		return kind.RateLimited, "hit GitHub's secondary rate limit; slow down and retry later"
	case errors.As(err, &he) && he.RateLimited():
		return kind.RateLimited, "hit GitHub's GraphQL rate limit; slow down and retry later"
	case errors.As(err, &fh) && fh.Status == 0:
		return nil, "the request was addressed to another host than the API's, and credentials go only to the API's host: check the GraphQL URL (WithGraphQLURL) against the API URL (WithBaseURL)"
	case errors.As(err, &fh):
		return nil, "GitHub answered with a redirect to another host, which is never followed (credentials stay on the API's host): check the API URL (WithBaseURL) and the repository's name"
	case errors.As(err, &rd):
		return nil, "GitHub's redirect was not followed: check the API URL (WithBaseURL) and the repository's name"
	case Unsendable(err):
		return kind.Invalid, ""
	case IsProtected(err):
		return kind.Protected, "the branch is protected: commit to another branch and open a pull request (CommitPullRequest)"
	case errors.As(err, &he):
		return classifyStatus(he.Status, he.Message)
	case errors.As(err, &ge):
		switch {
		case ge.RateLimited():
			return kind.RateLimited, "GitHub's GraphQL rate limit is spent; retry after it resets"
		case ge.Has(ghgraphql.TypeNotFound):
			return kind.NotFound, hintNotFound
		case ge.Has(ghgraphql.TypeForbidden), ge.Has(ghgraphql.TypeInsufficientScopes):
			return kind.Permission, hintPermission
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
		return kind.Unauthorized, "the token is missing, expired or revoked"
	case code == http.StatusForbidden:
		return kind.Permission, hintPermission
	case code == http.StatusNotFound:
		return kind.NotFound, hintNotFound
	case code == http.StatusUnprocessableEntity && strings.EqualFold(m, "Reference name is invalid"):
		return kind.Invalid, ""
	case code == http.StatusUnprocessableEntity && strings.Contains(strings.ToLower(m), "malformed path component"):
		return kind.Invalid, "GitHub refuses this path: rename it"
	case code == http.StatusUnprocessableEntity && strings.EqualFold(m, "Reference update failed"):
		return nil, "the branch name may clash with an existing branch (refs/heads/a and refs/heads/a/b cannot both exist)"
	}
	return nil, ""
}
