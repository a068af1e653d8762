// Package testseam holds the seams through which tests and benchmarks
// change how a ghclient client keeps time: its clock, its waits and the
// scale of its own rate-limit windows. They are not part of the public
// API: only the repository's own packages (its tests, the CLI, the
// benchmark module) can import this package.
//
// The mechanism is a marker transport. Client (or Transport) puts the
// seams on an *http.Client's transport; ghclient.Wrap, and
// ghclient.NewHTTPClient given that client through ghclient.WithHTTPClient,
// recognize the marker, apply its seams to the client they build and send
// the requests through the transport beneath it (Next). A client without
// the marker behaves as it always does: time.Now, timer waits, GitHub's
// own windows.
//
//	hc, err := ghclient.Wrap(testseam.Client(srv.Client(), testseam.Seams{Sleep: record}), srv.URL)
//
// The committer's own wait between attempts (its backoff) is not among
// these: the committer's tests replace it from inside their package.
package testseam

import (
	"context"
	"net/http"
	"time"
)

// Seams replace parts of a ghclient client; a zero field keeps the
// client's own.
type Seams struct {
	// Now replaces the clock that turns x-ratelimit-reset and Retry-After
	// dates into waits. A client whose clock is replaced keeps its
	// rate-limit state within the process (times another process cannot
	// share).
	Now func() time.Time
	// Sleep replaces every wait of the client (backoffs, Retry-After, rate
	// limit resets, the write pacer): it must return early with an error
	// when ctx is done.
	Sleep func(ctx context.Context, d time.Duration) error
	// LimitScale makes the client's own rate-limit windows LimitScale
	// times shorter: the write pacer's minute and hour, and the wait after
	// a bare secondary limit (the counts stay GitHub's), as githubtest's
	// Limits.Scale and `ghcommitter fake-github --limits-scale F` scale
	// the fake's, so benchmarks and black-box tests pass the same F to
	// both. Waits GitHub dictates (Retry-After, x-ratelimit-reset) are
	// honoured as sent. It must be above 0 and at most 1e6 (below 1 makes
	// the windows longer); 0 keeps GitHub's windows.
	LimitScale float64
}

// Transport carries Seams to ghclient: it sends every request through
// Next unchanged (http.DefaultTransport when Next is nil), and ghclient
// reads Seams from it when it builds a client over it. Next must not be a
// client that ghclient already built: put the seams on its base client.
type Transport struct {
	Next  http.RoundTripper
	Seams Seams
}

// RoundTrip sends req through Next.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.Next == nil {
		return http.DefaultTransport.RoundTrip(req)
	}
	return t.Next.RoundTrip(req)
}

// Client returns a copy of hc (a new client when hc is nil) whose
// transport carries s over hc's own. ghclient.NewHTTPClient given a
// client whose transport was nil uses the transport it uses without
// WithHTTPClient; ghclient.Wrap uses http.DefaultTransport.
func Client(hc *http.Client, s Seams) *http.Client {
	var c http.Client
	if hc != nil {
		c = *hc
	}
	c.Transport = &Transport{Next: c.Transport, Seams: s}
	return &c
}
