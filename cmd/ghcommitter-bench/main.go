// Command ghcommitter-bench measures ghcommitter under contention, side by
// side with the clone + rebase + push approach that GitOps tools use.
//
// N writers each add their own file to main at once, in several modes:
//
//	cli           N separate "ghcommitter commit --json" processes
//	cli-separate  the same, each process as on a machine of its own (its
//	              own HOME, XDG_CACHE_HOME and rate-limit state directory)
//	goroutines    N goroutines in one process, committer.Commit each
//	queue-chain   N goroutines sharing a committer.Queue (one commit each)
//	queue-squash  the same with committer.Squash (one commit per batch)
//	git           N writers running shallow clone, commit, push; on
//	              rejection pull --rebase and push again (git http-backend)
//
// The ghcommitter modes run against the fake GitHub (committer/githubtest)
// on a local httptest server; git runs against git http-backend behind
// net/http/cgi. Both add the same latency to every request and count
// requests and body bytes in both directions.
//
// The "under GitHub's limits" section runs the fake with github.com's
// per-token limits on, every window -limit-scale times shorter on the fake
// and in the clients: 16 and 64 CLI writers per engine (--engine, when the
// CLI has it) in two scenarios, and the Queue, counting writes per landed
// change, 403/429 answers and writes inside retry-after windows. Its
// promotion-manifest rows (-only manifest) run N "ghcommitter commit
// --manifest" processes under the same limits and -limit-* flags
// (limitsmanifest.go). -limit-machines places the CLI processes: same (as
// on one machine: they share the user cache directory's turn lock files
// and one rate-limit state directory), separate (as on separate machines:
// each its own HOME, XDG_CACHE_HOME and state directory) or both, the
// default (every CLI row twice, once each way; the goals of issue #37 are
// read from the separate-machine index rows; the manifest rows run as on
// one machine unless it is separate). -limit-rows runs a subset of the
// section (the index or single CLI rows, queue, process, scale, shards),
// to iterate on one row. The shards rows (-only shards alone) build and
// run examples/shards, a module of its own that links client-go, as a
// program: 4 shard processes x 5 stages through Kubernetes Leases on a
// real API server, then uncoordinated (limitsshards.go; skipped with a
// note when scripts/kube-tools.sh has not built the API server); -limit-trace keeps each CLI process's --verbose log (the matrix's cli modes' too).
// -baseline REV builds the CLI at git revision REV and runs it right after
// the current one on every separate-machine index row (issue #37's "last
// writer lands no later than 1.5x the time of 47ea148", baseline.go); the
// tables' reads / landed column counts the requests that are not writes,
// 304s in brackets. The matrix's cli-separate mode is the cli mode with
// each process as on a machine of its own, as -limit-machines separate.
//
// It is a module of its own (cmd/ghcommitter-bench/go.mod), so from the
// repository's root it runs with "go run -C cmd/ghcommitter-bench ." (the
// program's working directory is then cmd/ghcommitter-bench, hence
// ../../BENCHMARKS.md), or with "make bench BENCHFLAGS=...":
//
//	go run -C cmd/ghcommitter-bench . -out ../../BENCHMARKS.md
//	go run -C cmd/ghcommitter-bench . -only limits -out ../../BENCHMARKS.md
//	go run -C cmd/ghcommitter-bench . -only manifest -limit-writers 16 -out ../../BENCHMARKS.md
//	go run -C cmd/ghcommitter-bench . -only merge -out ../../BENCHMARKS.md
//	go run -C cmd/ghcommitter-bench . -only limits -limit-rows index -limit-writers 16 -limit-engines git-data,auto -out /tmp/b.md
//	go run -C cmd/ghcommitter-bench . -only limits -limit-rows index -limit-machines separate -limit-writers 16 -limit-engines graphql,auto -baseline 47ea148 -out /tmp/b.md
//	go run -C cmd/ghcommitter-bench . -only matrix -files 20000 -writers 16 -modes cli,git -out /tmp/clone.md
//	go run -C cmd/ghcommitter-bench . -only matrix -files 20000 -writers 16 -modes cli-separate,git -out /tmp/clone.md
//	go run -C cmd/ghcommitter-bench . -only shards -out ../../BENCHMARKS.md
//	go run -C cmd/ghcommitter-bench . -quick
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"time"
)

func main() {
	if err := mainErr(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "ghcommitter-bench:", err)
		os.Exit(1)
	}
}

