// Command gogithub-latest is a program on the newest go-github that commits
// through ghcommitter: it makes its own go-github client for its own calls,
// and hands that client's *http.Client (its auth, transport and proxy) to
// ghcommitter. It imports no type of the go-github version ghcommitter is
// built on: the two meet only at net/http.
//
// By default it runs against an embedded fake GitHub (committer/githubtest)
// holding acme/monorepo, so it needs no network and no token:
//
//	cd examples/gogithub-latest && go run .
//
// Against GitHub, give a repository you may write to and a token with
// contents: write (GITHUB_API_URL selects a GitHub Enterprise Server):
//
//	GITHUB_TOKEN=... go run . -repo you/scratch -branch main
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"os/signal"
	"strconv"
	"strings"

	"github.com/google/go-github/v93/github"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/ghclient"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

// fakeToken is the token the embedded fake requires, so that the example
// shows the go-github client's authentication reaching ghcommitter's calls.
const fakeToken = "example-token"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	_, err := run(ctx, os.Args[1:], os.Stdout)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "gogithub-latest:", err)
		os.Exit(1)
	}
}

// target is where the example writes: a repository on GitHub, or
// acme/monorepo on an embedded fake.
type target struct {
	owner, name, api, token string
	fake                    *githubtest.Server
	close                   func()
}

func open(repo string) (*target, error) {
	if repo == "" {
		fake := githubtest.New(githubtest.WithToken(fakeToken))
		if err := fake.CreateRepo("acme", "monorepo", true); err != nil {
			return nil, err
		}
		hs := httptest.NewServer(fake)
		return &target{owner: "acme", name: "monorepo", api: hs.URL + "/", token: fakeToken, fake: fake, close: hs.Close}, nil
	}
	owner, name, ok := strings.Cut(repo, "/")
	if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
		return nil, fmt.Errorf("-repo %q: want owner/name", repo)
	}
	token := os.Getenv("GITHUB_TOKEN")
	if token == "" {
		return nil, errors.New("-repo needs a token in GITHUB_TOKEN")
	}
	api := os.Getenv("GITHUB_API_URL")
	if api == "" {
		api = "https://api.github.com/"
	}
	return &target{owner: owner, name: name, api: strings.TrimSuffix(api, "/") + "/", token: token, close: func() {}}, nil
}

// run runs the example and returns the embedded fake it ran against (nil
// against GitHub), so tests can inspect the branch.
func run(ctx context.Context, args []string, stdout io.Writer) (*githubtest.Server, error) {
	fs := flag.NewFlagSet("gogithub-latest", flag.ContinueOnError)
	fs.SetOutput(stdout)
	repo := fs.String("repo", "", "`owner/name` on GitHub (needs GITHUB_TOKEN); default: an embedded fake")
	branch := fs.String("branch", "", "branch to commit to (default: the repository's default branch)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	t, err := open(*repo)
	if err != nil {
		return nil, err
	}
	defer t.close()

	// The program's own go-github client, configured as it likes.
	gh, err := github.NewClient(github.WithAuthToken(t.token), github.WithURLs(&t.api, &t.api))
	if err != nil {
		return t.fake, err
	}
	// Its own call, on its own go-github: find the default branch.
	r, _, err := gh.Repositories.Get(ctx, t.owner, t.name)
	if err != nil {
		return t.fake, fmt.Errorf("get %s/%s: %w", t.owner, t.name, err)
	}
	if *branch == "" {
		*branch = r.GetDefaultBranch()
	}

	// ghcommitter gets the same *http.Client (the same token and
	// transport), with ghclient's layers put on it for the API at t.api.
	hc, err := ghclient.Wrap(gh.Client(), t.api)
	if err != nil {
		return t.fake, err
	}
	c, err := committer.New(t.owner, t.name, committer.WithHTTPClient(hc))
	if err != nil {
		return t.fake, err
	}
	cs := committer.NewChangeSet("gogithub-latest example: count a run").
		Put("gogithub-latest/README.md", []byte("Written through ghcommitter by a program on go-github v93.\n")).
		Edit("gogithub-latest/runs.txt", func(old []byte, _ bool) ([]byte, error) {
			n, _ := strconv.Atoi(strings.TrimSpace(string(old)))
			return []byte(strconv.Itoa(n+1) + "\n"), nil
		})
	res, err := c.Commit(ctx, *branch, cs)
	if err != nil {
		return t.fake, err
	}

	// And back on go-github: read what landed.
	commit, _, err := gh.Git.GetCommit(ctx, t.owner, t.name, res.Commit)
	if err != nil {
		return t.fake, fmt.Errorf("read commit %s back: %w", res.Commit, err)
	}
	fmt.Fprintf(stdout, "repository  %s/%s, default branch %s\n", t.owner, t.name, r.GetDefaultBranch())
	fmt.Fprintf(stdout, "committed   %s to %s in %d attempt(s)\n", res.Commit, res.Branch, res.Attempts)
	fmt.Fprintf(stdout, "read back   %q (tree %s)\n", firstLine(commit.GetMessage()), commit.GetTree().GetSHA())
	return t.fake, nil
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
