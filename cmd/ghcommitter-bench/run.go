package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"
)

// report is everything one run measured.
type report struct {
	Config     config
	Command    string
	Took       time.Duration
	Machine    []machineFact
	LoadBefore string
	LoadAfter  string
	Skipped    map[string]string // mode → why it did not run
	Results    []runResult
	Costs      []costResult
}

// result returns the measurement of mode at files and writers, if any.
func (r *report) result(mode string, files, writers int) (runResult, bool) {
	for _, x := range r.Results {
		if x.Mode == mode && x.Files == files && x.Writers == writers && x.Skipped == "" {
			return x, true
		}
	}
	return runResult{}, false
}

// run measures every configuration of cfg, logging progress to log.
func run(ctx context.Context, cfg config, log io.Writer) (*report, error) {
	rep := &report{Config: cfg, Skipped: map[string]string{}, Machine: machineFacts(ctx), LoadBefore: loadAvg()}
	tmp, err := os.MkdirTemp("", "ghcommitter-bench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)

	var bin, backend string
	if cfg.has("cli") || cfg.has("cli-separate") {
		fmt.Fprintf(log, "building %s\n", cliPackage)
		if bin, err = buildCLI(ctx, tmp); err != nil {
			rep.Skipped["cli"], rep.Skipped["cli-separate"] = err.Error(), err.Error()
			fmt.Fprintf(log, "cli modes skipped: %v\n", err)
		}
	}
	if cfg.has("git") {
		if backend, err = gitBackend(ctx); err != nil {
			rep.Skipped["git"] = err.Error()
			fmt.Fprintf(log, "%v\n", err)
		}
	}

	for _, f := range cfg.files {
		files := seedFiles(f)
		cost, err := measureCost(ctx, cfg, files)
		if err != nil {
			return nil, fmt.Errorf("%d files: %w", f, err)
		}
		fmt.Fprintf(log, "%d files: one uncontended commit: %d requests, %d bytes (%s); through a Queue with the head known: %d requests\n",
			f, cost.Requests, cost.Bytes, cost.Routes, cost.QueueRequests)

		var gitSeed string
		if backend != "" {
			dir, err := os.MkdirTemp(tmp, "seed-")
			if err != nil {
				return nil, err
			}
			if gitSeed, err = makeGitSeed(ctx, dir, files); err != nil {
				return nil, fmt.Errorf("seeding the git repository: %w", err)
			}
		}
		for _, n := range cfg.writers {
			for _, mode := range cfg.modes {
				if why := rep.Skipped[mode]; why != "" {
					continue
				}
				res, err := runMode(ctx, cfg, mode, bin, backend, gitSeed, files, n)
				if err != nil {
					return nil, fmt.Errorf("%s, %d files, %d writers: %w", mode, f, n, err)
				}
				rep.Results = append(rep.Results, res)
				fmt.Fprintf(log, "%6d files %3d writers %-12s landed %d/%d in %s, attempts mean %.2f max %d, %d requests, %.2f MB\n",
					f, n, mode, res.Landed, res.Writers, res.Wall.Round(time.Millisecond), res.MeanAttempts, res.MaxAttempts, res.Requests, res.MB())
				for _, e := range res.Errors {
					fmt.Fprintf(log, "    not landed: %s\n", e)
				}
				if mode == "git" && n == 1 {
					cost.GitRequests, cost.GitBytes = res.Requests, res.Bytes
				}
			}
		}
		rep.Costs = append(rep.Costs, cost)
	}
	rep.LoadAfter = loadAvg()
	return rep, nil
}

// runMode runs one mode in one configuration within cfg.runTimeout.
func runMode(ctx context.Context, cfg config, mode, bin, backend, gitSeed string, files []seedFile, n int) (runResult, error) {
	ctx, cancel := context.WithTimeout(ctx, cfg.runTimeout)
	defer cancel()
	switch mode {
	case "cli", "cli-separate":
		return runCLIMode(ctx, cfg, mode, bin, files, n)
	case "git":
		return runGitMode(ctx, cfg, backend, gitSeed, len(files), n)
	default:
		return runFakeMode(ctx, cfg, mode, files, n)
	}
}
