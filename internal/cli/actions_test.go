package cli

import (
	"errors"
	"github.com/ghcommitter/ghcommitter/internal/cli/actions"
	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

// prPayload is a pull_request event as GitHub writes it to GITHUB_EVENT_PATH
// (only the fields that matter here), head in headRepo ("" for a deleted
// fork: GitHub sends "repo": null).
func prPayload(headRepo, headRef string) string {
	repo := `null`
	if headRepo != "" {
		repo = `{"full_name": "` + headRepo + `", "fork": ` + map[bool]string{true: "false", false: "true"}[headRepo == "acme/mono"] + `}`
	}
	return `{"action": "synchronize", "number": 7, "pull_request": {
		"number": 7,
		"head": {"ref": "` + headRef + `", "sha": "0123456789abcdef0123456789abcdef01234567", "repo": ` + repo + `},
		"base": {"ref": "main", "repo": {"full_name": "acme/mono"}}}}`
}

// actionsEnv is the environment of an Actions run in acme/mono for event,
// as GitHub's docs ("Events that trigger workflows", "Variables") describe it.
func actionsEnv(t *testing.T, event, ref, headRef, payload string) map[string]string {
	t.Helper()
	env := map[string]string{
		"GITHUB_ACTIONS":    "true",
		"GITHUB_REPOSITORY": "acme/mono",
		"GITHUB_EVENT_NAME": event,
		"GITHUB_REF":        ref,
		"GITHUB_HEAD_REF":   headRef,
	}
	if name, ok := strings.CutPrefix(ref, "refs/heads/"); ok {
		env["GITHUB_REF_NAME"] = name
	}
	if payload != "" {
		p := filepath.Join(t.TempDir(), "event.json")
		if err := os.WriteFile(p, []byte(payload), 0o600); err != nil {
			t.Fatal(err)
		}
		env["GITHUB_EVENT_PATH"] = p
	}
	return env
}

func TestActionsBranch(t *testing.T) {
	for _, tc := range []struct {
		name                 string
		event, ref, headRef  string
		payload              string
		repo                 string // the commit's target; default acme/mono
		want                 string // "" with wantOK false: the default branch
		wantOK, wantRefusal  bool
		refusalMentions      string
		noActions, noPayload bool
	}{
		{name: "push to a branch", event: "push", ref: "refs/heads/release", want: "release", wantOK: true},
		{name: "push of a tag", event: "push", ref: "refs/tags/v1.2.3"},
		{name: "workflow_dispatch on a branch", event: "workflow_dispatch", ref: "refs/heads/feature/x", want: "feature/x", wantOK: true},
		{name: "workflow_dispatch on a tag", event: "workflow_dispatch", ref: "refs/tags/v1"},
		{name: "schedule", event: "schedule", ref: "refs/heads/main", want: "main", wantOK: true},
		{name: "no event name (older runners, tests)", ref: "refs/heads/release", want: "release", wantOK: true},
		{name: "pull_request from this repository", event: "pull_request", ref: "refs/pull/7/merge", headRef: "bot/bump",
			payload: prPayload("acme/mono", "bot/bump"), want: "bot/bump", wantOK: true},
		{name: "pull_request, head repository in another case", event: "pull_request", ref: "refs/pull/7/merge", headRef: "bot/bump",
			payload: prPayload("Acme/Mono", "bot/bump"), want: "bot/bump", wantOK: true},
		{name: "pull_request from a fork", event: "pull_request", ref: "refs/pull/7/merge", headRef: "patch-1",
			payload: prPayload("mallory/mono", "patch-1"), wantRefusal: true, refusalMentions: "mallory/mono"},
		{name: "pull_request from a deleted fork", event: "pull_request", ref: "refs/pull/7/merge", headRef: "patch-1",
			payload: prPayload("", "patch-1"), wantRefusal: true, refusalMentions: "deleted fork"},
		{name: "pull_request without an event file", event: "pull_request", ref: "refs/pull/7/merge", headRef: "bot/bump",
			noPayload: true, wantRefusal: true, refusalMentions: "GITHUB_EVENT_PATH"},
		{name: "pull_request with a broken event file", event: "pull_request", ref: "refs/pull/7/merge", headRef: "bot/bump",
			payload: `{"pull_request": `, wantRefusal: true, refusalMentions: "GITHUB_EVENT_PATH"},
		{name: "pull_request_review from this repository", event: "pull_request_review", ref: "refs/pull/7/merge",
			payload: prPayload("acme/mono", "bot/bump"), want: "bot/bump", wantOK: true},
		{name: "pull_request_target", event: "pull_request_target", ref: "refs/heads/main", headRef: "bot/bump",
			payload: prPayload("acme/mono", "bot/bump"), wantRefusal: true, refusalMentions: "pull_request_target"},
		{name: "pull_request_target from a fork", event: "pull_request_target", ref: "refs/heads/main", headRef: "patch-1",
			payload: prPayload("mallory/mono", "patch-1"), wantRefusal: true, refusalMentions: "-b"},
		{name: "merge_group", event: "merge_group", ref: "refs/heads/gh-readonly-queue/main/pr-7-0123456789abcdef0123456789abcdef01234567",
			wantRefusal: true, refusalMentions: "merge_group"},
		{name: "another repository than the run's", event: "push", ref: "refs/heads/release", repo: "acme/other"},
		{name: "a fork's pull request, committing to another repository", event: "pull_request", ref: "refs/pull/7/merge",
			payload: prPayload("mallory/mono", "patch-1"), repo: "acme/other"},
		{name: "outside Actions", event: "push", ref: "refs/heads/release", noActions: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			payload := tc.payload
			if tc.noPayload {
				payload = ""
			}
			vars := actionsEnv(t, tc.event, tc.ref, tc.headRef, payload)
			if tc.noActions {
				delete(vars, "GITHUB_ACTIONS")
			}
			repo := tc.repo
			if repo == "" {
				repo = "acme/mono"
			}
			e := &cmdutil.Env{Getenv: func(k string) string { return vars[k] }}
			got, ok, err := actions.Branch(e, repo)
			if tc.wantRefusal {
				var ee *cmdutil.ExitError
				if !errors.As(err, &ee) || ee.Code != cmdutil.ExitUsage {
					t.Fatalf("got (%q, %v, %v), want a usage error", got, ok, err)
				}
				if !strings.Contains(err.Error()+ee.Hint, tc.refusalMentions) {
					t.Errorf("error %q (hint %q) does not mention %q", err, ee.Hint, tc.refusalMentions)
				}
				return
			}
			if err != nil || ok != tc.wantOK || got != tc.want {
				t.Fatalf("got (%q, %v, %v), want (%q, %v, nil)", got, ok, err, tc.want, tc.wantOK)
			}
		})
	}
}

