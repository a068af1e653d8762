package committer_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-github/v66/github"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

// The caller's context ends while the landing write (ref update, GraphQL
// mutation, contents write, branch creation, an empty repository's first
// commit) is on its way to GitHub. GitHub applies what it received; the
// library must then report landed (the reply came within the grace
// period) or ErrUnknownOutcome, never a plain cancellation; and when the
// write was never sent, not landed with the branch unchanged.

// landingRoute is the route of the one request that lands an edit of an
// existing file through e.
func landingRoute(e committer.Engine) string {
	switch e {
	case committer.EngineGraphQL:
		return routeGraphQL
	case committer.EngineContents, committer.EngineAuto:
		return routePutContents
	}
	return routeGraphQL // updateRefs: HoldNextWrite holds mutations only
}

// commitAsync runs commit in a goroutine; the channel gets its outcome.
type commitOutcome struct {
	res *committer.Result
	err error
}

func commitAsync(commit func() (*committer.Result, error)) <-chan commitOutcome {
	ch := make(chan commitOutcome, 1)
	go func() {
		res, err := commit()
		ch <- commitOutcome{res, err}
	}()
	return ch
}

func waitOutcome(t *testing.T, ch <-chan commitOutcome) commitOutcome {
	t.Helper()
	select {
	case o := <-ch:
		return o
	case <-time.After(20 * time.Second):
		t.Fatal("the commit did not return after its context was cancelled")
		return commitOutcome{}
	}
}

// holdWrite holds the next write on route and makes sure it is released
// before the server closes.
func holdWrite(t *testing.T, ts *githubtest.TestServer, route string) (<-chan struct{}, func()) {
	received, release := ts.HoldNextWrite(route)
	t.Cleanup(release)
	return received, release
}

// wantLandedOrUnknown checks the outcome of a commit cancelled after its
// landing write was sent, once the server applied that write: landed with
// the branch's head, or ErrUnknownOutcome; never a plain cancellation.
func wantLandedOrUnknown(t *testing.T, o commitOutcome, wantLanded bool, headNow string) {
	t.Helper()
	if errors.Is(o.err, context.Canceled) || (o.err != nil && !errors.Is(o.err, committer.ErrUnknownOutcome)) {
		t.Fatalf("err = %v: reported as not landed (or failed), but the write was sent and GitHub applied it", o.err)
	}
	if wantLanded {
		if o.err != nil {
			t.Fatalf("err = %v, want landed: the reply came within the grace period", o.err)
		}
		if o.res.Commit != headNow || o.res.NoOp {
			t.Fatalf("result %+v, want the branch's head %s", o.res, headNow)
		}
		return
	}
	if o.err == nil {
		t.Fatalf("landed (%+v) though no reply came: want ErrUnknownOutcome", o.res)
	}
	var e *committer.Error
	if !errors.As(o.err, &e) || e.Hint == "" {
		t.Errorf("err %v has no hint to check the branch before retrying", o.err)
	}
}

func TestLandingCancelAfterSent(t *testing.T) {
	for _, e := range allEngines {
		for _, tc := range []struct {
			name  string
			reply bool // the reply comes within the grace period
		}{{"reply-within-grace", true}, {"no-reply-within-grace", false}} {
			t.Run(e.String()+"/"+tc.name, func(t *testing.T) {
				grace := 5 * time.Second
				if !tc.reply {
					grace = 200 * time.Millisecond
				}
				ts, c := setup(t, committer.WithLandingGrace(grace))
				seed(t, ts, map[string]string{"log": "start\n"})
				received, release := holdWrite(t, ts, landingRoute(e))
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				ch := commitAsync(func() (*committer.Result, error) {
					return c.Commit(ctx, "main", committer.NewChangeSet("once").Edit("log", appendLine("once")), committer.WithEngine(e))
				})
				<-received
				cancel()
				var o commitOutcome
				if tc.reply {
					time.Sleep(50 * time.Millisecond) // the write is still held after the cancel
					release()
					o = waitOutcome(t, ch)
				} else {
					o = waitOutcome(t, ch)
					release() // GitHub applies it late
				}
				eventually(t, "the held write is applied", func() bool { return strings.Contains(readFile(t, ts, "main", "log"), "once") })
				if got := readFile(t, ts, "main", "log"); got != "start\nonce\n" {
					t.Fatalf("log = %q, want the edit exactly once", got)
				}
				wantLandedOrUnknown(t, o, tc.reply, head(t, ts, "main"))
				checkFastForwardOnly(t, ts)
			})
		}
	}
}

