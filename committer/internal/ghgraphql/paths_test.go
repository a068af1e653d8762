package ghgraphql_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/ghcommitter/ghcommitter/committer/githubtest"
	"github.com/ghcommitter/ghcommitter/committer/internal/ghgraphql"
)

// Paths answers what is at each path of a commit's tree (mode, type, oid)
// and leaves absent paths out, in one query per MaxPathsPerQuery paths.
func TestPaths(t *testing.T) {
	ts := githubtest.NewServer(t, githubtest.WithToken(token))
	head, err := ts.Seed("acme", "mono", "main", "seed",
		githubtest.File{Path: "a/b.txt", Content: []byte("b\n")},
		githubtest.File{Path: "a/run", Content: []byte("#!/bin/sh\n"), Mode: "100755"},
		githubtest.File{Path: "a/link", Content: []byte("b.txt"), Mode: "120000"},
		githubtest.File{Path: `q/"quoted" $p0 \n.txt`, Content: []byte("q\n")})
	if err != nil {
		t.Fatal(err)
	}
	c := ghgraphql.New(&http.Client{Transport: authed{}}, ts.URL+"graphql")
	paths := []string{"a", "a/b.txt", "a/run", "a/link", "a/b.txt/x", "nope", "a/nope", `q/"quoted" $p0 \n.txt`}
	for i := range ghgraphql.MaxPathsPerQuery {
		paths = append(paths, fmt.Sprintf("absent/%d", i))
	}
	ts.ResetRequests()
	got, id, err := c.Paths(context.Background(), "acme", "mono", head, paths, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(ts.Requests()); n != 2 {
		t.Errorf("%d requests for %d paths, want 2", n, len(paths))
	}
	if want := restNodeID(t, ts.URL+"repos/acme/mono"); id != want {
		t.Errorf("repository ID %q, want %q (GET /repos's node_id)", id, want)
	}
	want := map[string][2]string{"a": {"040000", "tree"}, "a/b.txt": {"100644", "blob"}, "a/run": {"100755", "blob"},
		"a/link": {"120000", "blob"}, `q/"quoted" $p0 \n.txt`: {"100644", "blob"}}
	if len(got) != len(want) {
		t.Errorf("got %d entries, want %d: %v", len(got), len(want), got)
	}
	for p, w := range want {
		e, ok := got[p]
		if !ok || e.Mode != w[0] || e.Type != w[1] || len(e.OID) != 40 {
			t.Errorf("%s: %+v, want mode %s type %s", p, e, w[0], w[1])
		}
	}
	if _, _, err := c.Paths(context.Background(), "acme", "mono", "0123456789012345678901234567890123456789", []string{"a"}, nil); err == nil {
		t.Error("a commit that is not there: no error")
	}
}

// restNodeID is the node_id of GET url.
func restNodeID(t *testing.T, url string) string {
	t.Helper()
	resp, err := (&http.Client{Transport: authed{}}).Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got struct {
		NodeID string `json:"node_id"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil || got.NodeID == "" {
		t.Fatalf("GET %s: %s, node_id %q, %v", url, resp.Status, got.NodeID, err)
	}
	return got.NodeID
}

type authed struct{}

func (authed) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "bearer "+token)
	return http.DefaultTransport.RoundTrip(r)
}

// TestPathsTexts: the entries asked for with their text carry the blob's
// content in the same request; a binary blob, a directory, a path not
// asked for, and an absent path carry none.
func TestPathsTexts(t *testing.T) {
	ts := githubtest.NewServer(t, githubtest.WithToken(token))
	head, err := ts.Seed("acme", "mono", "main", "seed",
		githubtest.File{Path: "a/index.yaml", Content: []byte("stages:\n  - é\n")},
		githubtest.File{Path: "a/bin", Content: []byte("x\x00y")},
		githubtest.File{Path: "a/other.txt", Content: []byte("other\n")},
		githubtest.File{Path: "a/empty", Content: nil})
	if err != nil {
		t.Fatal(err)
	}
	c := ghgraphql.New(&http.Client{Transport: authed{}}, ts.URL+"graphql")
	ts.ResetRequests()
	texts := map[string]bool{"a/index.yaml": true, "a/bin": true, "a": true, "nope": true, "a/empty": true}
	got, _, err := c.Paths(context.Background(), "acme", "mono", head, []string{"a", "a/index.yaml", "a/bin", "a/other.txt", "nope", "a/empty"}, texts)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(ts.Requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
	if s := string(got["a/index.yaml"].Text); s != "stages:\n  - é\n" {
		t.Errorf("a/index.yaml text %q", s)
	}
	if e := got["a/empty"]; e.Text == nil || len(e.Text) != 0 {
		t.Errorf("a/empty: text %v, want empty, not nil", e.Text)
	}
	for _, p := range []string{"a/bin", "a", "a/other.txt"} {
		if got[p].Text != nil {
			t.Errorf("%s: text %q, want none", p, got[p].Text)
		}
	}
}
