package githubtest

import (
	"strings"
	"testing"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/graphql/resolve"
)

const mUpdateRefs = `mutation UpdateRefs($input: UpdateRefsInput!) {
  updateRefs(input: $input) { clientMutationId }
}`

// refsFixture: acme/mono seeded, its node ID, and a commit on top of main
// that is not on any branch yet.
func refsFixture(t *testing.T) (ts *TestServer, repoID, head, next string) {
	t.Helper()
	ts, head = seeded(t)
	r := gql(t, ts, "/graphql", `query { repository(owner: "acme", name: "mono") { id } }`, nil)
	repoID = r.str(t, "data", "repository", "id")
	c, _ := ts.Commit("acme", "mono", head)
	next = call(t, ts, "POST", "/repos/acme/mono/git/commits", map[string]any{"message": "next", "tree": c.Tree, "parents": []string{head}}).str(t, "sha")
	return ts, repoID, head, next
}

func updateRefs(t *testing.T, ts *TestServer, repoID string, ups ...map[string]any) reply {
	t.Helper()
	return gql(t, ts, "/graphql", mUpdateRefs, map[string]any{"input": map[string]any{"repositoryId": repoID, "refUpdates": ups, "clientMutationId": "c1"}},
		"Accept", PreviewUpdateRefs)
}

func ru(name, before, after string, force bool) map[string]any {
	m := map[string]any{"name": name, "afterOid": after, "force": force}
	if before != "" {
		m["beforeOid"] = before
	}
	return m
}

// updateRefs is a schema preview: without its media type GitHub does not
// have the member, and neither does the fake. Nothing moves.
func TestUpdateRefsNeedsPreviewHeader(t *testing.T) {
	ts, repoID, head, next := refsFixture(t)
	r := gql(t, ts, "/graphql", mUpdateRefs, map[string]any{"input": map[string]any{"repositoryId": repoID,
		"refUpdates": []any{ru("refs/heads/main", head, next, false)}}})
	errs := gqlErrors(t, r)
	if len(errs) == 0 || strings.Contains(string(r.Raw), `"data"`) || !strings.Contains(string(r.Raw), "doesn't exist on type 'Mutation'") {
		t.Fatalf("want the preview member refused: %s", r.Raw)
	}
	if h, _ := ts.Head("acme", "mono", "main"); h != head {
		t.Fatal("main moved without the preview header")
	}
}

// A branch and a tag move in one call, each guarded by its beforeOid.
func TestUpdateRefsBranchAndTagAtomically(t *testing.T) {
	ts, repoID, head, next := refsFixture(t)
	r := updateRefs(t, ts, repoID, ru("refs/heads/main", head, next, false), ru("refs/tags/v1", resolve.ZeroOid, next, false))
	if len(gqlErrors(t, r)) != 0 || r.str(t, "data", "updateRefs", "clientMutationId") != "c1" {
		t.Fatalf("updateRefs: %s", r.Raw)
	}
	if h, _ := ts.Head("acme", "mono", "main"); h != next {
		t.Fatalf("main at %s, want %s", h, next)
	}
	if g := call(t, ts, "GET", "/repos/acme/mono/git/ref/tags/v1", nil); g.Status != 200 || !strings.Contains(string(g.Raw), next) {
		t.Fatalf("tag: %d %s", g.Status, g.Raw)
	}
	// Delete the tag (afterOid all zeros), guarded by its value.
	r = updateRefs(t, ts, repoID, ru("refs/tags/v1", next, resolve.ZeroOid, false))
	if len(gqlErrors(t, r)) != 0 {
		t.Fatalf("delete: %s", r.Raw)
	}
	if g := call(t, ts, "GET", "/repos/acme/mono/git/ref/tags/v1", nil); g.Status != 404 {
		t.Fatalf("deleted tag still there: %d", g.Status)
	}
}

