package githubtest_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"net/url"

	"github.com/ghcommitter/ghcommitter/committer/githubtest"
	"github.com/google/go-github/v66/github"
)

func Example() {
	fake := githubtest.New()
	head, _ := fake.Seed("acme", "mono", "main", "init",
		githubtest.File{Path: "README.md", Content: []byte("hello\n")})

	hs := httptest.NewServer(fake)
	defer hs.Close()
	gh := github.NewClient(nil)
	gh.BaseURL, _ = url.Parse(hs.URL + "/")

	ctx := context.Background()
	br, _, _ := gh.Repositories.GetBranch(ctx, "acme", "mono", "main", 0)
	tree, _, _ := gh.Git.CreateTree(ctx, "acme", "mono", br.GetCommit().GetCommit().GetTree().GetSHA(),
		[]*github.TreeEntry{{Path: github.String("docs/new.md"), Mode: github.String("100644"),
			Type: github.String("blob"), Content: github.String("new\n")}})
	commit, _, _ := gh.Git.CreateCommit(ctx, "acme", "mono", &github.Commit{
		Message: github.String("add docs"), Tree: tree, Parents: []*github.Commit{{SHA: &head}}}, nil)
	_, _, err := gh.Git.UpdateRef(ctx, "acme", "mono", &github.Reference{
		Ref: github.String("refs/heads/main"), Object: &github.GitObject{SHA: commit.SHA}}, false)
	fmt.Println("update:", err)

	content, _, _ := fake.ReadFile("acme", "mono", "main", "docs/new.md")
	fmt.Printf("docs/new.md: %q\n", content)
	fmt.Println("trees created:", fake.Count("POST /repos/{owner}/{repo}/git/trees"))
	// Output:
	// update: <nil>
	// docs/new.md: "new\n"
	// trees created: 1
}
