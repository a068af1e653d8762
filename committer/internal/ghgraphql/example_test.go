package ghgraphql_test

import (
	"context"
	"fmt"
	"net/http/httptest"

	"github.com/ghcommitter/ghcommitter/committer/githubtest"
	"github.com/ghcommitter/ghcommitter/committer/internal/ghgraphql"
)

// Commit one file on a branch with createCommitOnBranch, against the fake.
func Example() {
	fake := githubtest.New()
	head, _ := fake.Seed("acme", "mono", "main", "seed", githubtest.File{Path: "README.md", Content: []byte("hi\n")})
	srv := httptest.NewServer(fake)
	defer srv.Close()

	endpoint, _ := ghgraphql.EndpointFor(srv.URL+"/api/v3/", "") // GHES-style base
	c := ghgraphql.New(srv.Client(), endpoint)
	ctx := context.Background()

	h, _, _ := c.BranchHead(ctx, "acme", "mono", "main")
	_, err := c.CreateCommitOnBranch(ctx, ghgraphql.CommitInput{
		Owner: "acme", Name: "mono", Branch: "main", ExpectedHead: h.Commit,
		Headline: "add notes", Additions: []ghgraphql.Addition{{Path: "NOTES.md", Contents: []byte("n\n")}},
	})
	fmt.Println(endpoint == srv.URL+"/api/graphql", h.Commit == head, err)

	// The same commit again: the branch moved on, so GitHub answers STALE_DATA.
	_, err = c.CreateCommitOnBranch(ctx, ghgraphql.CommitInput{
		Owner: "acme", Name: "mono", Branch: "main", ExpectedHead: h.Commit, Headline: "again",
	})
	fmt.Println(ghgraphql.IsStale(err))
	// Output:
	// true true <nil>
	// true
}
