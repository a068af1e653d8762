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
	"flag"
	"fmt"
	"io"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
	"github.com/ghcommitter/ghcommitter/examples/internal/target"
)

func main() { target.Main("basic", run) }

// run runs the example and returns the embedded fake it ran against (nil
// against GitHub), so tests can inspect the branch.
func run(ctx context.Context, args []string, stdout io.Writer) (*githubtest.Server, error) {
	fs := flag.NewFlagSet("basic", flag.ContinueOnError)
	fs.SetOutput(stdout)
	flags := target.DefineFlags(fs, "GITHUB_TOKEN", "branch to commit to")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	t, err := target.Connect(ctx, flags.Repo)
	if err != nil {
		return nil, err
	}
	defer t.Close()

	cs := committer.NewChangeSet("basic example: add hello/").
		Put("hello/README.md", []byte("# hello\n\nWritten by examples/basic without a clone.\n")).
		Put("hello/config.yaml", []byte("greeting: hello\nreplicas: 2\n")).
		PutMode("hello/run.sh", []byte("#!/bin/sh\necho hello\n"), committer.ModeExecutable)
	res, err := t.Committer.Commit(ctx, flags.Branch, cs, flags.CommitOptions()...)
	if err != nil {
		return t.Fake, err
	}
	fmt.Fprintf(stdout, "repository  %s (%s)\n", res.Repository, t.Where)
	fmt.Fprintf(stdout, "branch      %s\n", res.Branch)
	if res.NoOp {
		fmt.Fprintf(stdout, "commit      %s (no-op: the branch already held these files)\n", res.Commit)
		return t.Fake, nil
	}
	fmt.Fprintf(stdout, "commit      %s\n", res.Commit)
	fmt.Fprintf(stdout, "parent      %s\n", res.Parent)
	fmt.Fprintf(stdout, "attempts    %d\n", res.Attempts)
	fmt.Fprintln(stdout, "files:")
	for _, f := range res.Files {
		fmt.Fprintf(stdout, "  %-9s %s\n", f.Action, f.Path)
	}
	return t.Fake, nil
}
