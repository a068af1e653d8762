package main

import (
	"fmt"
	"strings"
)

// Issue #37's measures beyond writes per landed change: reads per landed
// change (conditional reads answered 304 among them) and the time the
// last writer lands against a baseline binary run back to back
// (-baseline, baseline.go).

// reads37 is issue #37's bound on reads per landed change, at 64
// separate-machine writers on the graphql engine, the index scenario.
const reads37 = 15.0

// baseline37 is issue #37's bound on the last writer's landing time, as a
// multiple of the baseline binary's in the same invocation.
const baseline37 = 1.5

// readsPerLanded is "R (C)": reads per landed change and, in brackets,
// the conditional reads answered 304 per landed change; "" when nothing
// landed.
func (r limitResult) readsPerLanded() string {
	if r.Landed == 0 {
		return ""
	}
	return fmt.Sprintf("%.2f (%.2f)", float64(r.Reads)/float64(r.Landed), float64(r.NotModified)/float64(r.Landed))
}

// readsGoal37 is #37's goal on reads per landed change, when its row ran.
func readsGoal37(lr *limitsReport) []goal {
	row, ok := lr.rowIn(scenarioIndex, "graphql", 64, true)
	if !ok || row.NotRun != "" {
		return nil
	}
	r := row.pooled() // over every run (-limit-repeat)
	what := fmt.Sprintf("#37: 64 writers, index, graphql, separate machines: ≤ %g reads per landed change (conditional reads count)", reads37)
	if r.Landed == 0 {
		return []goal{{what, "nothing landed", verdict(false)}}
	}
	per := float64(r.Reads) / float64(r.Landed)
	return []goal{{what, fmt.Sprintf("%.2f (%d reads, %d of them 304s, for %d landed)", per, r.Reads, r.NotModified, r.Landed), verdict(per <= reads37)}}
}

// baselineGoals37 is #37's goal on the last writer's landing time for
// every separate-machine index row that ran against the baseline: every
// writer lands, the last no later than baseline37 × the baseline's last.
func baselineGoals37(lr *limitsReport) []goal {
	base := lr.Config.base
	if base == nil {
		return nil
	}
	var gs []goal
	for _, row := range lr.Results {
		if row.Base == nil || row.NotRun != "" {
			continue
		}
		what := fmt.Sprintf("#37: %d writers, index, %s, separate machines: last writer lands ≤ %g× the baseline's (%s) time", row.Writers, row.Engine, baseline37, base.Rev)
		r := row.pooled() // the last writer's time averaged over every run (-limit-repeat)
		switch {
		case row.Base.NotRun != "":
			gs = append(gs, goal{what, "—", row.Base.NotRun})
		case r.Base == nil:
			gs = append(gs, goal{what, "the baseline did not run with every run", verdict(false)})
		case r.Base.Landed == 0:
			gs = append(gs, goal{what, "the baseline landed nothing", verdict(false)})
		default:
			b := *r.Base
			avg := ""
			if len(row.Again) > 0 {
				avg = fmt.Sprintf(", averages of %d runs", 1+len(row.Again))
			}
			measured := fmt.Sprintf("%s vs %s (%.2f×%s), %d/%d vs %d/%d landed", secs(r.LastLanded), secs(b.LastLanded),
				ratio(r.LastLanded.Seconds(), b.LastLanded.Seconds()), avg, r.Landed, r.Writers, b.Landed, b.Writers)
			ok := r.Landed == r.Writers && float64(r.LastLanded) <= baseline37*float64(b.LastLanded)
			gs = append(gs, goal{what, measured, verdict(ok)})
		}
	}
	return gs
}

// renderBaseline writes the rows run against the baseline binary, side by
// side.
func renderBaseline(b *strings.Builder, lr *limitsReport) {
	base := lr.Config.base
	if base == nil {
		return
	}
	name := base.Rev
	if !strings.HasPrefix(base.Commit, base.Rev) && !strings.HasPrefix(base.Rev, base.Commit) {
		name += ", commit " + base.Commit
	}
	fmt.Fprintf(b, "### Against the baseline (%s), separate machines\n\n", name)
	fmt.Fprintf(b, "`-baseline %s`: the CLI built from that revision (`git archive` of it into a scratch directory, `go build -o … ./cmd/ghcommitter` there). Every run of a separate-machine index row was followed by the baseline's, back to back, against a fresh fake each time: first the CLI built from the working tree, right after the baseline's, with the same arguments, environment and fake seed (`--engine` only when the baseline's `commit --help` lists it). **last writer landed** is the time from launching the N processes to the last landed writer's outcome: the first byte of its `--json` result, which a process prints once its change landed. **ratio** is now / baseline; #37 asks for at most %g.", base.Rev, baseline37)
	if base.Compat != "" {
		fmt.Fprintf(b, " %s", base.Compat)
	}
	fmt.Fprintf(b, "\n\n| writers | engine | landed: now / baseline | last writer landed: now / baseline | ratio | writes / landed: now / baseline | reads / landed (304s): now / baseline | writes refused: now / baseline |\n")
	fmt.Fprintf(b, "|---:|---|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range lr.Results {
		if r.Base == nil || r.NotRun != "" {
			continue
		}
		x := *r.Base
		if x.NotRun != "" {
			fmt.Fprintf(b, "| %d | %s | %d/%d / — | %s / — | | | | |\n", r.Writers, r.Engine, r.Landed, r.Writers, secs(r.LastLanded))
			continue
		}
		fmt.Fprintf(b, "| %d | %s | %d/%d / %d/%d | %s / %s | %.2f | %.2f / %.2f | %s / %s | %d / %d |\n",
			r.Writers, r.Engine, r.Landed, r.Writers, x.Landed, x.Writers, secs(r.LastLanded), secs(x.LastLanded),
			ratio(r.LastLanded.Seconds(), x.LastLanded.Seconds()), r.WritesPerLanded(), x.WritesPerLanded(),
			orDash(r.readsPerLanded()), orDash(x.readsPerLanded()), r.Stats.WritesLimited, x.Stats.WritesLimited)
	}
	fmt.Fprintln(b)
}
