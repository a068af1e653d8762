package cli

import (
	"context"
	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"
	"testing"

	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

func TestCommitEngineFlag(t *testing.T) {
	for _, engine := range []string{"git-data", "graphql", "contents", "auto"} {
		t.Run(engine, func(t *testing.T) {
			srv := fake(t)
			c := newCLI(t)
			r := c.run(commitArgs(srv, "--engine", engine, "--json", "-m", "one", "--add", "a.txt=-")...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			if got, _ := readFile(t, srv, "main", "a.txt"); got != "" {
				t.Errorf("a.txt = %q", got)
			}
			route := map[string]string{
				"git-data": "POST /graphql", // updateRefs
				"graphql":  "POST /graphql",
				"contents": "PUT /repos/{owner}/{repo}/contents/{path...}",
				"auto":     "PUT /repos/{owner}/{repo}/contents/{path...}", // one file: the contents API
			}[engine]
			n := 0 // writes only: a GraphQL query that looks paths up is not one
			for _, r := range srv.Requests() {
				if r.Route == route && r.Write {
					n++
				}
			}
			if n != 1 {
				t.Errorf("%d writes to %s, want 1", n, route)
			}
			got, _, err := srv.Client.Git.GetCommit(context.Background(), "acme", "mono", head(t, srv, "main"))
			if err != nil {
				t.Fatal(err)
			}
			if verified := got.GetVerification().GetVerified(); verified != (engine != "git-data") {
				t.Errorf("verified = %v with --engine %s", verified, engine)
			}
		})
	}
}

func TestCommitEngineRefusals(t *testing.T) {
	srv := fake(t)
	before := head(t, srv, "main")
	c := newCLI(t)
	for _, args := range [][]string{
		{"--engine", "bogus", "-m", "x", "--add", "a=-"},
		{"--engine", "contents", "-m", "x", "--add", "a=-", "--add", "b=-"},
		{"--engine", "graphql", "-m", "x", "--author", "A <a@example.com>", "--add", "a=-"},
	} {
		r := c.run(commitArgs(srv, args...)...)
		if r.code != cmdutil.ExitUsage {
			t.Errorf("%v: exit %d (%s), want %d", args, r.code, r.stderr, cmdutil.ExitUsage)
		}
	}
	if head(t, srv, "main") != before {
		t.Error("the branch moved")
	}
}

// GITHUB_GRAPHQL_URL is honoured beside the runner's GITHUB_API_URL:
// GitHub Enterprise Server serves GraphQL at /api/graphql.
func TestCommitEngineGraphQLURL(t *testing.T) {
	srv := fake(t)
	c := newCLI(t)
	c.env["GITHUB_API_URL"] = srv.URL
	c.env["GITHUB_GRAPHQL_URL"] = srv.URL + "api/graphql"
	if r := c.run("commit", "-R", "acme/mono", "--engine", "graphql", "-m", "x", "--add", "a=-"); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	c.env["GITHUB_GRAPHQL_URL"] = srv.URL + "no/graphql/here"
	if r := c.run("commit", "-R", "acme/mono", "--engine", "graphql", "-m", "y", "--add", "b=-"); r.code == 0 {
		t.Fatal("a GraphQL URL that serves nothing was not used")
	}
}

// With --create-branch-from, a commit refused for what the engine cannot
// carry (exit 2) or for a failed precondition (exit 3) writes nothing:
// the branch is not created, on every engine.
func TestEngineRefusedCommitCreatesNoBranch(t *testing.T) {
	for _, tc := range []struct {
		name    string
		engines []string
		args    []string
		code    int
	}{
		{"executable-edit", []string{"graphql", "contents"}, []string{"--edit", "run.sh=cat; echo x"}, cmdutil.ExitUsage},
		{"directory-delete", []string{"graphql", "contents"}, []string{"--delete", "dir"}, cmdutil.ExitUsage},
		{"precondition", []string{"git-data", "graphql", "contents", "auto"}, []string{"--add", "README.md=-", "--expect-absent", "README.md"}, cmdutil.ExitConflict},
	} {
		for _, e := range tc.engines {
			t.Run(tc.name+"/"+e, func(t *testing.T) {
				srv := fake(t,
					githubtest.File{Path: "README.md", Content: []byte("hello\n")},
					githubtest.File{Path: "run.sh", Content: []byte("#!/bin/sh\n"), Mode: "100755"},
					githubtest.File{Path: "dir/a.txt", Content: []byte("a\n")})
				c := newCLI(t)
				c.stdin = "new\n"
				r := c.run(commitArgs(srv, append([]string{"-m", "m", "-b", "feature", "--create-branch-from", "main", "--engine", e}, tc.args...)...)...)
				r.wantCode(t, tc.code)
				if _, ok := srv.Head("acme", "mono", "feature"); ok {
					t.Fatalf("the refused commit left branch feature behind\nstderr: %s", r.stderr)
				}
				if n := srv.Count("POST /repos/{owner}/{repo}/git/refs") + srv.Count(routePutContents) + srv.Count(routePatchRef); n != 0 {
					t.Errorf("%d writes sent for a refused commit", n)
				}
			})
		}
	}
}
