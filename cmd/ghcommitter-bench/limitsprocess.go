package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/ghclient"
)

// The seed's scenario from one process (issue 19): a GitOps controller
// promotes processStages stages into one branch at once, each stage from
// its own goroutine calling Committer.Commit with the library's defaults.
// Each stage syncs its directory (3 files) and appends its line to the
// shared index. With "process-own-clients" every stage builds its own
// client (ghclient.NewHTTPClient, one token) and Committer; with
// "process-shared-client" they share one client, each with its own
// Committer. The process's coordinator batches them: no stage races
// another inside the process.

// processStages is the number of stages of the scenario.
const processStages = 20

// scenarioSync is the scenario's name in the tables.
const scenarioSync = "sync"

// processModes are the scenario's runs; realPacing is the mode's run again
// at github.com's own pacing (windows not scaled), for the time until all
// stages land.
var processModes = []string{"process-own-clients", "process-shared-client"}

const realPacing = "process-own-clients, real pacing"

// processRuns runs every row of the scenario.
func processRuns(ctx context.Context, cfg config, log io.Writer) ([]limitResult, error) {
	var out []limitResult
	for _, mode := range append(processModes, realPacing) {
		c := cfg
		if mode == realPacing {
			c.limits.scale = 1
		}
		res, err := runLimitProcess(ctx, c, mode)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", mode, err)
		}
		logLimit(log, res)
		out = append(out, res)
	}
	return out, nil
}

// stageFiles are the 3 files stage i syncs into its directory.
func stageFiles(i int) []committer.LocalFile {
	files := []committer.LocalFile{
		{Path: "values.yaml", Data: stageContent(i, "v2.0.0")},
		{Path: "image.txt", Data: []byte(fmt.Sprintf("registry.example.com/team/app:v2.0.0 stage-%02d\n", i))},
		{Path: "notes.md", Data: []byte(fmt.Sprintf("# stage-%02d\n\nPromoted to v2.0.0.\n", i))},
	}
	for k := range files {
		files[k].Mode = committer.ModeFile
		files[k].Size = int64(len(files[k].Data))
	}
	return files
}

// stageDir is stage i's directory (stagePath's).
func stageDir(i int) string { return fmt.Sprintf("stages/stage-%02d", i) }

// runLimitProcess runs the scenario once in mode.
func runLimitProcess(ctx context.Context, cfg config, mode string) (limitResult, error) {
	ctx, cancel := context.WithTimeout(ctx, cfg.limits.timeout)
	defer cancel()
	fake, err := newLimitsFake(cfg.limits, cfg.latency, processStages)
	if err != nil {
		return limitResult{}, err
	}
	defer fake.Close()
	newClient := func() (*http.Client, error) {
		return ghclient.NewHTTPClient(ctx, ghclient.WithBaseURL(fake.URL), ghclient.WithToken(fakeToken),
			scaled(cfg.limits.scale), ghclient.WithHeader("X-Githubtest-Client", "process"))
	}
	var shared *http.Client
	if strings.HasPrefix(mode, "process-shared-client") {
		if shared, err = newClient(); err != nil {
			return limitResult{}, err
		}
	}
	fake.srv.ResetRequests()
	ws, wall := raceCommits(ctx, processStages, func(i int) *committer.ChangeSet {
		line := indexLine(i)
		return committer.NewChangeSet(fmt.Sprintf("Promote stage-%02d to v2.0.0", i)).
			Sync(stageDir(i), stageFiles(i)).
			Edit(indexPath, func(old []byte, _ bool) ([]byte, error) {
				return append(old[:len(old):len(old)], line...), nil
			})
	}, func(ctx context.Context, cs *committer.ChangeSet) (*committer.Result, error) {
		hc := shared
		if hc == nil {
			var err error
			if hc, err = newClient(); err != nil {
				return nil, err
			}
		}
		c, err := committer.New(owner, repoName, committer.WithHTTPClient(hc))
		if err != nil {
			return nil, err
		}
		return c.Commit(ctx, branch, cs)
	})
	res, err := limitSummary(fake, scenarioSync, mode, ws, wall, cfg)
	if err != nil {
		return res, err
	}
	return res, fake.verifyStages(ws)
}

// verifyStages checks that every stage reported landed has its 3 files.
func (f *limitsFake) verifyStages(ws []writerResult) error {
	for i, w := range ws {
		if !w.Landed {
			continue
		}
		for _, lf := range stageFiles(i) {
			p := stageDir(i) + "/" + lf.Path
			got, _, err := f.srv.ReadFile(owner, repoName, branch, p)
			if err != nil {
				return fmt.Errorf("stage %d reported landed but %s cannot be read: %w", i, p, err)
			}
			if string(got) != string(lf.Data) {
				return fmt.Errorf("stage %d reported landed but %s does not hold its content", i, p)
			}
		}
	}
	return nil
}

