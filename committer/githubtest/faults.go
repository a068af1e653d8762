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

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/limits"
)

// Fault describes a failure to inject. Zero-valued match fields match any
// request.
type Fault struct {
	Method, Route string // match; "" matches any. Route is a pattern as in the request log.
	Repo          string // "owner/name"; "" = any
	// BodyContains, when set, matches only requests whose body contains
	// it (such as "createCommitOnBranch": GraphQL mutations, not queries,
	// on "POST /graphql"). The fake reads at most 1 MiB of a body for it.
	BodyContains string
	Skip         int // let this many matching requests through first
	Times        int // how many matching requests it hits after Skip; 0 = every one until removed

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
	body := s.peekForFaults(r)
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
		if f.BodyContains != "" && !bytes.Contains(body, []byte(f.BodyContains)) {
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

// maxFaultPeek bounds the body read to match Fault.BodyContains.
const maxFaultPeek = 1 << 20

// peekForFaults returns the start of r's body when a fault matches on it,
// and puts the bytes back so the handler reads the whole body.
func (s *Server) peekForFaults(r *http.Request) []byte {
	s.mu.Lock()
	need := false
	for _, e := range s.faults {
		need = need || e.f.BodyContains != ""
	}
	s.mu.Unlock()
	if !need || r.Body == nil || r.Body == http.NoBody {
		return nil
	}
	buf, err := io.ReadAll(io.LimitReader(r.Body, maxFaultPeek))
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(buf), errOrEOF{err}, r.Body), r.Body}
	return buf
}

type errOrEOF struct{ err error }

func (e errOrEOF) Read([]byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	return 0, io.EOF
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
		match:  func(r *http.Request) bool { return !limits.IsGraphQLRoute(route) || isMutation(r) },
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
// the next ref update of refs/heads/branch is handled, REST PATCH or
// GraphQL updateRefs, whichever comes first: another writer won the race.
func (s *Server) MoveBranchBeforeNextUpdate(owner, repo, branch string, files ...File) {
	suffix := "/git/refs/heads/" + branch
	var once sync.Once
	var removePatch, removeGraphQL func()
	move := func() {
		once.Do(func() {
			_, _ = s.Seed(owner, repo, branch, "concurrent writer", files...)
			go removePatch()
			go removeGraphQL()
		})
	}
	removePatch = s.Inject(Fault{
		Method: http.MethodPatch, Route: routeUpdateRef, Repo: owner + "/" + repo, Times: 1,
		match:  func(r *http.Request) bool { return strings.HasSuffix(r.URL.Path, suffix) },
		Before: func(*http.Request) { move() },
	})
	removeGraphQL = s.Inject(Fault{
		Route: RouteGraphQL, BodyContains: MutationUpdateRefs, // every one, until it moved the branch
		Before: func(r *http.Request) {
			if graphQLNamesRef(r, "refs/heads/"+branch) {
				move()
			}
		},
	})
}

// graphQLNamesRef reports whether a GraphQL request's variables name ref
// (the fake peeked at its body for BodyContains; it reads it again).
func graphQLNamesRef(r *http.Request, ref string) bool {
	if r.Body == nil {
		return false
	}
	buf, err := io.ReadAll(io.LimitReader(r.Body, maxFaultPeek))
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(buf), errOrEOF{err}, r.Body), r.Body}
	q, _ := json.Marshal(ref)
	return bytes.Contains(buf, q)
}

const msgSecondary = "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."

func (s *Server) secondary(status int, route string, retryAfter, times int) func() {
	return s.Inject(SecondaryLimitFault(Fault{Route: route, Times: times}, status, retryAfter))
}

