package ghclient

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// maxBodyPeek bounds every response body this package reads.
const maxBodyPeek = 64 << 10

// resetMargin is added to an x-ratelimit-reset wait: the header has whole
// seconds and clocks differ a little.
const resetMargin = time.Second

// RateLimitError reports a rate limit that lifts later than the client is
// willing to wait (WithMaxRateLimitWait). Nothing was retried; the request
// can be sent again after Reset. Match it with errors.As.
type RateLimitError struct {
	// Reset is when the limit lifts, from x-ratelimit-reset (primary limit)
	// or Retry-After (secondary limit).
	Reset time.Time
	// Wait is how long that was from the moment the response arrived.
	Wait time.Duration
	// MaxWait is the configured WithMaxRateLimitWait.
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
		return fmt.Sprintf("%s %s: not sent: GitHub's %s for this credential (seen earlier in this process) lifts at %s (in %s), later than the %s this client waits (see WithMaxRateLimitWait); retry after that",
			e.Method, e.Path, limit, e.Reset.UTC().Format(time.RFC3339), e.Wait.Round(time.Second), e.MaxWait)
	}
	kind := "primary rate limit exhausted"
	if e.Secondary {
		kind = "secondary rate limit hit"
	}
	return fmt.Sprintf("%s %s: GitHub %s (HTTP %d): it resets at %s (in %s), later than the %s this client waits (see WithMaxRateLimitWait); retry after that",
		e.Method, e.Path, kind, e.StatusCode, e.Reset.UTC().Format(time.RFC3339), e.Wait.Round(time.Second), e.MaxWait)
}

// isPrimaryRateLimit reports a 403/429 with x-ratelimit-remaining: 0, as
// go-github classifies it.
func isPrimaryRateLimit(resp *http.Response) bool {
	return resp != nil && (resp.StatusCode == http.StatusForbidden || resp.StatusCode == http.StatusTooManyRequests) &&
		resp.Header.Get("X-Ratelimit-Remaining") == "0"
}

// isSecondaryRateLimit reports a 429 that is not a primary limit, or a 403
// whose body says it is a secondary rate limit. It reads at most
// maxBodyPeek bytes and puts them back, so the caller still sees the whole
// body.
func isSecondaryRateLimit(resp *http.Response) bool {
	if resp == nil || (resp.StatusCode != http.StatusForbidden && resp.StatusCode != http.StatusTooManyRequests) {
		return false
	}
	if isPrimaryRateLimit(resp) {
		return false
	}
	if resp.StatusCode == http.StatusTooManyRequests {
		return true
	}
	body := peekBody(resp)
	var e struct {
		Message          string `json:"message"`
		DocumentationURL string `json:"documentation_url"`
	}
	_ = json.Unmarshal(body, &e)
	doc := strings.ToLower(e.DocumentationURL)
	return strings.HasSuffix(doc, "secondary-rate-limits") ||
		strings.Contains(doc, "#abuse-rate-limit") ||
		strings.Contains(strings.ToLower(e.Message), "secondary rate limit")
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

// retryAfter parses Retry-After (seconds, or an HTTP date).
func retryAfter(resp *http.Response, now time.Time) (time.Duration, bool) {
	v := strings.TrimSpace(resp.Header.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseInt(v, 10, 64); err == nil {
		if s < 0 {
			s = 0
		}
		return time.Duration(s) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// rateReset parses x-ratelimit-reset (UTC epoch seconds).
func rateReset(resp *http.Response) (time.Time, bool) {
	v := resp.Header.Get("X-Ratelimit-Reset")
	if v == "" {
		return time.Time{}, false
	}
	s, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || s <= 0 {
		return time.Time{}, false
	}
	return time.Unix(s, 0), true
}

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