// cancelAtWrite is a transport that, on the landing write, cancels the
// caller's context and then stalls before sending (a slow connection, a
// pacing wait): a write held back for that long would still be sent if the
// cancel did not stop it.
type cancelAtWrite struct {
	base   http.RoundTripper
	cancel context.CancelFunc
	route  string
	fired  atomic.Bool
}

func (c *cancelAtWrite) RoundTrip(req *http.Request) (*http.Response, error) {
	if c.isLanding(req) && c.fired.CompareAndSwap(false, true) {
		c.cancel()
		select {
		case <-req.Context().Done():
			return nil, req.Context().Err()
		case <-time.After(3 * time.Second):
		}
	}
	return c.base.RoundTrip(req)
}

func (c *cancelAtWrite) isLanding(req *http.Request) bool {
	switch c.route {
	case routeGraphQL:
		if req.Method != http.MethodPost || !strings.HasSuffix(req.URL.Path, "/graphql") || req.Body == nil {
			return false
		}
		body, _ := io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(body))
		return bytes.Contains(body, []byte("mutation"))
	case routePutContents:
		return req.Method == http.MethodPut && strings.Contains(req.URL.Path, "/contents/")
	case routeCreateRef:
		return req.Method == http.MethodPost && strings.HasSuffix(req.URL.Path, "/git/refs")
	}
	return req.Method == http.MethodPatch && strings.Contains(req.URL.Path, "/git/refs/")
}

