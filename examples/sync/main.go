// Command sync mirrors a local directory into a directory of a repository:
// files missing remotely are added, changed ones updated, and remote files
// absent locally deleted, in one commit, uploading only what differs. It runs
// the sync twice to show that the second run finds nothing to do and makes
// no commit.
//
//	go run ./examples/sync                    # a sample directory, into site/
//	go run ./examples/sync -dir ./public -remote-dir docs/site
//
// Against GitHub (GITHUB_TOKEN with contents: write; GITHUB_API_URL for GHES):
//
//	GITHUB_TOKEN=... go run ./examples/sync -repo you/scratch -branch ghcommitter-sync -dir ./public
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
	"github.com/ghcommitter/ghcommitter/examples/internal/target"
)

func main() { target.Main("sync", run) }

// run runs the example and returns the embedded fake it ran against (nil
// against GitHub), so tests can inspect the branch.
func run(ctx context.Context, args []string, stdout io.Writer) (*githubtest.Server, error) {
	fs := flag.NewFlagSet("sync", flag.ContinueOnError)
	fs.SetOutput(stdout)
	flags := target.DefineFlags(fs, "GITHUB_TOKEN", "branch to commit to")
	dir := fs.String("dir", "", "local directory to mirror (default: a temporary directory with sample files)")
	remoteDir := fs.String("remote-dir", "site", "repository directory to mirror into (\".\" for the root; \"\" is refused)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if *dir == "" {
		tmp, err := sampleDir()
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
		*dir = tmp
	}
	t, err := target.Connect(ctx, flags.Repo)
	if err != nil {
		return nil, err
	}
	defer t.Close()
	if t.Fake != nil {
		// Something to update and something to delete.
		if _, err := t.Fake.Seed(t.Owner, t.Name, "main", "an older site",
			githubtest.File{Path: path.Join(*remoteDir, "index.html"), Content: []byte("<h1>old</h1>\n")},
			githubtest.File{Path: path.Join(*remoteDir, "old.html"), Content: []byte("<h1>gone soon</h1>\n")},
		); err != nil {
			return t.Fake, err
		}
	}
	opts := flags.CommitOptions()

	for run := 1; run <= 2; run++ {
		// Load afresh each run, as a separate invocation would.
		files, err := committer.LoadDir(*dir, committer.LoadOptions{})
		if err != nil {
			return t.Fake, err
		}
		cs := committer.NewChangeSet(fmt.Sprintf("sync %s/ from %s", *remoteDir, filepath.Base(*dir))).Sync(*remoteDir, files)
		plan, err := t.Committer.Plan(ctx, flags.Branch, cs, opts...)
		if err != nil {
			return t.Fake, err
		}
		fmt.Fprintf(stdout, "run %d: plan for %s@%s (%d local files -> %s/)\n", run, plan.Repository, plan.Branch, len(files), *remoteDir)
		for _, f := range plan.Files {
			fmt.Fprintf(stdout, "  %-9s %s\n", f.Action, f.Path)
		}
		res, err := t.Committer.Commit(ctx, flags.Branch, cs, opts...)
		if err != nil {
			return t.Fake, err
		}
		if res.NoOp {
			fmt.Fprintf(stdout, "  no-op: %s already mirrors %s; no commit made (head %s)\n", *remoteDir, *dir, short(res.Commit))
		} else {
			fmt.Fprintf(stdout, "  committed %s (%d paths changed, %d attempt(s))\n", short(res.Commit), len(res.Changed), res.Attempts)
		}
	}
	return t.Fake, nil
}

func short(sha string) string { return sha[:min(12, len(sha))] }

// sampleDir creates a temporary directory holding a small site.
func sampleDir() (string, error) {
	dir, err := os.MkdirTemp("", "ghcommitter-sync-")
	if err != nil {
		return "", err
	}
	for p, c := range map[string]string{
		"index.html":     "<h1>hello</h1>\n",
		"about.html":     "<h1>about</h1>\n",
		"css/site.css":   "body { font-family: sans-serif; }\n",
		"img/logo.bin":   "\x89PNG\r\n\x1a\n\x00\x00 not text",
		"bin/publish.sh": "#!/bin/sh\necho publish\n",
	} {
		full := filepath.Join(dir, filepath.FromSlash(p))
		mode := os.FileMode(0o644)
		if filepath.Ext(p) == ".sh" {
			mode = 0o755
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o750); err != nil {
			return "", err
		}
		if err := os.WriteFile(full, []byte(c), mode); err != nil {
			return "", err
		}
	}
	return dir, nil
}
