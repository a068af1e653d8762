package ghclient_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http/httptest"

	"github.com/ghcommitter/ghcommitter/committer/ghclient"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

// A client for a GitHub that fails twice before answering: the read is
// retried, the caller sees only the answer.
func Example() {
	fake := githubtest.New(githubtest.WithToken("ghp_example"))
	if err := fake.CreateRepo("acme", "mono", false); err != nil {
		log.Fatal(err)
	}
	if _, err := fake.Seed("acme", "mono", "main", "initial", githubtest.File{Path: "README.md", Content: []byte("hello\n")}); err != nil {
		log.Fatal(err)
	}
	const getRef = "GET /repos/{owner}/{repo}/git/ref/{ref...}"
	fake.Inject(githubtest.Fault{Route: getRef, Times: 2, Status: 502})
	srv := httptest.NewServer(fake)
	defer srv.Close()

	ctx := context.Background()
	gh, err := ghclient.New(ctx,
		ghclient.WithBaseURL(srv.URL),
		ghclient.WithToken("ghp_example"),
	)
	if err != nil {
		log.Fatal(err)
	}
	ref, _, err := gh.Git.GetRef(ctx, "acme", "mono", "heads/main")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ref.GetRef(), "read in", fake.Count(getRef), "attempts")
	// Output: refs/heads/main read in 3 attempts
}

// Authenticate as a GitHub App installed on the repository; the
// installation is looked up because its ID is 0.
func ExampleWithApp() {
	ctx := context.Background()
	gh, err := ghclient.New(ctx,
		ghclient.WithApp(ghclient.App{ID: 12345, KeyFile: "/etc/ghcommitter/app.pem", Owner: "acme", Repo: "mono"}),
		ghclient.WithBaseURL("https://ghe.example.com/"), // becomes https://ghe.example.com/api/v3/
	)
	if err != nil {
		log.Print(err)
		return
	}
	_ = gh
}

// Inside an operation that has its own retry loop, switch transport
// retries off so the two loops do not multiply.
func ExampleWithoutRetries() {
	ctx := context.Background()
	gh, err := ghclient.New(ctx, ghclient.WithToken("ghp_example"))
	if err != nil {
		log.Fatal(err)
	}
	// Sent once; a 5xx or rate limit comes straight back to this caller.
	_, _, err = gh.Git.GetRef(ghclient.WithoutRetries(ctx), "acme", "mono", "heads/main")
	_ = err
}

// Wrap a client the caller already has (its own auth, proxy or tracing
// transport): the layers go on top, and a redirect to another host is
// refused instead of carrying the caller's credentials there.
func ExampleWrap() {
	fake := githubtest.New()
	if err := fake.CreateRepo("acme", "mono", false); err != nil {
		log.Fatal(err)
	}
	if _, err := fake.Seed("acme", "mono", "main", "initial", githubtest.File{Path: "README.md", Content: []byte("hello\n")}); err != nil {
		log.Fatal(err)
	}
	srv := httptest.NewServer(fake)
	defer srv.Close()

	hc, err := ghclient.Wrap(srv.Client(), srv.URL)
	if err != nil {
		log.Fatal(err)
	}
	resp, err := hc.Get(srv.URL + "/repos/acme/mono/git/ref/heads/main")
	if err != nil {
		log.Fatal(err)
	}
	resp.Body.Close()
	fmt.Println(resp.StatusCode)

	_, err = hc.Get("https://elsewhere.example/steal")
	var fe *ghclient.ForeignHostError
	fmt.Println(errors.As(err, &fe))
	// Output:
	// 200
	// true
}
