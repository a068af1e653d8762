package prmerge

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/internal/kind"
)

// The wait's pacing: the first read after firstPoll, then each interval
// half again as long, up to maxPoll, each jittered by ±1/8 so that
// waiters do not read in lockstep. A REST read that shows no change is a
// 304 (free of the primary limit); the GraphQL read (checks, queue entry)
// follows each REST read that does not end the wait.
const (
	firstPoll = time.Second
	maxPoll   = 15 * time.Second
)

// wait reads the pull request until it is merged, closed or dequeued, a
// required check fails, or req.Wait passes.
func wait(ctx context.Context, env Env, t *Target, req Request, id string, out *Outcome) error {
	start := time.Now()
	deadline := start.Add(req.Wait)
	interval, said := firstPoll, ""
	required := map[string]bool{}
	if rules, err := env.REST.MergeRules(ctx, t.Base); err == nil { // else: no check known to be required
		for _, c := range rules.Checks {
			required[c] = true
		}
	}
	for {
		rebuilds := out.Rebuilds
		done, detail, err := look(ctx, env, t, req, id, required, out)
		if done || err != nil {
			return err
		}
		if detail != said && req.Progress != nil {
			req.Progress(Progress{Number: t.Number, Waited: time.Since(start), Detail: detail})
		}
		said = detail
		left := time.Until(deadline)
		if left <= 0 {
			return &kind.Cause{Kind: kind.MergeTimeout, Err: fmt.Errorf("pull request #%d not merged within %s (%s)", t.Number, req.Wait, detail),
				Hint: "the change is on the head branch and the pull request is open; wait longer, or see what holds it up"}
		}
		step := min(interval*7/8+time.Duration(rand.Int64N(int64(interval/4)+1)), left)
		if err := env.Sleep(ctx, step); err != nil {
			return fmt.Errorf("waiting for pull request #%d to merge: %w", t.Number, err)
		}
		interval = min(interval*3/2, maxPoll)
		if out.Rebuilds != rebuilds {
			interval = firstPoll // a new head: its checks start again
		}
	}
}

// look reads the pull request once: done when the wait is over (merged,
// or err says why not), else what it waits for.
func look(ctx context.Context, env Env, t *Target, req Request, id string, required map[string]bool, out *Outcome) (done bool, detail string, err error) {
	st, err := env.REST.PullState(ctx, t.Number)
	if err != nil {
		return true, "", fmt.Errorf("read pull request #%d: %w", t.Number, err)
	}
	if st.Merged {
		merged(out, st.MergeCommit)
		return true, "", nil
	}
	if st.State == "closed" {
		return true, "", &kind.Cause{Kind: kind.PullClosed, Err: fmt.Errorf("pull request #%d was closed without merging", t.Number),
			Hint: "the change is on the head branch; reopen the pull request, or run again to open a new one"}
	}
	g, err := readWait(ctx, env, id, required)
	if err != nil {
		// The wait goes on with REST alone (a GitHub without these fields):
		// the merge and the closing are still seen, the deadline holds.
		return false, "open (checks and queue entry unknown: " + err.Error() + ")", nil
	}
	if g.Merged {
		merged(out, g.MergeCommit)
		return true, "", nil
	}
	if failed := g.failedRequired(); failed != "" {
		return true, "", &kind.Cause{Kind: kind.CheckFailed, Err: fmt.Errorf("pull request #%d: required check %q failed", t.Number, failed),
			Hint: "the change is on the head branch and the pull request is open; fix what the check reports and run again"}
	}
	if req.Rebuild && stale(g.MergeState) {
		return rebuildAndAsk(ctx, env, t, req, st.Head, out)
	}
	if out.refused > 0 && (mergeable(g.MergeState) || req.Mode == Auto && !g.AutoMerge && g.MergeState == "BLOCKED") {
		return retry(ctx, env, t, req, out)
	}
	if g.QueueState != "" {
		out.Queued = true // queued by this call, or by auto-merge once ready
	}
	if out.Queued && g.QueueState == "" {
		return dequeued(ctx, env, *t, out)
	}
	if !st.AutoMerge && out.AutoMerge && !out.Queued {
		return false, "auto-merge was turned off: waiting for a merge by hand", nil
	}
	return false, g.waitingFor(out), nil
}

// dequeued tells a pull request that left the queue by merging (read
// again: the entry goes as the merge lands) from one that was removed.
func dequeued(ctx context.Context, env Env, t Target, out *Outcome) (bool, string, error) {
	st, err := env.REST.PullState(ctx, t.Number)
	if err == nil && st.Merged {
		merged(out, st.MergeCommit)
		return true, "", nil
	}
	return true, "", &kind.Cause{Kind: kind.Dequeued, Err: fmt.Errorf("pull request #%d was removed from the merge queue without merging", t.Number),
		Hint: "the change is on the head branch and the pull request is open; see why the queue removed it (a failed check, a conflict), then run again"}
}

func merged(out *Outcome, commit string) {
	out.Merged, out.Commit = true, commit
	switch {
	case out.Via != "":
	case out.Queued || out.queue:
		out.Via = ViaQueue
	case out.AutoMerge:
		out.Via = ViaAuto
	default:
		out.Via = ViaOther
	}
}
