package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/ghclient"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
	"github.com/ghcommitter/ghcommitter/internal/testseam"
)

// The "under GitHub's limits" section: the fake enforces github.com's
// per-token limits (githubtest.GitHubLimits: 80 writes a minute, 500 an
// hour, 900 points a minute per endpoint, 100 concurrent requests), every
// window made limitScale times shorter, and the clients are scaled the same
// way (GHCOMMITTER_LIMIT_SCALE for the CLI, the limit-scale test seam of
// internal/testseam for the in-process clients: scaled), so that the run
// takes minutes instead of hours. Every writer uses
// the same token, as a fleet of CI jobs with one bot token does.

// Engines the CLI is asked to use, in the tables' order.
var allEngines = []string{"git-data", "graphql", "contents", "auto"}

// Scenarios of the section.
const (
	scenarioIndex  = "index"  // own stage file + an edit of one shared index
	scenarioSingle = "single" // own stage file only
)

// queueModes are the in-process runs of the section: one Queue, N goroutines.
var queueModes = []string{"queue-chain", "queue-squash", "queue-squash-graphql"}

// limitResult is one run of the section.
type limitResult struct {
	Scenario string
	Engine   string // CLI engine, or a queue mode
	Writers  int
	NotRun   string // why it did not run, or ""

	Landed       int
	Wall         time.Duration
	MeanAttempts float64
	MaxAttempts  int
	Exhausted    int
	Errors       []string
	Requests     int
	Stats        githubtest.LimitStats
	Scale        float64
	Unreported   int    // writers that did not report landing but are on the branch
	Routes       string // the fake's requests by route and status (the progress log's)
	// Separate is true for a CLI row run as on separate machines (each
	// process its own HOME, XDG_CACHE_HOME and rate-limit state
	// directory), false for one run as on one machine and for the rows
	// that are one process (Queue, process, scale).
	Separate bool
	Kinds    writeKinds // the writes sent, by type, from the fake's request log
	// LastLanded is when the last writer that landed had landed, from the
	// launch (lastLanded); Wall also waits for the writers that failed.
	LastLanded time.Duration
	// P50 and MaxLatency are the writers' times from their start to their
	// outcome: the median and the longest.
	P50, MaxLatency time.Duration
	// Reads are the requests other than writes, from the fake's log;
	// NotModified the conditional ones among them answered 304.
	Reads, NotModified int
	// Base is the same row run right after with the -baseline binary
	// (baseline.go), or nil.
	Base *limitResult
	// Again are the row's further runs, each with its Base
	// (-limit-repeat, limitsrepeat.go).
	Again []limitResult
}

// writeKinds counts a row's writes by type, from the fake's request log.
type writeKinds struct {
	Trees   int // POST .../git/trees
	Commits int // POST .../git/commits
	// Landing is the writes that land a change: ref updates (PATCH
	// .../git/refs/...), GraphQL mutations (updateRefs on the git-data
	// engine, createCommitOnBranch on graphql and auto) and contents PUTs.
	Landing int
	Other   int // every other write (blobs, new refs, ...)
	Refused int // writes of any type answered 403 or 429
}

// waste is "sent − landed" per landed change for trees, commits and
// landing writes, and refused writes per landed change, as "a / b / c / d";
// a type the row sent none of is "–"; "" when nothing landed.
func (r limitResult) waste() string {
	if r.Landed == 0 {
		return ""
	}
	per := func(sent int) string {
		if sent == 0 {
			return "–"
		}
		return fmt.Sprintf("%.2f", float64(sent-r.Landed)/float64(r.Landed))
	}
	k := r.Kinds
	return fmt.Sprintf("%s / %s / %s / %.2f", per(k.Trees), per(k.Commits), per(k.Landing), float64(k.Refused)/float64(r.Landed))
}

// RefusedShare is the share of writes sent that a limit refused.
func (r limitResult) RefusedShare() float64 {
	if r.Stats.Writes == 0 {
		return 0
	}
	return float64(r.Stats.WritesLimited) / float64(r.Stats.Writes)
}

