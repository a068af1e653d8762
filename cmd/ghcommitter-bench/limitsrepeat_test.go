package main

import (
	"io"
	"strings"
	"testing"
	"time"
)

// With -limit-repeat, #37's goals on a repeated row are judged on all its
// runs: writes per landed change over every run's writes and landings,
// every writer of every run landed, and the last writer's average time
// against the baseline's average. One run over a bound does not fail a
// row whose runs are within it together; one writer short in any run
// does; and the report lists every run.
func TestRepeatedRowsAreJudgedOnAllRuns(t *testing.T) {
	run := func(writes, landed int, now, base time.Duration) limitResult {
		r := sepRow("git-data", 16, landed, writes, 100, 50, now)
		b := sepRow("git-data", 16, 16, 144, 100, 0, base)
		r.Base = &b
		return r
	}
	row := run(80, 16, 12*time.Second, 6*time.Second) // 5.00 writes, 2.0×
	row.Again = []limitResult{run(64, 16, 8*time.Second, 6*time.Second), run(60, 16, 7*time.Second, 6*time.Second)}
	lr := &limitsReport{Config: limitsConfig{scale: 60, writers: []int{16}, machines: "separate", repeat: 3,
		base: &baselineBin{Rev: "47ea148", Commit: "47ea148"}}, EngineFlag: true, Results: []limitResult{row}}
	const p = "#37: 16 writers, index, git-data, separate machines: "
	want := map[string]bool{
		p + "≤ 4.5 writes per landed change": true, // 204 / 48 = 4.25
		p + "16/16 land":                     true,
		p + "last writer lands ≤ 1.5× the baseline's (47ea148) time": true, // 9 s vs 6 s
	}
	check := func(lr *limitsReport, want map[string]bool) map[string]goal {
		t.Helper()
		got := map[string]goal{}
		for _, g := range limitGoals(lr) {
			got[g.What] = g
		}
		for what, met := range want {
			if g, ok := got[what]; !ok || g.Verdict != verdict(met) {
				t.Errorf("goal %q: %+v (present %v), want met=%v", what, g, ok, met)
			}
		}
		return got
	}
	got := check(lr, want)
	if m := got[p+"≤ 4.5 writes per landed change"].Measured; m != "4.25 (3 runs: 5.00, 4.00, 3.75)" {
		t.Errorf("writes measured %q", m)
	}
	if m := got[p+"last writer lands ≤ 1.5× the baseline's (47ea148) time"].Measured; !strings.Contains(m, "9.00 s vs 6.00 s (1.50×, averages of 3 runs)") || !strings.Contains(m, "48/48 vs 48/48 landed") {
		t.Errorf("last writer measured %q", m)
	}
	var sb strings.Builder
	renderRepeats(&sb, lr)
	for _, w := range []string{"| 16 | git-data | 1 | 16/16 | 5.00 | 12.0 s / 6.00 s | 2.00 |", "| 16 | git-data | **all** | 48/48 | **4.25** | 9.00 s / 6.00 s (averages) | **1.50** |", "`-limit-repeat 3`"} {
		if !strings.Contains(sb.String(), w) {
			t.Errorf("repeats section lacks %q:\n%s", w, sb.String())
		}
	}

	// One writer short in one run fails the landing goal; a slower
	// average fails the time goal.
	lr.Results[0].Again[1] = run(60, 15, 11*time.Second, 6*time.Second)
	check(lr, map[string]bool{p + "16/16 land": false, p + "last writer lands ≤ 1.5× the baseline's (47ea148) time": false})

	// A row of one run is judged on that run, as before.
	lr.Results[0].Again = nil
	check(lr, map[string]bool{p + "≤ 4.5 writes per landed change": false, p + "last writer lands ≤ 1.5× the baseline's (47ea148) time": false})
}

// Only separate-machine index rows of at most repeatWriters writers repeat.
func TestRepeatsOnlySmallSeparateIndexRows(t *testing.T) {
	lc := limitsConfig{repeat: 5}
	for _, tc := range []struct {
		r    limitResult
		want int
	}{
		{sepRow("git-data", 16, 16, 0, 0, 0, 0), 5},
		{sepRow("git-data", 64, 64, 0, 0, 0, 0), 1},
		{limitResult{Scenario: scenarioIndex, Engine: "git-data", Writers: 16}, 1}, // one machine
		{limitResult{Scenario: scenarioSingle, Engine: "git-data", Writers: 16, Separate: true}, 1},
		{limitResult{Scenario: scenarioIndex, Engine: "git-data", Writers: 16, Separate: true, NotRun: "n/a"}, 1},
	} {
		if got := lc.repeats(tc.r); got != tc.want {
			t.Errorf("repeats(%s %d writers, separate %v, scenario %s) = %d, want %d", tc.r.Engine, tc.r.Writers, tc.r.Separate, tc.r.Scenario, got, tc.want)
		}
	}
	if _, err := parseFlags([]string{"-limit-repeat", "0"}, io.Discard); err == nil {
		t.Error("-limit-repeat 0 parsed")
	}
}