// One refused ref refuses the whole call: nothing is applied, and the
// error names the ref.
func TestUpdateRefsAllOrNone(t *testing.T) {
	ts, repoID, head, next := refsFixture(t)
	before := len(ts.RefUpdates("acme", "mono"))
	for _, tc := range []struct {
		name, typ, ref string
		ups            []map[string]any
	}{
		{"stale beforeOid", "STALE_DATA", "refs/heads/main",
			[]map[string]any{ru("refs/tags/v1", resolve.ZeroOid, next, false), ru("refs/heads/main", next, next, false)}},
		{"must not exist", "STALE_DATA", "refs/heads/main",
			[]map[string]any{ru("refs/tags/v1", "", next, false), ru("refs/heads/main", resolve.ZeroOid, next, false)}},
		{"not a fast forward", "UNPROCESSABLE", "refs/heads/main",
			[]map[string]any{ru("refs/tags/v1", "", next, false), ru("refs/heads/main", "", ts.rootCommit(t, head), false)}},
		{"no such object", "UNPROCESSABLE", "refs/heads/x",
			[]map[string]any{ru("refs/tags/v1", "", next, false), ru("refs/heads/x", "", head40, false)}},
		{"delete what is not there", "UNPROCESSABLE", "refs/heads/nope",
			[]map[string]any{ru("refs/tags/v1", "", next, false), ru("refs/heads/nope", "", resolve.ZeroOid, false)}},
		{"delete the default branch", "UNPROCESSABLE", "refs/heads/main",
			[]map[string]any{ru("refs/tags/v1", "", next, false), ru("refs/heads/main", "", resolve.ZeroOid, false)}},
		{"bad name", "UNPROCESSABLE", "refs/heads/a..b",
			[]map[string]any{ru("refs/tags/v1", "", next, false), ru("refs/heads/a..b", "", next, false)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := updateRefs(t, ts, repoID, tc.ups...)
			errs := gqlErrors(t, r)
			if len(errs) != 1 || errs[0]["type"] != tc.typ || !strings.Contains(errs[0]["message"].(string), tc.ref) ||
				!strings.Contains(string(r.Raw), `"updateRefs":null`) {
				t.Fatalf("want one %s error naming %s: %s", tc.typ, tc.ref, r.Raw)
			}
		})
	}
	if h, _ := ts.Head("acme", "mono", "main"); h != head {
		t.Fatal("main moved")
	}
	if n := len(ts.RefUpdates("acme", "mono")); n != before {
		t.Fatalf("%d ref updates applied by refused calls", n-before)
	}
}

// force allows a non-fast-forward move; a tag moves only with force.
func TestUpdateRefsForce(t *testing.T) {
	ts, repoID, head, next := refsFixture(t)
	side := ts.mustSeedSide(t, head)
	if r := updateRefs(t, ts, repoID, ru("refs/heads/main", head, next, false), ru("refs/tags/v1", resolve.ZeroOid, head, false)); len(gqlErrors(t, r)) != 0 {
		t.Fatal(string(r.Raw))
	}
	if r := updateRefs(t, ts, repoID, ru("refs/heads/main", next, side, true)); len(gqlErrors(t, r)) != 0 {
		t.Fatalf("forced: %s", r.Raw)
	}
	ups := ts.RefUpdates("acme", "mono")
	if last := ups[len(ups)-1]; last.New != side || !last.Forced || last.FastForward {
		t.Fatalf("last update %+v, want a forced non-fast-forward", last)
	}
	if r := updateRefs(t, ts, repoID, ru("refs/tags/v1", head, next, false)); len(gqlErrors(t, r)) != 1 {
		t.Fatalf("a tag moved without force: %s", r.Raw)
	}
	if r := updateRefs(t, ts, repoID, ru("refs/tags/v1", head, next, true)); len(gqlErrors(t, r)) != 0 {
		t.Fatalf("a tag with force: %s", r.Raw)
	}
	// An unknown repository node.
	r := updateRefs(t, ts, "R_bm9wZQ", ru("refs/heads/main", "", next, false))
	if errs := gqlErrors(t, r); len(errs) != 1 || errs[0]["type"] != "NOT_FOUND" {
		t.Fatalf("unknown repository: %s", r.Raw)
	}
}

// mustSeedSide makes a commit on top of base that is on no branch.
func (ts *TestServer) mustSeedSide(t *testing.T, base string) string {
	t.Helper()
	c, _ := ts.Commit("acme", "mono", base)
	return call(t, ts, "POST", "/repos/acme/mono/git/commits", map[string]any{"message": "side", "tree": c.Tree, "parents": []string{base}}).str(t, "sha")
}

// rootCommit makes a parentless commit with base's tree: never a fast
// forward from anything.
func (ts *TestServer) rootCommit(t *testing.T, base string) string {
	t.Helper()
	c, _ := ts.Commit("acme", "mono", base)
	return call(t, ts, "POST", "/repos/acme/mono/git/commits", map[string]any{"message": "root", "tree": c.Tree}).str(t, "sha")
}

