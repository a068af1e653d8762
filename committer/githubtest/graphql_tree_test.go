package githubtest

import (
	"encoding/json"
	"strconv"
	"testing"
)

// Many paths in one query: Commit.file(path:) and object(expression:
// "<oid>:<path>") answer what is at each (mode, type, oid), null where
// nothing is, and agree with the REST recursive tree.
func TestGraphQLPathLookups(t *testing.T) {
	ts, head := seeded(t)
	q := `query($e1: String!, $e2: String!, $e3: String!) { repository(owner: "acme", name: "mono") {
	  object(oid: "` + head + `") { ... on Commit {
	    readme: file(path: "README.md") { mode type oid name path size lineCount extension }
	    run: file(path: "bin/run") { mode type oid }
	    link: file(path: "link") { mode type oid }
	    dir: file(path: "dir") { mode type oid object { ... on Tree { entries { name path type } } } }
	    deep: file(path: "dir/sub/b.txt") { mode type oid object { ... on Blob { text } } }
	    missing: file(path: "dir/nope") { oid }
	    underFile: file(path: "README.md/x") { oid }
	  } }
	  e1: object(expression: $e1) { __typename oid ... on Blob { byteSize } }
	  e2: object(expression: $e2) { __typename oid ... on Tree { entries { path mode } } }
	  e3: object(expression: $e3) { oid }
	} }`
	r := gql(t, ts, "/graphql", q, map[string]any{"e1": head + ":dir/a.txt", "e2": head + ":dir/sub", "e3": head + ":nope/x"})
	if errs := gqlErrors(t, r); len(errs) != 0 {
		t.Fatalf("errors: %s", r.Raw)
	}
	var body struct {
		Data struct {
			Repository struct {
				Object map[string]json.RawMessage
				E1     map[string]any
				E2     map[string]any
				E3     any
			}
		}
	}
	if err := json.Unmarshal(r.Raw, &body); err != nil {
		t.Fatal(err)
	}
	// The oracle: the REST recursive tree.
	rest := call(t, ts, "GET", "/repos/acme/mono/git/trees/"+head+"?recursive=1", nil)
	want := map[string]map[string]any{}
	for _, e := range rest.obj(t)["tree"].([]any) {
		m := e.(map[string]any)
		want[m["path"].(string)] = m
	}
	for alias, p := range map[string]string{"readme": "README.md", "run": "bin/run", "link": "link", "dir": "dir", "deep": "dir/sub/b.txt"} {
		var got map[string]any
		if err := json.Unmarshal(body.Data.Repository.Object[alias], &got); err != nil || got == nil {
			t.Fatalf("%s: %s", alias, body.Data.Repository.Object[alias])
		}
		w := want[p]
		mode, _ := strconv.ParseInt(w["mode"].(string), 8, 64)
		if got["oid"] != w["sha"] || got["type"] != w["type"] || int64(got["mode"].(float64)) != mode {
			t.Errorf("%s: got %v, REST has %v", p, got, w)
		}
	}
	for _, alias := range []string{"missing", "underFile"} {
		if s := string(body.Data.Repository.Object[alias]); s != "null" {
			t.Errorf("%s: %s, want null", alias, s)
		}
	}
	var readme map[string]any
	_ = json.Unmarshal(body.Data.Repository.Object["readme"], &readme)
	if readme["name"] != "README.md" || readme["path"] != "README.md" || readme["size"] != 6.0 || readme["lineCount"] != 1.0 || readme["extension"] != ".md" {
		t.Errorf("readme entry %v", readme)
	}
	if e1 := body.Data.Repository.E1; e1["__typename"] != "Blob" || e1["oid"] != want["dir/a.txt"]["sha"] || e1["byteSize"] != 2.0 {
		t.Errorf("e1 %v", e1)
	}
	if e2 := body.Data.Repository.E2; e2["__typename"] != "Tree" || e2["oid"] != want["dir/sub"]["sha"] {
		t.Errorf("e2 %v", e2)
	} else if es := e2["entries"].([]any); len(es) != 1 || es[0].(map[string]any)["path"] != "dir/sub/b.txt" {
		t.Errorf("e2 entries %v", es)
	}
	if body.Data.Repository.E3 != nil {
		t.Errorf("e3 %v, want null", body.Data.Repository.E3)
	}
}
