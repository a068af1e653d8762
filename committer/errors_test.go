package committer_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

// landingFault matches the write that lands engine's commit: the ref
// update, the createCommitOnBranch mutation (not the queries beside it),
// or the contents PUT (auto picks the contents API for one new file).
func landingFault(e committer.Engine) githubtest.Fault {
	switch e {
	case committer.EngineGitData:
		return githubtest.Fault{Route: githubtest.RouteUpdateRef}
	case committer.EngineGraphQL:
		return githubtest.Fault{Route: githubtest.RouteGraphQL, BodyContains: githubtest.MutationCreateCommit}
	}
	return githubtest.Fault{Route: githubtest.RoutePutContents}
}

// landingPath is the URL path of engine's landing write on main.
func landingPath(e committer.Engine) string {
	switch e {
	case committer.EngineGitData:
		return "/repos/acme/mono/git/refs/heads/main"
	case committer.EngineGraphQL:
		return "/graphql"
	}
	return "/repos/acme/mono/contents/w.txt"
}

// landingAnswer is one answer GitHub gives the landing write, and what it
// must come to.
type landingAnswer struct {
	name    string
	engines []committer.Engine // nil: every engine
	create  bool               // commit to a new branch, from main
	// inject makes the fake answer so (every time unless it says Times).
	inject func(ts *githubtest.TestServer, e committer.Engine)

	lands      bool          // lands (after the answer was waited out or retried)
	kind       error         // the error's kind; nil: kind-less (failed)
	status     int           // Error.Status
	retryAfter time.Duration // Error.RetryAfter
	says       string        // in the error's text
	attempts   int           // Error.Attempts (0: not checked)
	realWait   bool          // sleep through waits of up to a second
}

// floor is the wait after a bare secondary limit: the client's default
// (ghclient.RateLimits.SecondaryWait; TestSecondaryLimitWaits sets another).
const floor = time.Minute

func fault(status int, body string, times int) func(*githubtest.TestServer, committer.Engine) {
	return func(ts *githubtest.TestServer, e committer.Engine) {
		f := landingFault(e)
		f.Status, f.Body, f.Times = status, body, times
		ts.Inject(f)
	}
}

func limited(status, retryAfter, times int) func(*githubtest.TestServer, committer.Engine) {
	return func(ts *githubtest.TestServer, e committer.Engine) {
		f := landingFault(e)
		f.Times = times
		ts.Inject(githubtest.SecondaryLimitFault(f, status, retryAfter))
	}
}

var (
	oneWrite = []committer.Engine{committer.EngineContents, committer.EngineAuto}
	gitData  = []committer.Engine{committer.EngineGitData}
	graphQL  = []committer.Engine{committer.EngineGraphQL}
)