// createRef, updateRef (fast-forward unless force) and deleteRef, by node
// IDs, through the same checks and rules as updateRefs.
func TestGraphQLSingleRefMutations(t *testing.T) {
	ts, repoID, head, next := refsFixture(t)
	r := gql(t, ts, "/graphql", `mutation($r: ID!, $oid: GitObjectID!) { createRef(input: {repositoryId: $r, name: "refs/heads/topic", oid: $oid}) { ref { id name target { oid } } } }`,
		map[string]any{"r": repoID, "oid": head})
	if len(gqlErrors(t, r)) != 0 {
		t.Fatalf("createRef: %s", r.Raw)
	}
	refID := r.obj(t)["data"].(map[string]any)["createRef"].(map[string]any)["ref"].(map[string]any)["id"].(string)
	if rest := call(t, ts, "GET", "/repos/acme/mono/git/ref/heads/topic", nil); rest.str(t, "node_id") != refID {
		t.Fatalf("REST node_id %q, GraphQL id %q", rest.str(t, "node_id"), refID)
	}
	r = gql(t, ts, "/graphql", `mutation($r: ID!, $oid: GitObjectID!) { createRef(input: {repositoryId: $r, name: "refs/heads/topic", oid: $oid}) { ref { id } } }`,
		map[string]any{"r": repoID, "oid": head})
	if len(gqlErrors(t, r)) != 1 {
		t.Fatalf("createRef of an existing ref: %s", r.Raw)
	}
	upd := `mutation($id: ID!, $oid: GitObjectID!, $f: Boolean) { updateRef(input: {refId: $id, oid: $oid, force: $f}) { ref { target { oid } } } }`
	if r := gql(t, ts, "/graphql", upd, map[string]any{"id": refID, "oid": next}); len(gqlErrors(t, r)) != 0 {
		t.Fatalf("updateRef: %s", r.Raw)
	}
	root := ts.rootCommit(t, head)
	if r := gql(t, ts, "/graphql", upd, map[string]any{"id": refID, "oid": root}); len(gqlErrors(t, r)) != 1 {
		t.Fatalf("a non-fast-forward updateRef: %s", r.Raw)
	}
	if r := gql(t, ts, "/graphql", upd, map[string]any{"id": refID, "oid": root, "f": true}); len(gqlErrors(t, r)) != 0 {
		t.Fatalf("forced updateRef: %s", r.Raw)
	}
	if h, _ := ts.Head("acme", "mono", "topic"); h != root {
		t.Fatalf("topic at %s, want %s", h, root)
	}
	del := `mutation($id: ID!) { deleteRef(input: {refId: $id}) { clientMutationId } }`
	if r := gql(t, ts, "/graphql", del, map[string]any{"id": refID}); len(gqlErrors(t, r)) != 0 {
		t.Fatalf("deleteRef: %s", r.Raw)
	}
	if r := gql(t, ts, "/graphql", del, map[string]any{"id": refID}); len(gqlErrors(t, r)) != 1 || gqlErrors(t, r)[0]["type"] != "NOT_FOUND" {
		t.Fatalf("deleteRef of a deleted ref: %s", r.Raw)
	}
	if _, err := ts.AddRuleset("acme", "mono", Ruleset{Include: []string{"~ALL"}, Rules: []Rule{RestrictCreations()}}); err != nil {
		t.Fatal(err)
	}
	r = gql(t, ts, "/graphql", `mutation($r: ID!, $oid: GitObjectID!) { createRef(input: {repositoryId: $r, name: "refs/heads/ruled", oid: $oid}) { ref { id } } }`,
		map[string]any{"r": repoID, "oid": head})
	if errs := gqlErrors(t, r); len(errs) != 1 || !strings.Contains(errs[0]["message"].(string), "creations being restricted") {
		t.Fatalf("createRef under a creation rule: %s", r.Raw)
	}
}

// MoveBranchBeforeNextMutation: another writer moves the branch between
// the client's read and its mutation, which its pinned head then refuses.
func TestMoveBranchBeforeNextMutation(t *testing.T) {
	ts, repoID, head, next := refsFixture(t)
	ts.MoveBranchBeforeNextMutation("acme", "mono", "main", File{Path: "other.txt", Content: []byte("o")})
	r := updateRefs(t, ts, repoID, ru("refs/heads/main", head, next, false))
	if errs := gqlErrors(t, r); len(errs) != 1 || errs[0]["type"] != "STALE_DATA" {
		t.Fatalf("updateRefs after a concurrent writer: %s", r.Raw)
	}
	moved, _ := ts.Head("acme", "mono", "main")
	if moved == head {
		t.Fatal("the concurrent writer did not commit")
	}
	ts.MoveBranchBeforeNextMutation("acme", "mono", "main", File{Path: "other2.txt", Content: []byte("o")})
	g := gql(t, ts, "/graphql", mCommit, commitInput(moved, map[string]string{"x.txt": "x"}))
	if errs := gqlErrors(t, g); len(errs) != 1 || errs[0]["type"] != "STALE_DATA" {
		t.Fatalf("createCommitOnBranch after a concurrent writer: %s", g.Raw)
	}
	// Hooks fire once.
	now, _ := ts.Head("acme", "mono", "main")
	if r := updateRefs(t, ts, repoID, ru("refs/heads/main", now, childOf(t, ts, now, "y", "y"), false)); len(gqlErrors(t, r)) != 0 {
		t.Fatalf("a later updateRefs: %s", r.Raw)
	}
}
