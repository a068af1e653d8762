package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"
	commitcmd "github.com/ghcommitter/ghcommitter/internal/cli/commit"
)

// A pull request's lifecycle over re-runs: opened with labels, reviewers
// and assignees; a re-run that changes nothing is "unchanged" (not
// "updated"); a given title and body replace the reused one's; new content
// is "updated" and keeps the title it was given.
func TestPullRequestLifecycle(t *testing.T) {
	srv := fake(t)
	c := newCLI(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	c.env["GITHUB_OUTPUT"] = out
	f := filepath.Join(dir, "v")
	writeFile(t, f, "v1\n", 0o644)
	pr := func(extra ...string) (op string, number int) {
		t.Helper()
		args := append([]string{"-b", "bump", "-m", "Bump v\n\nfrom the message", "--pull-request", "--json", "--add", "VERSION=" + f}, extra...)
		res := c.run(commitArgs(srv, args...)...)
		res.wantCode(t, 0)
		var j commitcmd.JSONResult
		if err := json.Unmarshal([]byte(res.stdout), &j); err != nil {
			t.Fatalf("%v\n%s", err, res.stdout)
		}
		return j.PullRequest.Operation, j.PullRequest.Number
	}
	if op, n := pr("--label", "deps,auto", "--reviewer", "octo", "--assignee", "octo"); op != "created" || n != 1 {
		t.Fatalf("first run: %s #%d", op, n)
	}
	info, _ := pullInfo(t, srv, 1)
	if !slices.Equal(info.Labels, []string{"deps", "auto"}) || !slices.Equal(info.Reviewers, []string{"octo"}) || !slices.Equal(info.Assignees, []string{"octo"}) {
		t.Errorf("pull request = %+v", info)
	}
	if info.Title != "Bump v" || info.Body != "from the message" {
		t.Errorf("title %q body %q", info.Title, info.Body)
	}

	// Nothing changes: unchanged, and the human line says so.
	if op, _ := pr(); op != "unchanged" {
		t.Errorf("re-run with no change: %s", op)
	}
	res := c.run(commitArgs(srv, "-b", "bump", "-m", "Bump v\n\nfrom the message", "--pull-request", "--add", "VERSION="+f)...)
	res.wantCode(t, 0)
	if !strings.Contains(res.stdout, "pull request #1 unchanged") || strings.Contains(res.stdout, "updated pull request") {
		t.Errorf("stdout:\n%s", res.stdout)
	}

	// A title and a body file given: the reused pull request takes them.
	body := filepath.Join(dir, "body.md")
	writeFile(t, body, "## Why\n\nBecause.\n", 0o644)
	if op, _ := pr("--pr-title", "Bump v (new title)", "--pr-body-file", body); op != "updated" {
		t.Errorf("new title: %s", op)
	}
	info, _ = pullInfo(t, srv, 1)
	if info.Title != "Bump v (new title)" || info.Body != "## Why\n\nBecause.\n" {
		t.Errorf("title %q body %q", info.Title, info.Body)
	}

	// New content without a title: updated; the title and body follow
	// this run (the message's), unless kept (issue 41.3).
	writeFile(t, f, "v2\n", 0o644)
	if op, _ := pr("--pr-keep-title", "--pr-keep-body"); op != "updated" {
		t.Errorf("new content: %s", op)
	}
	info, _ = pullInfo(t, srv, 1)
	if info.Title != "Bump v (new title)" || info.Body != "## Why\n\nBecause.\n" {
		t.Errorf("--pr-keep-title/--pr-keep-body: title %q body %q, want the given ones kept", info.Title, info.Body)
	}
	writeFile(t, f, "v3\n", 0o644)
	if op, _ := pr(); op != "updated" {
		t.Errorf("new content: %s", op)
	}
	info, _ = pullInfo(t, srv, 1)
	if info.Title != "Bump v" || info.Body != "from the message" {
		t.Errorf("title %q body %q, want this run's (the message's)", info.Title, info.Body)
	}
	data, _ := os.ReadFile(out)
	for _, want := range []string{"pull-request-operation=created\n", "pull-request-operation=unchanged\n", "pull-request-operation=updated\n"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("$GITHUB_OUTPUT lacks %q:\n%s", want, data)
		}
	}
}

func TestPullRequestFlagsNeedPullRequest(t *testing.T) {
	srv := fake(t)
	for _, flag := range [][]string{{"--label", "x"}, {"--reviewer", "x"}, {"--assignee", "x"}, {"--pr-body-file", "x"}, {"--pr-title", "x"}} {
		res := newCLI(t).run(commitArgs(srv, append([]string{"-m", "m", "--delete", "README.md"}, flag...)...)...)
		res.wantCode(t, cmdutil.ExitUsage)
		if !strings.Contains(res.stderr, "needs --pull-request") {
			t.Errorf("%v: %s", flag, res.stderr)
		}
	}
	res := newCLI(t).run(commitArgs(srv, "-m", "m", "--pull-request", "-b", "x", "--pr-body", "a", "--pr-body-file", "b", "--delete", "README.md")...)
	res.wantCode(t, cmdutil.ExitUsage)
	if writes(srv) != 0 {
		t.Errorf("%d writes", writes(srv))
	}
}