// machines names a CLI row's mode for the log and notes.
func (r limitResult) machines() string {
	if r.Separate {
		return "separate machines"
	}
	return "one machine"
}

// WritesPerLanded is every write sent (refused ones too) per landed change.
func (r limitResult) WritesPerLanded() float64 {
	if r.Landed == 0 {
		return 0
	}
	return float64(r.Stats.Writes) / float64(r.Landed)
}

// InOthersWindow is the writes sent inside a retry-after that the fake had
// told another process using the same token.
func (r limitResult) InOthersWindow() int {
	return r.Stats.WritesInRetryAfter - r.Stats.WritesInOwnRetryAfter
}

// Floor is the least time in which GitHub's write budget (80 in any
// minute, 500 in any hour, both windows made Scale times shorter) admits
// the writes this run had admitted: the last of W writes cannot go out
// before floor((W-1)/80) minutes nor floor((W-1)/500) hours.
func (r limitResult) Floor() time.Duration {
	return budgetFloor(r.Stats.Writes-r.Stats.WritesLimited, r.Scale)
}

func budgetFloor(writes int, scale float64) time.Duration {
	if writes <= 1 || scale <= 0 {
		return 0
	}
	lim := githubtest.GitHubLimits
	m := time.Duration((writes-1)/lim.ContentPerMinute) * time.Minute
	h := time.Duration((writes-1)/lim.ContentPerHour) * time.Hour
	return time.Duration(float64(max(m, h)) / scale)
}

// limitsConfig is the section's part of config.
type limitsConfig struct {
	scale   float64
	writers []int
	engines []string
	seed    uint64
	timeout time.Duration // bound on one run
	// limits overrides githubtest.GitHubLimits (tests use tighter ones to
	// provoke limits with few writers); Scale and Seed come from above.
	limits *githubtest.Limits
	// noProcess leaves out the in-process stages rows (the smoke test of
	// the CLI rows; TestProcessStagesNeverRace runs those on their own).
	noProcess bool
	// trace is a directory for each CLI process's --verbose log
	// (-limit-trace); "" for none.
	trace string
	// rows are the kinds of rows to run (-limit-rows); nil: all of them.
	rows []string
	// separate runs every CLI process as on a machine of its own: its own
	// HOME and XDG_CACHE_HOME (so no turn lock file is shared) and its own
	// rate-limit state directory. runLimits sets it per row (a copy of the
	// config for each mode of machines); the manifest rows take it as
	// parsed (true for -limit-machines separate only).
	separate bool
	// machines is -limit-machines: "same", "separate" or "both" (every
	// CLI row run twice, once in each mode); "" is "same".
	machines string
	// baseline is -baseline: a git revision whose CLI runs right after
	// the current one on every separate-machine index row ("" for none);
	// base is that CLI once built (runLimitsSection).
	baseline string
	base     *baselineBin
	// repeat is -limit-repeat: how many times in all each
	// separate-machine index row of at most repeatWriters writers runs.
	repeat int
}

// machineModes are the values of separate the CLI rows run with, one
// machine first.
func (lc limitsConfig) machineModes() []bool {
	switch lc.machines {
	case "separate":
		return []bool{true}
	case "both":
		return []bool{false, true}
	}
	return []bool{false}
}

// limitRowKinds are the kinds of rows of the section, for -limit-rows:
// the two CLI scenarios, the Queue's rows, the one-process stages rows,
// the cost-at-scale rows, the shard processes of examples/shards and the
// pull requests merged.
var limitRowKinds = []string{scenarioIndex, scenarioSingle, "queue", "process", "scale", "shards", "merge"}

// runs reports whether rows of kind run.
func (lc limitsConfig) runs(kind string) bool {
	return lc.rows == nil || contains(lc.rows, kind)
}

func (lc limitsConfig) fakeLimits() githubtest.Limits {
	l := githubtest.GitHubLimits // retry-after sometimes sent, sometimes not
	if lc.limits != nil {
		l = *lc.limits
	}
	l.Scale, l.Seed = lc.scale, lc.seed
	return l
}