// SecondaryLimitFault returns f (its match fields, Skip and Times) set to
// answer with GitHub's secondary rate limit: status 403 or 429, GitHub's
// body, and Retry-After when retryAfterSeconds > 0.
func SecondaryLimitFault(f Fault, status, retryAfterSeconds int) Fault {
	h := http.Header{}
	if retryAfterSeconds > 0 {
		h.Set("Retry-After", strconv.Itoa(retryAfterSeconds))
	}
	body, _ := json.Marshal(obj{"message": msgSecondary, "documentation_url": docSecondary, "status": strconv.Itoa(status)})
	f.Status, f.Body, f.Header = status, string(body), h
	return f
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

// Routes of the writes that land a commit, one per engine, as Fault.Route
// and the request log name them. A GraphQL fault on the commit alone also
// sets BodyContains: MutationCreateCommit.
const (
	RouteUpdateRef      = routeUpdateRef
	RouteCreateRef      = "POST /repos/{owner}/{repo}/git/refs"
	RouteGraphQL        = "POST /graphql"
	RoutePutContents    = "PUT /repos/{owner}/{repo}/contents/{path...}"
	RouteDeleteContents = "DELETE /repos/{owner}/{repo}/contents/{path...}"
	// MutationCreateCommit is in the body of every createCommitOnBranch
	// request and of no query.
	MutationCreateCommit = "createCommitOnBranch"
	// MutationUpdateRefs is in the body of every updateRefs request (the
	// strict ref update of the git-data engine) and of no query.
	MutationUpdateRefs = "updateRefs"
)

// Redirect makes matching requests (f's match fields, Skip and Times)
// answer 307 Temporary Redirect to location, with a Location header, as
// GitHub answers a request for a moved repository. A location on another
// host tests that credentials never follow it; f's own URL makes a loop.
func (s *Server) Redirect(f Fault, location string) (remove func()) {
	f.Status = http.StatusTemporaryRedirect
	f.Header = http.Header{"Location": {location}}
	f.Body = `{"message":"Temporary Redirect","url":"` + location + `","documentation_url":"https://docs.github.com/rest/guides/best-practices-for-using-the-rest-api#follow-redirects"}`
	return s.Inject(f)
}

// GraphQLErrorBody is the reply GitHub sends (with HTTP 200) when a
// mutation fails with an error of type typ, such as STALE_DATA or
// BRANCH_PROTECTION_RULE_VIOLATION; use it as a Fault's Body with
// Status 200.
func GraphQLErrorBody(mutation, typ, message string) string {
	b, _ := json.Marshal(obj{
		"data": obj{mutation: nil},
		"errors": []obj{{"type": typ, "path": []string{mutation},
			"locations": []obj{{"line": 2, "column": 3}}, "message": message}},
	})
	return string(b)
}

// Real error bodies GitHub answers writes with (testdata's
// github-api/examples/real-error-bodies.json and GitHub's docs), for
// faults.
const (
	// BodyContentsProtected: a contents write to a branch that a required
	// status check protects (409; id contents-protected-branch).
	BodyContentsProtected = `{"message":"Could not update file: Required status check \"manifests\" is expected."}`
	// BodyRuleViolation: a ref update refused by a ruleset (422).
	BodyRuleViolation = `{"message":"Repository rule violations found\n\nChanges must be made through a pull request.\n\n","documentation_url":"https://docs.github.com/rest/git/refs#update-a-reference","status":"422"}`
)

// MoveBranchDuringNextContentsWrite commits files on branch (via Seed) while
// the next contents-API write to that branch is between reading the head and
// moving the branch: GitHub then answers that write with 409 "is at <new>
// but expected <old>", and the write changes nothing.
func (s *Server) MoveBranchDuringNextContentsWrite(owner, repo, branch string, files ...File) {
	s.contentsRaces.Add(owner+"/"+repo, "refs/heads/"+branch, func() {
		_, _ = s.Seed(owner, repo, branch, "concurrent writer", files...)
	})
}

// MoveBranchBeforeNextMutation commits files on branch (via Seed) just
// before the next GraphQL mutation that moves refs/heads/branch
// (createCommitOnBranch, updateRefs, updateRef, createRef, deleteRef) is
// applied: another writer won the race, and a mutation that pinned the
// head it read (expectedHeadOid, beforeOid) is refused.
func (s *Server) MoveBranchBeforeNextMutation(owner, repo, branch string, files ...File) {
	s.mutationRaces.Add(owner+"/"+repo, "refs/heads/"+branch, func() {
		_, _ = s.Seed(owner, repo, branch, "concurrent writer", files...)
	})
}
