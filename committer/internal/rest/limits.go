package rest

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/google/go-github/v66/github"

	"github.com/ghcommitter/ghcommitter/committer/ghclient"
	"github.com/ghcommitter/ghcommitter/committer/internal/ghgraphql"
	"github.com/ghcommitter/ghcommitter/committer/internal/ratelimit"
)

// Refused says GitHub's rate limit Refusal a request for now (a
// secondary limit, or a window the client saw open): it did not apply, and
// the next attempt waits first.
type Refused struct {
	Wait time.Duration // what GitHub asked for (Retry-After, or the window's end)
	Bare bool          // no Retry-After: the driver waits at least its floor
	Err  error
}

func (e *Refused) Error() string { return e.Err.Error() }
func (e *Refused) Unwrap() error { return e.Err }

// Refusal classifies the rate-limit answers to any request: GitHub
// answered (or the client held the request back), so it certainly did not
// apply. A secondary limit is a *Refused (wait, then try again); a
// primary limit that lifts later than the client waits is final
// (Classify makes it kind.RateLimited). It returns nil for any other error.
func Refusal(what string, err error) error {
	var gate *ghclient.RateLimitError
	if errors.As(err, &gate) {
		if gate.Secondary {
			return &Refused{Wait: max(gate.Wait, time.Second), Err: err}
		}
		return fmt.Errorf("%s: %w", what, err)
	}
	var ab *github.AbuseRateLimitError
	if errors.As(err, &ab) {
		wait, bare := secondaryWait(ab)
		return &Refused{Wait: wait, Bare: bare, Err: err}
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
		return &Refused{Wait: wait, Bare: wait == 0, Err: err}
	}
	var he *ghgraphql.HTTPError
	if errors.As(err, &he) && he.RateLimited() {
		if _, named := ratelimit.RetryAfter(he.Header, time.Now()); ratelimit.Spent(he.Header) && !named {
			return fmt.Errorf("%s: %w", what, err) // primary
		}
		wait := he.RetryAfter(time.Now())
		return &Refused{Wait: wait, Bare: wait == 0, Err: err}
	}
	var ge *ghgraphql.Errors
	if errors.As(err, &ge) && ge.RateLimited() {
		// RATE_LIMITED (HTTP 200): the GraphQL points of the hour are
		// spent until x-ratelimit-reset, which the client waits for
		// when it is near (a later window is ghclient's *RateLimitError).
		wait := ge.RetryAfter(time.Now())
		return &Refused{Wait: wait, Bare: wait == 0, Err: err}
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

// LimitWait is how long a final rate limit in err asks to wait: until the
// primary limit's reset, the window ghclient saw, a secondary limit's
// Retry-After, or floor after one that named none.
func LimitWait(err error, floor time.Duration) time.Duration {
	var re *Refused
	if !errors.As(err, &re) {
		errors.As(Refusal("", err), &re) // a secondary limit
	}
	if re != nil {
		if re.Bare {
			return max(re.Wait, floor)
		}
		return re.Wait
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

// Status returns the HTTP status of GitHub's error reply in err, or 0.
func Status(err error) int {
	if er, ok := errorResponse(err); ok {
		return er.Response.StatusCode
	}
	return 0
}

// MessageIs reports whether err is GitHub's error reply with this message
// (compared without case).
func MessageIs(err error, msg string) bool {
	er, ok := errorResponse(err)
	return ok && strings.EqualFold(strings.TrimSpace(er.Message), msg)
}

// Details returns the status, message and request ID of the GitHub reply
// behind err, if one is: a REST error reply, a rate limit (go-github's or
// the transport's), a Refusal redirect, or a GraphQL reply.
func Details(err error) (status int, message, requestID string) {
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

// Text is err's message with any GitHub error reply in it said plainly:
// "GET URL: 401 Bad credentials", its field errors after it when there are
// any, never go-github's empty " []".
func Text(err error) string {
	s := err.Error()
	er, ok := errorResponse(err)
	if !ok || er.Response == nil || er.Response.Request == nil {
		return s
	}
	return strings.Replace(s, er.Error(), errorResponseText(er), 1)
}

func errorResponseText(er *github.ErrorResponse) string {
	req := er.Response.Request
	s := fmt.Sprintf("%s %s: %d %s", req.Method, req.URL, er.Response.StatusCode, er.Message)
	var fields []string
	for _, e := range er.Errors {
		switch {
		case e.Message != "":
			fields = append(fields, e.Message)
		case e.Field != "" || e.Code != "":
			fields = append(fields, strings.TrimSpace(e.Resource+" "+e.Field+" "+e.Code))
		}
	}
	if len(fields) > 0 {
		s += " (" + strings.Join(fields, "; ") + ")"
	}
	return s
}
