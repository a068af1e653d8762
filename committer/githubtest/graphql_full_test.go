package githubtest

import (
	"encoding/json"
	"strings"
	"testing"
)

// A valid document that asks for what the fake does not model gets null
// where the schema allows it, as GitHub answers for data it does not have,
// and never a schema error.
func TestGraphQLUnmodelledNullableIsNull(t *testing.T) {
	ts, _ := seeded(t)
	r := gql(t, ts, "/graphql", `query { repository(owner: "acme", name: "mono") {
	  nameWithOwner description homepageUrl
	  ref(qualifiedName: "main") { name branchProtectionRule { id } }
	} }`, nil)
	if errs := gqlErrors(t, r); len(errs) != 0 {
		t.Fatalf("errors for unmodelled nullable fields: %s", r.Raw)
	}
	if r.str(t, "data", "repository", "nameWithOwner") != "acme/mono" ||
		!strings.Contains(string(r.Raw), `"description":null`) || !strings.Contains(string(r.Raw), `"branchProtectionRule":null`) {
		t.Fatalf("reply: %s", r.Raw)
	}
}

// A non-null field the fake does not model: one error naming it, and the
// null propagates to the nearest nullable parent.
func TestGraphQLUnmodelledNonNullIsOneError(t *testing.T) {
	ts, _ := seeded(t)
	r := gql(t, ts, "/graphql", `query { repository(owner: "acme", name: "mono") { nameWithOwner watchers(first: 1) { totalCount } } }`, nil)
	errs := gqlErrors(t, r)
	if len(errs) != 1 || errs[0]["type"] != "NOT_MODELLED" ||
		!strings.Contains(errs[0]["message"].(string), "Repository.watchers") {
		t.Fatalf("want one NOT_MODELLED error naming Repository.watchers: %s", r.Raw)
	}
	if p, _ := errs[0]["path"].([]any); len(p) != 2 || p[0] != "repository" || p[1] != "watchers" {
		t.Fatalf("path %v", errs[0]["path"])
	}
	if !strings.Contains(string(r.Raw), `"data":{"repository":null}`) {
		t.Fatalf("the null must stop at the nullable repository: %s", r.Raw)
	}
}

// Documents real clients send validate against GitHub's whole schema:
// @changesets/ghcommit's metadata query (a fragment on Tag, which the
// subset schema lacked) runs.
func TestGraphQLClientDocumentsValidate(t *testing.T) {
	ts, head := seeded(t)
	r := gql(t, ts, "/graphql", `query getRepositoryMetadata($owner: String!, $repo: String!, $baseRef: String!, $targetRef: String!) {
	  repository(owner: $owner, name: $repo) {
	    id
	    baseRef: ref(qualifiedName: $baseRef) { id target { oid ... on Tag { target { oid } } } }
	    targetBranch: ref(qualifiedName: $targetRef) { id target { oid } }
	  }
	}`, map[string]any{"owner": "acme", "repo": "mono", "baseRef": "refs/heads/main", "targetRef": "refs/heads/feature"})
	if len(gqlErrors(t, r)) != 0 || !strings.Contains(string(r.Raw), `"targetBranch":null`) || !strings.Contains(string(r.Raw), head) {
		t.Fatalf("reply: %s", r.Raw)
	}
	// A union's fragment applies to its members.
	r = gql(t, ts, "/graphql", `query($id: ID!) { node(id: $id) { __typename ... on Repository { nameWithOwner } } }`,
		map[string]any{"id": "nope"})
	if r.Status != 200 {
		t.Fatalf("node: %d %s", r.Status, r.Raw)
	}
}

// Node IDs the fake hands out (GraphQL id, REST node_id) resolve through
// node(id:) and nodes(ids:); others are NOT_FOUND as on GitHub.
func TestGraphQLNodeLookup(t *testing.T) {
	ts, head := seeded(t)
	r := gql(t, ts, "/graphql", `query { repository(owner: "acme", name: "mono") { id ref(qualifiedName: "main") { id } } }`, nil)
	repoID := r.str(t, "data", "repository", "id")
	refID := r.obj(t)["data"].(map[string]any)["repository"].(map[string]any)["ref"].(map[string]any)["id"].(string)
	r = gql(t, ts, "/graphql", `query($ids: [ID!]!) { nodes(ids: $ids) { __typename ... on Repository { nameWithOwner } ... on Ref { name target { oid } } } }`,
		map[string]any{"ids": []string{repoID, refID}})
	if len(gqlErrors(t, r)) != 0 || !strings.Contains(string(r.Raw), `"nameWithOwner":"acme/mono"`) || !strings.Contains(string(r.Raw), head) {
		t.Fatalf("nodes: %s", r.Raw)
	}
	r = gql(t, ts, "/graphql", `query { node(id: "R_bm9wZS9ub3Bl") { id } }`, nil)
	if errs := gqlErrors(t, r); len(errs) != 1 || errs[0]["type"] != "NOT_FOUND" || !strings.Contains(string(r.Raw), `"node":null`) {
		t.Fatalf("unknown node: %s", r.Raw)
	}
}

// What the fake knows it answers: the viewer and the repository's owner
// and settings.
func TestGraphQLViewerAndOwner(t *testing.T) {
	ts, _ := seeded(t)
	r := gql(t, ts, "/graphql", `query { viewer { login id } repository(owner: "acme", name: "mono") {
	  owner { __typename login ... on User { id } } isPrivate visibility isArchived createdAt viewerPermission databaseId } }`, nil)
	raw := string(r.Raw)
	if len(gqlErrors(t, r)) != 0 || !strings.Contains(raw, `"viewer":{"login":"octocat"`) || !strings.Contains(raw, `"__typename":"User","login":"acme"`) ||
		!strings.Contains(raw, `"visibility":"PUBLIC"`) || !strings.Contains(raw, `"viewerPermission":"ADMIN"`) {
		t.Fatalf("reply: %s", raw)
	}
}

