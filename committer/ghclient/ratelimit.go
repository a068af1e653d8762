package ghclient

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/internal/ratelimit"
)

// maxBodyPeek bounds every response body this package reads.
const maxBodyPeek = 64 << 10

// resetMargin is added to an x-ratelimit-reset wait.
const resetMargin = ratelimit.ResetMargin

// RateLimitError reports a rate limit that lifts later than the client is
// willing to wait (RateLimits.MaxWait). Nothing was retried; the request
// can be sent again after Reset. Match it with errors.As.
type RateLimitError struct {
	// Reset is when the limit lifts, from x-ratelimit-reset (primary limit)
	// or Retry-After (secondary limit).
	Reset time.Time
	// Wait is how long that was from the moment the response arrived.
	Wait time.Duration
	// MaxWait is the configured RateLimits.MaxWait.
	MaxWait time.Duration
	// Secondary is true for a secondary (abuse) rate limit.
	Secondary bool
	// Method, Path and StatusCode describe the limited request and reply.
	// StatusCode is 0 when the request was not sent at all: a window seen
	// earlier (by any client of the process using the same credential)
	// was still open.
	Method, Path string
	StatusCode   int
	// RequestID is the limited reply's X-GitHub-Request-Id ("" when
	// nothing was sent).
	RequestID string
}

func (e *RateLimitError) Error() string {
	if e.StatusCode == 0 {
		limit := "primary rate limit"
		if e.Secondary {
			limit = "secondary rate limit"
		}
		return fmt.Sprintf("%s %s: not sent: GitHub's %s for this credential (seen earlier in this process) lifts at %s (in %s), later than the %s this client waits (see RateLimits.MaxWait); retry after that",
			e.Method, e.Path, limit, e.Reset.UTC().Format(time.RFC3339), e.Wait.Round(time.Second), e.MaxWait)
	}
	kind := "primary rate limit exhausted"
	if e.Secondary {
		kind = "secondary rate limit hit"
	}
	return fmt.Sprintf("%s %s: GitHub %s (HTTP %d): it resets at %s (in %s), later than the %s this client waits (see RateLimits.MaxWait); retry after that",
		e.Method, e.Path, kind, e.StatusCode, e.Reset.UTC().Format(time.RFC3339), e.Wait.Round(time.Second), e.MaxWait)
}

// isPrimaryRateLimit reports a 403/429 with x-ratelimit-remaining: 0, as
// go-github classifies it (ratelimit.IsPrimary).
func isPrimaryRateLimit(resp *http.Response) bool {
	return resp != nil && ratelimit.IsPrimary(resp.StatusCode, resp.Header)
}

// isSecondaryRateLimit reports a secondary limit (ratelimit.IsSecondary)
// from the status, headers and JSON body. It reads at most maxBodyPeek
// bytes of a 403 and puts them back, so the caller still sees the whole
// body.
func isSecondaryRateLimit(resp *http.Response) bool {
	if resp == nil || (resp.StatusCode != http.StatusForbidden && resp.StatusCode != http.StatusTooManyRequests) {
		return false
	}
	if resp.StatusCode == http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "" || isPrimaryRateLimit(resp) {
		return ratelimit.IsSecondary(resp.StatusCode, resp.Header, "", "")
	}
	var e struct {
		Message          string `json:"message"`
		DocumentationURL string `json:"documentation_url"`
	}
	_ = json.Unmarshal(peekBody(resp), &e)
	return ratelimit.IsSecondary(resp.StatusCode, resp.Header, e.Message, e.DocumentationURL)
}

// peekBody returns up to maxBodyPeek bytes of resp.Body and restores the
// body so that it reads from the start again.
func peekBody(resp *http.Response) []byte {
	if resp.Body == nil || resp.Body == http.NoBody {
		return nil
	}
	buf, err := io.ReadAll(io.LimitReader(resp.Body, maxBodyPeek))
	resp.Body = &restoredBody{Reader: io.MultiReader(bytes.NewReader(buf), errReader{err}, resp.Body), Closer: resp.Body}
	return buf
}

type restoredBody struct {
	io.Reader
	io.Closer
}

// errReader replays a read error seen while peeking (nil: plain EOF).
type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	return 0, io.EOF
}

// drain reads a little of a body we are discarding, so the connection can
// be reused, and closes it.
func drain(resp *http.Response) {
	if resp == nil || resp.Body == nil {
		return
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxBodyPeek))
	_ = resp.Body.Close()
}

// retryAfter is resp's Retry-After (ratelimit.RetryAfter).
func retryAfter(resp *http.Response, now time.Time) (time.Duration, bool) {
	return ratelimit.RetryAfter(resp.Header, now)
}

// rateReset is resp's x-ratelimit-reset (ratelimit.Reset).
func rateReset(resp *http.Response) (time.Time, bool) { return ratelimit.Reset(resp.Header) }

// serverWait is the wait a rate-limited response dictates: Retry-After, or
// for a primary limit the time until x-ratelimit-reset plus a margin. A
// secondary limit without Retry-After dictates nothing here (its
// x-ratelimit-reset is the primary window's): the caller waits its floor.
// ok is false when the server dictates nothing.
func serverWait(resp *http.Response, now time.Time) (wait time.Duration, ok bool) {
	if resp == nil {
		return 0, false
	}
	if d, ok := retryAfter(resp, now); ok {
		return d, true
	}
	if isPrimaryRateLimit(resp) {
		if reset, ok := rateReset(resp); ok {
			return max(reset.Sub(now), 0) + resetMargin, true
		}
	}
	return 0, false
}
