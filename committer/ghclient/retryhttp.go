package ghclient

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// retryTransport resends the retryable requests (retryableRequest) through
// go-retryablehttp's Client, with this package's GitHub policies plugged
// in: CheckRetry decides (and says when a rate limit lifts too late),
// Backoff is always 0 for go-retryablehttp's own timer, and PrepareRetry
// waits through the sleep hook — nothing for a rate limit, whose wait the
// gate below holds (gate.go), else Backoff's exponential wait or a 5xx's
// Retry-After. Every other request goes to next as it is.
type retryTransport struct {
	next http.RoundTripper
	o    *options
	api  apiRoot
	// hc carries one attempt to next. It never follows a redirect (the
	// caller's client does, through the whole stack and its redirect
	// policy), and its transport has no CloseIdleConnections method:
	// go-retryablehttp calls HTTPClient.CloseIdleConnections whenever it
	// gives up, which must not close connections the caller's other
	// requests share.
	hc *http.Client
}

func newRetryTransport(next http.RoundTripper, o *options, api apiRoot) *retryTransport {
	return &retryTransport{next: next, o: o, api: api, hc: &http.Client{
		Transport:     attemptTransport{next: next},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// attemptTransport hides next's methods other than RoundTrip (see
// retryTransport.hc).
type attemptTransport struct{ next http.RoundTripper }

func (a attemptTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	return a.next.RoundTrip(r)
}

func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	rel := t.api.rel(req.URL)
	if !retryableRequest(req.Method, rel) || retriesOff(req.Context()) {
		return t.next.RoundTrip(req)
	}
	r := &retry{t: t, method: req.Method, rel: rel}
	rreq, err := r.request(req)
	if err != nil {
		closeBody(req)
		return nil, err
	}
	maxRetries := t.o.maxRetries
	if !r.rewindable {
		maxRetries = 0
	}
	c := &retryablehttp.Client{
		HTTPClient:   t.hc,
		Logger:       nil, // logs go to WithLogger's slog.Logger, at debug level
		RetryWaitMin: t.o.backoffMin,
		RetryWaitMax: t.o.backoffMax,
		RetryMax:     maxRetries,
		CheckRetry:   r.check,
		Backoff:      r.backoff,
		PrepareRetry: r.prepare,
		// The last reply as it came, so that go-github reports its typed
		// error (*github.ErrorResponse, *github.AbuseRateLimitError, …)
		// with the real status.
		ErrorHandler: retryablehttp.PassthroughErrorHandler,
	}
	resp, err := c.Do(rreq)
	// Only http.Client.Do's own top-level wrapper comes off (an error
	// wrapped deeper, such as CheckRetry's, stays as it is).
	if ue, ok := err.(*url.Error); ok { //nolint:errorlint // see above
		err = ue.Err // the caller's client wraps it again
	}
	if err != nil {
		// A reply that comes with an error is one we refuse to hand back
		// (a rate limit lifting too late, a caller who gave up).
		drain(resp)
		return nil, err
	}
	return resp, nil
}

// retry is one request's way through go-retryablehttp's loop.
type retry struct {
	t           *retryTransport
	method, rel string
	rewindable  bool
	attempt     int           // attempts answered so far
	wait        time.Duration // before the next attempt, through the sleep hook
	status      int           // of the last reply, for the log
	err         error         // of the last attempt, for the log
}

// request is req as a retryablehttp.Request, without reading its body:
// the first attempt sends req.Body itself, each retry a fresh one from
// req.GetBody (a ReaderFunc), so a streamed upload is never held in
// memory. A body without GetBody is sent once.
func (r *retry) request(req *http.Request) (*retryablehttp.Request, error) {
	out := req.Clone(req.Context())
	body, getBody := req.Body, req.GetBody
	out.Body, out.GetBody = nil, nil
	rr, err := retryablehttp.FromRequest(out) // no body: FromRequest would read it whole
	if err != nil {
		return nil, err
	}
	r.rewindable = true
	if body == nil || body == http.NoBody {
		return rr, nil
	}
	r.rewindable = getBody != nil
	first, probing := body, true
	err = rr.SetBody(retryablehttp.ReaderFunc(func() (io.Reader, error) {
		switch {
		case probing: // SetBody's look for a length: ContentLength is kept below
			return http.NoBody, nil
		case first != nil:
			b := first
			first = nil
			return b, nil
		case getBody != nil:
			return getBody()
		}
		return nil, errors.New("ghclient: the request body cannot be sent again (no GetBody)")
	}))
	if err != nil {
		return nil, err
	}
	probing = false
	rr.ContentLength = req.ContentLength
	// Only go-retryablehttp rewinds the body. Without GetBody, the
	// attempt's client returns a 307 or 308 as it is (to the caller's
	// client, which follows it) instead of opening a body for a redirect
	// it is told not to follow.
	rr.GetBody = nil
	return rr, nil
}

// check is CheckRetry, and decides the wait before the next attempt while
// the reply's body can still be read. A rate limit lifting later than
// RateLimits.MaxWait ends the loop with a *RateLimitError.
func (r *retry) check(ctx context.Context, resp *http.Response, err error) (bool, error) {
	r.attempt++
	r.err, r.status = err, 0
	if resp != nil {
		r.status = resp.StatusCode
	}
	again, cerr := CheckRetry(ctx, resp, err)
	if resp != nil && ctx.Err() != nil {
		// The caller gave up. A final answer is still handed back; a
		// failure we would otherwise have retried is reported as the
		// context's error.
		if a, _ := CheckRetry(context.WithoutCancel(ctx), resp, nil); !a {
			return false, nil
		}
		return false, ctx.Err()
	}
	if !again {
		return false, cerr
	}
	o := r.t.o
	now := o.now()
	secondary, primary := isSecondaryRateLimit(resp), isPrimaryRateLimit(resp)
	wait := backoffAt(now, o.backoffMin, o.backoffMax, r.attempt-1, resp, o.secondaryFloor())
	if (secondary || primary) && wait > o.maxRateWait {
		r.t.log(ctx, r.method, r.rel, r.status, err, r.attempt, wait, "rate limit too far away")
		return false, &RateLimitError{
			Reset: now.Add(wait), Wait: wait, MaxWait: o.maxRateWait,
			Secondary: secondary, Method: r.method, Path: r.rel, StatusCode: resp.StatusCode,
			RequestID: resp.Header.Get("X-GitHub-Request-Id"),
		}
	}
	r.wait = wait
	if secondary || primary && hasReset(resp) {
		// The gate opened a window for this reply (gate.go): the next
		// attempt waits there, with every other request of the credential.
		r.wait = 0
	}
	return true, nil
}

func hasReset(resp *http.Response) bool {
	_, ok := rateReset(resp)
	return ok
}

// backoff is Backoff for go-retryablehttp's own timer: always 0, since
// every wait goes through the sleep hook (prepare) or the gate.
func (r *retry) backoff(time.Duration, time.Duration, int, *http.Response) time.Duration { return 0 }

// prepare is PrepareRetry: it waits what check decided.
func (r *retry) prepare(req *http.Request) error {
	ctx := req.Context()
	r.t.log(ctx, r.method, r.rel, r.status, r.err, r.attempt, r.wait, "retrying")
	if r.wait > 0 {
		if err := r.t.o.sleep(ctx, r.wait); err != nil {
			return err
		}
	}
	return ctx.Err()
}

func (t *retryTransport) log(ctx context.Context, method, rel string, status int, err error, attempt int, wait time.Duration, msg string) {
	l := t.o.logger
	if l == nil {
		return
	}
	attrs := []slog.Attr{
		slog.String("method", method),
		slog.String("route", rel),
		slog.Int("attempt", attempt),
		slog.Duration("wait", wait),
	}
	if status != 0 {
		attrs = append(attrs, slog.Int("status", status))
	}
	if err != nil {
		attrs = append(attrs, slog.String("error", err.Error()))
	}
	l.LogAttrs(ctx, slog.LevelDebug, "github "+msg, attrs...)
}
