package githubtest

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/ProtonMail/go-crypto/openpgp"
	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/graphql/resolve"
)

const qHead = `query($owner: String!, $name: String!, $ref: String!) {
  repository(owner: $owner, name: $name) {
    nameWithOwner
    ref(qualifiedName: $ref) {
      id name prefix
      target { __typename oid ... on Commit { tree { oid } } }
    }
  }
}`

const mCommit = `mutation($input: CreateCommitOnBranchInput!) {
  createCommitOnBranch(input: $input) {
    commit { oid url message author { name email } committer { name email }
      signature { isValid state wasSignedByGitHub } }
    ref { name target { oid } }
  }
}`

// gql posts a GraphQL request to path ("/graphql" or "/api/graphql").
func gql(t testing.TB, ts *TestServer, path, query string, vars map[string]any, hdr ...string) reply {
	t.Helper()
	r := call(t, ts, http.MethodPost, path, map[string]any{"query": query, "variables": vars}, hdr...)
	if r.Status == http.StatusOK {
		checkGraphQLReply(t, query, vars, r.Raw)
	}
	return r
}

// gqlErrors returns the reply's errors[].
func gqlErrors(t testing.TB, r reply) []map[string]any {
	t.Helper()
	var body struct {
		Errors []map[string]any `json:"errors"`
	}
	if err := json.Unmarshal(r.Raw, &body); err != nil {
		t.Fatal(err)
	}
	return body.Errors
}

func commitInput(head string, adds map[string]string, dels ...string) map[string]any {
	var a []map[string]any
	for p, c := range adds {
		a = append(a, map[string]any{"path": p, "contents": base64.StdEncoding.EncodeToString([]byte(c))})
	}
	var d []map[string]any
	for _, p := range dels {
		d = append(d, map[string]any{"path": p})
	}
	return map[string]any{"input": map[string]any{
		"branch":          map[string]any{"repositoryNameWithOwner": "acme/mono", "branchName": "main"},
		"expectedHeadOid": head,
		"message":         map[string]any{"headline": "update", "body": "Body.\n\nGhcommitter-Edit-Id: 42"},
		"fileChanges":     map[string]any{"additions": a, "deletions": d},
	}}
}

func TestGraphQLReadsHeadAndTree(t *testing.T) {
	ts, head := seeded(t)
	for _, path := range []string{"/graphql", "/api/graphql"} {
		r := gql(t, ts, path, qHead, map[string]any{"owner": "acme", "name": "mono", "ref": "refs/heads/main"})
		if r.Status != 200 || r.str(t, "data", "repository", "nameWithOwner") != "acme/mono" {
			t.Fatalf("%s: %d %s", path, r.Status, r.Raw)
		}
		target := r.obj(t)["data"].(map[string]any)["repository"].(map[string]any)["ref"].(map[string]any)["target"].(map[string]any)
		c, _ := ts.Commit("acme", "mono", head)
		if target["oid"] != head || target["tree"].(map[string]any)["oid"] != c.Tree || target["__typename"] != "Commit" {
			t.Fatalf("%s: target %v, want %s tree %s", path, target, head, c.Tree)
		}
	}
	r := gql(t, ts, "/graphql", qHead, map[string]any{"owner": "acme", "name": "mono", "ref": "nope"})
	if r.Status != 200 || !strings.Contains(string(r.Raw), `"ref":null`) || len(gqlErrors(t, r)) != 0 {
		t.Fatalf("missing ref: want ref null without errors: %s", r.Raw)
	}
}

func TestGraphQLCreateCommitOnBranch(t *testing.T) {
	ts, head := seeded(t, WithToken("pat"))
	in := commitInput(head, map[string]string{"new/file.txt": "new\n", "bin/run": "#!/bin/bash\n"}, "dir/a.txt")
	r := gql(t, ts, "/graphql", mCommit, in, "Authorization", "bearer pat")
	if r.Status != 200 || len(gqlErrors(t, r)) != 0 {
		t.Fatalf("%d %s", r.Status, r.Raw)
	}
	oid := r.str(t, "data", "createCommitOnBranch", "commit", "oid")
	if now, _ := ts.Head("acme", "mono", "main"); now != oid {
		t.Fatalf("head %s, reply says %s", now, oid)
	}
	c, err := ts.Commit("acme", "mono", oid)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Parents) != 1 || c.Parents[0] != head || c.Message != "update\n\nBody.\n\nGhcommitter-Edit-Id: 42" {
		t.Fatalf("commit %+v", c)
	}
	if c.Author.Email != "octocat@users.noreply.github.com" || c.Committer.Name != "GitHub" || c.Committer.Email != "noreply@github.com" {
		t.Fatalf("author %v committer %v", c.Author, c.Committer)
	}
	files, _ := ts.Files("acme", "mono", "main")
	if _, ok := files["dir/a.txt"]; ok || string(files["new/file.txt"].Content) != "new\n" {
		t.Fatalf("files after commit: %v", files)
	}
	if m := files["bin/run"].Mode; m != "100644" && m != "" {
		t.Fatalf("bin/run mode %q: GraphQL writes regular files", m)
	}
	if _, ok := files["dir/sub/b.txt"]; !ok {
		t.Fatal("untouched file lost")
	}
	checkWebFlowSigned(t, ts, oid, "bearer pat")
}

