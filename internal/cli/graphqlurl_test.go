package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ghcommitter/ghcommitter/internal/cli/actions"
	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"
	commitcmd "github.com/ghcommitter/ghcommitter/internal/cli/commit"
)

// runnerGraphQL is what GitHub's runner sets GITHUB_GRAPHQL_URL to on
// github.com: another host than a fake's.
const runnerGraphQL = "https://api.github.com/graphql"

// TestAPIURLMovesGraphQL: an API URL the user gives moves GraphQL with it
// (the default git-data engine moves the branch with updateRefs), whatever
// the runner's GITHUB_GRAPHQL_URL says; --graphql-url names the endpoint.
func TestAPIURLMovesGraphQL(t *testing.T) {
	srv := fake(t)
	c := newCLI(t)
	c.env["GITHUB_API_URL"], c.env["GITHUB_GRAPHQL_URL"] = "https://api.github.com", runnerGraphQL
	r := c.run(commitArgs(srv, "-m", "one", "--add", "a=-")...)
	r.wantCode(t, 0)
	if n := srv.Count("POST /graphql"); n == 0 {
		t.Error("no GraphQL request reached the API named by --api-url")
	}
	// --graphql-url wins over the derived endpoint.
	r = c.run(commitArgs(srv, "--graphql-url", srv.URL+"api/graphql", "--engine", "graphql", "-m", "two", "--add", "b=-")...)
	r.wantCode(t, 0)
	r = c.run(commitArgs(srv, "--graphql-url", srv.URL+"no/graphql/here", "--engine", "graphql", "-m", "three", "--add", "c=-")...)
	if r.code == 0 {
		t.Error("a --graphql-url that serves nothing was not used")
	}
}

// TestGraphQLURLFor: the precedence of the GraphQL endpoint.
func TestGraphQLURLFor(t *testing.T) {
	env := func(vars map[string]string) *cmdutil.Env {
		return &cmdutil.Env{Getenv: func(k string) string { return vars[k] }}
	}
	runner := map[string]string{"GITHUB_API_URL": "https://api.github.com", "GITHUB_GRAPHQL_URL": runnerGraphQL}
	for _, tc := range []struct {
		name, flag, api, repo string
		vars                  map[string]string
		want                  string
	}{
		{name: "runner's", vars: runner, want: runnerGraphQL},
		{name: "flag", flag: "https://x.example/graphql", api: "https://ghe.example/api/v3/", vars: runner, want: "https://x.example/graphql"},
		{name: "derived from --api-url", api: "https://ghe.example/api/v3/", vars: runner, want: ""},
		{name: "derived from GH_HOST", vars: map[string]string{"GH_HOST": "ghe.example", "GITHUB_GRAPHQL_URL": runnerGraphQL}, want: ""},
		{name: "derived from -R HOST/OWNER/REPO", repo: "ghe.example/a/b", vars: runner, want: ""},
		{name: "GITHUB_GRAPHQL_URL alone", vars: map[string]string{"GITHUB_GRAPHQL_URL": runnerGraphQL}, want: runnerGraphQL},
	} {
		if got := commitcmd.GraphQLURLFor(tc.flag, tc.api, tc.repo, env(tc.vars)); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestActionAPIURLMovesGraphQL: the api-url input moves GraphQL with it
// on a runner whose GITHUB_GRAPHQL_URL is github.com's.
func TestActionAPIURLMovesGraphQL(t *testing.T) {
	srv := fake(t)
	dir := t.TempDir()
	c := newCLI(t)
	c.env["RUNNER_TEMP"], c.env["GITHUB_OUTPUT"] = dir, filepath.Join(dir, "output")
	c.env["GITHUB_API_URL"], c.env["GITHUB_GRAPHQL_URL"] = "https://api.github.com", runnerGraphQL
	c.stdin = "x\n"
	c.env[actions.InputsEnv] = actionJSON(t, "runner", map[string]string{
		"repo": "acme/mono", "branch": "main", "message": "m", "add": "a=-", "api-url": srv.URL, "token": testToken,
	})
	c.run(actions.Command).wantCode(t, 0)
}

// TestNoRedirectHintWithoutRedirect: a request refused because it was
// addressed to another host (no redirect was answered) says so, naming
// --graphql-url, not a redirect.
func TestNoRedirectHintWithoutRedirect(t *testing.T) {
	srv := fake(t)
	c := newCLI(t)
	r := c.run(commitArgs(srv, "--graphql-url", runnerGraphQL, "-m", "m", "--add", "a=-")...)
	if r.code == 0 {
		t.Fatal("a GraphQL request to another host was sent")
	}
	if strings.Contains(r.stderr, "redirect") || !strings.Contains(r.stderr, "--graphql-url") {
		t.Errorf("stderr %q: want a hint naming --graphql-url and no redirect", r.stderr)
	}
}
