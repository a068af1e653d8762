package committer_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/ghclient"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

// authAdder is an authenticating transport of the caller's own making,
// which the client layers cannot read a credential from.
type authAdder struct{ token string }

func (a *authAdder) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	r.Header.Set("Authorization", "token "+a.token)
	return http.DefaultTransport.RoundTrip(r)
}

// stageCount is how many stages the tests of one process run at once.
const stageCount = 20

// runStages runs stageCount stages at once, as a controller's workers: stage
// i builds its client with client() and its Committer with opts(i) added,
// and commits its own file and an increment of one shared counter. The
// first ref update is held, so that the others pile up behind it, as
// stages that start together do. It fails the test when a stage fails or
// an increment is lost, and returns the fake and each stage's Result.
func runStages(t *testing.T, client func(ts *githubtest.TestServer) (*http.Client, error), opts func(i int) []committer.Option) (*githubtest.TestServer, []*committer.Result) {
	t.Helper()
	ts := githubtest.NewServer(t)
	must(t, ts.CreateRepo(owner, repo, true))
	seed(t, ts, map[string]string{"counter": "0"})
	ts.Inject(githubtest.Fault{Route: routeGraphQL, BodyContains: githubtest.MutationUpdateRefs, Times: 1, Latency: 200 * time.Millisecond})
	ts.ResetRequests()
	results := make([]*committer.Result, stageCount)
	errs := make([]error, stageCount)
	var wg sync.WaitGroup
	for i := range stageCount {
		wg.Add(1)
		go func() {
			defer wg.Done()
			hc, err := client(ts)
			if err != nil {
				errs[i] = err
				return
			}
			var extra []committer.Option
			if opts != nil {
				extra = opts(i)
			}
			c, err := committer.New(owner, repo, append([]committer.Option{committer.WithHTTPClient(hc), committer.WithBackoffSleep(noSleep)}, extra...)...)
			if err != nil {
				errs[i] = err
				return
			}
			cs := committer.NewChangeSet(fmt.Sprintf("stage %d", i)).
				Put(fmt.Sprintf("stages/%d.txt", i), []byte(fmt.Sprintf("stage %d\n", i))).
				Edit("counter", incr)
			results[i], errs[i] = c.Commit(context.Background(), "main", cs)
		}()
		time.Sleep(time.Millisecond) // the first one starts alone
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("stage %d: %v", i, err)
		}
	}
	if got := readFile(t, ts, "main", "counter"); got != strconv.Itoa(stageCount)+"\n" {
		t.Errorf("counter = %q, want %d", got, stageCount)
	}
	return ts, results
}

// oneToken is a client per stage over oauth2's transport, one token for
// all, its waits skipped.
func oneToken(token string) func(ts *githubtest.TestServer) (*http.Client, error) {
	return func(ts *githubtest.TestServer) (*http.Client, error) {
		hc := oauth2.NewClient(context.Background(), oauth2.StaticTokenSource(&oauth2.Token{AccessToken: token}))
		return ghclient.Wrap(fast(hc), ts.URL)
	}
}

// TestCallerTransportsAreOneCredential (issue 42.1): a controller that
// builds a client per promotion with its own auth transport, and hands it
// to committer.WithHTTPClient, still has one credential: its 20 stages are
// batched (at most 2.2 writes per landed change, as with one shared
// client). oauth2's transport is read for its token; any other transport
// is named with ghclient.WithCredential; unnamed, each such transport is
// a credential of its own, and the stages are not batched (the case the
// others are told from).
func TestCallerTransportsAreOneCredential(t *testing.T) {
	for _, tc := range []struct {
		name    string
		client  func(ts *githubtest.TestServer) (*http.Client, error)
		batched bool
	}{
		{"oauth2.NewClient", oneToken("one-token"), true},
		{"own transport, named", func(ts *githubtest.TestServer) (*http.Client, error) {
			hc := &http.Client{Transport: &authAdder{token: "one-token"}}
			return ghclient.Wrap(fast(hc), ts.URL, ghclient.WithCredential("deploy bot"))
		}, true},
		{"own transport, unnamed", func(ts *githubtest.TestServer) (*http.Client, error) {
			hc := &http.Client{Transport: &authAdder{token: "one-token"}}
			return ghclient.Wrap(fast(hc), ts.URL)
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts, _ := runStages(t, tc.client, nil)
			const n = stageCount
			writes := ts.CountWrites()
			if per := float64(writes) / n; tc.batched != (per <= 2.2) {
				t.Errorf("%d writes for %d stages (%.2f per landed change); batched: want %v: %v", writes, n, per, tc.batched, routes(ts))
			}
		})
	}
}