var landingAnswers = []landingAnswer{
	// Another writer moved the branch: retried, lands.
	{name: "not a fast forward", engines: gitData, lands: true,
		inject: fault(422, `{"message":"Update is not a fast forward","documentation_url":"https://docs.github.com/rest/git/refs#update-a-reference","status":"422"}`, 1)},
	{name: "reference cannot be updated", engines: gitData, lands: true,
		inject: fault(422, `{"message":"Reference cannot be updated","documentation_url":"https://docs.github.com/rest/git/refs#update-a-reference"}`, 1)},
	{name: "stale data", engines: graphQL, lands: true,
		inject: fault(200, githubtest.GraphQLErrorBody("createCommitOnBranch", "STALE_DATA", `Expected branch to point to "0929670cc804228df5f0b3e8f7a741dfb735ba62" but it did not.  Pull and try again.`), 1)},
	{name: "contents is at but expected", engines: oneWrite, lands: true,
		inject: fault(409, `{"message":"is at 0929670cc804228df5f0b3e8f7a741dfb735ba62 but expected c45b5444e7ae45df5356ca2b8dbf49db646826d4","documentation_url":"https://docs.github.com/rest/repos/contents#create-or-update-file-contents"}`, 1)},
	{name: "contents does not match", engines: oneWrite, lands: true,
		inject: fault(409, `{"message":"w.txt does not match 5717457c84de250e7d17c4714e1217d76b6dc123","documentation_url":"https://docs.github.com/rest/repos/contents#create-or-update-file-contents"}`, 1)},
	{name: "contents sha not supplied", engines: oneWrite, lands: true,
		inject: fault(422, `{"message":"Invalid request.\n\n\"sha\" wasn't supplied.","documentation_url":"https://docs.github.com/rest/repos/contents#create-or-update-file-contents"}`, 1)},
	{name: "branch already exists", create: true, lands: true,
		inject: func(ts *githubtest.TestServer, _ committer.Engine) {
			ts.Inject(githubtest.Fault{Route: githubtest.RouteCreateRef, Times: 1, Status: 422,
				Body: `{"message":"Reference already exists","documentation_url":"https://docs.github.com/rest/git/refs#create-a-reference","status":"422"}`})
		}},

	// A rate limit on every attempt: rate_limited, with the wait.
	{name: "403 secondary with retry-after", inject: limited(403, 1, 0), kind: committer.ErrRateLimited, status: 403, retryAfter: time.Second, attempts: 3, realWait: true},
	{name: "403 secondary bare", inject: limited(403, 0, 0), kind: committer.ErrRateLimited, status: 403, retryAfter: floor, attempts: 3},
	{name: "429 with retry-after", inject: limited(429, 1, 0), kind: committer.ErrRateLimited, status: 429, retryAfter: time.Second, attempts: 3},
	{name: "429 bare", inject: limited(429, 0, 0), kind: committer.ErrRateLimited, status: 429, retryAfter: floor, attempts: 3},
	{name: "429 plain body", inject: fault(429, `{"message":"Too Many Requests"}`, 0), kind: committer.ErrRateLimited, status: 429, retryAfter: floor, attempts: 3},

	// A bare 429 once is waited out (at least the floor), then lands.
	{name: "429 bare once", inject: limited(429, 0, 1), lands: true},
	{name: "429 plain body once", inject: fault(429, `{"message":"Too Many Requests"}`, 1), lands: true},

	// A refused redirect is a failure that names the host.
	{name: "307 to another host", says: "elsewhere.example", status: 307, attempts: 1,
		inject: func(ts *githubtest.TestServer, e committer.Engine) {
			ts.Redirect(landingFault(e), "https://elsewhere.example"+landingPath(e))
		}},
	{name: "redirect loop", says: "redirects", attempts: 1,
		inject: func(ts *githubtest.TestServer, e committer.Engine) {
			ts.Redirect(landingFault(e), landingPath(e))
		}},

	// A protection rule: protected, with the rule's message.
	{name: "contents protected branch", engines: oneWrite, kind: committer.ErrProtected, status: 409, says: "Required status check", attempts: 1,
		inject: fault(409, githubtest.BodyContentsProtected, 0)},
	{name: "ref update rule violation", engines: gitData, kind: committer.ErrProtected, status: 422, says: "Changes must be made through a pull request", attempts: 1,
		inject: fault(422, githubtest.BodyRuleViolation, 0)},
	{name: "graphql branch protection", engines: graphQL, kind: committer.ErrProtected, status: 200, says: "Changes must be made through a pull request", attempts: 1,
		inject: fault(200, githubtest.GraphQLErrorBody("createCommitOnBranch", "BRANCH_PROTECTION_RULE_VIOLATION", "Changes must be made through a pull request."), 0)},
	{name: "graphql ruleset", engines: graphQL, kind: committer.ErrProtected, status: 200, says: "Repository rule violations found", attempts: 1,
		inject: fault(200, githubtest.GraphQLErrorBody("createCommitOnBranch", "FORBIDDEN", "Repository rule violations found\n\nChanges must be made through a pull request.\n\n"), 0)},

	// A path GitHub cannot take: invalid.
	{name: "contents malformed path", engines: oneWrite, kind: committer.ErrInvalid, status: 422, says: "malformed path component", attempts: 1,
		inject: fault(422, `{"message":"path contains a malformed path component","documentation_url":"https://docs.github.com/rest/repos/contents#create-or-update-file-contents"}`, 0)},
}

func (a landingAnswer) appliesTo(e committer.Engine) bool {
	if a.engines == nil {
		return true
	}
	for _, x := range a.engines {
		if x == e {
			return true
		}
	}
	return false
}

