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

// checkFlags are the automatic checks, auto-merge, required checks and
// merge queues of the repositories.
type checkFlags struct {
	autoChecks     []string
	allowAutoMerge bool
	requireChecks  []string
	mergeQueues    []string
	queueGroup     int
}

func (c *checkFlags) add(fl *pflag.FlagSet) {
	fl.StringArrayVar(&c.autoChecks, "auto-check", nil,
		"check run NAME reports CONCLUSION (success or failure) on every new head of the branches matching PATTERN (default **, every branch) after DELAY (default 0): `NAME:CONCLUSION[:PATTERN[:DELAY]]` (repeatable)")
	fl.BoolVar(&c.allowAutoMerge, "allow-auto-merge", false, "the repositories allow auto-merge (allow_auto_merge)")
	fl.StringArrayVar(&c.requireChecks, "require-check", nil,
		"a ruleset on every --repo requires check CONTEXT to pass on BRANCH: `BRANCH:CONTEXT` (repeatable)")
	fl.StringArrayVar(&c.mergeQueues, "merge-queue", nil, "a ruleset on every --repo requires the merge queue on `BRANCH` (repeatable)")
	fl.IntVar(&c.queueGroup, "merge-queue-group", 5, "the merge queues merge at most `N` pull requests at once (max_entries_to_merge)")
}

// autoCheckOptions parses --auto-check.
func (c *checkFlags) autoCheckOptions() ([]githubtest.Option, error) {
	var opts []githubtest.Option
	for _, a := range c.autoChecks {
		parts := strings.SplitN(a, ":", 4)
		if len(parts) < 2 || parts[0] == "" || (parts[1] != githubtest.CheckSuccess && parts[1] != githubtest.CheckFailure) {
			return nil, cmdutil.UsageErrorf("use NAME:success or NAME:failure, then :PATTERN and :DELAY if needed", "--auto-check %q", a)
		}
		pattern, delay := "**", time.Duration(0)
		if len(parts) > 2 && parts[2] != "" {
			pattern = parts[2]
		}
		if len(parts) > 3 {
			d, err := time.ParseDuration(parts[3])
			if err != nil || d < 0 {
				return nil, cmdutil.UsageErrorf("a delay such as 30s or 2m", "--auto-check %q: bad delay %q", a, parts[3])
			}
			delay = d
		}
		opts = append(opts, githubtest.WithAutoCheck(parts[0], pattern, parts[1], delay))
	}
	if c.queueGroup < 1 {
		return nil, cmdutil.UsageErrorf("", "--merge-queue-group must be at least 1")
	}
	return opts, nil
}

// addCheckRules adds the --require-check and --merge-queue rulesets to
// every --repo and --empty-repo.
func (f *fakeFlags) addCheckRules(srv *githubtest.Server) error {
	var sets []githubtest.Ruleset
	for _, rc := range f.requireChecks {
		branch, context, ok := strings.Cut(rc, ":")
		if !ok || branch == "" || context == "" {
			return cmdutil.UsageErrorf("use BRANCH:CONTEXT", "--require-check %q", rc)
		}
		sets = append(sets, githubtest.Ruleset{Name: "check " + context, Include: []string{branch},
			Rules: []githubtest.Rule{githubtest.RequireStatusChecks(context)}})
	}
	for _, b := range f.mergeQueues {
		mq := githubtest.RequireMergeQueue()
		mq.Parameters["max_entries_to_merge"] = f.queueGroup
		sets = append(sets, githubtest.Ruleset{Name: "merge queue " + b, Include: []string{b}, Rules: []githubtest.Rule{mq}})
	}
	for _, r := range append(append([]string(nil), f.repos...), f.emptyRepos...) {
		owner, name, err := committer.ParseRepo(r)
		if err != nil {
			return cmdutil.UsageErrorf("", "%q: %v", r, err)
		}
		for _, rs := range sets {
			if _, err := srv.AddRuleset(owner, name, rs); err != nil {
				return fmt.Errorf("%s on %s: %w", rs.Name, r, err)
			}
		}
	}
	return nil
}
