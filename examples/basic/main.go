// Command basic commits a few files to a branch in one commit and prints the
// commit and what it did to each file.
//
// By default it runs against an embedded fake GitHub (committer/githubtest)
// holding acme/monorepo, so it needs no network and no token:
//
//	go run ./examples/basic
//
// Against GitHub, give a repository you may write to and a token with
// contents: write in GITHUB_TOKEN (GITHUB_API_URL selects a GitHub Enterprise
// Server):
//
//	GITHUB_TOKEN=... go run ./examples/basic -repo you/scratch -branch ghcommitter-example
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

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/ghclient"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Args[1:], os.Stdout)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "basic:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	_, err := runWith(ctx, args, stdout)
	return err
}

// runWith runs the example and returns the embedded fake it ran against (nil
// against GitHub), so tests can inspect the branch.
func runWith(ctx context.Context, args []string, stdout io.Writer) (*githubtest.Server, error) {
	fs := flag.NewFlagSet("basic", flag.ContinueOnError)
	fs.SetOutput(stdout)
	repoFlag := fs.String("repo", "", "`owner/name` on GitHub (needs GITHUB_TOKEN); default: an embedded fake")
	branch := fs.String("branch", "main", "branch to commit to")
	from := fs.String("from", "main", "branch to create -branch from when it does not exist")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	t, err := connect(ctx, *repoFlag)
	if err != nil {
		return nil, err
	}
	defer t.close()

	cs := committer.NewChangeSet("basic example: add hello/").
		Put("hello/README.md", []byte("# hello\n\nWritten by examples/basic without a clone.\n")).
		Put("hello/config.yaml", []byte("greeting: hello\nreplicas: 2\n")).
		PutMode("hello/run.sh", []byte("#!/bin/sh\necho hello\n"), committer.ModeExecutable)
	var opts []committer.CommitOption
	if *branch != *from {
		opts = append(opts, committer.CreateBranchFrom(*from))
	}
	res, err := t.c.Commit(ctx, *branch, cs, opts...)
	if err != nil {
		return t.fake, err
	}
	fmt.Fprintf(stdout, "repository  %s (%s)\n", res.Repository, t.where)
	fmt.Fprintf(stdout, "branch      %s\n", res.Branch)
	if res.NoOp {
		fmt.Fprintf(stdout, "commit      %s (no-op: the branch already held these files)\n", res.Commit)
		return t.fake, nil
	}
	fmt.Fprintf(stdout, "commit      %s\n", res.Commit)
	fmt.Fprintf(stdout, "parent      %s\n", res.Parent)
	fmt.Fprintf(stdout, "attempts    %d\n", res.Attempts)
	fmt.Fprintln(stdout, "files:")
	for _, f := range res.Files {
		fmt.Fprintf(stdout, "  %-9s %s\n", f.Action, f.Path)
	}
	return t.fake, nil
}

// target is the repository the example writes to.
type target struct {
	c     *committer.Committer
	fake  *githubtest.Server // nil against GitHub
	where string
	close func()
}

// connect returns a Committer for repoFlag on GitHub (token from GITHUB_TOKEN,
// API root from GITHUB_API_URL), or, when repoFlag is empty, for acme/monorepo
// on an embedded fake GitHub.
func connect(ctx context.Context, repoFlag string) (*target, error) {
	if repoFlag != "" {
		token := os.Getenv("GITHUB_TOKEN")
		if token == "" {
			return nil, errors.New("-repo needs a token in GITHUB_TOKEN")
		}
		owner, name, err := committer.ParseRepo(repoFlag)
		if err != nil {
			return nil, err
		}
		api := os.Getenv("GITHUB_API_URL")
		if api == "" {
			api = "https://api.github.com/"
		}
		gh, err := ghclient.New(ctx, ghclient.WithToken(token), ghclient.WithBaseURL(api))
		if err != nil {
			return nil, err
		}
		c, err := committer.New(gh, owner, name)
		if err != nil {
			return nil, err
		}
		return &target{c: c, where: api, close: func() {}}, nil
	}
	fake := githubtest.New()
	if err := fake.CreateRepo("acme", "monorepo", true); err != nil {
		return nil, err
	}
	hs := httptest.NewServer(fake)
	gh, err := ghclient.New(ctx, ghclient.WithBaseURL(hs.URL))
	if err == nil {
		var c *committer.Committer
		if c, err = committer.New(gh, "acme", "monorepo"); err == nil {
			return &target{c: c, fake: fake, where: "embedded fake GitHub", close: hs.Close}, nil
		}
	}
	hs.Close()
	return nil, err
}