// TestLandingAnswers: exactly the answers that mean another writer moved
// the branch are lost races (retried, and the change lands); a rate limit
// on every attempt is ErrRateLimited with the wait, a refused redirect a
// failure naming the host, a protection rule ErrProtected with its
// message, a path GitHub cannot take ErrInvalid — on every engine, and
// never ErrConflict. Every failure carries the reply's status and request
// ID.
func TestLandingAnswers(t *testing.T) {
	for _, a := range landingAnswers {
		for _, e := range allEngines {
			if !a.appliesTo(e) {
				continue
			}
			t.Run(a.name+"/"+e.String(), func(t *testing.T) {
				t.Parallel()
				var mu sync.Mutex
				var waits []time.Duration
				record := func(ctx context.Context, d time.Duration) error {
					mu.Lock()
					waits = append(waits, d)
					mu.Unlock()
					if a.realWait && d <= time.Second {
						// go-github holds its client back by the clock
						// for a 403's Retry-After: wait it for real.
						time.Sleep(d)
					}
					return ctx.Err()
				}
				ts, c := setup(t, committer.WithBackoffSleep(record), committer.WithRetries(3, nil), restFor(e))
				before := head(t, ts, "main")
				a.inject(ts, e)
				branch, opts := "main", []committer.CommitOption{committer.WithEngine(e)}
				if a.create {
					branch, opts = "feature", append(opts, committer.CreateBranchFrom("main"))
				}
				res, err := c.Commit(context.Background(), branch, committer.NewChangeSet("w").Put("w.txt", []byte("w\n")), opts...)
				if a.lands {
					if err != nil {
						t.Fatalf("want it retried and landed, got %v", err)
					}
					if got := head(t, ts, branch); got != res.Commit {
						t.Fatalf("reported %s, head is %s", res.Commit, got)
					}
					if strings.HasPrefix(a.name, "429") {
						mu.Lock()
						defer mu.Unlock()
						if len(waits) == 0 || slicesMax(waits) < floor {
							t.Fatalf("waits %v: a bare 429 must be waited out for at least %v", waits, floor)
						}
					}
					return
				}
				var ce *committer.Error
				if !errors.As(err, &ce) {
					t.Fatalf("err = %v (%T), want a *committer.Error", err, err)
				}
				if errors.Is(err, committer.ErrConflict) {
					t.Fatalf("reported as a conflict (lost race): %v", err)
				}
				if a.kind != nil && !errors.Is(err, a.kind) {
					t.Errorf("err = %v (kind %v), want kind %v", err, ce.Kind, a.kind)
				}
				if a.kind == nil && ce.Kind != nil {
					t.Errorf("err = %v has kind %v, want none (failed)", err, ce.Kind)
				}
				if a.status != 0 && ce.Status != a.status {
					t.Errorf("Status = %d, want %d (%v)", ce.Status, a.status, err)
				}
				if a.status != 0 && ce.RequestID == "" {
					t.Errorf("RequestID is empty for a failure caused by a reply (%v)", err)
				}
				if ce.RetryAfter != a.retryAfter {
					t.Errorf("RetryAfter = %v, want %v", ce.RetryAfter, a.retryAfter)
				}
				if a.says != "" && !strings.Contains(err.Error(), a.says) {
					t.Errorf("err = %q, want it to say %q", err, a.says)
				}
				if a.attempts != 0 && ce.Attempts != a.attempts {
					t.Errorf("Attempts = %d, want %d (%v)", ce.Attempts, a.attempts, err)
				}
				if a.create {
					if _, ok := ts.Head(owner, repo, branch); ok {
						t.Errorf("branch %s was left behind", branch)
					}
				} else if got := head(t, ts, "main"); got != before {
					t.Errorf("main moved to %s on a failure", got)
				}
			})
		}
	}
}

func slicesMax(ds []time.Duration) time.Duration {
	m := time.Duration(0)
	for _, d := range ds {
		m = max(m, d)
	}
	return m
}

// TestRedirectLoopNamesHost: the redirect loop's error names the host it
// looped on.
func TestRedirectLoopNamesHost(t *testing.T) {
	for _, e := range allEngines {
		t.Run(e.String(), func(t *testing.T) {
			ts, c := setupREST(t, committer.WithRetries(3, nil))
			ts.Redirect(landingFault(e), landingPath(e))
			_, err := c.Commit(context.Background(), "main", committer.NewChangeSet("w").Put("w.txt", []byte("w\n")), committer.WithEngine(e))
			u, _ := url.Parse(ts.URL)
			if err == nil || !strings.Contains(err.Error(), u.Host) {
				t.Fatalf("err = %v, want it to name %s", err, u.Host)
			}
		})
	}
}