// checkWebFlowSigned checks the REST commit says Verified, and that the
// signature really verifies with the fake's web-flow key.
func checkWebFlowSigned(t *testing.T, ts *TestServer, sha, auth string) {
	t.Helper()
	r := call(t, ts, "GET", "/repos/acme/mono/git/commits/"+sha, nil, "Authorization", auth)
	validateReply(t, "git-get-commit", r.Status, r.Raw)
	v := r.obj(t)["verification"].(map[string]any)
	if v["verified"] != true || v["reason"] != "valid" {
		t.Fatalf("verification %v", v)
	}
	pub, err := WebFlowPublicKey()
	if err != nil {
		t.Fatal(err)
	}
	ring, err := openpgp.ReadArmoredKeyRing(strings.NewReader(pub))
	if err != nil {
		t.Fatal(err)
	}
	_, err = openpgp.CheckArmoredDetachedSignature(ring, strings.NewReader(v["payload"].(string)),
		strings.NewReader(v["signature"].(string)), nil)
	if err != nil {
		t.Fatalf("signature does not verify: %v", err)
	}
}

func TestGraphQLErrorShapes(t *testing.T) {
	cases := []struct {
		name     string
		vars     func(head string) map[string]any
		typ, msg string
	}{
		{"stale head", func(string) map[string]any {
			return commitInput(strings.Repeat("a", 40), map[string]string{"x": "y"})
		}, "STALE_DATA", `Expected branch to point to "` + strings.Repeat("a", 40) + `" but it did not.  Pull and try again.`},
		{"missing deletion", func(h string) map[string]any { return commitInput(h, nil, "no/such/file") },
			"UNPROCESSABLE", "A path was requested for deletion which does not exist as of commit oid `"},
		{"directory deletion", func(h string) map[string]any { return commitInput(h, nil, "dir") },
			"UNPROCESSABLE", "A path was requested for deletion"},
		{"missing branch", func(h string) map[string]any {
			in := commitInput(h, map[string]string{"x": "y"})
			in["input"].(map[string]any)["branch"] = map[string]any{"repositoryNameWithOwner": "acme/mono", "branchName": "gone"}
			return in
		}, "NOT_FOUND", "refs/heads/gone"},
		{"missing repository", func(h string) map[string]any {
			in := commitInput(h, map[string]string{"x": "y"})
			in["input"].(map[string]any)["branch"] = map[string]any{"repositoryNameWithOwner": "acme/none", "branchName": "main"}
			return in
		}, "NOT_FOUND", "Could not resolve to a Repository with the name 'acme/none'."},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ts, head := seeded(t)
			r := gql(t, ts, "/graphql", mCommit, tc.vars(head))
			errs := gqlErrors(t, r)
			if r.Status != 200 || len(errs) != 1 || !strings.Contains(string(r.Raw), `"data":{"createCommitOnBranch":null}`) {
				t.Fatalf("%d %s", r.Status, r.Raw)
			}
			e := errs[0]
			if e["type"] != tc.typ || !strings.HasPrefix(e["message"].(string), tc.msg) && !strings.Contains(e["message"].(string), tc.msg) {
				t.Fatalf("error %v, want type %s message %q", e, tc.typ, tc.msg)
			}
			if p, _ := e["path"].([]any); len(p) != 1 || p[0] != "createCommitOnBranch" || e["locations"] == nil {
				t.Fatalf("error path/locations %v", e)
			}
			if now, _ := ts.Head("acme", "mono", "main"); now != head {
				t.Fatal("a failed mutation moved the branch")
			}
		})
	}
}

