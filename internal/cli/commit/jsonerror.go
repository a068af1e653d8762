package commit

import (
	"errors"
	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"
	"github.com/ghcommitter/ghcommitter/internal/cli/input"
	"net/http"
	"strings"
	"time"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/ghclient"
	"github.com/google/go-github/v66/github"
)

// jsonFailure is the --json object printed on stdout when a command fails;
// its keys are a contract, present whatever the failure.
type jsonFailure struct {
	Error jsonErrorBody `json:"error"`
}

type jsonErrorBody struct {
	Kind      string `json:"kind"`     // one of errorKinds
	Message   string `json:"message"`  // what failed (stderr's first line, without "ghcommitter: ")
	Hint      string `json:"hint"`     // what to do about it, or ""
	Head      string `json:"head"`     // the last head commit seen, or ""
	Attempts  int    `json:"attempts"` // attempts made, or 0
	Status    int    `json:"status"`   // GitHub's HTTP status when a reply caused the failure, or 0
	RequestID string `json:"request_id"`
	// RetryAfter is, for rate_limited, the seconds to wait before trying
	// again (rounded up); 0 otherwise.
	RetryAfter int `json:"retry_after"`
	// Rule is, for protected, the type of the rule that refused the write
	// (pull_request, required_signatures, merge_queue, ...); "" otherwise.
	Rule string `json:"rule"`
}

// errorKinds name the library's error kinds, and the CLI's own failures, in
// the "kind" of a --json failure. Documented in commit --help.
var errorKinds = []struct {
	err  error
	name string
}{
	{committer.ErrInvalid, "invalid"},
	{committer.ErrConflict, "conflict"},
	{committer.ErrNotFound, "not_found"},
	{committer.ErrUnauthorized, "unauthorized"},
	{committer.ErrPermission, "permission"},
	{committer.ErrProtected, "protected"},
	{committer.ErrRateLimited, "rate_limited"},
	{committer.ErrUnknownOutcome, "unknown_outcome"},
	{committer.ErrMergeTimeout, "merge_timeout"},
	{committer.ErrPullRequestClosed, "pull_request_closed"},
	{committer.ErrDequeued, "dequeued"},
	{committer.ErrCheckFailed, "check_failed"},
	{committer.ErrPullRequestStale, "pull_request_stale"},
}

// kindOf names the kind of a classified failure.
func kindOf(ee *cmdutil.ExitError) string {
	var ed *input.EditFailure
	switch {
	case ee.Code > 128 && errors.Is(ee, committer.ErrUnknownOutcome):
		return "unknown_outcome" // the signal came after the write was sent
	case ee.Code > 128:
		return "interrupted"
	case errors.As(ee, &ed):
		return "edit_failed"
	}
	for _, k := range errorKinds {
		if errors.Is(ee, k.err) {
			return k.name
		}
	}
	var rl *ghclient.RateLimitError
	switch {
	case ee.Code == cmdutil.ExitUsage:
		return "invalid"
	case errors.As(ee, &rl):
		return "rate_limited" // a request of the CLI's own (the App's installation lookup)
	}
	return "failed"
}

// failureJSON describes a classified failure for --json.
func failureJSON(ee *cmdutil.ExitError) jsonFailure {
	b := jsonErrorBody{Kind: kindOf(ee), Message: ee.Err.Error(), Hint: ee.Hint}
	var ce *committer.Error
	if errors.As(ee, &ce) {
		b.Head, b.Attempts, b.Rule = ce.Head, ce.Attempts, ce.Rule
	}
	b.Status, b.RequestID = replyOf(ee)
	if b.Kind == "rate_limited" {
		b.RetryAfter = retryAfterOf(ee)
	}
	return jsonFailure{Error: b}
}

// retryAfterOf is the wait a rate-limited failure asks for, in whole
// seconds rounded up.
func retryAfterOf(err error) int {
	var d time.Duration
	var ce *committer.Error
	var rl *ghclient.RateLimitError
	switch {
	case errors.As(err, &ce) && ce.RetryAfter > 0:
		d = ce.RetryAfter
	case errors.As(err, &rl):
		d = rl.Wait
	}
	return int((d + time.Second - 1) / time.Second)
}

// replyOf returns the HTTP status and X-GitHub-Request-Id of the GitHub
// reply that caused err, if one did: the library's *Error says; an error
// from a request the CLI made itself (the App's installation lookup)
// carries go-github's reply.
func replyOf(err error) (int, string) {
	var ce *committer.Error
	if errors.As(err, &ce) && ce.Status != 0 {
		return ce.Status, ce.RequestID
	}
	var resp *http.Response
	var er *github.ErrorResponse
	var rl *github.RateLimitError
	var ab *github.AbuseRateLimitError
	var gate *ghclient.RateLimitError
	switch {
	case errors.As(err, &er):
		resp = er.Response
	case errors.As(err, &rl):
		resp = rl.Response
	case errors.As(err, &ab):
		resp = ab.Response
	case errors.As(err, &gate):
		return gate.StatusCode, gate.RequestID
	}
	if resp == nil {
		return 0, ""
	}
	return resp.StatusCode, resp.Header.Get("X-GitHub-Request-Id")
}

// jsonPartlyDone is the --json object of a partly-done run (exit 4): the
// result object of what landed, with the error object of what did not
// beside its keys, under "error" (the keys of every failure).
type jsonPartlyDone struct {
	JSONResult
	jsonFailure
}

// PartlyDone is the exit error of a partly-done run: something landed and
// something after or beside it did not. Its code is cmdutil.ExitPartly,
// whatever the failure's own; reported says --json printed the outcome
// already (partlyDoneJSON, or a fan-in's array), so that no failure object
// follows it.
func PartlyDone(err error, hint string, reported bool) *cmdutil.ExitError {
	return &cmdutil.ExitError{Code: cmdutil.ExitPartly, Err: err, Hint: hint, Reported: reported}
}

// partlyDoneJSON is the --json object of a run whose result r landed while
// ee, after or beside it, failed.
func partlyDoneJSON(r JSONResult, ee *cmdutil.ExitError) jsonPartlyDone {
	return jsonPartlyDone{JSONResult: r, jsonFailure: failureJSON(ee)}
}

// WriteFailureJSON prints ee as the --json failure object.
func WriteFailureJSON(e *cmdutil.Env, ee *cmdutil.ExitError) {
	_ = writeJSON(e, failureJSON(ee)) // stdout failed too: nowhere left to say so
}

// WantsJSON reports whether a command line that cobra could not parse asked
// for --json output of commit: the commit command's own errors are printed
// as JSON by the command, which knows its parsed flags.
func WantsJSON(args []string) bool {
	if len(args) == 0 || args[0] != "commit" {
		return false
	}
	for _, a := range args[1:] {
		if a == "--" {
			return false
		}
		if v, ok := strings.CutPrefix(a, "--json"); ok && (v == "" || v == "=true" || v == "=1" || v == "=t" || v == "=T" || v == "=TRUE" || v == "=True") {
			return true
		}
	}
	return false
}
