package ghgraphql_test

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/githubtest"
	"github.com/ghcommitter/ghcommitter/committer/internal/ghgraphql"
)

// tokenTransport adds a token, as the library's authenticating transport does.
type tokenTransport struct{ token string }

func (t tokenTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "bearer "+t.token)
	return http.DefaultTransport.RoundTrip(r)
}

const token = "pat-123"

// setup returns the fake with acme/mono on main, a client for base
// ("" = github.com style, "api/v3/" = GHES style) and the head.
func setup(t *testing.T, base string) (*githubtest.TestServer, *ghgraphql.Client, string) {
	t.Helper()
	ts := githubtest.NewServer(t, githubtest.WithToken(token))
	head, err := ts.Seed("acme", "mono", "main", "seed",
		githubtest.File{Path: "README.md", Content: []byte("hi\n")},
		githubtest.File{Path: "dir/a.txt", Content: []byte("a\n")})
	if err != nil {
		t.Fatal(err)
	}
	ep, err := ghgraphql.EndpointFor(ts.URL+base, "")
	if err != nil {
		t.Fatal(err)
	}
	return ts, ghgraphql.New(&http.Client{Transport: tokenTransport{token}}, ep), head
}

func input(head, edit string, adds map[string]string, dels ...string) ghgraphql.CommitInput {
	in := ghgraphql.CommitInput{Owner: "acme", Name: "mono", Branch: "main", ExpectedHead: head,
		Headline: "update", Body: "Ghcommitter-Edit-Id: " + edit, Deletions: dels}
	for p, c := range adds {
		in.Additions = append(in.Additions, ghgraphql.Addition{Path: p, Contents: []byte(c)})
	}
	return in
}

func TestEndpointFor(t *testing.T) {
	for _, tc := range []struct{ base, explicit, want string }{
		{"", "", "https://api.github.com/graphql"},
		{"https://api.github.com/", "", "https://api.github.com/graphql"},
		{"https://ghe.example.com/api/v3/", "", "https://ghe.example.com/api/graphql"},
		{"https://ghe.example.com/api/v3", "", "https://ghe.example.com/api/graphql"},
		{"https://api.acme.ghe.com/", "", "https://api.acme.ghe.com/graphql"},
		{"https://ghe.example.com/api/v3/", "https://gql.example.com/x", "https://gql.example.com/x"},
	} {
		got, err := ghgraphql.EndpointFor(tc.base, tc.explicit)
		if err != nil || got != tc.want {
			t.Errorf("EndpointFor(%q, %q) = %q, %v; want %q", tc.base, tc.explicit, got, err, tc.want)
		}
	}
	for _, bad := range []string{"ghe.example.com", "ftp://x/"} {
		if _, err := ghgraphql.EndpointFor(bad, ""); err == nil {
			t.Errorf("EndpointFor(%q) accepted", bad)
		}
		if _, err := ghgraphql.EndpointFor("", bad); err == nil {
			t.Errorf("explicit %q accepted", bad)
		}
	}
}

func TestBranchHeadAndCommit(t *testing.T) {
	for _, base := range []string{"", "api/v3/"} {
		ts, c, head := setup(t, base)
		ctx := context.Background()
		h, found, err := c.BranchHead(ctx, "acme", "mono", "main")
		want, _ := ts.Commit("acme", "mono", head)
		if err != nil || !found || h.Commit != head || h.Tree != want.Tree || h.RefID == "" {
			t.Fatalf("%q: BranchHead = %+v %v %v", base, h, found, err)
		}
		if _, found, err := c.BranchHead(ctx, "acme", "mono", "nope"); found || err != nil {
			t.Fatalf("missing branch: found %v err %v", found, err)
		}
		if _, _, err := c.BranchHead(ctx, "acme", "none", "main"); !ghgraphql.IsNotFound(err) {
			t.Fatalf("missing repository: %v", err)
		}
		got, err := c.CreateCommitOnBranch(ctx, input(head, "1", map[string]string{"new.txt": "n\n"}, "dir/a.txt"))
		if err != nil || got.OID == "" || !strings.HasSuffix(got.URL, "/acme/mono/commit/"+got.OID) {
			t.Fatalf("commit: %+v %v", got, err)
		}
		if now, _ := ts.Head("acme", "mono", "main"); now != got.OID {
			t.Fatalf("head %s, commit %s", now, got.OID)
		}
		cm, _ := ts.Commit("acme", "mono", got.OID)
		if cm.Message != "update\n\nGhcommitter-Edit-Id: 1" || cm.Committer.Email != "noreply@github.com" {
			t.Fatalf("commit %+v", cm)
		}
	}
}