// Repository.refs lists branches or tags by prefix, paged like every
// connection.
func TestGraphQLRefsConnection(t *testing.T) {
	ts, head := seeded(t)
	for _, tag := range []string{"v2", "v1", "w1"} {
		expect(t, call(t, ts, "POST", "/repos/acme/mono/git/refs", map[string]any{"ref": "refs/tags/" + tag, "sha": head}), 201, "")
	}
	q := `query($after: String) { repository(owner: "acme", name: "mono") {
	  refs(refPrefix: "refs/tags/", first: 2, after: $after, query: "v") { totalCount pageInfo { hasNextPage endCursor } edges { cursor node { name prefix target { oid } } } }
	  branches: refs(refPrefix: "refs/heads/", first: 10) { nodes { name } }
	} }`
	r := gql(t, ts, "/graphql", q, nil)
	var body struct {
		Data struct {
			Repository struct {
				Refs struct {
					TotalCount int
					PageInfo   struct {
						HasNextPage bool
						EndCursor   string
					}
					Edges []struct {
						Node struct{ Name, Prefix string }
					}
				}
				Branches struct{ Nodes []struct{ Name string } }
			}
		}
	}
	if err := json.Unmarshal(r.Raw, &body); err != nil || len(gqlErrors(t, r)) != 0 {
		t.Fatalf("%v %s", err, r.Raw)
	}
	refs := body.Data.Repository.Refs
	if refs.TotalCount != 2 || len(refs.Edges) != 2 || refs.Edges[0].Node.Name != "v1" || refs.Edges[1].Node.Name != "v2" ||
		refs.Edges[0].Node.Prefix != "refs/tags/" || refs.PageInfo.HasNextPage {
		t.Fatalf("tags: %s", r.Raw)
	}
	if b := body.Data.Repository.Branches.Nodes; len(b) != 1 || b[0].Name != "main" {
		t.Fatalf("branches: %s", r.Raw)
	}
}

// A node ID handed out before a rename still resolves after it.
func TestGraphQLNodeIDSurvivesRename(t *testing.T) {
	ts, _ := seeded(t)
	r := gql(t, ts, "/graphql", `query { repository(owner: "acme", name: "mono") { id ref(qualifiedName: "main") { id } } }`, nil)
	repoID := r.str(t, "data", "repository", "id")
	if err := ts.RenameRepo("acme", "mono", "mono2"); err != nil {
		t.Fatal(err)
	}
	r = gql(t, ts, "/graphql", `query($id: ID!) { node(id: $id) { ... on Repository { nameWithOwner } } }`, map[string]any{"id": repoID})
	if len(gqlErrors(t, r)) != 0 || !strings.Contains(string(r.Raw), `"nameWithOwner":"acme/mono2"`) {
		t.Fatalf("after a rename: %s", r.Raw)
	}
}

// Pull requests over GraphQL are the REST ones: by number, listed by
// state and branch, and associated with their head ref.
func TestGraphQLPullRequests(t *testing.T) {
	ts, _ := seeded(t)
	if _, err := ts.Seed("acme", "mono", "feature", "f", File{Path: "f.txt", Content: []byte("f")}); err != nil {
		t.Fatal(err)
	}
	expect(t, call(t, ts, "POST", "/repos/acme/mono/pulls", map[string]any{"title": "T", "body": "B", "head": "feature", "base": "main"}), 201, "")
	expect(t, call(t, ts, "POST", "/repos/acme/mono/issues/1/labels", map[string]any{"labels": []string{"deploy"}}), 200, "")
	q := `query($states: [PullRequestState!]) { repository(owner: "acme", name: "mono") {
	  pullRequest(number: 1) { number title body state headRefName baseRefName author { login } url }
	  pullRequests(first: 10, states: $states, labels: ["deploy"]) { totalCount nodes { number } }
	  ref(qualifiedName: "refs/heads/feature") { associatedPullRequests(first: 5, states: $states) { nodes { number state } } }
	} }`
	r := gql(t, ts, "/graphql", q, map[string]any{"states": []string{"OPEN"}})
	raw := string(r.Raw)
	if len(gqlErrors(t, r)) != 0 || !strings.Contains(raw, `"pullRequest":{"number":1,"title":"T","body":"B","state":"OPEN","headRefName":"feature","baseRefName":"main","author":{"login":"octocat"}`) ||
		!strings.Contains(raw, `"pullRequests":{"totalCount":1`) || !strings.Contains(raw, `"associatedPullRequests":{"nodes":[{"number":1,"state":"OPEN"}]}`) {
		t.Fatalf("reply: %s", raw)
	}
	expect(t, call(t, ts, "PATCH", "/repos/acme/mono/pulls/1", map[string]any{"state": "closed"}), 200, "")
	r = gql(t, ts, "/graphql", q, map[string]any{"states": []string{"OPEN"}})
	if raw := string(r.Raw); !strings.Contains(raw, `"totalCount":0`) || !strings.Contains(raw, `"associatedPullRequests":{"nodes":[]}`) || !strings.Contains(raw, `"state":"CLOSED"`) {
		t.Fatalf("after close: %s", raw)
	}
	r = gql(t, ts, "/graphql", `query { repository(owner: "acme", name: "mono") { pullRequest(number: 9) { number } } }`, nil)
	if errs := gqlErrors(t, r); len(errs) != 1 || errs[0]["type"] != "NOT_FOUND" {
		t.Fatalf("missing pull request: %s", r.Raw)
	}
}
