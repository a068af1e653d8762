package main

import (
	"context"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

// tightLimits provoke rate limits with a handful of writers: 6 writes a
// (scaled) minute, always with a retry-after so that the run stays short.
var tightLimits = githubtest.Limits{Primary: 5000, ContentPerMinute: 6, ContentPerHour: 500,
	PointsPerMinute: 900, Concurrent: 100, RetryAfter: githubtest.RetryAfterAlways}

func smokeConfig(t *testing.T, writers string) config {
	t.Helper()
	cfg, err := parseFlags([]string{"-only", "limits", "-limit-writers", writers, "-latency", "2ms", "-limit-scale", "60", "-limit-repeat", "2"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	l := tightLimits
	cfg.limits.limits = &l
	cfg.limits.timeout = 2 * time.Minute
	return cfg
}

// TestLimitsSmoke builds the CLI and runs the section with 3 processes per
// scenario, as on one machine and as on separate machines (-limit-machines
// both, the default), and the Queue with 3 goroutines once, at the tight
// limits: they share a token, so they provoke limits. Writes are counted, and every
// change reported landed is on the branch and in the index once (verify,
// which fails the run otherwise). How many land is the benchmark's
// finding, not asserted here.
func TestLimitsSmoke(t *testing.T) {
	cfg := smokeConfig(t, "3")
	cfg.maxAttempts = 4
	cfg.limits.engines = []string{"git-data", "contents"}
	// The stages rows at these tight limits wait real minutes at
	// github.com's pacing; TestProcessStagesNeverRace covers them.
	cfg.limits.noProcess = true
	// The merge rows (16 processes, each waiting for ci and its merge) are
	// run by "-only merge"; internal/cli's TestSeparateMachines* test them.
	cfg.limits.rows = slices.DeleteFunc(slices.Clone(limitRowKinds), func(k string) bool { return k == "merge" })
	if cfg.limits.machines != "both" {
		t.Fatalf("-limit-machines defaults to %q, want both", cfg.limits.machines)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	bin, err := buildCLI(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	lr, err := runLimits(ctx, cfg, bin, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	limited := 0
	for _, r := range lr.Results {
		if r.NotRun != "" {
			continue
		}
		limited += r.Stats.Limited
		t.Logf("%s, %s: landed %d/%d, %d writes, %d limited (%v)", r.Scenario, r.Engine, r.Landed, r.Writers, r.Stats.Writes, r.Stats.Limited, r.Errors)
		if r.Stats.Writes == 0 {
			t.Errorf("%s, %s: landed %d/%d with %d writes counted", r.Scenario, r.Engine, r.Landed, r.Writers, r.Stats.Writes)
		}
		t.Logf("%s, %s: %d writes inside a process's own retry-after, %d inside another's", r.Scenario, r.Engine, r.Stats.WritesInOwnRetryAfter, r.InOthersWindow())
	}
	if limited == 0 {
		t.Errorf("no rate limit was provoked at %d writes a minute: the smoke tests nothing", tightLimits.ContentPerMinute)
	}
	for _, sep := range []bool{false, true} {
		for _, sc := range []string{scenarioIndex, scenarioSingle} {
			r, ok := lr.rowIn(sc, "git-data", 3, sep)
			if !ok || r.NotRun != "" {
				t.Fatalf("no git-data row for the %s scenario, separate machines %v: %+v", sc, sep, r)
			}
			if k := r.Kinds; r.Landed > 0 && (k.Trees < r.Landed || k.Commits < r.Landed || k.Landing < r.Landed) {
				t.Errorf("%s, separate %v: %d landed from %+v writes: fewer sent than landed", sc, sep, r.Landed, k)
			}
			// -limit-repeat 2: the separate-machine index row ran twice.
			if again := sep && sc == scenarioIndex; (len(r.Again) == 1) != again || again && r.Again[0].Stats.Writes == 0 {
				t.Errorf("%s, separate %v: %d repeats (%+v), want 1 with writes counted only for the separate-machine index row", sc, sep, len(r.Again), r.Again)
			}
		}
		if r, _ := lr.rowIn(scenarioIndex, "contents", 3, sep); !strings.HasPrefix(r.NotRun, "n/a") {
			t.Errorf("contents ran the two-file index scenario: %+v", r)
		}
	}
	queues := 0
	for _, r := range lr.Results {
		if contains(queueModes, r.Engine) {
			queues++
			if r.Separate {
				t.Errorf("queue row %s marked as on separate machines", r.Engine)
			}
		}
	}
	if queues != len(queueModes) {
		t.Errorf("%d queue rows, want %d: one process, run once", queues, len(queueModes))
	}
	doc := renderLimits(lr)
	for _, want := range []string{limitsBegin, "### 3 writers", "#### One machine", "#### Separate machines", "-limit-machines both", "| index | git-data | ", "Which figures hold on github.com", "### Every run of the repeated rows", limitsEnd} {
		if !strings.Contains(doc, want) {
			t.Errorf("section lacks %q", want)
		}
	}
}

// Both modes render two tables per writer count, the goals of #37 read the
// separate-machine rows, the older goals the one-machine rows, and the
// waste column is sent − landed per landed change.
func TestLimitsBothModesReport(t *testing.T) {
	mk := func(eng string, n, landed, writes, limited int, sep bool, k writeKinds) limitResult {
		return limitResult{Scenario: scenarioIndex, Engine: eng, Writers: n, Landed: landed, Separate: sep, Kinds: k, Scale: 60,
			Stats: githubtest.LimitStats{Writes: writes, WritesLimited: limited}}
	}
	lr := &limitsReport{Config: limitsConfig{scale: 60, writers: []int{16}, machines: "both"}, EngineFlag: true, Results: []limitResult{
		mk("git-data", 16, 16, 160, 0, false, writeKinds{}),
		mk("git-data", 16, 16, 64, 1, true, writeKinds{Trees: 26, Commits: 20, Landing: 18, Refused: 1}),
		mk("graphql", 16, 15, 22, 0, true, writeKinds{Landing: 22}),
		{Scenario: scenarioIndex, Engine: "queue-chain", Writers: 16, Landed: 16, Stats: githubtest.LimitStats{Writes: 40}},
	}}
	if r, ok := lr.row(scenarioIndex, "git-data", 16); !ok || r.Separate {
		t.Errorf("row() = %+v, want the one-machine row", r)
	}
	if got, want := lr.Results[1].waste(), "0.62 / 0.25 / 0.12 / 0.06"; got != want {
		t.Errorf("waste = %q, want %q", got, want)
	}
	if got := lr.Results[2].waste(); !strings.HasPrefix(got, "– / – / 0.47 / ") {
		t.Errorf("graphql waste = %q", got)
	}
	verdicts := map[string]string{}
	for _, g := range limitGoals(lr) {
		verdicts[g.What] = g.Verdict
	}
	for what, met := range map[string]bool{
		"#37: 16 writers, index, git-data, separate machines: ≤ 4.5 writes per landed change":    true,
		"#37: 16 writers, index, git-data, separate machines: 16/16 land":                        true,
		"#37: 16 writers, index, git-data, separate machines: ≤ 2% of writes refused by a limit": true, // 1 of 64
		"#37: 16 writers, index, graphql, separate machines: 16/16 land":                         false,
		"#37: 16 writers, index, graphql, separate machines: ≤ 1.6 writes per landed change":     true,
		"#23: 16 writers, index, git-data: ≤ 8 writes per landed change, all landing":            false, // one machine: 10
	} {
		if got, ok := verdicts[what]; !ok || got != verdict(met) {
			t.Errorf("goal %q: %q (present %v), want %q", what, got, ok, verdict(met))
		}
	}
	for what := range verdicts {
		if strings.Contains(what, "auto") || strings.Contains(what, "64 writers") {
			t.Errorf("goal of a row not run: %q", what)
		}
	}
	var b strings.Builder
	renderLimitTables(&b, lr)
	doc := b.String()
	one, apart := strings.Index(doc, "#### One machine"), strings.Index(doc, "#### Separate machines")
	if one < 0 || apart < one || strings.Count(doc, "| index | git-data |") != 2 || strings.Index(doc, "| index | queue-chain |") > apart {
		t.Errorf("tables:\n%s", doc)
	}
}

func TestBudgetFloor(t *testing.T) {
	for _, c := range []struct {
		writes int
		scale  float64
		want   time.Duration
	}{
		{0, 1, 0}, {80, 1, 0}, {81, 1, time.Minute}, {161, 60, 2 * time.Second},
		{500, 1, 6 * time.Minute}, {501, 1, time.Hour}, {1001, 60, 2 * time.Minute},
	} {
		if got := budgetFloor(c.writes, c.scale); got != c.want {
			t.Errorf("budgetFloor(%d, %g) = %s, want %s", c.writes, c.scale, got, c.want)
		}
	}
}

// -only limits replaces the section of an existing report and keeps the
// rest; -only matrix keeps the old section.
func TestComposeKeepsTheOtherSection(t *testing.T) {
	matrix := "# Benchmarks\n\nintro\n\n## Setup\n\nold matrix\n"
	lr := &limitsReport{Config: limitsConfig{scale: 60, writers: []int{16}}, Command: "cmd-1"}
	first := compose(nil, lr, matrix)
	if !strings.Contains(first, "old matrix") || strings.Index(first, limitsBegin) > strings.Index(first, "## Setup") {
		t.Fatalf("section not put before the matrix:\n%s", first)
	}
	lr.Command = "cmd-2"
	second := compose(nil, lr, first)
	if strings.Count(second, limitsBegin) != 1 || strings.Contains(second, "cmd-1") || !strings.Contains(second, "cmd-2") || !strings.Contains(second, "old matrix") {
		t.Fatalf("rerun did not replace the section:\n%s", second)
	}
	if got := section(second); !strings.HasPrefix(got, limitsBegin) || !strings.HasSuffix(got, limitsEnd+"\n") {
		t.Fatalf("section() = %q", got)
	}
	if got := compose(nil, nil, second); got != second {
		t.Fatalf("compose with nothing new changed the report")
	}
}

func TestAutoGoal(t *testing.T) {
	mk := func(eng string, landed, writes int) limitResult {
		return limitResult{Scenario: scenarioSingle, Engine: eng, Writers: 16, Landed: landed, Stats: githubtest.LimitStats{Writes: writes}}
	}
	lr := &limitsReport{Results: []limitResult{mk("git-data", 16, 160), mk("graphql", 16, 40), mk("contents", 15, 16), mk("auto", 16, 44)}}
	g, ok := autoGoal(lr, scenarioSingle, 16)
	if !ok || g.Verdict != "met" || !strings.Contains(g.Measured, "graphql") {
		t.Errorf("auto at 2.75 vs graphql 2.50 (contents did not land all): %+v", g)
	}
	lr.Results[3] = mk("auto", 16, 45)
	if g, _ := autoGoal(lr, scenarioSingle, 16); g.Verdict == "met" {
		t.Errorf("auto at 2.81 vs 2.50 is over 10%%: %+v", g)
	}
}

// TestProcessStagesNeverRace (issue 19): the seed's scenario from one
// process — 20 stages, each syncing 3 files and editing the shared index,
// with library defaults against the fake with githubtest.GitHubLimits
// (windows scaled, the clients scaled the same), per-stage clients and one
// shared client: 20/20 land exactly once (verify), at most 2.5 writes per
// landed change, at most 2 attempts each, no write inside the process's own
// retry-after. Counts, not times.
func TestProcessStagesNeverRace(t *testing.T) {
	cfg, err := parseFlags([]string{"-only", "limits", "-latency", "2ms", "-limit-scale", "60"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	cfg.limits.timeout = 2 * time.Minute
	for _, mode := range processModes {
		t.Run(mode, func(t *testing.T) {
			r, err := runLimitProcess(context.Background(), cfg, mode)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: landed %d/%d, %d writes (%.2f per landed), attempts mean %.2f max %d, %d limited, %d in own retry-after",
				mode, r.Landed, r.Writers, r.Stats.Writes, r.WritesPerLanded(), r.MeanAttempts, r.MaxAttempts, r.Stats.Limited, r.Stats.WritesInOwnRetryAfter)
			if err := processGoal(r); err != nil {
				t.Error(err)
			}
		})
	}
}

// Separate machines share nothing local: each process its own HOME,
// cache and state directory; on one machine they share the run's state
// directory and the user's HOME.
func TestLimitProcessEnvSeparate(t *testing.T) {
	work := t.TempDir()
	get := func(env []string, k string) string {
		v := ""
		for _, kv := range env {
			if key, val, _ := strings.Cut(kv, "="); key == k {
				v = val // the last one wins, as for exec
			}
		}
		return v
	}
	lc := limitsConfig{scale: 60, separate: true}
	a, err := limitProcessEnv(work, 0, lc)
	if err != nil {
		t.Fatal(err)
	}
	b, err := limitProcessEnv(work, 1, lc)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"HOME", "XDG_CACHE_HOME", stateDirEnv} {
		va, vb := get(a, k), get(b, k)
		if va == "" || va == vb || !strings.HasPrefix(va, work) {
			t.Errorf("%s: process 0 %q, process 1 %q: want a directory of each process's own under the run's", k, va, vb)
		}
	}
	homes := 0
	for _, kv := range a {
		if strings.HasPrefix(kv, "HOME=") {
			homes++
		}
	}
	if homes != 1 {
		t.Errorf("process 0's environment holds %d HOMEs, want its own alone", homes)
	}
	same := limitsConfig{scale: 60}
	c, _ := limitProcessEnv(work, 0, same)
	d, _ := limitProcessEnv(work, 1, same)
	if get(c, stateDirEnv) != get(d, stateDirEnv) || get(c, "HOME") != get(d, "HOME") {
		t.Error("one machine: the processes do not share the state directory and HOME")
	}
	if get(c, "GH_TOKEN") != fakeToken || get(c, fakeClientEnv) != "process-00" {
		t.Errorf("process 0's token or name: %q %q", get(c, "GH_TOKEN"), get(c, fakeClientEnv))
	}
}