func TestCommitErrors(t *testing.T) {
	ctx := context.Background()
	ts, c, head := setup(t, "")

	_, err := c.CreateCommitOnBranch(ctx, input(strings.Repeat("0", 40), "s", map[string]string{"x": "y"}))
	var ge *ghgraphql.Errors
	if !ghgraphql.IsStale(err) || !errors.As(err, &ge) || ge.Errors[0].Path[0] != "createCommitOnBranch" || ge.Status != 200 {
		t.Fatalf("stale head: %v", err)
	}

	_, err = c.CreateCommitOnBranch(ctx, input(head, "d", nil, "no/such/file"))
	if !errors.As(err, &ge) || ghgraphql.IsStale(err) || !strings.Contains(ge.Errors[0].Message, "does not exist as of commit oid") {
		t.Fatalf("missing deletion path: %v", err)
	}

	in := input(head, "b", map[string]string{"x": "y"})
	in.Branch = "gone"
	if _, err = c.CreateCommitOnBranch(ctx, in); !ghgraphql.IsNotFound(err) {
		t.Fatalf("missing branch: %v", err)
	}
	if now, _ := ts.Head("acme", "mono", "main"); now != head {
		t.Fatal("a failed commit moved the branch")
	}

	bad := ghgraphql.New(&http.Client{Transport: tokenTransport{"wrong"}}, c.Endpoint())
	_, _, err = bad.BranchHead(ctx, "acme", "mono", "main")
	var he *ghgraphql.HTTPError
	if !errors.As(err, &he) || he.Status != 401 || he.Message != "Bad credentials" || he.RateLimited() {
		t.Fatalf("bad credentials: %v", err)
	}
}

func TestRateLimits(t *testing.T) {
	ctx := context.Background()
	now := time.Now()
	for _, tc := range []struct {
		name   string
		inject func(ts *githubtest.TestServer) func()
		status int
		wait   time.Duration
	}{
		{"403 retry-after", func(ts *githubtest.TestServer) func() { return ts.SecondaryRateLimit("POST /graphql", 30, 1) }, 403, 30 * time.Second},
		{"429 retry-after", func(ts *githubtest.TestServer) func() { return ts.TooManyRequests("POST /graphql", 7, 1) }, 429, 7 * time.Second},
		{"403 bare", func(ts *githubtest.TestServer) func() { return ts.SecondaryRateLimit("POST /graphql", 0, 1) }, 403, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts, c, head := setup(t, "")
			tc.inject(ts)
			_, err := c.CreateCommitOnBranch(ctx, input(head, "r", map[string]string{"x": "y"}))
			var he *ghgraphql.HTTPError
			if !errors.As(err, &he) || he.Status != tc.status || !he.RateLimited() || he.RetryAfter(now) != tc.wait {
				t.Fatalf("%v (retry after %v)", err, he.RetryAfter(now))
			}
			if len(he.Body) == 0 || len(he.Body) > ghgraphql.MaxErrorBody {
				t.Fatalf("body %d bytes", len(he.Body))
			}
			if got, _ := ts.Head("acme", "mono", "main"); got != head {
				t.Fatal("a rate-limited commit moved the branch")
			}
		})
	}
}

func TestErrorBodyIsBounded(t *testing.T) {
	ts, c, _ := setup(t, "")
	ts.Inject(githubtest.Fault{Route: "POST /graphql", Status: 502, Body: strings.Repeat("x", 1<<20), Times: 1})
	_, _, err := c.BranchHead(context.Background(), "acme", "mono", "main")
	var he *ghgraphql.HTTPError
	if !errors.As(err, &he) || he.Status != 502 || len(he.Body) != ghgraphql.MaxErrorBody {
		t.Fatalf("%v", err)
	}
}