func TestGraphQLRequestErrors(t *testing.T) {
	ts, _ := seeded(t, WithToken("pat"))
	r := gql(t, ts, "/graphql", `{ repository(owner:"acme", name:"mono") { nope } }`, nil, "Authorization", "bearer pat")
	if errs := gqlErrors(t, r); r.Status != 200 || len(errs) != 1 || errs[0]["locations"] == nil || strings.Contains(string(r.Raw), `"data"`) {
		t.Fatalf("unknown field: %d %s", r.Status, r.Raw)
	}
	r = gql(t, ts, "/graphql", `{ repository(owner:"acme"`, nil, "Authorization", "bearer pat")
	if r.Status != 200 || len(gqlErrors(t, r)) != 1 {
		t.Fatalf("parse error: %d %s", r.Status, r.Raw)
	}
	r = gql(t, ts, "/graphql", mCommit, map[string]any{"input": map[string]any{"branch": map[string]any{}}}, "Authorization", "bearer pat")
	if r.Status != 200 || len(gqlErrors(t, r)) == 0 {
		t.Fatalf("variables missing required fields: %d %s", r.Status, r.Raw)
	}
	r = gql(t, ts, "/graphql", qHead, map[string]any{"owner": "acme", "name": "mono", "ref": "main"}, "Authorization", "bearer wrong")
	expect(t, r, http.StatusUnauthorized, "Bad credentials")
	r = call(t, ts, http.MethodPost, "/graphql", "{not json", "Authorization", "bearer pat")
	expect(t, r, http.StatusBadRequest, "Problems parsing JSON")
}

func TestGraphQLLostReplyStillCommits(t *testing.T) {
	ts, head := seeded(t)
	ts.Inject(Fault{Route: resolve.RouteGraphQL, DropResponse: true, Times: 1})
	raw, _ := json.Marshal(map[string]any{"query": mCommit, "variables": commitInput(head, map[string]string{"f": "x"})})
	resp, err := http.Post(strings.TrimSuffix(ts.URL, "/")+"/graphql", "application/json", strings.NewReader(string(raw)))
	if err == nil {
		resp.Body.Close()
		t.Fatal("want the connection closed without a reply")
	}
	if now, _ := ts.Head("acme", "mono", "main"); now == head {
		t.Fatal("the mutation whose reply was lost did not land")
	}
	if ts.Count(resolve.RouteGraphQL) != 1 {
		t.Fatalf("request log has %d GraphQL requests", ts.Count(resolve.RouteGraphQL))
	}
}

func TestGraphQLHistoryPages(t *testing.T) {
	ts, head := seeded(t)
	var shas []string
	for i := range 3 {
		sha, _ := ts.Seed("acme", "mono", "main", "c"+string(rune('0'+i)), File{Path: "f", Content: []byte{byte(i)}})
		shas = append([]string{sha}, shas...)
	}
	q := `query($after: String) { repository(owner:"acme", name:"mono") { ref(qualifiedName:"main") {
	  target { ... on Commit { history(first: 2, after: $after) { totalCount pageInfo { hasNextPage endCursor }
	    nodes { oid messageHeadline parents(first: 1) { nodes { oid } } } } } } } } }`
	var got []string
	var after any
	for range 3 {
		r := gql(t, ts, "/graphql", q, map[string]any{"after": after})
		var body struct {
			Data struct {
				Repository struct {
					Ref struct {
						Target struct {
							History struct {
								TotalCount int
								PageInfo   struct {
									HasNextPage bool
									EndCursor   string
								}
								Nodes []struct{ Oid string }
							}
						}
					}
				}
			}
		}
		if err := json.Unmarshal(r.Raw, &body); err != nil {
			t.Fatal(err)
		}
		h := body.Data.Repository.Ref.Target.History
		for _, n := range h.Nodes {
			got = append(got, n.Oid)
		}
		if h.TotalCount != 4 || !h.PageInfo.HasNextPage {
			break
		}
		after = h.PageInfo.EndCursor
	}
	want := append(shas, head)
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("history %v, want %v", got, want)
	}
	r := gql(t, ts, "/graphql", strings.Replace(q, "first: 2", "first: 101", 1), nil)
	if errs := gqlErrors(t, r); len(errs) != 1 || errs[0]["type"] != "EXCESSIVE_PAGINATION" {
		t.Fatalf("first: 101: %s", r.Raw)
	}
}

func TestGraphQLBranchByNodeID(t *testing.T) {
	ts, head := seeded(t)
	r := gql(t, ts, "/graphql", qHead, map[string]any{"owner": "acme", "name": "mono", "ref": "main"})
	id := r.obj(t)["data"].(map[string]any)["repository"].(map[string]any)["ref"].(map[string]any)["id"]
	in := commitInput(head, map[string]string{"g": "1"})
	in["input"].(map[string]any)["branch"] = map[string]any{"id": id}
	r = gql(t, ts, "/graphql", mCommit, in)
	if len(gqlErrors(t, r)) != 0 || r.str(t, "data", "createCommitOnBranch", "ref", "name") != "main" {
		t.Fatalf("%s", r.Raw)
	}
}

