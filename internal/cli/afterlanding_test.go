package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ghcommitter/ghcommitter/internal/cli/actions"
	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"
)

// TestPullRequestFailsAfterTheCommit: the commit landed and the pull
// request was opened, then requesting a review from its own author failed
// (GitHub's 422): exit 4 (partly done), never 2 ("nothing was written");
// the outputs (commit, branch, the pull request's) are written before the
// step fails; the message says the commit landed and what failed after
// it; --json prints the result with the error beside it. As the Action,
// the same, with one annotation.
func TestPullRequestFailsAfterTheCommit(t *testing.T) {
	srv := fake(t)
	dir := t.TempDir()
	c := newCLI(t)
	c.env["GITHUB_OUTPUT"] = filepath.Join(dir, "output")
	r := c.run(commitArgs(srv, "-m", "m", "--add", "a.txt=-", "--pull-request", "-b", "feature", "--base", "main",
		"--label", "bot", "--reviewer", "octocat", "--json")...)
	r.wantCode(t, cmdutil.ExitPartly)
	landed := head(t, srv, "feature")
	var out struct {
		Commit      string `json:"commit"`
		Branch      string `json:"branch"`
		PullRequest *struct {
			Number int `json:"number"`
		} `json:"pull_request"`
		Error *struct {
			Kind, Message, Hint string
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || out.Error == nil || out.PullRequest == nil {
		t.Fatalf("--json: %v: %s", err, r.stdout)
	}
	if out.Commit != landed || out.Branch != "feature" || out.PullRequest.Number != 1 {
		t.Errorf("result %+v: want commit %s on feature, pull request 1", out, landed)
	}
	if !strings.Contains(out.Error.Message, "the commit landed on feature ("+landed+")") || !strings.Contains(out.Error.Message, "Review cannot be requested") {
		t.Errorf("message %q: want the commit landed, and what failed after it", out.Error.Message)
	}
	if strings.Contains(out.Error.Hint, "exists") || !strings.Contains(out.Error.Hint, "do not run again") {
		t.Errorf("hint %q", out.Error.Hint)
	}
	data, _ := os.ReadFile(c.env["GITHUB_OUTPUT"])
	for _, want := range []string{"commit=" + landed + "\n", "branch=feature\n", "pull-request-number=1\n", "pull-request-operation=created\n"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("$GITHUB_OUTPUT lacks %q:\n%s", want, data)
		}
	}

	// The Action: exit 4, its outputs, one annotation.
	c = newCLI(t)
	c.env["RUNNER_TEMP"], c.env["GITHUB_OUTPUT"] = dir, filepath.Join(dir, "action-output")
	c.env["GITHUB_ACTIONS"] = "true"
	c.stdin = "b\n"
	c.env[actions.InputsEnv] = actionJSON(t, "runner", map[string]string{
		"repo": "acme/mono", "branch": "feature2", "base": "main", "message": "m2", "add": "b.txt=-", "api-url": srv.URL,
		"token": testToken, "pull-request": "true", "reviewer": "octocat",
	})
	r = c.run(actions.Command)
	r.wantCode(t, cmdutil.ExitPartly)
	data, _ = os.ReadFile(c.env["GITHUB_OUTPUT"])
	if !strings.Contains(string(data), "commit="+head(t, srv, "feature2")+"\n") || !strings.Contains(string(data), "pull-request-number=2\n") {
		t.Errorf("the Action's outputs:\n%s", data)
	}
	if got := annotations(r.stderr); len(got) != 1 || !strings.Contains(got[0], "partly done") {
		t.Errorf("annotations %q", got)
	}
}