// newCancelling returns a Committer on ts whose transport cancels ctx at
// the landing write on route, before sending it.
func newCancelling(t *testing.T, ts *githubtest.TestServer, route string, opts ...committer.Option) (*committer.Committer, context.Context) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	rt := &cancelAtWrite{base: ts.Client.Client().Transport, cancel: cancel, route: route}
	gh := github.NewClient(&http.Client{Transport: rt})
	gh.BaseURL = ts.Client.BaseURL
	c, err := newWith(gh, owner, repo, append([]committer.Option{committer.WithBackoffSleep(noSleep)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c, ctx
}

func TestLandingCancelBeforeSent(t *testing.T) {
	for _, e := range allEngines {
		t.Run(e.String(), func(t *testing.T) {
			ts := githubtest.NewServer(t)
			if err := ts.CreateRepo(owner, repo, true); err != nil {
				t.Fatal(err)
			}
			seed(t, ts, map[string]string{"log": "start\n"})
			before := head(t, ts, "main")
			route := landingRoute(e)
			c, ctx := newCancelling(t, ts, route)
			ts.ResetRequests()
			_, err := c.Commit(ctx, "main", committer.NewChangeSet("never").Edit("log", appendLine("never")), committer.WithEngine(e))
			if !errors.Is(err, context.Canceled) || errors.Is(err, committer.ErrUnknownOutcome) {
				t.Fatalf("err = %v, want context.Canceled (not landed: the write was never sent)", err)
			}
			time.Sleep(100 * time.Millisecond) // a write sent late would land now
			if head(t, ts, "main") != before {
				t.Fatal("the branch moved: the write was sent after the cancel")
			}
			if route != routeGraphQL && ts.Count(route) != 0 {
				t.Fatalf("%d requests on %s: the write was sent after the cancel", ts.Count(route), route)
			}
		})
	}
}

// Creating the branch at the new commit (git-data with CreateBranchFrom)
// is the landing write.
func TestLandingCancelCreateBranch(t *testing.T) {
	for _, reply := range []bool{true, false} {
		t.Run(map[bool]string{true: "reply-within-grace", false: "no-reply-within-grace"}[reply], func(t *testing.T) {
			grace := 5 * time.Second
			if !reply {
				grace = 200 * time.Millisecond
			}
			ts, c := setup(t, committer.WithLandingGrace(grace))
			received, release := holdWrite(t, ts, routeCreateRef)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			ch := commitAsync(func() (*committer.Result, error) {
				return c.Commit(ctx, "feature", committer.NewChangeSet("new").Put("n.txt", []byte("n\n")), committer.CreateBranchFrom("main"))
			})
			<-received
			cancel()
			var o commitOutcome
			if reply {
				time.Sleep(50 * time.Millisecond)
				release()
				o = waitOutcome(t, ch)
			} else {
				o = waitOutcome(t, ch)
				release()
			}
			eventually(t, "the branch is created", func() bool { _, ok := ts.Head(owner, repo, "feature"); return ok })
			wantLandedOrUnknown(t, o, reply, head(t, ts, "feature"))
		})
	}
}

// The first commit of an empty repository goes through the contents API,
// whatever the engine.
func TestLandingCancelBootstrap(t *testing.T) {
	for _, reply := range []bool{true, false} {
		t.Run(map[bool]string{true: "reply-within-grace", false: "no-reply-within-grace"}[reply], func(t *testing.T) {
			grace := 5 * time.Second
			if !reply {
				grace = 200 * time.Millisecond
			}
			ts := githubtest.NewServer(t)
			if err := ts.CreateRepo(owner, repo, false); err != nil {
				t.Fatal(err)
			}
			c, err := newWith(ts.Client, owner, repo, committer.WithBackoffSleep(noSleep), committer.WithLandingGrace(grace))
			if err != nil {
				t.Fatal(err)
			}
			received, release := holdWrite(t, ts, routePutContents)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			ch := commitAsync(func() (*committer.Result, error) {
				return c.Commit(ctx, "main", committer.NewChangeSet("first").Put("README.md", []byte("hi\n")))
			})
			<-received
			cancel()
			var o commitOutcome
			if reply {
				time.Sleep(50 * time.Millisecond)
				release()
				o = waitOutcome(t, ch)
			} else {
				o = waitOutcome(t, ch)
				release()
			}
			eventually(t, "the repository is started", func() bool { _, ok := ts.Head(owner, repo, "main"); return ok })
			wantLandedOrUnknown(t, o, reply, head(t, ts, "main"))
		})
	}
}

// A Queue's caller that cancels once its batch was sent waits for the
// outcome: its change lands, and it is told so.
func TestLandingCancelQueue(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []committer.CommitOption
		e    committer.Engine
	}{
		{"chain", nil, committer.EngineGitData},
		{"squash", []committer.CommitOption{committer.Squash()}, committer.EngineGitData},
		{"graphql-squash", []committer.CommitOption{committer.Squash(), committer.WithEngine(committer.EngineGraphQL)}, committer.EngineGraphQL},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts, c := setup(t)
			seed(t, ts, map[string]string{"log": "start\n"})
			q, err := committer.NewQueue(c, "main", tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			received, release := holdWrite(t, ts, landingRoute(tc.e))
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			ch := commitAsync(func() (*committer.Result, error) {
				return q.Commit(ctx, committer.NewChangeSet("once").Edit("log", appendLine("once")))
			})
			<-received
			cancel()
			time.Sleep(50 * time.Millisecond)
			release()
			o := waitOutcome(t, ch)
			if got := readFile(t, ts, "main", "log"); got != "start\nonce\n" {
				t.Fatalf("log = %q, want the edit exactly once", got)
			}
			wantLandedOrUnknown(t, o, true, head(t, ts, "main"))
		})
	}
}

