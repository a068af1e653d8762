package ghgraphql_test

import (
	"context"
	"testing"

	"github.com/ghcommitter/ghcommitter/committer/ghclient"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
	"github.com/ghcommitter/ghcommitter/committer/internal/ghgraphql"
)

// Over the library's own *http.Client (ghclient): the token reaches the
// GraphQL endpoint of a GHES-style base, which is outside /api/v3/, and a
// mutation goes out once.
func TestOverGHClient(t *testing.T) {
	ts := githubtest.NewServer(t, githubtest.WithToken(token))
	head, err := ts.Seed("acme", "mono", "main", "seed", githubtest.File{Path: "a", Content: []byte("a")})
	if err != nil {
		t.Fatal(err)
	}
	base := ts.URL + "api/v3/"
	hc, err := ghclient.NewHTTPClient(context.Background(), ghclient.WithToken(token), ghclient.WithBaseURL(base))
	if err != nil {
		t.Fatal(err)
	}
	ep, err := ghgraphql.EndpointFor(base, "")
	if err != nil {
		t.Fatal(err)
	}
	c := ghgraphql.New(hc, ep)
	ctx := context.Background()
	h, found, err := c.BranchHead(ctx, "acme", "mono", "main")
	if err != nil || !found || h.Commit != head {
		t.Fatalf("BranchHead: %+v %v %v", h, found, err)
	}
	got, err := c.CreateCommitOnBranch(ctx, input(head, "x", map[string]string{"b": "b"}))
	if err != nil {
		t.Fatal(err)
	}
	if now, _ := ts.Head("acme", "mono", "main"); now != got.OID {
		t.Fatalf("head %s, commit %s", now, got.OID)
	}
	if n := ts.Count("POST /api/graphql"); n != 2 {
		t.Fatalf("%d GraphQL requests, want 2", n)
	}
}
