package ghclient

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/bradleyfalzon/ghinstallation/v2"
	"github.com/ghcommitter/ghcommitter/committer/internal/ratelimit"
)

// CheckRetry is the retry policy for GitHub: connection errors, 429, 5xx
// except 501 (as go-retryablehttp's DefaultRetryPolicy, whose signature it
// keeps), and 403 rate limits: primary (x-ratelimit-remaining: 0) and
// secondary (documentation_url naming "secondary-rate-limits" or
// "abuse-rate-limit", a message about a "secondary rate limit", or a
// Retry-After header; see committer/internal/ratelimit). It
// never retries once ctx is done, nor on TLS certificate errors, a failed
// App token exchange (that has its own retries), a *RateLimitError or a
// *ForeignHostError.
//
// CheckRetry does not look at the method: which requests may be retried at
// all is decided by the transport (GET, HEAD and the content-addressed
// POSTs only). It reads at most 64 KiB of a 403/429 body and restores it.
func CheckRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	if err != nil {
		var certErr *tls.CertificateVerificationError
		var unknownAuth x509.UnknownAuthorityError
		var hostErr x509.HostnameError
		var appErr *ghinstallation.HTTPError
		var rle *RateLimitError
		var fhe *ForeignHostError
		if errors.As(err, &certErr) || errors.As(err, &unknownAuth) || errors.As(err, &hostErr) ||
			errors.As(err, &appErr) || errors.As(err, &rle) || errors.As(err, &fhe) {
			return false, err
		}
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return false, err
		}
		return true, nil
	}
	if resp == nil {
		return false, nil
	}
	if isPrimaryRateLimit(resp) || isSecondaryRateLimit(resp) {
		return true, nil
	}
	c := resp.StatusCode
	return c == 0 || (c >= 500 && c != http.StatusNotImplemented), nil
}

// Backoff is the wait before retry attemptNum (0 for the first retry) of
// resp, as GitHub's rate-limit guidance asks: Retry-After when present;
// else, for a primary rate limit (x-ratelimit-remaining: 0), until
// x-ratelimit-reset plus a second; else, for a secondary limit (including
// any 429), at least a minute; else exponential backoff with full jitter:
// a random wait in [0, minWait·2^attemptNum], capped at maxWait. Rate-limit waits
// are not capped at maxWait: the transport compares them with
// RateLimits.MaxWait instead. It has go-retryablehttp's Backoff
// signature. The transport does not hand it to go-retryablehttp as it is:
// it computes the same waits, sleeps the others through the client's sleep and
// leaves the rate-limit ones to the gate (see the package doc).
func Backoff(minWait, maxWait time.Duration, attemptNum int, resp *http.Response) time.Duration {
	return backoffAt(time.Now(), minWait, maxWait, attemptNum, resp, ratelimit.BareSecondaryWait)
}

func backoffAt(now time.Time, minWait, maxWait time.Duration, attemptNum int, resp *http.Response, secondaryFloor time.Duration) time.Duration {
	secondary := isSecondaryRateLimit(resp)
	if d, ok := serverWait(resp, now); ok {
		return d
	}
	d := jitter(minWait, maxWait, attemptNum)
	if secondary && d < secondaryFloor {
		d = secondaryFloor
	}
	return d
}

// jitter is "full jitter": uniform in [0, min(maxWait, minWait·2^attempt)].
func jitter(minWait, maxWait time.Duration, attempt int) time.Duration {
	if minWait <= 0 {
		return 0
	}
	ceil := minWait
	for i := 0; i < attempt && ceil < maxWait; i++ {
		ceil *= 2
	}
	if maxWait > 0 && ceil > maxWait {
		ceil = maxWait
	}
	return time.Duration(rand.Int64N(int64(ceil) + 1))
}

type noRetriesKey struct{}

// WithoutRetries returns a context under which the transport does not
// retry a request: a connection error, a 5xx or a rate-limited reply is
// handed back as it came. The other layers still apply: the request waits
// at the rate-limit gate for a window an earlier reply of the credential
// opened (or fails at once with a *RateLimitError when that lifts later
// than RateLimits.MaxWait), a write waits for the write pacer, and
// redirects follow the redirect policy. Use it inside an operation that is
// itself retried, so the two loops do not multiply. The committer does not
// need it: the requests it retries itself (ref updates and the other
// landing writes) are never retried by the transport.
func WithoutRetries(ctx context.Context) context.Context {
	return context.WithValue(ctx, noRetriesKey{}, true)
}

func retriesOff(ctx context.Context) bool {
	v, _ := ctx.Value(noRetriesKey{}).(bool)
	return v
}
