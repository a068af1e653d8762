// Command ghcommitter-bench measures ghcommitter under contention, side by
// side with the clone + rebase + push approach that GitOps tools use.
//
// N writers each add their own file to main at once, in several modes:
//
//	cli           N separate "ghcommitter commit --json" processes
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
//	go run ./cmd/ghcommitter-bench -out BENCHMARKS.md
//	go run ./cmd/ghcommitter-bench -quick
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
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
	rep, err := run(ctx, cfg, stderr)
	if err != nil {
		return err
	}
	rep.Command = commandLine(args)
	rep.Took = time.Since(started)
	doc := render(rep)
	if cfg.out == "" || cfg.out == "-" {
		_, err = io.WriteString(stdout, doc)
		return err
	}
	if err := os.WriteFile(cfg.out, []byte(doc), 0o644); err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	fmt.Fprintf(stderr, "wrote %s (run took %s)\n", cfg.out, rep.Took.Round(time.Second))
	return nil
}

// commandLine is the command that reproduces this run, for the report.
func commandLine(args []string) string {
	parts := []string{"go", "run", "./cmd/ghcommitter-bench"}
	for _, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\"'$\\*?;&|<>()") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		parts = append(parts, a)
	}
	return strings.Join(parts, " ")
}

// allModes lists the modes in the order the tables show them.
var allModes = []string{"cli", "goroutines", "queue-chain", "queue-squash", "git"}

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
	if cfg.latency < 0 || cfg.maxAttempts < 1 || cfg.gitAttempts < 1 {
		return config{}, fmt.Errorf("-latency must be >= 0 and -max-attempts, -git-attempts >= 1")
	}
	return cfg, nil
}
