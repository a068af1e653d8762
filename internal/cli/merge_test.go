package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ghcommitter/ghcommitter/committer/githubtest"
	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"
)

// mergeJSON is what the merge tests read of --json.
type mergeJSON struct {
	Commit      string `json:"commit"`
	PullRequest *struct {
		Number int `json:"number"`
		Merge  *struct {
			Merged      bool   `json:"merged"`
			MergeCommit string `json:"merge_commit"`
			MergedVia   string `json:"merged_via"`
			MergeMethod string `json:"merge_method"`
			Rebuilds    int    `json:"rebuilds"`
			Head        string `json:"head"`
		} `json:"merge"`
	} `json:"pull_request"`
	Error *struct {
		Kind, Message, Hint string
	} `json:"error"`
}

// protectedFake is a fake whose main takes changes through pull requests
// only.
func protectedFake(t *testing.T) *githubtest.TestServer {
	t.Helper()
	srv := fake(t)
	if _, err := srv.AddRuleset("acme", "mono", githubtest.Ruleset{Include: []string{"main"}, Rules: []githubtest.Rule{githubtest.RequirePullRequest()}}); err != nil {
		t.Fatal(err)
	}
	return srv
}

// TestMergeNowWait: one commit --pull-request --merge-now --wait
// --wait-timeout 2m merges, and says so in its output, --json and the
// Actions outputs.
func TestMergeNowWait(t *testing.T) {
	srv := protectedFake(t)
	dir := t.TempDir()
	c := newCLI(t)
	c.env["GITHUB_OUTPUT"] = filepath.Join(dir, "output")
	r := c.run(commitArgs(srv, "-m", "promote api", "--add", "api.txt=-", "--pull-request", "-b", "promote/api",
		"--merge-now", "--wait", "--wait-timeout", "2m", "--json")...)
	r.wantCode(t, 0)
	var out mergeJSON
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || out.PullRequest == nil || out.PullRequest.Merge == nil {
		t.Fatalf("--json: %v: %s", err, r.stdout)
	}
	m := out.PullRequest.Merge
	main := head(t, srv, "main")
	if !m.Merged || m.MergeCommit != main || m.MergedVia != "merge-now" || m.MergeMethod != "squash" {
		t.Errorf("merge %+v: want merged now by squash as main's head %s", m, main)
	}
	data, _ := os.ReadFile(c.env["GITHUB_OUTPUT"])
	for _, want := range []string{"merged=true\n", "merge-commit=" + main + "\n", "merged-via=merge-now\n", "merge-method=squash\n"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("$GITHUB_OUTPUT lacks %q:\n%s", want, data)
		}
	}

	// The human line, for the next promotion.
	r = c.run(commitArgs(srv, "-m", "promote worker", "--add", "w.txt=-", "--pull-request", "-b", "promote/w", "--merge-now", "--wait")...)
	r.wantCode(t, 0)
	if !strings.Contains(r.stdout, "merged pull request #2 into main (merge-now, squash): "+head(t, srv, "main")) {
		t.Errorf("stdout:\n%s", r.stdout)
	}
}

// TestMergeWaitTimeout: nobody merges: exit 4 (partly done: the change is
// on the head branch), kind merge_timeout, the pull request in the
// result, main unmoved.
func TestMergeWaitTimeout(t *testing.T) {
	srv := protectedFake(t)
	main := head(t, srv, "main")
	c := newCLI(t)
	r := c.run(commitArgs(srv, "-m", "promote", "--add", "p.txt=-", "--pull-request", "-b", "promote/p",
		"--wait", "--wait-timeout", "2s", "--json")...)
	r.wantCode(t, cmdutil.ExitPartly)
	var out mergeJSON
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || out.Error == nil || out.PullRequest == nil {
		t.Fatalf("--json: %v: %s", err, r.stdout)
	}
	if out.Error.Kind != "merge_timeout" || out.PullRequest.Number != 1 || out.Commit != head(t, srv, "promote/p") {
		t.Errorf("result %+v, error %+v", out, out.Error)
	}
	if out.PullRequest.Merge == nil || out.PullRequest.Merge.Merged {
		t.Errorf("merge %+v: want not merged", out.PullRequest.Merge)
	}
	if !strings.Contains(r.stderr, "pull request #1: ") {
		t.Errorf("no progress on stderr:\n%s", r.stderr)
	}
	if got := head(t, srv, "main"); got != main {
		t.Errorf("main moved to %s", got)
	}
}

// TestOnProtectedMergeNowWait: --on-protected pull-request takes the merge
// flags too: the seed's protected branch refuses the commit, which goes to
// a pull request that is merged and waited for; a pull request not merged
// in time is exit 4 (the change is on the head branch), as with
// --pull-request.
func TestOnProtectedMergeNowWait(t *testing.T) {
	srv := protectedFake(t)
	dir := t.TempDir()
	c := newCLI(t)
	c.env["GITHUB_OUTPUT"] = filepath.Join(dir, "output")
	r := c.run(commitArgs(srv, "-b", "main", "-m", "promote api", "--add", "api.txt=-", "--on-protected", "pull-request",
		"--merge-now", "--wait", "--wait-timeout", "2m", "--json")...)
	r.wantCode(t, 0)
	var out mergeJSON
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || out.PullRequest == nil || out.PullRequest.Merge == nil {
		t.Fatalf("--json: %v: %s", err, r.stdout)
	}
	main := head(t, srv, "main")
	if m := out.PullRequest.Merge; !m.Merged || m.MergeCommit != main || m.MergedVia != "merge-now" {
		t.Errorf("merge %+v: want merged now as main's head %s", m, main)
	}
	if _, mode := readFile(t, srv, "main", "api.txt"); mode == "" {
		t.Errorf("api.txt is not on main after the merge")
	}
	if data, _ := os.ReadFile(c.env["GITHUB_OUTPUT"]); !strings.Contains(string(data), "merged=true\n") {
		t.Errorf("$GITHUB_OUTPUT lacks merged=true:\n%s", data)
	}
	r = c.run(commitArgs(srv, "-b", "main", "-m", "promote worker", "--add", "w.txt=-", "--on-protected", "pull-request", "--merge-now", "--wait")...)
	r.wantCode(t, 0)
	if !strings.Contains(r.stdout, "is protected: pull request #2") || !strings.Contains(r.stdout, "merged pull request #2 into main") {
		t.Errorf("stdout:\n%s", r.stdout)
	}

	before := head(t, srv, "main")
	r = c.run(commitArgs(srv, "-b", "main", "-m", "promote db", "--add", "db.txt=-", "--on-protected", "pull-request",
		"--wait", "--wait-timeout", "2s", "--json")...)
	r.wantCode(t, cmdutil.ExitPartly)
	out = mergeJSON{}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || out.Error == nil || out.PullRequest == nil {
		t.Fatalf("--json: %v: %s", err, r.stdout)
	}
	if out.Error.Kind != "merge_timeout" || out.PullRequest.Number != 3 || head(t, srv, "main") != before {
		t.Errorf("result %+v, error %+v; main %s, was %s", out, out.Error, head(t, srv, "main"), before)
	}
}