// limitsReport is the section's measurements.
type limitsReport struct {
	Config      limitsConfig
	Latency     time.Duration
	MaxAttempts int
	Command     string
	Took        time.Duration
	EngineFlag  bool // the built CLI has --engine
	Results     []limitResult
	LoadBefore  string
	LoadAfter   string
	Cores       string        // nproc
	Note        string        // the conditions of the run (-note)
	CLIUnbuilt  string        // why the CLI runs were skipped, or ""
	Scale       []scaleResult // cost at github.com's scale (runScale)
	Shards      *shardsReport // examples/shards (limitsshards.go), or nil
	Merge       []mergeResult // pull requests merged (prmerge.go)
}

// runLimits runs the section: for each writer count, the two scenarios with
// every engine through N CLI processes, then the Queue in one process.
func runLimits(ctx context.Context, cfg config, bin string, log io.Writer) (*limitsReport, error) {
	lc := cfg.limits
	rep := &limitsReport{Config: lc, Latency: cfg.latency, MaxAttempts: cfg.maxAttempts, LoadBefore: loadAvg(),
		Cores: nproc(ctx), Note: cfg.note}
	if rep.Note == "" {
		rep.Note = "no -note given about what else ran"
	}
	if bin == "" {
		rep.CLIUnbuilt = "the CLI could not be built"
	} else {
		rep.EngineFlag = hasEngineFlag(ctx, bin)
	}
	fmt.Fprintf(log, "under GitHub's limits: scale %g (a minute lasts %s), --engine %s\n",
		lc.scale, scaledMinute(lc.scale).Round(time.Millisecond), map[bool]string{true: "available", false: "not in this CLI"}[rep.EngineFlag])
	for _, n := range lc.writers {
		for _, sc := range []string{scenarioIndex, scenarioSingle} {
			if !lc.runs(sc) {
				continue
			}
			for _, eng := range lc.engines {
				for _, sep := range lc.machineModes() {
					row := cfg
					row.limits.separate = sep
					res, err := runLimitCLI(ctx, row, rep, bin, sc, eng, n)
					if err != nil {
						return nil, fmt.Errorf("under limits, %s, %s, %d writers, %s: %w", sc, eng, n, res.machines(), err)
					}
					logLimit(log, res)
					if res.Base, err = runBaselineRow(ctx, row, res, log); err != nil {
						return nil, fmt.Errorf("under limits, %s, %s, %d writers: %w", sc, eng, n, err)
					}
					if err := repeatRow(ctx, row, rep, bin, &res, log); err != nil {
						return nil, fmt.Errorf("under limits, %s, %s, %d writers: %w", sc, eng, n, err)
					}
					rep.Results = append(rep.Results, res)
				}
			}
		}
		for _, mode := range queueModes {
			if !lc.runs("queue") {
				break
			}
			res, err := runLimitQueue(ctx, cfg, mode, n)
			if err != nil {
				return nil, fmt.Errorf("under limits, %s, %d writers: %w", mode, n, err)
			}
			logLimit(log, res)
			rep.Results = append(rep.Results, res)
		}
	}
	if !cfg.limits.noProcess && lc.runs("process") {
		rows, err := processRuns(ctx, cfg, log)
		if err != nil {
			return nil, fmt.Errorf("under limits: %w", err)
		}
		rep.Results = append(rep.Results, rows...)
	}
	if lc.runs("scale") {
		rep.Scale = runScale(ctx, cfg, log)
	}
	if !cfg.limits.noProcess && lc.runs("shards") {
		rep.Shards = runShards(ctx, cfg, log)
	}
	if lc.runs("merge") && bin != "" {
		rows, err := mergeRuns(ctx, cfg, bin, log)
		if err != nil {
			return nil, fmt.Errorf("under limits: %w", err)
		}
		rep.Merge = rows
	}
	rep.LoadAfter = loadAvg()
	return rep, nil
}

