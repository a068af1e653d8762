package main

import (
	"context"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

// The last writer lands when the last landed writer's outcome came; a
// writer that failed later does not count, an unknown time falls back to
// the wall time.
func TestLastLanded(t *testing.T) {
	ws := []writerResult{{Landed: true, Done: 3 * time.Second}, {Landed: false, Done: 9 * time.Second}, {Landed: true, Done: 5 * time.Second}}
	if got := lastLanded(ws, 10*time.Second); got != 5*time.Second {
		t.Errorf("lastLanded = %s, want 5s (the failed writer's 9s left out)", got)
	}
	ws = append(ws, writerResult{Landed: true})
	if got := lastLanded(ws, 10*time.Second); got != 10*time.Second {
		t.Errorf("lastLanded with an unknown time = %s, want the wall time", got)
	}
	if got := lastLanded(ws[1:2], 10*time.Second); got != 0 {
		t.Errorf("lastLanded with none landed = %s, want 0", got)
	}
}

// A process's outcome is stamped when its --json output comes, not when
// it exits.
func TestRunProcessesStampsTheOutput(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	cmd := exec.Command("sh", "-c", `printf '{"commit":"abc","attempts":2}\n'; sleep 1`)
	ws, wall := runProcesses([]*exec.Cmd{cmd}, 10)
	w := ws[0]
	if !w.Landed || w.Attempts != 2 {
		t.Fatalf("outcome %+v, want landed in 2 attempts", w)
	}
	if w.Done <= 0 || wall-w.Done < 500*time.Millisecond {
		t.Errorf("Done = %s, wall %s: want the output's time, well before the exit a second later", w.Done, wall)
	}
}

// sepRow is a separate-machine index row with the given counts.
func sepRow(eng string, n, landed, writes, reads, notModified int, last time.Duration) limitResult {
	return limitResult{Scenario: scenarioIndex, Engine: eng, Writers: n, Landed: landed, Separate: true, Scale: 60,
		Stats: githubtest.LimitStats{Writes: writes}, Reads: reads, NotModified: notModified, LastLanded: last}
}

// #37's reads goal reads the 64-writer graphql row; the baseline goal
// compares the last writer's landing with the baseline's, and every
// writer must land.
func TestGoals37ReadsAndBaseline(t *testing.T) {
	graphql := sepRow("graphql", 64, 64, 80, 896, 300, 30*time.Second) // 14 reads per landed change
	b := sepRow("graphql", 64, 64, 190, 3300, 0, 21*time.Second)       // 30 s ≤ 1.5 × 21 s
	graphql.Base = &b
	auto := sepRow("auto", 64, 63, 90, 1200, 10, 20*time.Second) // one did not land
	ab := sepRow("auto", 64, 64, 200, 3000, 0, 40*time.Second)
	auto.Base = &ab
	git := sepRow("git-data", 64, 64, 300, 1000, 0, 50*time.Second)
	gb := sepRow("git-data", 64, 64, 900, 2000, 0, 30*time.Second) // 50 s > 45 s
	git.Base = &gb
	lr := &limitsReport{Config: limitsConfig{scale: 60, writers: []int{64}, machines: "separate",
		base: &baselineBin{Rev: "47ea148", Commit: "47ea148", Compat: "checked."}},
		EngineFlag: true, Results: []limitResult{git, graphql, auto}}
	verdicts := map[string]string{}
	for _, g := range limitGoals(lr) {
		verdicts[g.What] = g.Verdict
	}
	const bl = "separate machines: last writer lands ≤ 1.5× the baseline's (47ea148) time"
	for what, met := range map[string]bool{
		"#37: 64 writers, index, graphql, separate machines: ≤ 15 reads per landed change (conditional reads count)": true,
		"#37: 64 writers, index, graphql, " + bl:  true,
		"#37: 64 writers, index, auto, " + bl:     false,
		"#37: 64 writers, index, git-data, " + bl: false,
	} {
		if got, ok := verdicts[what]; !ok || got != verdict(met) {
			t.Errorf("goal %q: %q (present %v), want %q", what, got, ok, verdict(met))
		}
	}
	lr.Results[1].Reads = 961 // 15.02
	for _, g := range readsGoal37(lr) {
		if g.Verdict == verdict(true) {
			t.Errorf("15.02 reads per landed change met the goal: %+v", g)
		}
	}
	var sb strings.Builder
	renderBaseline(&sb, lr)
	renderLimitTables(&sb, lr)
	doc := sb.String()
	for _, want := range []string{"### Against the baseline (47ea148", "| 64 | graphql | 64/64 / 64/64 | 30.0 s / 21.0 s | 1.43 | 1.25 / 2.97 | 15.02 (4.69) / 51.56 (0.00) |", "checked.", "reads / landed (304s)"} {
		if !strings.Contains(doc, want) {
			t.Errorf("report lacks %q:\n%s", want, doc)
		}
	}
}

func TestBaselineCompat(t *testing.T) {
	help := "--api-url -R, --repo -b, --branch -m, --message --add --edit --max-attempts --json --engine"
	image := []byte("..." + limitScaleEnv + "..." + fakeClientEnv + "..." + stateDirEnv)
	if got := baselineCompat(help, image); !strings.HasPrefix(got, "The baseline has every flag") {
		t.Errorf("compat with everything = %q", got)
	}
	got := baselineCompat(strings.Replace(help, "--edit", "", 1), image[:20])
	for _, want := range []string{"lacks `--edit`", "`" + fakeClientEnv + "`", "`" + stateDirEnv + "`"} {
		if !strings.Contains(got, want) {
			t.Errorf("compat without --edit and two variables = %q, lacks %q", got, want)
		}
	}
}

// A revision that does not exist stops the run before any row.
func TestBuildBaselineBadRevision(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	_, err := buildBaseline(context.Background(), "no-such-revision-37", t.TempDir(), io.Discard)
	if err == nil || !strings.Contains(err.Error(), "no-such-revision-37") {
		t.Errorf("buildBaseline(bad revision) = %v", err)
	}
	if _, err := parseFlags([]string{"-baseline", "-x"}, io.Discard); err == nil {
		t.Error("-baseline -x parsed")
	}
	cfg, err := parseFlags([]string{"-baseline", "47ea148", "-modes", "cli-separate,git"}, io.Discard)
	if err != nil || cfg.limits.baseline != "47ea148" || len(cfg.modes) != 2 || cfg.modes[0] != "cli-separate" {
		t.Errorf("parseFlags: %v, baseline %q, modes %v", err, cfg.limits.baseline, cfg.modes)
	}
}

// #37 against clone + rebase + push: 10× faster and at most twice git's
// requests, 304s counted.
func TestGoals37Matrix(t *testing.T) {
	rep := &report{Results: []runResult{
		{Mode: "cli-separate", Files: 20000, Writers: 16, Landed: 16, Wall: 2 * time.Second, Requests: 600, NotModified: 90},
		{Mode: "git", Files: 20000, Writers: 16, Landed: 16, Wall: 25 * time.Second, Requests: 300},
	}}
	gs := goals37Matrix(rep)
	if len(gs) != 3 || gs[0].Verdict != "met" || gs[1].Verdict != "met" || gs[2].Verdict != "met" || !strings.Contains(gs[2].Measured, "90 of them 304s") {
		t.Errorf("goals = %+v", gs)
	}
	rep.Results[0].Requests, rep.Results[0].Wall = 601, 3*time.Second
	gs = goals37Matrix(rep)
	if gs[1].Verdict == "met" || gs[2].Verdict == "met" {
		t.Errorf("8.3× faster with 601 vs 300 requests met: %+v", gs)
	}
	if gs := goals37Matrix(&report{}); gs[0].Verdict != notMeasured {
		t.Errorf("without the rows: %+v", gs)
	}
}

// The matrix's cli-separate mode places its processes as the limits rows
// do: each its own HOME and state directory.
func TestMachineEnvMatrix(t *testing.T) {
	work := t.TempDir()
	a, err := machineEnv([]string{"GH_TOKEN=x", "HOME=/root"}, work, 0, true)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := machineEnv([]string{"GH_TOKEN=x", "HOME=/root"}, work, 1, true)
	if strings.Join(a, " ") == strings.Join(b, " ") || strings.Contains(strings.Join(a, " "), "HOME=/root") {
		t.Errorf("separate: %q and %q", a, b)
	}
	c, _ := machineEnv([]string{"HOME=/root"}, work, 0, false)
	d, _ := machineEnv([]string{"HOME=/root"}, work, 1, false)
	if strings.Join(c, " ") != strings.Join(d, " ") {
		t.Errorf("one machine: %q and %q differ", c, d)
	}
}
