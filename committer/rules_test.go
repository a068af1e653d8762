package committer_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

const routeBranchRules = "GET /repos/{owner}/{repo}/rules/branches/{branch...}"

// A write refused by a rule names the rule (Error.Rule) and the way
// through (Error.Hint), on every engine; the rules are read after the
// refusal only.
func TestProtectedNamesTheRule(t *testing.T) {
	cases := []struct {
		name    string
		protect func(ts *githubtest.TestServer) error
		rule    string
		hint    string
	}{
		{"ruleset pull request", func(ts *githubtest.TestServer) error {
			_, err := ts.AddRuleset(owner, repo, githubtest.Ruleset{Name: "pr", Include: []string{"~DEFAULT_BRANCH"}, Rules: []githubtest.Rule{githubtest.RequirePullRequest()}})
			return err
		}, "pull_request", "CommitPullRequest"},
		{"ruleset signatures", func(ts *githubtest.TestServer) error {
			_, err := ts.AddRuleset(owner, repo, githubtest.Ruleset{Name: "sig", Include: []string{"~DEFAULT_BRANCH"}, Rules: []githubtest.Rule{githubtest.RequireSignatures()}})
			return err
		}, "required_signatures", "graphql or contents engine"},
		{"ruleset merge queue", func(ts *githubtest.TestServer) error {
			_, err := ts.AddRuleset(owner, repo, githubtest.Ruleset{Name: "mq", Include: []string{"~DEFAULT_BRANCH"}, Rules: []githubtest.Rule{githubtest.RequireMergeQueue()}})
			return err
		}, "merge_queue", "merge queue"},
		{"classic reviews", func(ts *githubtest.TestServer) error {
			return ts.ProtectBranch(owner, repo, "main", githubtest.BranchProtection{RequiredApprovingReviews: 1})
		}, "pull_request", "CommitPullRequest"},
	}
	for _, tc := range cases {
		for _, e := range []committer.Engine{committer.EngineGitData, committer.EngineGraphQL, committer.EngineContents} {
			if tc.rule == "required_signatures" && e != committer.EngineGitData {
				continue // GitHub signs those: the rule lets them through
			}
			t.Run(tc.name+"/"+e.String(), func(t *testing.T) {
				ts, c := setup(t)
				ctx := context.Background()
				_, err := c.Commit(ctx, "main", committer.NewChangeSet("ok").Put("ok.txt", []byte("ok\n")), committer.WithEngine(e))
				must(t, err)
				if n := ts.Count(routeBranchRules); n != 0 {
					t.Fatalf("the rules were read %d times before any refusal", n)
				}
				must(t, tc.protect(ts))
				before := head(t, ts, "main")
				_, err = c.Commit(ctx, "main", committer.NewChangeSet("w").Put("w.txt", []byte("w\n")), committer.WithEngine(e))
				var ce *committer.Error
				if !errors.As(err, &ce) || !errors.Is(err, committer.ErrProtected) {
					t.Fatalf("err = %v, want ErrProtected", err)
				}
				if ce.Rule != tc.rule || !strings.Contains(ce.Hint, tc.hint) {
					t.Fatalf("rule %q, hint %q: want %q and a hint naming %q", ce.Rule, ce.Hint, tc.rule, tc.hint)
				}
				if head(t, ts, "main") != before {
					t.Fatal("the branch moved")
				}
			})
		}
	}
}

// WithPullRequestOnProtected: a pull-request rule's refusal becomes a pull
// request from a generated head branch with the same change set; any other
// rule's refusal is returned.
func TestPullRequestOnProtected(t *testing.T) {
	ts, c := setup(t)
	_, err := ts.AddRuleset(owner, repo, githubtest.Ruleset{Name: "pr", Include: []string{"~DEFAULT_BRANCH"}, Rules: []githubtest.Rule{githubtest.RequirePullRequest()}})
	must(t, err)
	before := head(t, ts, "main")
	cs := committer.NewChangeSet("bump version").Edit("VERSION", func([]byte, bool) ([]byte, error) { return []byte("2\n"), nil })
	res, err := c.Commit(context.Background(), "main", cs, committer.WithPullRequestOnProtected("", committer.PullRequestOptions{}))
	must(t, err)
	if res.PullRequest == nil || res.PullRequest.Number == 0 || res.PullRequest.Base != "main" || !strings.HasPrefix(res.Branch, "ghcommitter/") {
		t.Fatalf("result %+v, pull request %+v", res, res.PullRequest)
	}
	if head(t, ts, "main") != before || head(t, ts, res.Branch) != res.Commit {
		t.Fatal("main moved, or the head branch is not at the commit")
	}
	if got := readFile(t, ts, res.Branch, "VERSION"); got != "2\n" {
		t.Fatalf("VERSION on %s = %q", res.Branch, got)
	}

	ts2, c2 := setup(t)
	_, err = ts2.AddRuleset(owner, repo, githubtest.Ruleset{Name: "sig", Include: []string{"~ALL"}, Rules: []githubtest.Rule{githubtest.RequireSignatures()}})
	must(t, err)
	_, err = c2.Commit(context.Background(), "main", committer.NewChangeSet("w").Put("w.txt", []byte("w\n")), committer.WithPullRequestOnProtected("", committer.PullRequestOptions{}))
	if !errors.Is(err, committer.ErrProtected) {
		t.Fatalf("err = %v, want the signature rule's ErrProtected", err)
	}
	if _, err := committer.NewQueue(c, "main", committer.WithPullRequestOnProtected("", committer.PullRequestOptions{})); !errors.Is(err, committer.ErrInvalid) {
		t.Fatalf("NewQueue: err = %v, want ErrInvalid", err)
	}
}