// TestFailuresCarryTheReply: a failure caused by a reply carries its
// status and X-GitHub-Request-Id, also when the reply was GraphQL's or a
// rate limit the transport gave up on.
func TestFailuresCarryTheReply(t *testing.T) {
	reset := func() string { return strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10) }
	for _, tc := range []struct {
		name   string
		engine committer.Engine
		fault  func() githubtest.Fault
		kind   error
		status int
	}{
		{"primary limit on the head read", committer.EngineGitData, func() githubtest.Fault {
			return githubtest.Fault{Route: "GET /repos/{owner}/{repo}/branches/{branch...}", Status: 403,
				Header: http.Header{"X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {reset()}},
				Body:   `{"message":"API rate limit exceeded for user ID 1.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api"}`}
		}, committer.ErrRateLimited, 403},
		{"graphql error reply", committer.EngineGraphQL, func() githubtest.Fault {
			f := landingFault(committer.EngineGraphQL)
			f.Status, f.Body = 200, githubtest.GraphQLErrorBody("createCommitOnBranch", "UNPROCESSABLE", "A path was given twice.")
			return f
		}, nil, 200},
		{"graphql 401", committer.EngineGraphQL, func() githubtest.Fault {
			f := landingFault(committer.EngineGraphQL)
			f.Status, f.Body = 401, `{"message":"Bad credentials","documentation_url":"https://docs.github.com/graphql"}`
			return f
		}, committer.ErrUnauthorized, 401},
		{"graphql primary limit", committer.EngineGraphQL, func() githubtest.Fault {
			f := landingFault(committer.EngineGraphQL)
			f.Status, f.Body = 403, `{"message":"API rate limit exceeded for user ID 1.","documentation_url":"https://docs.github.com/graphql/overview/rate-limits-and-node-limits-for-the-graphql-api"}`
			f.Header = http.Header{"X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {reset()}}
			return f
		}, committer.ErrRateLimited, 403},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts, c := setup(t)
			ts.Inject(tc.fault())
			_, err := c.Commit(context.Background(), "main", committer.NewChangeSet("w").Put("w.txt", []byte("w\n")), committer.WithEngine(tc.engine))
			var ce *committer.Error
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v, want a *committer.Error", err)
			}
			if tc.kind != nil && !errors.Is(err, tc.kind) || tc.kind == nil && ce.Kind != nil {
				t.Errorf("err = %v (kind %v), want kind %v", err, ce.Kind, tc.kind)
			}
			if ce.Status != tc.status || !strings.HasPrefix(ce.RequestID, "FAKE:") {
				t.Errorf("Status %d RequestID %q, want %d and the reply's ID (%v)", ce.Status, ce.RequestID, tc.status, err)
			}
			if errors.Is(err, committer.ErrRateLimited) && ce.RetryAfter < 50*time.Minute {
				t.Errorf("RetryAfter = %v, want the time to the reset (an hour)", ce.RetryAfter)
			}
		})
	}
}

// TestQueueLandingAnswers: the Queue (chained on Git Data, squashed on
// GraphQL) goes through the same table: a rate limit on every attempt is
// ErrRateLimited for each caller, a protection rule ErrProtected.
func TestQueueLandingAnswers(t *testing.T) {
	for _, tc := range []struct {
		name   string
		engine committer.Engine
		squash bool
		inject func(*githubtest.TestServer, committer.Engine)
		kind   error
	}{
		{"chain limited", committer.EngineGitData, false, limited(429, 0, 0), committer.ErrRateLimited},
		{"squash graphql limited", committer.EngineGraphQL, true, limited(403, 0, 0), committer.ErrRateLimited},
		{"chain protected", committer.EngineGitData, false, fault(422, githubtest.BodyRuleViolation, 0), committer.ErrProtected},
		{"squash graphql protected", committer.EngineGraphQL, true,
			fault(200, githubtest.GraphQLErrorBody("createCommitOnBranch", "BRANCH_PROTECTION_RULE_VIOLATION", "Changes must be made through a pull request."), 0), committer.ErrProtected},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts, c := setupREST(t, committer.WithRetries(2, nil))
			tc.inject(ts, tc.engine)
			opts := []committer.CommitOption{committer.WithEngine(tc.engine)}
			if tc.squash {
				opts = append(opts, committer.Squash())
			}
			q, err := committer.NewQueue(c, "main", opts...)
			if err != nil {
				t.Fatal(err)
			}
			before := head(t, ts, "main")
			var wg sync.WaitGroup
			errs := make([]error, 3)
			for i := range errs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, errs[i] = q.Commit(context.Background(), committer.NewChangeSet("q").Put("q"+strconv.Itoa(i)+".txt", []byte("q\n")))
				}()
			}
			wg.Wait()
			for i, err := range errs {
				if !errors.Is(err, tc.kind) || errors.Is(err, committer.ErrConflict) {
					t.Errorf("caller %d: err = %v, want kind %v", i, err, tc.kind)
				}
			}
			if got := head(t, ts, "main"); got != before {
				t.Errorf("main moved to %s", got)
			}
		})
	}
}

