package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"
)

// -limit-repeat: one run of 16 writers that start together is one draw of
// a random process (each writer's waits are random), and its writes per
// landed change and last writer's time vary from run to run by more than
// the differences #37's goals draw: 3.5 to 4.7 writes per landed change at
// 16 separate-machine Git Data writers, and the baseline's own last
// writer at 5.6 to 9.7 s. The separate-machine index rows of at most
// repeatWriters writers therefore run -limit-repeat times in all, each
// run followed by the baseline's when there is one, and #37's goals are
// judged on all the runs: their writes, writers landed and refusals
// summed, and the last writer's time averaged, against the baseline's
// average over as many runs. The tables show each row's first run; the
// repeats section lists every run.

// repeatWriters bounds the rows that repeat: a 64-writer row of the
// baseline takes over a minute, and 64 writers draw more waits per run.
const repeatWriters = 16

// repeats is how many times in all row res runs.
func (lc limitsConfig) repeats(res limitResult) int {
	if lc.repeat <= 1 || !res.Separate || res.Scenario != scenarioIndex || res.NotRun != "" || !isCLIRow(res) || res.Writers > repeatWriters {
		return 1
	}
	return lc.repeat
}

// repeatRow runs row res again, with the baseline after each run when
// there is one, until it has run cfg.limits.repeats(res) times.
func repeatRow(ctx context.Context, cfg config, rep *limitsReport, bin string, res *limitResult, log io.Writer) error {
	for i := 1; i < cfg.limits.repeats(*res); i++ {
		again, err := runLimitCLI(ctx, cfg, rep, bin, res.Scenario, res.Engine, res.Writers)
		if err != nil {
			return fmt.Errorf("run %d: %w", i+1, err)
		}
		fmt.Fprintf(log, "  run %d: ", i+1)
		logLimit(log, again)
		if again.Base, err = runBaselineRow(ctx, cfg, again, log); err != nil {
			return fmt.Errorf("run %d: %w", i+1, err)
		}
		res.Again = append(res.Again, again)
	}
	return nil
}

// runs are the row's runs: itself, then its repeats.
func (r limitResult) runs() []limitResult {
	out := append([]limitResult{r}, r.Again...)
	out[0].Again = nil
	return out
}

// pooled is the row over all its runs: writers, landings, writes,
// refusals and reads summed (so WritesPerLanded, RefusedShare and
// readsPerLanded are over every run), the last writer's time averaged
// over the runs; Base likewise over the baseline's runs, when every run
// has one that ran. Those are what #37's goals read; every other field
// (the writes by type, the other LimitStats counts) is the first run's.
func (r limitResult) pooled() limitResult {
	runs := r.runs()
	if len(runs) == 1 {
		return runs[0]
	}
	p := runs[0]
	var bases []limitResult
	for i, x := range runs {
		if x.Base != nil && x.Base.NotRun == "" {
			bases = append(bases, *x.Base)
		}
		if i == 0 {
			continue
		}
		p.Writers += x.Writers
		p.Landed += x.Landed
		p.Stats.Writes += x.Stats.Writes
		p.Stats.WritesLimited += x.Stats.WritesLimited
		p.Reads += x.Reads
		p.NotModified += x.NotModified
		p.LastLanded += x.LastLanded
	}
	p.LastLanded /= time.Duration(len(runs))
	p.Base = nil
	if len(bases) == len(runs) {
		b := bases[0].withAgain(bases[1:]).pooled()
		p.Base = &b
	}
	return p
}

// withAgain is r with again as its repeats.
func (r limitResult) withAgain(again []limitResult) limitResult {
	r.Again = again
	return r
}

// perRun is how a pooled row's figure reads: "x (N runs: a, b, …)".
func perRun(r limitResult, all string, each func(limitResult) string) string {
	runs := r.runs()
	if len(runs) == 1 {
		return all
	}
	parts := make([]string, len(runs))
	for i, x := range runs {
		parts[i] = each(x)
	}
	return fmt.Sprintf("%s (%d runs: %s)", all, len(runs), strings.Join(parts, ", "))
}

// renderRepeats lists every run of the rows that ran more than once.
func renderRepeats(b *strings.Builder, lr *limitsReport) {
	var rows []limitResult
	for _, r := range lr.Results {
		if len(r.Again) > 0 {
			rows = append(rows, r)
		}
	}
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(b, "### Every run of the repeated rows\n\n")
	fmt.Fprintf(b, "`-limit-repeat %d`: each separate-machine index row of at most %d writers ran %d times, each run against a fresh fake and, with `-baseline`, followed by the baseline's run. #37's goals on these rows are judged on all the runs: writes per landed change, writers landed and refused writes over every run together, the last writer's time as the average of the runs against the baseline's average. The tables above show the first run.\n\n", lr.Config.repeat, repeatWriters, lr.Config.repeat)
	fmt.Fprintf(b, "| writers | engine | run | landed | writes / landed | last writer landed: now / baseline | ratio |\n|---:|---|---:|---:|---:|---:|---:|\n")
	for _, r := range rows {
		for i, x := range r.runs() {
			fmt.Fprintf(b, "| %d | %s | %d | %d/%d | %.2f | %s | %s |\n", r.Writers, r.Engine, i+1, x.Landed, x.Writers, x.WritesPerLanded(), nowVsBase(x), ratioVsBase(x))
		}
		p := r.pooled()
		fmt.Fprintf(b, "| %d | %s | **all** | %d/%d | **%.2f** | %s (averages) | **%s** |\n", r.Writers, r.Engine, p.Landed, p.Writers, p.WritesPerLanded(), nowVsBase(p), ratioVsBase(p))
	}
	fmt.Fprintln(b)
}

func nowVsBase(r limitResult) string {
	if r.Base == nil || r.Base.NotRun != "" {
		return secs(r.LastLanded) + " / —"
	}
	return secs(r.LastLanded) + " / " + secs(r.Base.LastLanded)
}

func ratioVsBase(r limitResult) string {
	if r.Base == nil || r.Base.NotRun != "" || r.Base.LastLanded <= 0 {
		return ""
	}
	return fmt.Sprintf("%.2f", ratio(r.LastLanded.Seconds(), r.Base.LastLanded.Seconds()))
}