// A squashed GraphQL batch whose mutation had no clear answer (a 502), and
// whose caller then gave up, waits for the outcome: GitHub applied the
// mutation late, and the caller is told it landed, not "context canceled".
func TestLandingQueueGraphQLLateApply(t *testing.T) {
	ts := githubtest.NewServer(t)
	if err := ts.CreateRepo(owner, repo, true); err != nil {
		t.Fatal(err)
	}
	seed(t, ts, map[string]string{"log": "start\n"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var body []byte
	var auth string
	// Fault only the mutation, not the queries before it (their number
	// is the resolution's, not the test's).
	ts.Inject(githubtest.Fault{Route: routeGraphQL, Times: 1, Status: http.StatusBadGateway, Before: func(r *http.Request) {
		body, _ = io.ReadAll(r.Body)
		auth = r.Header.Get("Authorization")
		cancel()
	}, BodyContains: "createCommitOnBranch"})
	// Between the attempts, GitHub applies the mutation it answered 502.
	var replayed atomic.Bool
	sleep := func(ctx context.Context, _ time.Duration) error {
		if body != nil && replayed.CompareAndSwap(false, true) {
			req, _ := http.NewRequest(http.MethodPost, ts.URL+"graphql", bytes.NewReader(body))
			req.Header.Set("Authorization", auth)
			req.Header.Set("Content-Type", "application/json")
			resp, err := ts.Client.Client().Do(req)
			if err != nil {
				t.Error(err)
				return nil
			}
			resp.Body.Close()
		}
		return ctx.Err()
	}
	c, err := newWith(ts.Client, owner, repo, committer.WithBackoffSleep(sleep))
	if err != nil {
		t.Fatal(err)
	}
	q, err := committer.NewQueue(c, "main", committer.Squash(), committer.WithEngine(committer.EngineGraphQL))
	if err != nil {
		t.Fatal(err)
	}
	res, err := q.Commit(ctx, committer.NewChangeSet("once").Edit("log", appendLine("once")))
	if !replayed.Load() {
		t.Fatal("the fault never answered the mutation 502, or no attempt followed it: the test tests nothing")
	}
	if got := readFile(t, ts, "main", "log"); got != "start\nonce\n" {
		t.Fatalf("log = %q, want the edit exactly once (replayed: %v)", got, replayed.Load())
	}
	if err != nil {
		t.Fatalf("err = %v: the caller was let go while its change landed", err)
	}
	if res.Commit != head(t, ts, "main") {
		t.Fatalf("result %+v, want head %s", res, head(t, ts, "main"))
	}
}

// CommitPullRequest: the commit's landing write is held while the caller
// cancels; the commit lands, and the error (opening the pull request did
// not happen) still says what landed.
func TestLandingCancelPullRequest(t *testing.T) {
	ts, c := setup(t)
	received, release := holdWrite(t, ts, routeCreateRef)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type prOutcome struct {
		res *committer.PullRequestResult
		err error
	}
	ch := make(chan prOutcome, 1)
	go func() {
		res, err := c.CommitPullRequest(ctx, "main", "feature", committer.NewChangeSet("pr").Put("p.txt", []byte("p\n")), committer.PullRequestOptions{})
		ch <- prOutcome{res, err}
	}()
	<-received
	cancel()
	time.Sleep(50 * time.Millisecond)
	release()
	var o prOutcome
	select {
	case o = <-ch:
	case <-time.After(20 * time.Second):
		t.Fatal("CommitPullRequest did not return")
	}
	h, ok := ts.Head(owner, repo, "feature")
	if !ok {
		t.Fatal("the head branch was not created")
	}
	if o.res == nil || o.res.Commit == nil || o.res.Commit.Commit != h {
		t.Fatalf("result %+v (err %v): want the commit that landed, %s", o.res, o.err, h)
	}
}

// eventually waits up to 10 seconds for cond.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting until %s", what)
}
