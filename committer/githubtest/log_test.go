package githubtest

import "testing"

// The log marks content-creating requests: REST writes and GraphQL
// mutations, never a GraphQL query or a GET.
func TestCountWrites(t *testing.T) {
	ts, head := seeded(t, WithToken("pat"))
	auth := []string{"Authorization", "bearer pat"}
	ts.ResetRequests()
	expect(t, call(t, ts, "GET", "/repos/acme/mono/branches/main", nil, auth...), 200, "")
	if r := gql(t, ts, "/graphql", qHead, map[string]any{"owner": "acme", "name": "mono", "ref": "refs/heads/main"}, auth...); r.Status != 200 {
		t.Fatalf("query: %d %s", r.Status, r.Raw)
	}
	if n := ts.CountWrites(); n != 0 {
		t.Fatalf("a GET and a GraphQL query counted as %d writes", n)
	}
	expect(t, call(t, ts, "POST", "/repos/acme/mono/git/blobs", map[string]any{"content": "x"}, auth...), 201, "")
	if r := gql(t, ts, "/graphql", mCommit, commitInput(head, map[string]string{"n.txt": "n\n"}), auth...); r.Status != 200 || len(gqlErrors(t, r)) != 0 {
		t.Fatalf("mutation: %d %s", r.Status, r.Raw)
	}
	if n := ts.CountWrites(); n != 2 {
		t.Fatalf("a blob and a mutation counted as %d writes, want 2", n)
	}
	log := ts.Requests()
	if len(log) != 4 || log[0].Write || log[1].Write || !log[2].Write || !log[3].Write {
		t.Fatalf("log %+v", log)
	}
}