// TestCostAndEventsPerCommit (issue 42.2): each stage of a batch hears the
// waits of its own writes, and those of the writes the batch shares once,
// marked shared; its Result counts its own writes and requests and its
// share of the batch's, which add up to what GitHub was sent.
func TestCostAndEventsPerCommit(t *testing.T) {
	type heard struct{ own, shared int }
	paced := make([]heard, stageCount)
	var mu sync.Mutex
	// Pacing on (the default), its waits skipped: each is still reported.
	ts, results := runStages(t, oneToken("one-token"), func(i int) []committer.Option {
		return []committer.Option{committer.WithObserver(func(e committer.Event) {
			if e.Kind != committer.EventWritePaced {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if e.Shared {
				paced[i].shared++
			} else {
				paced[i].own++
			}
		})}
	})
	var writes, requests float64
	var sharedHeard, ownHeard int
	for i := range stageCount {
		c := results[i].Cost
		if c.Writes < 2 || c.Requests < c.Writes {
			t.Errorf("stage %d: cost %+v: a commit writes at least its tree and commit", i, c)
		}
		writes += float64(c.Writes) + c.SharedWrites
		requests += float64(c.Requests) + c.SharedRequests
		if paced[i].own > c.Writes {
			t.Errorf("stage %d heard %d waits of its own writes, it sent %d", i, paced[i].own, c.Writes)
		}
		sharedHeard += paced[i].shared
		ownHeard += paced[i].own
	}
	if got := ts.CountWrites(); int(writes+0.5) != got {
		t.Errorf("the Results' writes add up to %.2f, GitHub got %d", writes, got)
	}
	if got := len(ts.Requests()); int(requests+0.5) != got {
		t.Errorf("the Results' requests add up to %.2f, GitHub got %d", requests, got)
	}
	// Before: every stage heard every write's wait (hundreds for 42 writes).
	if total := ownHeard + sharedHeard; total > 2*ts.CountWrites() {
		t.Errorf("%d paced-write events (%d own, %d shared) for %d writes", total, ownHeard, sharedHeard, ts.CountWrites())
	}
	t.Logf("%d writes, %d requests; paced-write events: %d own, %d shared", ts.CountWrites(), len(ts.Requests()), ownHeard, sharedHeard)
}

// TestBatchesLandAsTheyGo (issue 42.3): 20 stages of one process at
// github.com's pacing (80 writes a minute after a burst of 8): a batch
// carries what the pacer sends within about 15 s, so the stages land batch
// after batch — the median stage well before the last — for at most 2.2
// writes per landed change. One batch of 19 (before) landed them all at
// once, after about 25 s. The pacer's waits are skipped and reported: a
// stage lands when the last paced write it heard of goes out (its batch's
// ref update), so its time is the longest such wait, exact and without
// wall time.
func TestBatchesLandAsTheyGo(t *testing.T) {
	landedAt := make([]time.Duration, stageCount)
	var mu sync.Mutex
	ts, _ := runStages(t, oneToken("paced-token"), func(i int) []committer.Option {
		return []committer.Option{committer.WithObserver(func(e committer.Event) {
			if e.Kind == committer.EventWritePaced {
				mu.Lock()
				landedAt[i] = max(landedAt[i], e.Wait)
				mu.Unlock()
			}
		})}
	})
	const n = stageCount
	slices.Sort(landedAt)
	p50, last := landedAt[n/2-1], landedAt[n-1]
	writes := ts.CountWrites()
	t.Logf("%d writes (%.2f per landed change); landed at pacing: p50 %v, max %v", writes, float64(writes)/n, p50.Round(time.Millisecond), last.Round(time.Millisecond))
	if per := float64(writes) / n; per > 2.2 {
		t.Errorf("%.2f writes per landed change, want at most 2.2", per)
	}
	if p50 > last*2/3 {
		t.Errorf("the median stage landed after %v, the last after %v: the batch landed all at once", p50, last)
	}
}

// TestCommitAllIsOneBatchUnderPacing (issue 42.3): the pacer's cap on a
// batch of concurrent callers never splits the change sets of one
// CommitAll: with GitHub's pacing on and its budget partly spent, 16
// change sets still land with one ref update (2×16+1 writes).
func TestCommitAllIsOneBatchUnderPacing(t *testing.T) {
	ts, c := setupClient(t, []ghclient.Option{ghclient.WithRateLimits(ghclient.RateLimits{Pacing: &ghclient.Pacing{PerMinute: 80, Burst: 8}})})
	seed(t, ts, map[string]string{"counter": "0"})
	for i := range 3 { // 9 writes: the pacer runs seconds ahead
		if _, err := c.Commit(context.Background(), "main", committer.NewChangeSet(fmt.Sprintf("before %d", i)).Edit("counter", incr)); err != nil {
			t.Fatal(err)
		}
	}
	ts.ResetRequests()
	const n = 16
	css := make([]*committer.ChangeSet, n)
	for i := range css {
		css[i] = committer.NewChangeSet(fmt.Sprintf("change %02d", i)).Put(fmt.Sprintf("apps/%02d.yaml", i), []byte(fmt.Sprintf("n: %d\n", i)))
	}
	if _, err := c.CommitAll(context.Background(), "main", css, committer.WithEngine(committer.EngineGitData)); err != nil {
		t.Fatal(err)
	}
	if w := ts.CountWrites(); w != 2*n+1 {
		t.Errorf("%d writes for %d change sets of one CommitAll, want %d (one batch): %v", w, n, 2*n+1, routes(ts))
	}
}
