package main

import (
	"context"
	"testing"
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
				"git-data": "PATCH /repos/{owner}/{repo}/git/refs/{ref...}",
				"graphql":  "POST /graphql",
				"contents": "PUT /repos/{owner}/{repo}/contents/{path...}",
				"auto":     "PUT /repos/{owner}/{repo}/contents/{path...}", // one file: the contents API
			}[engine]
			if n := srv.Count(route); n != 1 {
				t.Errorf("%d requests to %s, want 1", n, route)
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
		if r.code != exitUsage {
			t.Errorf("%v: exit %d (%s), want %d", args, r.code, r.stderr, exitUsage)
		}
	}
	if head(t, srv, "main") != before {
		t.Error("the branch moved")
	}
}

// GITHUB_GRAPHQL_URL is honoured: GitHub Enterprise Server serves GraphQL
// at /api/graphql.
func TestCommitEngineGraphQLURL(t *testing.T) {
	srv := fake(t)
	c := newCLI(t)
	c.env["GITHUB_GRAPHQL_URL"] = srv.URL + "api/graphql"
	if r := c.run(commitArgs(srv, "--engine", "graphql", "-m", "x", "--add", "a=-")...); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	c.env["GITHUB_GRAPHQL_URL"] = srv.URL + "no/graphql/here"
	if r := c.run(commitArgs(srv, "--engine", "graphql", "-m", "y", "--add", "b=-")...); r.code == 0 {
		t.Fatal("a GraphQL URL that serves nothing was not used")
	}
}
