package githubtest

import (
	"strings"
	"testing"
)

// An annotated tag made over REST: its SHA is git's for the same tag
// text, refs/tags/* serve it in the refs endpoints, and it peels to its
// commit wherever a ref is read (commits/{ref}, contents?ref=, GraphQL).
func TestAnnotatedTagOverREST(t *testing.T) {
	ts, head := seeded(t)
	const rr = "/repos/acme/mono"
	r := call(t, ts, "POST", rr+"/git/tags", map[string]any{"tag": "v1.0.0", "message": "release\n", "object": head, "type": "commit",
		"tagger": map[string]any{"name": "Rel Eng", "email": "rel@example.com", "date": "2024-01-02T03:04:05Z"}})
	expect(t, r, 201, "")
	sha := r.str(t, "sha")
	g := newGitRepo(t)
	text := "object " + head + "\ntype commit\ntag v1.0.0\ntagger Rel Eng <rel@example.com> 1704164645 +0000\n\nrelease\n"
	if want := g.run([]byte(text), nil, "hash-object", "-t", "tag", "--stdin", "--literally"); sha != want {
		t.Fatalf("tag sha %s, git says %s", sha, want)
	}
	if got := call(t, ts, "GET", rr+"/git/tags/"+sha, nil); got.Status != 200 || got.str(t, "tag") != "v1.0.0" ||
		got.obj(t)["object"].(map[string]any)["sha"] != head {
		t.Fatalf("get tag: %d %s", got.Status, got.Raw)
	}
	expect(t, call(t, ts, "POST", rr+"/git/refs", map[string]any{"ref": "refs/tags/v1.0.0", "sha": sha}), 201, "")
	ref := call(t, ts, "GET", rr+"/git/ref/tags/v1.0.0", nil)
	if o := ref.obj(t)["object"].(map[string]any); o["type"] != "tag" || o["sha"] != sha {
		t.Fatalf("ref object %v", o)
	}
	if c := call(t, ts, "GET", rr+"/commits/v1.0.0", nil); c.Status != 200 || c.str(t, "sha") != head {
		t.Fatalf("commits/v1.0.0 does not peel to %s: %d %s", head, c.Status, c.Raw)
	}
	if c := call(t, ts, "GET", rr+"/contents/README.md?ref=v1.0.0", nil); c.Status != 200 {
		t.Fatalf("contents at the tag: %d %s", c.Status, c.Raw)
	}
	q := gql(t, ts, "/graphql", `query { repository(owner: "acme", name: "mono") {
	  ref(qualifiedName: "refs/tags/v1.0.0") { target { __typename oid ... on Tag { name message tagger { name } target { oid } } } }
	  file: object(expression: "v1.0.0:dir/a.txt") { ... on Blob { text } }
	} }`, nil)
	raw := string(q.Raw)
	if len(gqlErrors(t, q)) != 0 || !strings.Contains(raw, `"__typename":"Tag"`) || !strings.Contains(raw, `"target":{"oid":"`+head+`"}`) ||
		!strings.Contains(raw, `"text":"a\n"`) {
		t.Fatalf("GraphQL tag: %s", raw)
	}
	// Moving a branch to a tag object is refused; a tag that names no
	// object of its type is refused.
	expect(t, call(t, ts, "PATCH", rr+"/git/refs/heads/main", map[string]any{"sha": sha, "force": true}), 422, "not a commit")
	expect(t, call(t, ts, "POST", rr+"/git/refs", map[string]any{"ref": "refs/heads/from-tag", "sha": sha}), 422, "not a commit")
	expect(t, call(t, ts, "POST", rr+"/git/tags", map[string]any{"tag": "t", "message": "m", "object": head, "type": "blob"}), 422, "")
}
