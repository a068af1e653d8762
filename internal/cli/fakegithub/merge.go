package fakegithub

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"
)

// mergeFlags are the repositories' merge settings and the up-to-date rule.
type mergeFlags struct {
	mergeMethods        []string
	deleteBranchOnMerge bool
	requireUpToDate     []string
	mergeabilityLag     time.Duration
}

func (m *mergeFlags) add(fl *pflag.FlagSet) {
	fl.StringSliceVar(&m.mergeMethods, "merge-methods", []string{"merge", "squash", "rebase"},
		"merge methods the repositories allow: `LIST` of merge, squash, rebase")
	fl.BoolVar(&m.deleteBranchOnMerge, "delete-branch-on-merge", false, "delete a merged pull request's head branch")
	fl.StringArrayVar(&m.requireUpToDate, "require-up-to-date", nil,
		"pull requests into `BRANCH` must be up to date with it to merge (a ruleset on every --repo; repeatable)")
	fl.DurationVar(&m.mergeabilityLag, "mergeability-lag", 0,
		"pull requests read mergeable null for `DURATION` after they or their branches change, as while GitHub computes it")
}

// mergeSettings are the settings the flags ask for.
func (m *mergeFlags) mergeSettings() (githubtest.MergeSettings, error) {
	ms := githubtest.MergeSettings{DeleteBranchOnMerge: m.deleteBranchOnMerge}
	for _, method := range m.mergeMethods {
		switch strings.TrimSpace(method) {
		case "merge":
			ms.AllowMergeCommit = true
		case "squash":
			ms.AllowSquashMerge = true
		case "rebase":
			ms.AllowRebaseMerge = true
		default:
			return ms, cmdutil.UsageErrorf("use merge, squash or rebase", "--merge-methods: unknown method %q", method)
		}
	}
	if !ms.AllowMergeCommit && !ms.AllowSquashMerge && !ms.AllowRebaseMerge {
		return ms, cmdutil.UsageErrorf("allow at least one of merge, squash, rebase", "--merge-methods allows no method")
	}
	return ms, nil
}

// addMergeRules adds the --require-up-to-date ruleset to every --repo and
// --empty-repo.
func (f *fakeFlags) addMergeRules(srv *githubtest.Server) error {
	if len(f.requireUpToDate) == 0 {
		return nil
	}
	for _, r := range append(append([]string(nil), f.repos...), f.emptyRepos...) {
		owner, name, err := committer.ParseRepo(r)
		if err != nil {
			return cmdutil.UsageErrorf("", "%q: %v", r, err)
		}
		rs := githubtest.Ruleset{Name: "up to date", Include: f.requireUpToDate, Rules: []githubtest.Rule{githubtest.RequireUpToDate()}}
		if _, err := srv.AddRuleset(owner, name, rs); err != nil {
			return fmt.Errorf("--require-up-to-date on %s: %w", r, err)
		}
	}
	return nil
}
