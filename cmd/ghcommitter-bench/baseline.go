package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// The -baseline flag: the CLI built at another git revision of the
// repository the bench runs in (issue #37 measures against 47ea148), run
// right after the current CLI on every separate-machine index row, against
// a fresh fake, so that both face the same machine load.

// baselineBin is the baseline CLI of a run.
type baselineBin struct {
	Rev        string // as given to -baseline
	Commit     string // its commit, abbreviated
	Bin        string // the binary
	EngineFlag bool   // its "commit --help" lists --engine
	// Compat says what the check of the binary found: the flags and
	// environment variables the bench passes that it has, or lacks.
	Compat string
}

// baselineFlags are the commit flags every CLI row passes (limitArgs).
var baselineFlags = []string{"--api-url", "--repo", "--branch", "--message", "--add", "--edit", "--max-attempts", "--json"}

// baselineEnv are the environment variables every CLI row sets
// (limitProcessEnv); a binary that reads one holds its name.
var baselineEnv = []string{limitScaleEnv, fakeClientEnv, stateDirEnv}

// buildBaseline builds the CLI at rev: git archive of rev from the
// repository the bench runs in (git rev-parse --show-toplevel) into dir,
// then go build -o of ./cmd/ghcommitter there, with that revision's own
// go.mod and go.sum.
func buildBaseline(ctx context.Context, rev, dir string, log io.Writer) (*baselineBin, error) {
	root, err := gitOut(ctx, "", "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, err
	}
	commit, err := gitOut(ctx, root, "rev-parse", "--short", "--verify", rev+"^{commit}")
	if err != nil {
		return nil, fmt.Errorf("-baseline %q: %w", rev, err)
	}
	src, tarball := filepath.Join(dir, "baseline-src"), filepath.Join(dir, "baseline.tar")
	if err := os.MkdirAll(src, 0o755); err != nil {
		return nil, err
	}
	fmt.Fprintf(log, "building the baseline CLI at %s (%s)\n", rev, commit)
	if _, err := gitOut(ctx, root, "archive", "--format=tar", "-o", tarball, commit); err != nil {
		return nil, err
	}
	bin := filepath.Join(dir, "ghcommitter-baseline")
	for _, c := range [][]string{{"tar", "-xf", tarball, "-C", src}, {"go", "build", "-C", src, "-o", bin, "./cmd/ghcommitter"}} {
		cmd := exec.CommandContext(ctx, c[0], c[1:]...)
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly")
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("baseline %s: %s: %w\n%s", rev, strings.Join(c[:2], " "), err, bytes.TrimSpace(out))
		}
	}
	help, _ := exec.CommandContext(ctx, bin, "commit", "--help").CombinedOutput()
	image, err := os.ReadFile(bin)
	if err != nil {
		return nil, err
	}
	b := &baselineBin{Rev: rev, Commit: commit, Bin: bin, EngineFlag: strings.Contains(string(help), "--engine")}
	b.Compat = baselineCompat(string(help), image)
	fmt.Fprintf(log, "baseline: %s\n", b.Compat)
	return b, nil
}

// baselineCompat says whether the baseline binary (its commit --help and
// its image) has the flags and environment variables the bench passes.
func baselineCompat(help string, image []byte) string {
	var missing []string
	for _, f := range append([]string{"--engine"}, baselineFlags...) {
		if !strings.Contains(help, f) {
			missing = append(missing, "`"+f+"`")
		}
	}
	for _, e := range baselineEnv {
		if !bytes.Contains(image, []byte(e)) {
			missing = append(missing, "`"+e+"`")
		}
	}
	have := "`" + strings.Join(append(append([]string{"--engine"}, baselineFlags...), baselineEnv...), "`, `") + "`"
	if len(missing) == 0 {
		return "The baseline has every flag and environment variable the bench passes (" + have + ": flags from its `commit --help`, variables from its binary), so it runs with the same command line."
	}
	return "**The baseline lacks " + strings.Join(missing, ", ") + "** (checked: " + have + "); it runs with the same command line all the same (`--engine` left out when it lacks it), so a lacking variable is ignored by it (an unscaled limit, one name for every process or no shared state)."
}

// gitOut runs git in dir ("" for the current directory) and returns its
// trimmed output.
func gitOut(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		var stderr string
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
			stderr = firstLine(string(ee.Stderr))
		}
		return "", fmt.Errorf("git %s: %w %s", strings.Join(args, " "), err, stderr)
	}
	return strings.TrimSpace(string(out)), nil
}

// runBaselineRow runs row res again with the baseline binary, right after
// it, when res is a separate-machine index row that ran and the run has a
// baseline; nil otherwise.
func runBaselineRow(ctx context.Context, cfg config, res limitResult, log io.Writer) (*limitResult, error) {
	base := cfg.limits.base
	if base == nil || !res.Separate || res.Scenario != scenarioIndex || res.NotRun != "" || !isCLIRow(res) {
		return nil, nil
	}
	if res.Engine != "git-data" && !base.EngineFlag {
		return &limitResult{Scenario: res.Scenario, Engine: res.Engine, Writers: res.Writers, Separate: true,
			NotRun: "not run: the baseline has no --engine"}, nil
	}
	if cfg.limits.trace != "" { // keep the current binary's logs apart
		cfg.limits.trace = filepath.Join(cfg.limits.trace, "baseline")
		if err := os.MkdirAll(cfg.limits.trace, 0o755); err != nil {
			return nil, err
		}
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.limits.timeout)
	defer cancel()
	b, err := runLimitProcesses(ctx, cfg, base.Bin, res.Scenario, res.Engine, res.Writers, base.EngineFlag)
	if err != nil {
		return nil, fmt.Errorf("baseline %s: %w", base.Rev, err)
	}
	b.Separate = true
	fmt.Fprintf(log, "  baseline %s: ", base.Rev)
	logLimit(log, b)
	return &b, nil
}
