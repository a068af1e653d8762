// Command promotions-pr promotes an image to N deployment stages at once
// into a protected branch, which takes changes through pull requests only:
// each stage opens its own pull request (its own values file, and one
// shared edit that sets its key in envs/index.yaml), enables auto-merge
// and waits for the merge, as a GitOps pipeline's parallel jobs would.
//
// Every pull request conflicts with the branch as soon as another one
// merged (they all edit the index). Each stage's CommitPullRequest holds
// its change set, so it rebuilds its stale pull request while it waits: a
// new commit on its head branch whose tree is the change set re-run on
// the branch's new head (the edit function runs on the fresh index) and
// whose parents are [the branch's new head, the head branch's old head] —
// a fast-forward, never a force-push — and asks for the merge again. Every
// stage merges, and every stage's key is in the index once.
//
//	go run ./examples/promotions-pr -stages 8
//	go run ./examples/promotions-pr -merge-now   # merge at once instead of auto-merge
//
// The embedded fake requires pull requests and the check ci on main, which
// reports on every new head a minute after it is pushed, on the fake's
// clock. Against GitHub (GITHUB_TOKEN with contents and pull-requests:
// write; a branch that requires pull requests, with auto-merge allowed):
//
//	GITHUB_TOKEN=... go run ./examples/promotions-pr -repo you/scratch -branch main
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/edits"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
	"github.com/ghcommitter/ghcommitter/examples/internal/target"
)

const indexPath = "envs/index.yaml"

func main() { target.Main("promotions-pr", run) }

// promotion is one stage's outcome.
type promotion struct {
	stage, tag string
	res        *committer.PullRequestResult
	err        error
}

// run runs the example and returns the embedded fake it ran against (nil
// against GitHub), so tests can inspect the branch.
func run(ctx context.Context, args []string, stdout io.Writer) (*githubtest.Server, error) {
	fs := flag.NewFlagSet("promotions-pr", flag.ContinueOnError)
	fs.SetOutput(stdout)
	flags := target.DefineFlags(fs, "GITHUB_TOKEN", "the protected branch the pull requests merge into")
	stages := fs.Int("stages", 6, "number of stages promoting at once")
	now := fs.Bool("merge-now", false, "merge each pull request at once (when GitHub allows it) instead of enabling auto-merge")
	wait := fs.Duration("wait", 10*time.Minute, "how long each stage waits for its merge")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if *stages < 1 || *stages > 100 {
		return nil, errors.New("-stages must be between 1 and 100")
	}
	t, err := target.Connect(ctx, flags.Repo)
	if err != nil {
		return nil, err
	}
	defer t.Close()
	if t.Fake != nil {
		stop, err := protect(t)
		if err != nil {
			return t.Fake, err
		}
		defer stop()
	}
	pr := committer.PullRequestOptions{Merge: committer.MergeAuto, Wait: *wait}
	if *now {
		pr.Merge = committer.MergeNow
	}
	out := make([]promotion, *stages)
	var wg sync.WaitGroup
	for i := range out {
		stage, tag := fmt.Sprintf("stage-%d", i+1), fmt.Sprintf("v1.%d.0", i+1)
		out[i] = promotion{stage: stage, tag: tag}
		wg.Add(1)
		go func() {
			defer wg.Done()
			cs := committer.NewChangeSet(fmt.Sprintf("promote %s to %s", stage, tag)).
				Put("envs/"+stage+"/values.yaml", fmt.Appendf(nil, "image:\n  tag: %s\n", tag)).
				Edit(indexPath, edits.Set(edits.YAML, "stages."+stage, tag))
			out[i].res, out[i].err = t.Committer.CommitPullRequest(ctx, flags.Branch, "promote/"+stage, cs, pr)
		}()
	}
	wg.Wait()
	if err := report(stdout, out); err != nil {
		return t.Fake, err
	}
	if t.Fake != nil {
		idx, _, err := t.Fake.ReadFile(t.Owner, t.Name, flags.Branch, indexPath)
		if err != nil {
			return t.Fake, err
		}
		fmt.Fprintf(stdout, "\n%s on %s:\n%s", indexPath, flags.Branch, idx)
	}
	return t.Fake, nil
}

// report prints a line per stage and returns the stages' errors.
func report(stdout io.Writer, out []promotion) error {
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "STAGE\tTAG\tPULL REQUEST\tREBUILDS\tRESULT")
	var errs []error
	for _, p := range out {
		n, m := 0, &committer.MergeOutcome{}
		if p.res != nil && p.res.Merge != nil {
			n, m = p.res.Number, p.res.Merge
		}
		switch {
		case p.err != nil:
			errs = append(errs, fmt.Errorf("%s: %w", p.stage, p.err))
			fmt.Fprintf(tw, "%s\t%s\t#%d\t%d\tfailed: %v\n", p.stage, p.tag, n, m.Rebuilds, p.err)
		default:
			fmt.Fprintf(tw, "%s\t%s\t#%d\t%d\tmerged (%s) as %.12s\n", p.stage, p.tag, n, m.Rebuilds, m.Via, m.Commit)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return errors.Join(errs...)
}

// protect makes the fake's main take changes through pull requests only,
// requiring the check ci, which reports success on every new head a
// minute after it is pushed; the fake's clock runs a minute every 50 ms
// until stop.
func protect(t *target.Target) (stop func(), err error) {
	f := t.Fake
	m := githubtest.DefaultMergeSettings()
	m.AllowAutoMerge = true
	if err := f.SetMergeSettings(t.Owner, t.Name, m); err != nil {
		return nil, err
	}
	rules := []githubtest.Rule{githubtest.RequirePullRequest(), githubtest.RequireStatusChecks("ci")}
	if _, err := f.AddRuleset(t.Owner, t.Name, githubtest.Ruleset{Include: []string{"main"}, Rules: rules}); err != nil {
		return nil, err
	}
	if err := f.AddAutoCheck(t.Owner, t.Name, "ci", "**", githubtest.CheckSuccess, time.Minute); err != nil {
		return nil, err
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				f.Pass(time.Minute)
			}
		}
	}()
	return func() { close(done); wg.Wait() }, nil
}
