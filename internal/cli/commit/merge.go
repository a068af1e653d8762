package commit

import (
	"fmt"
	"time"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"
	"github.com/spf13/cobra"
)

// mergeFlags are commit --pull-request's merge flags: what is done with
// the pull request once it is open, and the wait for its merge.
type mergeFlags struct {
	autoMerge, now, queue bool
	method                string
	wait, noRebuild       bool
	waitTimeout           time.Duration
}

// defaultWaitTimeout is --wait-timeout's default.
const defaultWaitTimeout = 30 * time.Minute

func (m *mergeFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.BoolVar(&m.autoMerge, "auto-merge", false, "with --pull-request or --on-protected pull-request: enable auto-merge on the pull request, pinned to the commit just made (a pull request already mergeable is merged at once, and the output says so)")
	fl.BoolVar(&m.now, "merge-now", false, "with --pull-request or --on-protected pull-request: merge the pull request at once, pinned to the commit just made (refused where the rules do not allow it yet)")
	fl.BoolVar(&m.queue, "merge-queue", false, "with --pull-request or --on-protected pull-request: add the pull request to the merge queue of --base, pinned to the commit just made (refused where the branch has no queue)")
	fl.StringVar(&m.method, "merge-method", "", "with --auto-merge or --merge-now: `merge`, squash or rebase (default: the first the repository and the rules of --base allow, preferring squash)")
	fl.BoolVar(&m.wait, "wait", false, "with --pull-request or --on-protected pull-request: wait until the pull request is merged (exit 0), or closed, removed from the merge queue, failed by a required check, or not merged within --wait-timeout (exit 4)")
	fl.DurationVar(&m.waitTimeout, "wait-timeout", defaultWaitTimeout, "with --wait: give up waiting after `DURATION`")
	fl.BoolVar(&m.noRebuild, "no-rebuild", false, "with a merge flag or --wait: leave a stale pull request (conflicting with --base, or behind it where the rules require it up to date) as it is; by default it is rebuilt on the new head of --base")
}

// check refuses merge flags without a pull request, two ways to merge at
// once, and values that cannot work.
func (m *mergeFlags) check(cmd *cobra.Command, pr, dryRun bool) error {
	changed := func(name string) bool { return cmd.Flags().Changed(name) }
	names := []string{"auto-merge", "merge-now", "merge-queue", "merge-method", "wait", "wait-timeout", "no-rebuild"}
	var given []string
	for _, n := range names {
		if changed(n) {
			given = append(given, "--"+n)
		}
	}
	if len(given) == 0 {
		return nil
	}
	n := 0
	for _, b := range []bool{m.autoMerge, m.now, m.queue} {
		if b {
			n++
		}
	}
	switch {
	case !pr:
		return cmdutil.UsageErrorf("add --pull-request, or --on-protected pull-request", "%s needs --pull-request or --on-protected pull-request", given[0])
	case dryRun:
		return cmdutil.UsageErrorf("drop --dry-run, or the merge flags", "%s with --dry-run: a dry run sends no write", given[0])
	case n > 1:
		return cmdutil.UsageErrorf("choose one", "--auto-merge, --merge-now and --merge-queue are three ways to merge: give one")
	case changed("merge-method") && !m.autoMerge && !m.now:
		return cmdutil.UsageErrorf("add --auto-merge or --merge-now (a merge queue merges with its own method)", "--merge-method needs --auto-merge or --merge-now")
	case changed("merge-method") && m.method != "merge" && m.method != "squash" && m.method != "rebase":
		return cmdutil.UsageErrorf("", "--merge-method must be merge, squash or rebase, got %q", m.method)
	case changed("no-rebuild") && n == 0 && !m.wait:
		return cmdutil.UsageErrorf("add a merge flag or --wait", "--no-rebuild needs --auto-merge, --merge-now, --merge-queue or --wait: only they rebuild a stale pull request")
	case changed("wait-timeout") && !m.wait:
		return cmdutil.UsageErrorf("add --wait", "--wait-timeout needs --wait")
	case m.waitTimeout <= 0:
		return cmdutil.UsageErrorf("", "--wait-timeout must be positive, got %s", m.waitTimeout)
	}
	return nil
}

// options sets the pull request's merge options; progress lines of the
// wait go to stderr.
func (m *mergeFlags) options(o *committer.PullRequestOptions, e *cmdutil.Env) {
	switch {
	case m.autoMerge:
		o.Merge = committer.MergeAuto
	case m.now:
		o.Merge = committer.MergeNow
	case m.queue:
		o.Merge = committer.MergeQueue
	}
	o.MergeMethod, o.NoRebuild = m.method, m.noRebuild
	if m.wait {
		o.Wait = m.waitTimeout
		o.OnWait = func(p committer.MergeProgress) {
			fmt.Fprintf(e.Stderr, "ghcommitter: pull request #%d: %s (waited %s of %s)\n", p.Number, p.Detail, p.Waited.Round(time.Second), m.waitTimeout)
		}
	}
}

// mergeLine is the human line of a merge outcome, "" for none.
func mergeLine(n int, base string, m *committer.MergeOutcome) string {
	if m == nil {
		return ""
	}
	s := ""
	if m.Note != "" {
		s = m.Note + "\n"
	}
	if m.Rebuilds > 0 {
		s += fmt.Sprintf("rebuilt pull request #%d on %s's head %d time(s) (it had gone stale): head %s\n", n, base, m.Rebuilds, m.Head)
	}
	switch {
	case m.Merged:
		how := m.Via
		if m.Method != "" {
			how += ", " + m.Method
		}
		return s + fmt.Sprintf("merged pull request #%d into %s (%s): %s", n, base, how, m.Commit)
	case m.Queued:
		return s + fmt.Sprintf("added pull request #%d to the merge queue of %s", n, base)
	case m.AutoMerge:
		return s + fmt.Sprintf("enabled auto-merge (%s) on pull request #%d", m.Method, n)
	}
	return s + fmt.Sprintf("pull request #%d is not merged", n)
}

// mergeOutputs are the Actions outputs of a merge outcome, "" for none.
func mergeOutputs(m *committer.MergeOutcome) string {
	if m == nil {
		return ""
	}
	return fmt.Sprintf("merged=%t\nmerge-commit=%s\nmerged-via=%s\nmerge-method=%s\n", m.Merged, m.Commit, m.Via, m.Method)
}