// TestActionsBranchCommit runs the CLI as the Action does in pull_request
// runs: a same-repository pull request gets the commit on its head branch;
// a fork's pull request and a pull_request_target run without -b change
// nothing anywhere.
func TestActionsBranchCommit(t *testing.T) {
	srv := fake(t)
	if _, err := srv.Seed("acme", "mono", "bot/bump", "Head branch", githubtest.File{Path: "r", Content: []byte("r\n")}); err != nil {
		t.Fatal(err)
	}
	mainBefore, headBefore := head(t, srv, "main"), head(t, srv, "bot/bump")

	c := newCLI(t)
	for k, v := range actionsEnv(t, "pull_request", "refs/pull/7/merge", "bot/bump", prPayload("acme/mono", "bot/bump")) {
		c.env[k] = v
	}
	r := c.run("commit", "--api-url", srv.URL, "-m", "m", "--edit", "a=echo a")
	r.wantCode(t, 0)
	if head(t, srv, "main") != mainBefore {
		t.Error("a pull_request run committed to the default branch")
	}
	if head(t, srv, "bot/bump") == headBefore {
		t.Error("the head branch did not move")
	}
	if got, _ := readFile(t, srv, "bot/bump", "a"); got != "a\n" {
		t.Errorf("head branch: a = %q, want the commit there", got)
	}

	for _, tc := range []struct{ event, ref, headRef, payload string }{
		{"pull_request", "refs/pull/8/merge", "patch-1", prPayload("mallory/mono", "patch-1")},
		{"pull_request_target", "refs/heads/main", "bot/bump", prPayload("acme/mono", "bot/bump")},
		{"merge_group", "refs/heads/gh-readonly-queue/main/pr-7-0123456789abcdef0123456789abcdef01234567", "", ""},
	} {
		c := newCLI(t)
		for k, v := range actionsEnv(t, tc.event, tc.ref, tc.headRef, tc.payload) {
			c.env[k] = v
		}
		mainBefore, headBefore = head(t, srv, "main"), head(t, srv, "bot/bump")
		srv.ResetRequests()
		r := c.run("commit", "--api-url", srv.URL, "-m", "m", "--edit", "a=echo b")
		r.wantCode(t, cmdutil.ExitUsage)
		if n := writes(srv); n != 0 {
			t.Errorf("%s: %d write requests, want none", tc.event, n)
		}
		if head(t, srv, "main") != mainBefore || head(t, srv, "bot/bump") != headBefore {
			t.Errorf("%s: a branch moved", tc.event)
		}
		// With -b the same run commits where it is told to.
		r = c.run("commit", "--api-url", srv.URL, "-m", "m", "-b", "main", "--edit", "a=echo "+tc.event)
		r.wantCode(t, 0)
		if got, _ := readFile(t, srv, "main", "a"); got != tc.event+"\n" {
			t.Errorf("%s with -b main: a = %q", tc.event, got)
		}
	}
}