// TestBootstrapAnswers: the first commit of an empty repository (a
// contents PUT, whatever the engine) goes through the same table: a
// protection rule, a refused redirect or a path GitHub refuses is final
// after one write, not re-sent and reported as an unknown outcome; a rate
// limit on every attempt is ErrRateLimited.
func TestBootstrapAnswers(t *testing.T) {
	put := githubtest.Fault{Route: githubtest.RoutePutContents}
	for _, tc := range []struct {
		name   string
		inject func(*githubtest.TestServer)
		kind   error
		says   string
		puts   int
	}{
		{"protected", func(ts *githubtest.TestServer) {
			f := put
			f.Status, f.Body = 409, githubtest.BodyContentsProtected
			ts.Inject(f)
		}, committer.ErrProtected, "Required status check", 1},
		{"307 to another host", func(ts *githubtest.TestServer) {
			ts.Redirect(put, "https://elsewhere.example/repos/acme/empty/contents/w.txt")
		}, nil, "elsewhere.example", 1},
		{"malformed path", func(ts *githubtest.TestServer) {
			f := put
			f.Status, f.Body = 422, `{"message":"path contains a malformed path component"}`
			ts.Inject(f)
		}, committer.ErrInvalid, "malformed path component", 1},
		{"rate limited", func(ts *githubtest.TestServer) {
			ts.Inject(githubtest.SecondaryLimitFault(put, 429, 0))
		}, committer.ErrRateLimited, "rate limit", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts, c := emptyRepo(t, committer.WithRetries(2, nil))
			tc.inject(ts)
			_, err := c.Commit(context.Background(), "main", committer.NewChangeSet("w").Put("w.txt", []byte("w\n")))
			var ce *committer.Error
			if !errors.As(err, &ce) || errors.Is(err, committer.ErrUnknownOutcome) || errors.Is(err, committer.ErrConflict) {
				t.Fatalf("err = %v, want a final error of its own kind", err)
			}
			if tc.kind != nil && !errors.Is(err, tc.kind) || tc.kind == nil && ce.Kind != nil {
				t.Errorf("err = %v (kind %v), want kind %v", err, ce.Kind, tc.kind)
			}
			if !strings.Contains(err.Error(), tc.says) {
				t.Errorf("err = %q, want it to say %q", err, tc.says)
			}
			if n := ts.Count(githubtest.RoutePutContents); n != tc.puts {
				t.Errorf("%d contents writes, want %d", n, tc.puts)
			}
		})
	}
}

// TestPullRequestRateLimited: a rate limit on opening the pull request
// (after the commit landed on its branch) is ErrRateLimited with the wait,
// the reply's status and request ID.
func TestPullRequestRateLimited(t *testing.T) {
	for _, tc := range []struct {
		retryAfter int
		want       time.Duration
	}{{7, 7 * time.Second}, {0, floor}} {
		t.Run(strconv.Itoa(tc.retryAfter), func(t *testing.T) {
			ts, c := setup(t)
			ts.Inject(githubtest.SecondaryLimitFault(githubtest.Fault{Route: "POST /repos/{owner}/{repo}/pulls"}, 429, tc.retryAfter))
			_, err := c.CommitPullRequest(context.Background(), "main", "feature", committer.NewChangeSet("w").Put("w.txt", []byte("w\n")), committer.PullRequestOptions{})
			var ce *committer.Error
			if !errors.As(err, &ce) || !errors.Is(err, committer.ErrRateLimited) {
				t.Fatalf("err = %v, want ErrRateLimited", err)
			}
			if ce.RetryAfter != tc.want || ce.Status != 429 || ce.RequestID == "" {
				t.Errorf("RetryAfter %v Status %d RequestID %q, want %v, 429 and the reply's ID", ce.RetryAfter, ce.Status, ce.RequestID, tc.want)
			}
		})
	}
}
