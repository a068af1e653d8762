package main

import (
	"fmt"
	"strings"
)

// goal is one target the issue sets, and whether this run met it.
type goal struct {
	What, Measured, Verdict string
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "**NOT met**"
}

const notMeasured = "not measured in this run"

// goals evaluates the targets against the run.
func goals(r *report) []goal {
	var gs []goal
	add := func(what, measured string, ok bool) { gs = append(gs, goal{what, measured, verdict(ok)}) }
	skip := func(what string) { gs = append(gs, goal{what, "—", notMeasured}) }

	// Separate processes, 20,000 files, 16 writers, against the baseline.
	cli, okC := r.result("cli", 20000, 16)
	git, okG := r.result("git", 20000, 16)
	const p = "cli, 20,000 files, 16 writers: "
	if okC {
		add(p+"16/16 land", fmt.Sprintf("%d/16", cli.Landed), cli.Landed == 16)
	} else {
		skip(p + "16/16 land")
	}
	if okC && okG {
		add(p+"wall ≤ 1/10 of the git baseline's", fmt.Sprintf("%s vs %s (%.1f×)", secs(cli.Wall), secs(git.Wall), ratio(git.Wall.Seconds(), cli.Wall.Seconds())), cli.Wall*10 <= git.Wall)
		add(p+"< 1/100 of the baseline's bytes", fmt.Sprintf("%s MB vs %s MB (%.0f×)", mb(cli.Bytes), mb(git.Bytes), ratio(float64(git.Bytes), float64(cli.Bytes))), cli.Bytes*100 < git.Bytes)
		add(p+"no more requests than the baseline", fmt.Sprintf("%d vs %d", cli.Requests, git.Requests), cli.Requests <= git.Requests)
	} else {
		for _, w := range []string{"wall ≤ 1/10 of the git baseline's", "< 1/100 of the baseline's bytes", "no more requests than the baseline"} {
			skip(p + w)
		}
	}

	gs = append(gs, goals37Matrix(r)...)

	// One commit's cost independent of repository size.
	if len(r.Costs) >= 2 {
		var parts []string
		same := true
		c0 := r.Costs[0]
		for _, c := range r.Costs {
			parts = append(parts, fmt.Sprintf("%s files: %d requests, %d bytes", num(c.Files), c.Requests, c.Bytes))
			same = same && c.Requests == c0.Requests && c.Bytes == c0.Bytes &&
				c.QueueRequests == c0.QueueRequests && c.QueueBytes == c0.QueueBytes
		}
		add("one commit's cost independent of repository size", strings.Join(parts, "; "), same)
	} else {
		skip("one commit's cost independent of repository size (needs two repository sizes)")
	}

	// One process, 64 writers, with the queue.
	found := false
	for _, f := range r.Config.files {
		chain, okCh := r.result("queue-chain", f, 64)
		squash, okSq := r.result("queue-squash", f, 64)
		plain, okP := r.result("goroutines", f, 64)
		q := fmt.Sprintf("queue, %s files, 64 writers: ", num(f))
		if okSq {
			found = true
			add(q+"squash: 64/64 land", fmt.Sprintf("%d/64", squash.Landed), squash.Landed == 64)
			add(q+"squash: ≤ 2 requests per landed change", fmt.Sprintf("%.2f", squash.RequestsPerLanded()), squash.Landed > 0 && squash.Requests <= 2*int64(squash.Landed))
		}
		if okCh {
			found = true
			add(q+"chain: 64/64 land", fmt.Sprintf("%d/64", chain.Landed), chain.Landed == 64)
			add(q+"chain: ≤ 3 requests per landed change", fmt.Sprintf("%.2f", chain.RequestsPerLanded()), chain.Landed > 0 && chain.Requests <= 3*int64(chain.Landed))
		}
		for _, x := range []struct {
			name string
			r    runResult
			ok   bool
		}{{"squash", squash, okSq}, {"chain", chain, okCh}} {
			if x.ok && okP {
				add(q+x.name+": ≥ 10× the landed changes per second of goroutines without the queue",
					fmt.Sprintf("%.1f/s vs %.1f/s (%.1f×)", x.r.Throughput(), plain.Throughput(), ratio(x.r.Throughput(), plain.Throughput())),
					x.r.Throughput() >= 10*plain.Throughput())
			}
		}
	}
	if !found {
		skip("queue, 64 writers: 64/64, ≤ 2 (squash) / ≤ 3 (chain) requests per landed change, ≥ 10× the throughput without the queue")
	}

	// Single uncontended commit.
	for _, c := range r.Costs {
		// 3 writes, the branch, and the directories on the path (the root
		// here): a put reads them so it never goes through a file or onto a
		// directory.
		add(fmt.Sprintf("single uncontended commit, %s files: 5 requests (4 + the root read)", num(c.Files)), fmt.Sprint(c.Requests), c.Requests == 5)
		add(fmt.Sprintf("single uncontended commit, %s files: 3 requests when the Queue knows the head", num(c.Files)), fmt.Sprint(c.QueueRequests), c.QueueRequests == 3)
	}
	return gs
}

