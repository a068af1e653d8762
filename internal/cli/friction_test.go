package cli

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"
	commitcmd "github.com/ghcommitter/ghcommitter/internal/cli/commit"
)

// Repository forms people paste all name acme/mono.
func TestRepoFlagForms(t *testing.T) {
	for _, r := range []string{"acme/mono", "acme/mono.git", "acme/mono/", "https://github.com/acme/mono", "https://github.com/acme/mono.git", "git@github.com:acme/mono.git", "ssh://git@github.com/acme/mono.git", "github.com/acme/mono"} {
		t.Run(r, func(t *testing.T) {
			srv := fake(t)
			res := newCLI(t).run("commit", "--api-url", srv.URL, "-R", r, "-m", "x", "--delete", "README.md")
			res.wantCode(t, 0)
			if _, _, err := srv.ReadFile("acme", "mono", "main", "README.md"); err == nil {
				t.Errorf("README.md still there")
			}
		})
	}
	for _, tc := range []struct{ repo, api string }{
		{"https://github.com/acme/mono", commitcmd.DefaultAPIURL},
		{"https://ghe.example.com/acme/mono", "https://ghe.example.com/api/v3/"},
		{"ghe.example.com/acme/mono", "https://ghe.example.com/api/v3/"},
		{"git@ghe.example.com:acme/mono.git", "https://ghe.example.com/api/v3/"},
		{"acme/mono", commitcmd.DefaultAPIURL},
	} {
		e := &cmdutil.Env{Getenv: func(string) string { return "" }}
		if got := commitcmd.APIURLFor("", tc.repo, e); got != tc.api {
			t.Errorf("-R %s: API %s, want %s", tc.repo, got, tc.api)
		}
	}
}

// GitHub's error replies read plainly: no trailing " []".
func TestErrorsHaveNoEmptyBrackets(t *testing.T) {
	srv := fake(t)
	c := newCLI(t)
	c.env["GH_TOKEN"] = "wrong"
	res := c.run(commitArgs(srv, "-m", "x", "--delete", "README.md")...)
	res.wantCode(t, cmdutil.ExitFailed)
	if !strings.Contains(res.stderr, "401 Bad credentials") || strings.Contains(res.stderr, "[]") {
		t.Errorf("stderr:\n%s", res.stderr)
	}
	res = newCLI(t).run("commit", "--api-url", srv.URL, "-R", "acme/nothere", "-m", "x", "--delete", "README.md")
	if strings.Contains(res.stderr, "[]") || !strings.Contains(res.stderr, "404 Not Found") {
		t.Errorf("stderr:\n%s", res.stderr)
	}
}

// A loopback API (fake-github) wants GH_TOKEN, not GH_ENTERPRISE_TOKEN.
func TestLoopbackTokenHint(t *testing.T) {
	srv := fake(t)
	c := newCLI(t)
	c.env = map[string]string{}
	res := c.run(commitArgs(srv, "-m", "x", "--delete", "README.md")...)
	res.wantCode(t, cmdutil.ExitUsage)
	if strings.Contains(res.stderr, "ENTERPRISE") || !strings.Contains(res.stderr, "GH_TOKEN") {
		t.Errorf("stderr:\n%s", res.stderr)
	}
	for _, h := range []string{"http://127.0.0.1:8080/", "http://localhost:1/", "http://[::1]:9/"} {
		if commitcmd.IsEnterpriseAPI(h) {
			t.Errorf("%s counts as an enterprise server", h)
		}
	}
	if !commitcmd.IsEnterpriseAPI("https://ghe.example.com/api/v3/") {
		t.Errorf("a server is not an enterprise server")
	}
}

// --token is refused with the way to pass one.
func TestTokenFlagHint(t *testing.T) {
	srv := fake(t)
	for _, flag := range []string{"--token", "--token=abc", "-t"} {
		res := newCLI(t).run(commitArgs(srv, "-m", "x", flag, "abc", "--delete", "README.md")...)
		res.wantCode(t, cmdutil.ExitUsage)
		if !strings.Contains(res.stderr, "GH_TOKEN") || !strings.Contains(res.stderr, "--token-file") {
			t.Errorf("%s: stderr:\n%s", flag, res.stderr)
		}
	}
}

// A failing --edit command that printed nothing is not said to have.
func TestEditFailureHintOnlyWithStderr(t *testing.T) {
	srv := fake(t)
	res := newCLI(t).run(commitArgs(srv, "-m", "x", "--edit", "README.md=exit 3")...)
	res.wantCode(t, cmdutil.ExitFailed)
	if strings.Contains(res.stderr, "shown above") {
		t.Errorf("stderr:\n%s", res.stderr)
	}
	res = newCLI(t).run(commitArgs(srv, "-m", "x", "--edit", "README.md=echo broken >&2; exit 3")...)
	res.wantCode(t, cmdutil.ExitFailed)
	if !strings.Contains(res.stderr, "shown above") || !strings.Contains(res.stderr, "| broken") {
		t.Errorf("stderr:\n%s", res.stderr)
	}
}

// --dry-run --pull-request shows what the head branch would get and the
// pull request, and writes nothing.
func TestDryRunPullRequest(t *testing.T) {
	srv := fake(t)
	c := newCLI(t)
	c.stdin = "v2\n"
	res := c.run(commitArgs(srv, "-b", "bump", "-m", "Bump", "--pull-request", "--dry-run", "--add", "VERSION=-")...)
	res.wantCode(t, 0)
	for _, want := range []string{"dry run: acme/mono@bump", "the branch would be created", "added      VERSION", "would open a pull request from bump into main"} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, res.stdout)
		}
	}
	res = c.run(commitArgs(srv, "-b", "bump", "-m", "Bump", "--pull-request", "--dry-run", "--json", "--add", "VERSION=-")...)
	res.wantCode(t, 0)
	if !strings.Contains(res.stdout, `"pull_request":{"base":"main","head":"bump"}`) || !strings.Contains(res.stdout, `"new_branch":true`) {
		t.Errorf("stdout:\n%s", res.stdout)
	}
	if writes(srv) != 0 {
		t.Errorf("%d writes", writes(srv))
	}
	if _, ok := srv.Head("acme", "mono", "bump"); ok {
		t.Errorf("the branch was created")
	}
}

// The docs name one actions/checkout version.
func TestDocsAgreeOnCheckout(t *testing.T) {
	seen := map[string][]string{}
	for _, f := range []string{"../../README.md", "../../docs/github-actions.md", "../../docs/cli.md", "../../SECURITY.md"} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range regexp.MustCompile(`actions/checkout@v\d+`).FindAllString(string(data), -1) {
			seen[m] = append(seen[m], f)
		}
	}
	if len(seen) != 1 {
		t.Errorf("the docs name several actions/checkout versions: %v", seen)
	}
}