func mainErr(args []string, stdout, stderr io.Writer) error {
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	started := time.Now()
	switch cfg.only {
	case "process":
		return runProcessOnly(ctx, cfg, args, stdout, stderr)
	case "shards":
		return runShardsOnly(ctx, cfg, stdout, stderr)
	case "merge":
		return runMergeOnly(ctx, cfg, args, stdout, stderr) // prmerge.go
	}
	var rep *report
	if cfg.only == "" || cfg.only == "matrix" {
		if rep, err = run(ctx, cfg, stderr); err != nil {
			return err
		}
		rep.Command, rep.Took = commandLine(args), time.Since(started)
	}
	var lr *limitsReport
	if cfg.only == "" || cfg.only == "limits" {
		t0 := time.Now()
		if lr, err = runLimitsSection(ctx, cfg, stderr); err != nil {
			return err
		}
		lr.Command, lr.Took = commandLine(args), time.Since(t0)
	}
	var old string
	if cfg.out != "" && cfg.out != "-" {
		b, err := os.ReadFile(cfg.out)
		if err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("reading the report to update: %w", err)
		}
		old = string(b)
	}
	doc := compose(rep, lr, old)
	if doc, err = composeManifests(ctx, cfg, args, doc, old, stderr); err != nil { // limitsmanifestreport.go
		return err
	}
	if cfg.out == "" || cfg.out == "-" {
		_, err = io.WriteString(stdout, doc)
		return err
	}
	if err := os.WriteFile(cfg.out, []byte(doc), 0o644); err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	fmt.Fprintf(stderr, "wrote %s (run took %s)\n", cfg.out, time.Since(started).Round(time.Second))
	return nil
}

// compose writes the report: the matrix (rep) with the limits section (lr)
// after its introduction. A section that did not run is taken from old,
// the file being replaced, when it has one.
func compose(rep *report, lr *limitsReport, old string) string {
	var doc, sec string
	if rep != nil {
		doc = render(rep)
	} else {
		doc = old
	}
	if lr != nil {
		sec = renderLimits(lr)
	} else {
		sec = section(old)
	}
	if doc == "" {
		doc = "# Benchmarks\n\nWritten by `cmd/ghcommitter-bench`; every number below comes from that program's run. Rerun it rather than editing this file.\n"
	}
	if sec == "" {
		return doc
	}
	return splice(doc, sec)
}

// runLimitsSection builds the CLI and runs the "under GitHub's limits"
// section.
func runLimitsSection(ctx context.Context, cfg config, log io.Writer) (*limitsReport, error) {
	tmp, done, err := tempDir("ghcommitter-bench-")
	if err != nil {
		return nil, err
	}
	defer done()
	fmt.Fprintf(log, "building %s\n", cliPackage)
	bin, err := buildCLI(ctx, tmp)
	if err != nil {
		fmt.Fprintf(log, "CLI runs skipped: %v\n", err)
		bin = ""
	}
	if cfg.limits.baseline != "" {
		if cfg.limits.base, err = buildBaseline(ctx, cfg.limits.baseline, tmp, log); err != nil {
			return nil, err
		}
		if !slices.Contains(cfg.limits.machineModes(), true) || !cfg.limits.runs(scenarioIndex) {
			fmt.Fprintf(log, "-baseline: no separate-machine index row in this run, so the baseline does not run\n")
		}
	}
	return runLimits(ctx, cfg, bin, log)
}

// commandLine is the command that reproduces this run, for the report.
func commandLine(args []string) string {
	parts := []string{"go", "run", "-C", "cmd/ghcommitter-bench", "."}
	for _, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\"'$\\*?;&|<>()") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		parts = append(parts, a)
	}
	return strings.Join(parts, " ")
}

// allModes lists the modes in the order the tables show them.
var allModes = []string{"cli", "cli-separate", "goroutines", "queue-chain", "queue-squash", "git"}

type config struct {
	writers     []int
	files       []int
	latency     time.Duration
	modes       []string
	out         string
	quick       bool
	note        string
	maxAttempts int              // ghcommitter attempts (library default 10)
	backoff     [2]time.Duration // library modes: ExponentialBackoff(base, max); zero = the default
	gitAttempts int              // clone + rebase + push attempts
	runTimeout  time.Duration    // bound on one configuration's run
	only        string           // "" (everything), "limits" or "matrix"
	limits      limitsConfig     // the "under GitHub's limits" section
}