// goals37Matrix is issue #37's goal against clone + rebase + push: 16
// writers on separate machines (mode cli-separate) into the 20,000-file
// repository at least 10× faster than the git writers, with at most twice
// their requests, the conditional reads (304s) counted among them as git's
// every HTTP request is.
func goals37Matrix(r *report) []goal {
	const p = "#37: cli-separate (separate machines), 20,000 files, 16 writers: "
	cli, okC := r.result("cli-separate", 20000, 16)
	git, okG := r.result("git", 20000, 16)
	what := []string{p + "16/16 land", p + "≥ 10× faster than clone + rebase + push (wall)", p + "≤ 2× its requests (conditional reads count)"}
	if !okC || !okG {
		return []goal{{what[0], "—", notMeasured}, {what[1], "—", notMeasured}, {what[2], "—", notMeasured}}
	}
	return []goal{
		{what[0], fmt.Sprintf("%d/16 (git %d/16)", cli.Landed, git.Landed), verdict(cli.Landed == 16)},
		{what[1], fmt.Sprintf("%s vs %s (%.1f×)", secs(cli.Wall), secs(git.Wall), ratio(git.Wall.Seconds(), cli.Wall.Seconds())),
			verdict(cli.Landed == 16 && cli.Wall*10 <= git.Wall)},
		{what[2], fmt.Sprintf("%d (%d of them 304s) vs %d (%.2f×)", cli.Requests, cli.NotModified, git.Requests, ratio(float64(cli.Requests), float64(git.Requests))),
			verdict(cli.Requests <= 2*git.Requests)},
	}
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

func renderGoals(b *strings.Builder, r *report) {
	fmt.Fprintf(b, "## Goals\n\n| goal | measured | verdict |\n|---|---|---|\n")
	for _, g := range goals(r) {
		fmt.Fprintf(b, "| %s | %s | %s |\n", g.What, g.Measured, g.Verdict)
	}
	fmt.Fprintln(b)
}

// renderBackoff reports how the library's default backoff
// (AdaptiveBackoff(50ms, 10s), -max-attempts attempts) copes when the
// writers cannot batch: 16 and 64 cli processes, and 64 goroutines without
// the queue.
func renderBackoff(b *strings.Builder, r *report) {
	limit := r.Config.maxAttempts
	fmt.Fprintf(b, "## Backoff under contention (default backoff, no batching)\n\n")
	fmt.Fprintf(b, "Separate processes cannot batch. On one machine they take turns at the branch (the default since issue #23: lock files in the user cache directory, `committer.WithTurnDir`), so the cli rows below land on their first attempt and show the turns, not the backoff; writers on different machines coordinate only through the ref update, waiting `committer.AdaptiveBackoff(50ms, 10s)` between attempts (full jitter over a window of twice the lost attempt's duration for each move of the branch seen, doubled for each race lost at a write; Git Data counts it down only while the branch stays quiet, a one-write engine reads the branch once halfway and starts at once if it stayed where the lost attempt saw it), at most %d attempts (`--max-attempts`, `committer.WithRetries`). The goroutines mode is the same loop inside one process, whose coordinator batches (issue #19).\n\n", limit)
	if bo := r.Config.backoff; bo[0] > 0 {
		fmt.Fprintf(b, "In this run the goroutines mode used `committer.ExponentialBackoff(%s, %s)` instead (-backoff).\n\n", bo[0], bo[1])
	}
	anyRun := false
	for _, f := range r.Config.files {
		for _, c := range []struct {
			mode, what string
			n          int
		}{{"cli", "processes", 16}, {"cli", "processes", 64}, {"goroutines", "goroutines without the queue", 64}} {
			x, ok := r.result(c.mode, f, c.n)
			if !ok {
				continue
			}
			anyRun = true
			line := fmt.Sprintf("- %s files, %d %s: %d/%d landed in %s, mean %.2f attempts, max %d", num(f), c.n, c.what, x.Landed, c.n, secs(x.Wall), x.MeanAttempts, x.MaxAttempts)
			switch {
			case x.Exhausted > 0:
				line += fmt.Sprintf("; **%d exhausted all %d attempts and did not land**", x.Exhausted, limit)
			case x.MaxAttempts >= limit:
				line += fmt.Sprintf("; none exhausted its attempts, but **the slowest landed on its last allowed attempt (%d of %d)**: no margin", x.MaxAttempts, limit)
			default:
				line += fmt.Sprintf("; none exhausted its attempts (margin: %d)", limit-x.MaxAttempts)
			}
			fmt.Fprintln(b, line+".")
		}
	}
	if !anyRun {
		fmt.Fprintf(b, "Neither cli with 16 or 64 writers nor goroutines with 64 ran: %s.\n", notMeasured)
	}
	fmt.Fprintln(b)
}