// renderProcessTable writes the scenario's rows.
func renderProcessTable(b *strings.Builder, lr *limitsReport) {
	var rows []limitResult
	for _, r := range lr.Results {
		if r.Scenario == scenarioSync {
			rows = append(rows, r)
		}
	}
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(b, "%s\n### One process, %d stages\n\n", processBegin, processStages)
	fmt.Fprintf(b, "The seed's scenario from one process: %d goroutines, each a stage calling `Committer.Commit` with the library's defaults; each syncs its directory `stages/stage-NN/` (3 files: `committer.ChangeSet.Sync`) and appends its line to the shared `%s`. **process-own-clients**: each stage builds its own `ghclient.NewHTTPClient` (one token) and `committer.New`; **process-shared-client**: one client, a Committer per stage. The process's coordinator of the branch batches them. The fake runs with `githubtest.GitHubLimits`, every window %g times shorter, and the clients with the limit-scale test seam (`testseam.Seams{LimitScale: %g}`); the **real pacing** row runs unscaled (github.com's own windows and the library's default pacing, 80 writes a minute after a burst of 8), for the time until all %d land. **landing latency** is each stage's time from its call to its result (a batch capped by what the credential's pacer sends within 15 s lands its callers as it goes: the median stage well before the last). Each request gets %s of added latency.\n\n", processStages, indexPath, lr.Config.scale, lr.Config.scale, processStages, lr.Latency)
	fmt.Fprintf(b, "| mode | scale | landed | wall | landing latency p50 / max | writes | writes / landed | 403/429 (writes) | own window | attempts mean / max |\n")
	fmt.Fprintf(b, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	var notes []string
	for _, r := range rows {
		s := r.Stats
		fmt.Fprintf(b, "| %s | %g | %d/%d | %s | %s / %s | %d | %.2f | %d (%d) | %d | %.2f / %d |\n", r.Engine, r.Scale, r.Landed, r.Writers, secs(r.Wall),
			secs(r.P50), secs(r.MaxLatency), s.Writes, r.WritesPerLanded(), s.Limited, s.WritesLimited, s.WritesInOwnRetryAfter, r.MeanAttempts, r.MaxAttempts)
		notes = append(notes, rowNotes(r)...)
	}
	if len(notes) > 0 {
		fmt.Fprintf(b, "\n%s\n", strings.Join(notes, "\n"))
	}
	for _, r := range rows {
		verdict := "met"
		if err := processGoal(r); err != nil {
			verdict = "**not met**: " + err.Error()
		}
		fmt.Fprintf(b, "\n- %s: goal (20/20 once, at most 2.5 writes per landed change, at most 2 attempts, no write in the own retry-after) %s.", r.Engine, verdict)
	}
	fmt.Fprintf(b, "\n\nCommand for these rows: `%s`.\n%s\n\n", lr.Command, processEnd)
}

// The subsection's markers, so that "-only process" replaces it alone.
const (
	processBegin = "<!-- subsection: one process (begin) -->"
	processEnd   = "<!-- subsection: one process (end) -->"
)

// runProcessOnly runs the scenario's rows alone ("-only process") and puts
// them in place of the subsection of an existing report (else before the
// limits section's end, else at the end).
func runProcessOnly(ctx context.Context, cfg config, args []string, stdout, stderr io.Writer) error {
	lr := &limitsReport{Config: cfg.limits, Command: commandLine(args), Latency: cfg.latency}
	rows, err := processRuns(ctx, cfg, stderr)
	if err != nil {
		return err
	}
	lr.Results = rows
	var b strings.Builder
	renderProcessTable(&b, lr)
	sec := b.String()
	if cfg.out == "" || cfg.out == "-" {
		_, err := io.WriteString(stdout, sec)
		return err
	}
	old, err := os.ReadFile(cfg.out)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	doc := string(old)
	switch i, j := strings.Index(doc, processBegin), strings.Index(doc, processEnd); {
	case i >= 0 && j > i:
		doc = doc[:i] + strings.TrimRight(sec, "\n") + doc[j+len(processEnd):]
	case strings.Contains(doc, limitsEnd):
		k := strings.Index(doc, limitsEnd)
		doc = doc[:k] + sec + doc[k:]
	default:
		doc = strings.TrimRight(doc, "\n") + "\n\n" + sec
	}
	return os.WriteFile(cfg.out, []byte(doc), 0o644)
}

// processGoal says whether a run meets issue 19's bar: every stage lands
// once, at most 2.5 writes per landed change, at most 2 attempts each, no
// write inside the process's own retry-after.
func processGoal(r limitResult) error {
	switch {
	case r.Landed != r.Writers:
		return fmt.Errorf("%d/%d landed", r.Landed, r.Writers)
	case r.Unreported != 0:
		return fmt.Errorf("%d on the branch without reporting it", r.Unreported)
	case r.WritesPerLanded() > 2.5:
		return fmt.Errorf("%.2f writes per landed change, want at most 2.5", r.WritesPerLanded())
	case r.MaxAttempts > 2:
		return fmt.Errorf("a stage took %d attempts, want at most 2", r.MaxAttempts)
	case r.Stats.WritesInOwnRetryAfter != 0:
		return fmt.Errorf("%d writes inside the process's own retry-after", r.Stats.WritesInOwnRetryAfter)
	}
	return nil
}