// A lost reply to the mutation leaves an unknown outcome; Settle finds
// the commit by its trailer, and says NotLanded when another writer's
// commit is the child.
func TestLostReplySettles(t *testing.T) {
	ctx := context.Background()
	ts, c, head := setup(t, "")
	ts.Inject(githubtest.Fault{Route: "POST /graphql", DropResponse: true, Times: 1})
	_, err := c.CreateCommitOnBranch(ctx, input(head, "lost-1", map[string]string{"f": "1"}))
	var nr *ghgraphql.NoReplyError
	if !errors.As(err, &nr) || !nr.Mutation {
		t.Fatalf("want NoReplyError for a mutation, got %v", err)
	}
	for i := range 3 { // others write after ours
		if _, err := ts.Seed("acme", "mono", "main", "other", githubtest.File{Path: "o", Content: []byte{byte(i)}}); err != nil {
			t.Fatal(err)
		}
	}
	trailer := func(id string) func(string) bool {
		return func(m string) bool { return strings.Contains(m, "\nGhcommitter-Edit-Id: "+id) }
	}
	oid, out, err := c.Settle(ctx, "acme", "mono", "main", head, ghgraphql.ChildOf, trailer("lost-1"), 100)
	hist, _ := ts.History("acme", "mono", "main")
	if err != nil || out != ghgraphql.Landed || oid != hist[3].SHA {
		t.Fatalf("settle: %s %v %v (history %v)", oid, out, err, hist)
	}
	if _, out, _ := c.Settle(ctx, "acme", "mono", "main", head, ghgraphql.ChildOf, trailer("other"), 100); out != ghgraphql.NotLanded {
		t.Fatalf("another edit id: %v", out)
	}
	if _, out, _ := c.Settle(ctx, "acme", "mono", "main", head, ghgraphql.ChildOf, trailer("lost-1"), 2); out != ghgraphql.Unknown {
		t.Fatalf("bound reached: %v, want unknown", out)
	}
	now, _ := ts.Head("acme", "mono", "main")
	if _, out, _ := c.Settle(ctx, "acme", "mono", "main", now, ghgraphql.ChildOf, trailer("lost-1"), 100); out != ghgraphql.NotLanded {
		t.Fatalf("parent is the head: %v", out)
	}
}

func TestHistoryByPath(t *testing.T) {
	ctx := context.Background()
	ts, c, head := setup(t, "")
	var touching []string
	for i := range 5 {
		p := "other"
		if i%2 == 0 {
			p = "dir/a.txt"
		}
		sha, err := ts.Seed("acme", "mono", "main", "c", githubtest.File{Path: p, Content: []byte{byte(i)}})
		if err != nil {
			t.Fatal(err)
		}
		if p == "dir/a.txt" {
			touching = append([]string{sha}, touching...)
		}
	}
	touching = append(touching, head) // the seed commit created it
	var got []string
	after := ""
	for {
		page, next, found, err := c.History(ctx, "acme", "mono", "main", "dir/a.txt", 2, after)
		if err != nil || !found {
			t.Fatal(err, found)
		}
		for _, p := range page {
			got = append(got, p.OID)
			if p.CommittedDate == "" {
				t.Fatal("no committedDate")
			}
		}
		if next == "" {
			break
		}
		after = next
	}
	if strings.Join(got, ",") != strings.Join(touching, ",") {
		t.Fatalf("history of dir/a.txt %v, want %v", got, touching)
	}
	if _, _, found, err := c.History(ctx, "acme", "mono", "gone", "", 10, ""); found || err != nil {
		t.Fatalf("missing branch: %v %v", found, err)
	}
}

// GitHub answers a spent primary GraphQL limit with HTTP 200 and
// errors[].type RATE_LIMITED; the reset time is in the headers.
func TestPrimaryLimitOn200(t *testing.T) {
	ts, c, _ := setup(t, "")
	reset := time.Now().Add(90 * time.Second).Unix()
	h := http.Header{}
	h.Set("X-RateLimit-Remaining", "0")
	h.Set("X-RateLimit-Reset", strconv.FormatInt(reset, 10))
	ts.Inject(githubtest.Fault{Route: "POST /graphql", Status: 200, Header: h, Times: 1,
		Body: `{"errors":[{"type":"RATE_LIMITED","message":"API rate limit exceeded for user ID 1."}]}`})
	_, _, err := c.BranchHead(context.Background(), "acme", "mono", "main")
	var ge *ghgraphql.Errors
	now := time.Unix(reset-90, 0)
	if !errors.As(err, &ge) || !ge.RateLimited() || ge.RetryAfter(now) != 90*time.Second {
		t.Fatalf("%v", err)
	}
}
