package githubtest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Fault describes a failure to inject. Zero-valued match fields match any
// request.
type Fault struct {
	Method, Route string // match; "" matches any. Route is a pattern as in the request log.
	Repo          string // "owner/name"; "" = any
	Skip          int    // let this many matching requests through first
	Times         int    // how many matching requests it hits after Skip; 0 = every one until removed

	Status int         // if non-zero, reply with this instead of handling
	Body   string      // default: a GitHub-style JSON error for Status
	Header http.Header // extra reply headers (with Status)

	Latency      time.Duration         // extra delay before handling
	DropResponse bool                  // handle fully (the write is applied), then close the connection without a reply
	Before       func(r *http.Request) // called just before handling; may call Seed etc.
	// Hold, when non-nil, holds the request (after Latency and Before)
	// until the channel is closed, then handles it — a write is applied
	// — whether or not the client still waits, as GitHub applies a request
	// it received in full; the reply goes out if the client still listens.
	// See HoldNextWrite.
	Hold <-chan struct{}

	match func(r *http.Request) bool // extra matcher for helpers
}

type faultEntry struct {
	f          Fault
	seen, hits int
}

type faultAction struct {
	latency time.Duration
	before  []func(*http.Request)
	fault   *Fault
	drop    bool
	hold    []<-chan struct{}
}

// Inject adds a fault; call remove to take it out again.
func (s *Server) Inject(f Fault) (remove func()) {
	e := &faultEntry{f: f}
	s.mu.Lock()
	s.faults = append(s.faults, e)
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		for i, x := range s.faults {
			if x == e {
				s.faults = append(s.faults[:i:i], s.faults[i+1:]...)
				return
			}
		}
	}
}

// ClearFaults removes every injected fault.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = nil
}

func (s *Server) matchFaults(r *http.Request, route, repoName string) faultAction {
	var act faultAction
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.faults {
		f := &e.f
		if f.Method != "" && !strings.EqualFold(f.Method, r.Method) {
			continue
		}
		if f.Route != "" && f.Route != route {
			continue
		}
		if f.Repo != "" && !strings.EqualFold(f.Repo, repoName) {
			continue
		}
		if f.match != nil && !f.match(r) {
			continue
		}
		e.seen++
		if e.seen <= f.Skip || (f.Times > 0 && e.hits >= f.Times) {
			continue
		}
		e.hits++
		act.latency += f.Latency
		if f.Before != nil {
			act.before = append(act.before, f.Before)
		}
		if f.DropResponse {
			act.drop = true
		}
		if f.Hold != nil {
			act.hold = append(act.hold, f.Hold)
		}
		if f.Status != 0 && act.fault == nil {
			cp := *f
			act.fault = &cp
		}
	}
	return act
}

// HoldNextWrite holds the next request on route that writes (for the
// GraphQL route: the next mutation; queries pass) until release is called,
// then applies and answers it (see Fault.Hold). received is closed when the
// request has arrived in full. release may be called more than once; call
// it before the server closes, which waits for held requests.
func (s *Server) HoldNextWrite(route string) (received <-chan struct{}, release func()) {
	got, hold := make(chan struct{}), make(chan struct{})
	var once, arrived sync.Once
	s.Inject(Fault{
		Route: route, Times: 1, Hold: hold,
		match:  func(r *http.Request) bool { return !isGraphQLRoute(route) || isMutation(r) },
		Before: func(*http.Request) { arrived.Do(func() { close(got) }) },
	})
	return got, func() { once.Do(func() { close(hold) }) }
}

// isMutation reports whether a GraphQL request is a mutation; the body is
// read and put back.
func isMutation(r *http.Request) bool {
	body, err := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		return false
	}
	var q struct {
		Query string `json:"query"`
	}
	_ = json.Unmarshal(body, &q)
	return strings.HasPrefix(strings.TrimSpace(q.Query), "mutation")
}

const routeUpdateRef = "PATCH /repos/{owner}/{repo}/git/refs/{ref...}"

// MoveBranchBeforeNextUpdate commits files on branch (via Seed) just before
// the next PATCH of refs/heads/branch is handled: another writer won the race.
func (s *Server) MoveBranchBeforeNextUpdate(owner, repo, branch string, files ...File) {
	suffix := "/git/refs/heads/" + branch
	s.Inject(Fault{
		Method: http.MethodPatch, Route: routeUpdateRef, Repo: owner + "/" + repo, Times: 1,
		match: func(r *http.Request) bool { return strings.HasSuffix(r.URL.Path, suffix) },
		Before: func(*http.Request) {
			_, _ = s.Seed(owner, repo, branch, "concurrent writer", files...)
		},
	})
}

const msgSecondary = "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."

func (s *Server) secondary(status int, route string, retryAfter, times int) func() {
	h := http.Header{}
	if retryAfter > 0 {
		h.Set("Retry-After", strconv.Itoa(retryAfter))
	}
	body, _ := json.Marshal(obj{"message": msgSecondary, "documentation_url": docSecondary, "status": strconv.Itoa(status)})
	return s.Inject(Fault{Route: route, Times: times, Status: status, Body: string(body), Header: h})
}

// SecondaryRateLimit makes the next times requests on route (""= any) fail
// with GitHub's secondary-rate-limit 403, with Retry-After when
// retryAfterSeconds > 0.
func (s *Server) SecondaryRateLimit(route string, retryAfterSeconds int, times int) (remove func()) {
	return s.secondary(http.StatusForbidden, route, retryAfterSeconds, times)
}

// TooManyRequests is SecondaryRateLimit with status 429.
func (s *Server) TooManyRequests(route string, retryAfterSeconds int, times int) (remove func()) {
	return s.secondary(http.StatusTooManyRequests, route, retryAfterSeconds, times)
}