func (c config) has(mode string) bool {
	for _, m := range c.modes {
		if m == mode {
			return true
		}
	}
	return false
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	fs := flag.NewFlagSet("ghcommitter-bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	writers := fs.String("writers", "1,4,16,64", "comma-separated writer counts")
	files := fs.String("files", "100,20000", "comma-separated repository sizes (files)")
	latency := fs.Duration("latency", 25*time.Millisecond, "latency added to every HTTP request, on both sides")
	modes := fs.String("modes", strings.Join(allModes, ","), "comma-separated modes: "+strings.Join(allModes, ", "))
	out := fs.String("out", "", "write the markdown report to this file (default stdout)")
	quick := fs.Bool("quick", false, "a small run: 100 files, 1 and 8 writers, 5ms latency (unless given explicitly)")
	note := fs.String("note", "", "a note about the conditions of this run, printed in the report")
	maxAttempts := fs.Int("max-attempts", 10, "ghcommitter attempts per commit (the library's and CLI's default is 10)")
	backoff := fs.String("backoff", "", "library modes only: BASE,MAX for committer.ExponentialBackoff (default: the library's AdaptiveBackoff(50ms, 10s)); the CLI has no such flag")
	gitAttempts := fs.Int("git-attempts", 10, "push attempts per git writer")
	timeout := fs.Duration("run-timeout", 15*time.Minute, "bound on one mode's run in one configuration")
	only := fs.String("only", "", "run one section only: limits (under GitHub's limits), manifest (promotion manifests under the same limits), matrix (the contention matrix), process (the one-process stages rows), shards (examples/shards: shard processes through Kubernetes Leases, beside the uncoordinated run) or merge (the pull requests merged rows, issue #45); with -out, the other sections of an existing file are kept")
	lscale := fs.Float64("limit-scale", defaultLimitScale, "under GitHub's limits: make every rate-limit window this many times shorter, on the fake and in the clients")
	lwriters := fs.String("limit-writers", "16,64", "under GitHub's limits: comma-separated writer counts")
	lengines := fs.String("limit-engines", strings.Join(allEngines, ","), "under GitHub's limits: comma-separated CLI engines: "+strings.Join(allEngines, ", "))
	lseed := fs.Uint64("limit-seed", 1, "under GitHub's limits: the fake's seed for 403 vs 429 and for sending retry-after")
	ltimeout := fs.Duration("limit-timeout", 10*time.Minute, "under GitHub's limits: bound on one run")
	ltrace := fs.String("limit-trace", "", "run every CLI process (under GitHub's limits, and the matrix's cli modes) with -v and keep its log in this directory (one file a process)")
	lmachines := fs.String("limit-machines", "both", "under GitHub's limits: same (the CLI processes share the user cache directory's turns and one rate-limit state directory, as on one machine), separate (each process its own HOME, XDG_CACHE_HOME and state directory, as on separate machines: CI runners, controller shards) or both (every CLI row run twice, once each way; the Queue, process and scale rows are one process and run once)")
	baseline := fs.String("baseline", "", "under GitHub's limits: a git revision of this repository (e.g. 47ea148, issue #37's baseline) whose CLI (./cmd/ghcommitter, built from git archive) runs right after the current one on every separate-machine index row, against a fresh fake; the report compares the last writer's landing time, writes and reads per landed change")
	lrepeat := fs.Int("limit-repeat", 5, fmt.Sprintf("under GitHub's limits: run each separate-machine index row of at most %d writers this many times in all (each run followed by the baseline's, with -baseline); issue #37's goals on those rows are judged on all the runs, and the report lists every run", repeatWriters))
	lrows := fs.String("limit-rows", strings.Join(limitRowKinds, ","), "under GitHub's limits: comma-separated kinds of rows to run: "+strings.Join(limitRowKinds, ", ")+" (e.g. -limit-rows index -limit-writers 16 -limit-engines auto, to iterate on one row)")
	if err := fs.Parse(args); err != nil {
		return config{}, err
	}
	if fs.NArg() > 0 {
		return config{}, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if *quick {
		if !set["writers"] {
			*writers = "1,8"
		}
		if !set["files"] {
			*files = "100"
		}
		if !set["latency"] {
			*latency = 5 * time.Millisecond
		}
	}
	cfg := config{latency: *latency, out: *out, quick: *quick, note: *note,
		maxAttempts: *maxAttempts, gitAttempts: *gitAttempts, runTimeout: *timeout}
	var err error
	if cfg.writers, err = parseInts("writers", *writers, 1, 1000); err != nil {
		return config{}, err
	}
	if cfg.files, err = parseInts("files", *files, 1, 1_000_000); err != nil {
		return config{}, err
	}
	if cfg.modes, err = parseModes(*modes); err != nil {
		return config{}, err
	}
	if cfg.backoff, err = parseBackoff(*backoff); err != nil {
		return config{}, err
	}
	if cfg.only, err = parseOnly(*only); err != nil {
		return config{}, err
	}
	if cfg.limits, err = parseLimits(*lscale, *lwriters, *lengines, *lseed, *ltimeout); err != nil {
		return config{}, err
	}
	cfg.limits.trace = *ltrace
	switch *lmachines {
	case "same", "both":
	case "separate":
		cfg.limits.separate = true // the manifest rows too
	default:
		return config{}, fmt.Errorf("-limit-machines %q: want same, separate or both", *lmachines)
	}
	cfg.limits.machines = *lmachines
	if cfg.limits.baseline = strings.TrimSpace(*baseline); strings.HasPrefix(cfg.limits.baseline, "-") {
		return config{}, fmt.Errorf("-baseline %q: want a git revision", *baseline)
	}
	if cfg.limits.repeat = *lrepeat; *lrepeat < 1 || *lrepeat > 100 {
		return config{}, fmt.Errorf("-limit-repeat %d: want 1 to 100", *lrepeat)
	}
	if set["limit-rows"] {
		if cfg.limits.rows, err = parseRows(*lrows); err != nil {
			return config{}, err
		}
	}
	if cfg.latency < 0 || cfg.maxAttempts < 1 || cfg.gitAttempts < 1 {
		return config{}, fmt.Errorf("-latency must be >= 0 and -max-attempts, -git-attempts >= 1")
	}
	return cfg, nil
}