// runLimitCLI runs one CLI row, or records why it cannot run, as on one
// machine or on separate machines (cfg.limits.separate).
func runLimitCLI(ctx context.Context, cfg config, rep *limitsReport, bin, sc, eng string, n int) (limitResult, error) {
	res := limitResult{Scenario: sc, Engine: eng, Writers: n, Scale: cfg.limits.scale, Separate: cfg.limits.separate}
	switch {
	case rep.CLIUnbuilt != "":
		res.NotRun = rep.CLIUnbuilt
	case eng == "contents" && sc == scenarioIndex:
		res.NotRun = "n/a: the contents API writes one file per commit"
	case eng != "git-data" && !rep.EngineFlag:
		res.NotRun = "not run: engine not on main yet"
	}
	if res.NotRun != "" {
		return res, nil
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.limits.timeout)
	defer cancel()
	res, err := runLimitProcesses(ctx, cfg, bin, sc, eng, n, rep.EngineFlag)
	res.Separate = cfg.limits.separate
	return res, err
}

func logLimit(log io.Writer, r limitResult) {
	where := ""
	if isCLIRow(r) {
		where = " (" + r.machines() + ")"
	}
	if r.NotRun != "" {
		fmt.Fprintf(log, "%3d writers %-6s %-12s%s %s\n", r.Writers, r.Scenario, r.Engine, where, r.NotRun)
		return
	}
	s := r.Stats
	fmt.Fprintf(log, "%3d writers %-6s %-12s%s landed %d/%d in %s (floor %s), %d writes (%.2f per landed), %d limited, %d in own retry-after, %d in another's\n",
		r.Writers, r.Scenario, r.Engine, where, r.Landed, r.Writers, r.Wall.Round(time.Millisecond), r.Floor().Round(time.Millisecond),
		s.Writes, r.WritesPerLanded(), s.Limited, s.WritesInOwnRetryAfter, r.InOthersWindow())
	if isCLIRow(r) {
		k := r.Kinds
		fmt.Fprintf(log, "    writes by type: %d trees, %d commits, %d landing, %d other, %d refused; waste per landed (trees / commits / landing / refused): %s\n",
			k.Trees, k.Commits, k.Landing, k.Other, k.Refused, orDash(r.waste()))
	}
	if r.Routes != "" {
		fmt.Fprintf(log, "    requests: %s\n", r.Routes)
	}
	for _, e := range r.Errors {
		fmt.Fprintf(log, "    not landed: %s\n", e)
	}
}

// isCLIRow reports whether r is a row of N CLI processes (the index and
// single scenarios with an engine), as against the Queue's rows.
func isCLIRow(r limitResult) bool {
	return (r.Scenario == scenarioIndex || r.Scenario == scenarioSingle) && contains(allEngines, r.Engine)
}

func scaledMinute(scale float64) time.Duration {
	return time.Duration(float64(time.Minute) / scale)
}

// hasEngineFlag reports whether "ghcommitter commit" takes --engine.
func hasEngineFlag(ctx context.Context, bin string) bool {
	out, _ := exec.CommandContext(ctx, bin, "commit", "--help").CombinedOutput()
	return strings.Contains(string(out), "--engine")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func validScale(f float64) bool { return f > 0 && f <= 1e6 && !math.IsNaN(f) }

// tempDir makes a scratch directory for one run.
func tempDir(prefix string) (string, func(), error) {
	d, err := os.MkdirTemp("", prefix)
	if err != nil {
		return "", nil, err
	}
	return d, func() { os.RemoveAll(d) }, nil
}

// nproc is the number of processors `nproc` reports, or "".
func nproc(ctx context.Context) string {
	out, err := exec.CommandContext(ctx, "nproc").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// scaled makes a client from ghclient.NewHTTPClient scale its own
// rate-limit windows f times shorter, as the fake's are (a test seam:
// internal/testseam).
func scaled(f float64) ghclient.Option {
	return ghclient.WithHTTPClient(testseam.Client(nil, testseam.Seams{LimitScale: f}))
}