func TestGraphQLCommitTooLarge(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("sends 53 MB: 3 s, 30 s under the race detector")
	}
	ts, head := seeded(t)
	in := commitInput(head, map[string]string{"big": strings.Repeat("x", resolve.MaxCommitBytes/2), "big2": strings.Repeat("y", resolve.MaxCommitBytes/2)})
	r := gql(t, ts, "/graphql", mCommit, in)
	if errs := gqlErrors(t, r); r.Status != 200 || len(errs) != 1 || !strings.HasPrefix(errs[0]["message"].(string), "Something went wrong") {
		t.Fatalf("%d %.300s", r.Status, r.Raw)
	}
	if now, _ := ts.Head("acme", "mono", "main"); now != head {
		t.Fatal("a too large commit landed")
	}
	in = commitInput(head, map[string]string{"big": strings.Repeat("x", resolve.MaxCommitBytes/2)})
	if r := gql(t, ts, "/graphql", mCommit, in); len(gqlErrors(t, r)) != 0 {
		t.Fatalf("20 MB commit refused: %.300s", r.Raw)
	}
}

func TestGraphQLAliasesFragmentsDirectives(t *testing.T) {
	ts, head := seeded(t)
	q := `query($withTree: Boolean!) {
  r: repository(owner: "acme", name: "mono") {
    __typename
    main: ref(qualifiedName: "refs/heads/main") { ...T }
    again: ref(qualifiedName: "main") { target { oid } target { abbreviatedOid } }
    readme: object(expression: "main:README.md") { ... on Blob { text byteSize } }
    isEmpty
  }
}
fragment T on Ref { name target { __typename ... on Commit { oid tree @include(if: $withTree) { oid } history(first: 1) @skip(if: true) { totalCount } } } }`
	r := gql(t, ts, "/graphql", q, map[string]any{"withTree": false})
	want := `{"data":{"r":{"__typename":"Repository","main":{"name":"main","target":{"__typename":"Commit","oid":"` + head +
		`"}},"again":{"target":{"oid":"` + head + `","abbreviatedOid":"` + head[:7] +
		`"}},"readme":{"text":"hello\n","byteSize":6},"isEmpty":false}}}`
	if string(r.Raw) != want {
		t.Fatalf("got  %s\nwant %s", r.Raw, want)
	}
}

// An empty repository has no branch: the query says so, and
// createCommitOnBranch cannot make the first commit.
func TestGraphQLEmptyRepository(t *testing.T) {
	ts := NewServer(t)
	if err := ts.CreateRepo("acme", "mono", false); err != nil {
		t.Fatal(err)
	}
	r := gql(t, ts, "/graphql", `{ repository(owner: "acme", name: "mono") { isEmpty defaultBranchRef { name } ref(qualifiedName: "main") { name } } }`, nil)
	if string(r.Raw) != `{"data":{"repository":{"isEmpty":true,"defaultBranchRef":null,"ref":null}}}` {
		t.Fatalf("%s", r.Raw)
	}
	r = gql(t, ts, "/graphql", mCommit, commitInput(strings.Repeat("0", 40), map[string]string{"a": "b"}))
	if errs := gqlErrors(t, r); len(errs) != 1 || errs[0]["type"] != "NOT_FOUND" {
		t.Fatalf("%s", r.Raw)
	}
	if _, ok := ts.Head("acme", "mono", "main"); ok {
		t.Fatal("a commit landed in the empty repository")
	}
}

// A mutation is a content-creating write for the emergent limits; a query
// is not.
func TestGraphQLMutationCountsAsWrite(t *testing.T) {
	clk := newFakeClock()
	ts, head := seeded(t, WithNow(clk.Now), WithLimits(Limits{ContentPerMinute: 1}))
	r := gql(t, ts, "/graphql", mCommit, commitInput(head, map[string]string{"a": "1"}))
	if len(gqlErrors(t, r)) != 0 || r.Header.Get("X-RateLimit-Resource") != "graphql" {
		t.Fatalf("%s %v", r.Raw, r.Header)
	}
	now, _ := ts.Head("acme", "mono", "main")
	isSecondary(t, gql(t, ts, "/graphql", mCommit, commitInput(now, map[string]string{"a": "2"})))
	if after, _ := ts.Head("acme", "mono", "main"); after != now {
		t.Fatal("a rate-limited mutation landed")
	}
	if r := gql(t, ts, "/graphql", qHead, map[string]any{"owner": "acme", "name": "mono", "ref": "main"}); r.Status != 200 {
		t.Fatalf("query refused: %s", r.Raw)
	}
	if st := ts.LimitStats(""); st.Writes != 2 || st.WritesLimited != 1 {
		t.Fatalf("stats %+v", st)
	}
}

// BenchmarkGraphQLCreateCommit measures one createCommitOnBranch through
// HTTP: parse, validate, commit, sign.
func BenchmarkGraphQLCreateCommit(b *testing.B) {
	ts, head := seeded(b)
	for i := 0; b.Loop(); i++ {
		r := gql(b, ts, "/graphql", mCommit, commitInput(head, map[string]string{"f": strconv.Itoa(i)}))
		head = r.str(b, "data", "createCommitOnBranch", "commit", "oid")
		if head == "" {
			b.Fatalf("%s", r.Raw)
		}
	}
}
