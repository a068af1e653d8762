package main

import (
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/githubtest"
	"github.com/ghcommitter/ghcommitter/internal/promotion"
)

// The promotion-manifest rows (issue 26): N separate "ghcommitter commit
// --manifest FILE --json" processes against the fake with GitHub's limits,
// as in the "under GitHub's limits" section (same fake, scale, seed and
// client scaling), each applying its stage's manifest from
// internal/promotion — the one examples/promotion-manifest runs: a sync of
// its rendered directory, set-image in one shared kustomization.yaml, set
// in one shared values file. The branch is verified afterwards
// (promotion.Verify: every stage whole and exactly once, the seed's
// comments intact), and the run fails otherwise. The rows have their own
// section, so that "-only manifest" reruns them alone.

// scenarioManifest names the rows.
const scenarioManifest = "manifest"

// manifestReport is the section's measurements.
type manifestReport struct {
	Config      limitsConfig
	Latency     time.Duration
	MaxAttempts int
	Command     string
	Took        time.Duration
	EngineFlag  bool
	Results     []limitResult
	LoadBefore  string
	LoadAfter   string
	Cores       string
	Note        string
	CLIUnbuilt  string
}

// runManifestSection builds the CLI and runs the rows: for each writer
// count of -limit-writers, each engine of -limit-engines that can carry a
// manifest's change set.
func runManifestSection(ctx context.Context, cfg config, log io.Writer) (*manifestReport, error) {
	mr := &manifestReport{Config: cfg.limits, Latency: cfg.latency, MaxAttempts: cfg.maxAttempts,
		LoadBefore: loadAvg(), Cores: nproc(ctx), Note: cfg.note}
	if mr.Note == "" {
		mr.Note = "no -note given about what else ran"
	}
	tmp, done, err := tempDir("ghcommitter-bench-")
	if err != nil {
		return nil, err
	}
	defer done()
	bin, err := buildCLI(ctx, tmp)
	if err != nil {
		fmt.Fprintf(log, "manifest rows skipped: %v\n", err)
		mr.CLIUnbuilt = "the CLI could not be built"
	} else {
		mr.EngineFlag = hasEngineFlag(ctx, bin)
	}
	for _, n := range cfg.limits.writers {
		for _, eng := range cfg.limits.engines {
			res := limitResult{Scenario: scenarioManifest, Engine: eng, Writers: n, Scale: cfg.limits.scale}
			switch {
			case mr.CLIUnbuilt != "":
				res.NotRun = mr.CLIUnbuilt
			case eng == "contents":
				res.NotRun = "n/a: the contents API writes one file per commit"
			case eng != "git-data" && !mr.EngineFlag:
				res.NotRun = "not run: engine not in this CLI"
			default:
				rctx, cancel := context.WithTimeout(ctx, cfg.limits.timeout)
				res, err = runManifestProcesses(rctx, cfg, bin, eng, n, mr.EngineFlag)
				cancel()
				if err != nil {
					return nil, fmt.Errorf("promotion manifests under limits, %s, %d writers: %w", eng, n, err)
				}
			}
			logLimit(log, res)
			mr.Results = append(mr.Results, res)
		}
	}
	mr.LoadAfter = loadAvg()
	return mr, nil
}

// newManifestFake is the fake with the limits on, seeded with the shared
// files of the promotion and the 100 files of the limits section.
func newManifestFake(lc limitsConfig, latency time.Duration) (*limitsFake, error) {
	srv := githubtest.New(githubtest.WithLatency(latency), githubtest.WithToken(fakeToken), githubtest.WithLimits(lc.fakeLimits()))
	files := promotion.Seed()
	for _, f := range seedFiles(100) {
		files = append(files, githubtest.File{Path: f.Path, Content: f.Content})
	}
	if _, err := srv.Seed(owner, repoName, branch, "Seed the repository", files...); err != nil {
		return nil, fmt.Errorf("seeding the fake: %w", err)
	}
	ts := httptest.NewServer(srv)
	return &limitsFake{srv: srv, ts: ts, URL: ts.URL + "/"}, nil
}

// runManifestProcesses runs one row on a fresh fake.
func runManifestProcesses(ctx context.Context, cfg config, bin, eng string, n int, engineFlag bool) (limitResult, error) {
	fake, err := newManifestFake(cfg.limits, cfg.latency)
	if err != nil {
		return limitResult{}, err
	}
	defer fake.Close()
	return runManifestsOn(ctx, cfg, fake, bin, eng, n, engineFlag)
}

// runManifestsOn starts n "ghcommitter commit --manifest" processes at
// once against fake, one per stage, and verifies the branch afterwards.
func runManifestsOn(ctx context.Context, cfg config, fake *limitsFake, bin, eng string, n int, engineFlag bool) (limitResult, error) {
	work, done, err := tempDir("ghcommitter-bench-manifest-")
	if err != nil {
		return limitResult{}, err
	}
	defer done()

	stages := promotion.Stages(n)
	cmds := make([]*exec.Cmd, n)
	for i, s := range stages {
		manifest, err := s.Write(filepath.Join(work, s.Name))
		if err != nil {
			return limitResult{}, err
		}
		args := []string{"commit", "--api-url", fake.URL, "-R", owner + "/" + repoName, "-b", branch,
			"--manifest", manifest, "--max-attempts", strconv.Itoa(cfg.maxAttempts), "--json"}
		if engineFlag {
			args = append(args, "--engine", eng)
		}
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Dir = work
		env, err := limitProcessEnv(work, i, cfg.limits)
		if err != nil {
			return limitResult{}, err
		}
		cmd.Env = env
		cmds[i] = cmd
	}

	fake.srv.ResetRequests()
	ws, wall := runProcesses(cmds, cfg.maxAttempts)
	stats, reqs := fake.stats()
	rr := summarize(eng, 0, ws, wall, int64(reqs), 0, cfg.maxAttempts)
	landed := make([]bool, len(ws))
	for i, w := range ws {
		landed[i] = w.Landed
	}
	unreported, err := verifyManifests(fake.srv, stages, landed)
	if err != nil {
		return limitResult{}, err
	}
	return limitResult{Scenario: scenarioManifest, Engine: eng, Writers: n, Landed: rr.Landed, Wall: wall,
		MeanAttempts: rr.MeanAttempts, MaxAttempts: rr.MaxAttempts, Exhausted: rr.Exhausted, Errors: rr.Errors,
		Requests: reqs, Stats: stats, Scale: cfg.limits.scale, Unreported: unreported}, nil
}

// verifyManifests checks the fake's branch against what the processes
// reported (landed[i]: stage i did) with promotion.Verify, and returns how
// many stages that did not report landing are on the branch all the same.
func verifyManifests(srv *githubtest.Server, stages []promotion.Stage, landed []bool) (int, error) {
	b, err := promotion.Read(srv, owner, repoName, branch)
	if err != nil {
		return 0, err
	}
	out, err := promotion.Verify(b, stages, landed)
	if err != nil {
		return 0, fmt.Errorf("the branch after the run fails verification: %w", err)
	}
	return out.Unreported, nil
}
