package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

// Pull requests merged (issue #45): 16 promotions from separate machines
// into a main that takes changes through pull requests only and requires
// one passing check, ci. Each "ghcommitter commit --pull-request -b
// promote/stage-NN --auto-merge --wait" (or --merge-queue, main then also
// requiring a merge queue) is done only once its pull request is merged.
// ci reports success on every new head (the pull requests' and the merge
// queue's) mergeCI after it is pushed, in real time: the pull requests
// wait for it.

// mergeRow is a row: the CLI flag each promotion passes, how many run at
// once, and whether each also adds its own line to one shared YAML file
// (issue #46: every pull request then conflicts with main once another
// merged, and is rebuilt on main's new head while it waits).
type mergeRow struct {
	mode    string
	writers int
	shared  bool
}

// mergeRows are the rows (the issues' goals).
var mergeRows = []mergeRow{{"auto-merge", mergeWriters, false}, {"merge-queue", mergeWriters, false},
	{"merge-now", 8, true}, {"auto-merge", mergeWriters, true}, {"merge-queue", mergeWriters, true}}

// mergeWriters is the promotions of a row (issue #45's goal).
const mergeWriters = 16

// sharedPath is the shared rows' YAML file, where each promotion sets
// stages.stage-NN.
const sharedPath = "promotions.yaml"

// mergeCI is how long ci takes on each head: two (scaled) minutes.
func mergeCI(scale float64) time.Duration { return 2 * scaledMinute(scale) }

// mergeResult is one row.
type mergeResult struct {
	Mode                 string
	Shared               bool
	Rebuilds             int // the rebuilds the merged promotions report
	Writers, Merged      int
	Via                  map[string]int // merged_via: how many each way
	Writes, WritesRef    int            // writes sent; refused by a limit
	Reads, NotModified   int
	Wall, Last, P50      time.Duration // Last: the last merge's outcome, from the launch
	CI                   time.Duration
	Scale                float64
	Errors               []string
	WritesInOwnRetryWait int
}

// WritesPerMerged is the writes sent per merged change.
func (r mergeResult) WritesPerMerged() float64 {
	if r.Merged == 0 {
		return 0
	}
	return float64(r.Writes) / float64(r.Merged)
}

// label names the row.
func (r mergeResult) label() string {
	if r.Shared {
		return r.Mode + ", shared edit"
	}
	return r.Mode
}

// mergeRuns runs the rows, each against a fresh fake.
func mergeRuns(ctx context.Context, cfg config, bin string, log io.Writer) ([]mergeResult, error) {
	var out []mergeResult
	for _, row := range mergeRows {
		r, err := runMergeRow(ctx, cfg, bin, row)
		if err != nil {
			return nil, fmt.Errorf("pull requests merged, %s: %w", r.label(), err)
		}
		fmt.Fprintf(log, "merge %s: %d/%d merged %v, %d rebuilds, %d writes (%.2f per merged change), %d reads (%d answered 304), last merge %s\n",
			r.label(), r.Merged, r.Writers, r.Via, r.Rebuilds, r.Writes, r.WritesPerMerged(), r.Reads, r.NotModified, secs(r.Last))
		out = append(out, r)
	}
	return out, nil
}

// newMergeFake is the limits fake with auto-merge allowed, main's rules
// (pull requests, ci, and for merge-queue the queue) and ci on every head.
func newMergeFake(cfg config, row mergeRow) (*limitsFake, error) {
	mode := row.mode
	fake, err := newLimitsFake(cfg.limits, cfg.latency, row.writers)
	if err != nil {
		return nil, err
	}
	m := githubtest.DefaultMergeSettings()
	m.AllowAutoMerge = true
	rules := []githubtest.Rule{githubtest.RequirePullRequest(), githubtest.RequireStatusChecks("ci")}
	if mode == "merge-queue" {
		mq := githubtest.RequireMergeQueue()
		mq.Parameters["min_entries_to_merge_wait_minutes"] = 0
		rules = append(rules, mq)
	}
	err = errors.Join(fake.srv.SetMergeSettings(owner, repoName, m),
		fake.srv.AddAutoCheck(owner, repoName, "ci", "**", githubtest.CheckSuccess, mergeCI(cfg.limits.scale)))
	if err == nil && row.shared {
		_, err = fake.srv.Seed(owner, repoName, branch, "Add "+sharedPath, githubtest.File{Path: sharedPath, Content: []byte("stages:\n  seed: v1.0.0\n")})
	}
	if err == nil {
		_, err = fake.srv.AddRuleset(owner, repoName, githubtest.Ruleset{Include: []string{branch}, Rules: rules})
	}
	if err != nil {
		fake.Close()
		return nil, err
	}
	return fake, nil
}

// runMergeRow runs one row: the promotions at once, each as on a machine
// of its own.
func runMergeRow(ctx context.Context, cfg config, bin string, row mergeRow) (mergeResult, error) {
	mode := row.mode
	fake, err := newMergeFake(cfg, row)
	if err != nil {
		return mergeResult{Mode: mode, Shared: row.shared}, err
	}
	defer fake.Close()
	work, done, err := tempDir("ghcommitter-bench-merge-")
	if err != nil {
		return mergeResult{}, err
	}
	defer done()
	lc := cfg.limits
	lc.separate = true
	cmds := make([]*exec.Cmd, row.writers)
	for i := range cmds {
		local := filepath.Join(work, fmt.Sprintf("stage-%02d.yaml", i))
		if err := os.WriteFile(local, stageContent(i, "v2.0.0"), 0o644); err != nil {
			return mergeResult{}, err
		}
		cmds[i] = exec.CommandContext(ctx, bin, "commit", "--api-url", fake.URL, "-R", owner+"/"+repoName,
			"-b", fmt.Sprintf("promote/stage-%02d", i), "--base", branch, "-m", fmt.Sprintf("Promote stage-%02d to v2.0.0", i),
			"--add", stagePath(i)+"="+local, "--pull-request", "--"+mode, "--wait", "--wait-timeout", "10m", "--json")
		if row.shared {
			cmds[i].Args = append(cmds[i].Args, "--set", fmt.Sprintf("%s:stages.stage-%02d=v2.0.0", sharedPath, i))
		}
		if cmds[i].Env, err = limitProcessEnv(work, i, lc); err != nil {
			return mergeResult{}, err
		}
	}
	fake.srv.ResetRequests()
	outs, lat, wall := runMergeProcesses(cmds)
	r := mergeResult{Mode: mode, Shared: row.shared, Writers: row.writers, Via: map[string]int{}, Wall: wall, CI: mergeCI(lc.scale), Scale: lc.scale}
	for i, o := range outs {
		r.tally(fake, i, o)
	}
	if row.shared {
		r.sharedOnce(fake)
	}
	r.P50 = percentile(lat, 50)
	st := fake.srv.LimitStats(fakeToken)
	r.Writes, r.WritesRef, r.WritesInOwnRetryWait = st.Writes, st.WritesLimited, st.WritesInOwnRetryAfter
	r.Reads, r.NotModified = fake.reads()
	return r, nil
}

// tally counts promotion i: merged in its --json output and its file on
// main, never taken on trust.
func (r *mergeResult) tally(fake *limitsFake, i int, o mergeOutput) {
	var res struct {
		PullRequest *struct {
			Merge *struct {
				Merged    bool   `json:"merged"`
				MergedVia string `json:"merged_via"`
				Rebuilds  int    `json:"rebuilds"`
			} `json:"merge"`
		} `json:"pull_request"`
	}
	err := json.Unmarshal(bytes.TrimSpace(o.stdout), &res)
	got, _, rerr := fake.srv.ReadFile(owner, repoName, branch, stagePath(i))
	switch {
	case o.err != nil || err != nil || res.PullRequest == nil || res.PullRequest.Merge == nil || !res.PullRequest.Merge.Merged:
		r.Errors = append(r.Errors, fmt.Sprintf("stage-%02d: %v %v: %s", i, o.err, err, firstLine(o.stderr)))
	case rerr != nil || !bytes.Equal(got, stageContent(i, "v2.0.0")):
		r.Errors = append(r.Errors, fmt.Sprintf("stage-%02d reported merged, but main does not hold its file", i))
	default:
		r.Merged++
		r.Via[res.PullRequest.Merge.MergedVia]++
		r.Rebuilds += res.PullRequest.Merge.Rebuilds
		r.Last = max(r.Last, o.done)
	}
}

// sharedOnce checks that main's shared file holds each merged
// promotion's line exactly once (and no other's).
func (r *mergeResult) sharedOnce(fake *limitsFake) {
	got, _, err := fake.srv.ReadFile(owner, repoName, branch, sharedPath)
	if err != nil {
		r.Errors = append(r.Errors, fmt.Sprintf("%s: %v", sharedPath, err))
		return
	}
	for i := range r.Writers {
		if n := strings.Count(string(got), fmt.Sprintf("  stage-%02d: v2.0.0\n", i)); n > 1 {
			r.Errors = append(r.Errors, fmt.Sprintf("%s holds stage-%02d's line %d times", sharedPath, i, n))
		}
	}
	if n := strings.Count(string(got), ": v2.0.0\n"); n != r.Merged {
		r.Errors = append(r.Errors, fmt.Sprintf("%s holds %d promotions' lines, %d merged", sharedPath, n, r.Merged))
	}
}

type mergeOutput struct {
	stdout []byte
	stderr string
	err    error
	done   time.Duration // from the launch
}

// runMergeProcesses starts cmds at once and waits for them all.
func runMergeProcesses(cmds []*exec.Cmd) ([]mergeOutput, []time.Duration, time.Duration) {
	outs := make([]mergeOutput, len(cmds))
	lat := make([]time.Duration, len(cmds))
	var wg sync.WaitGroup
	t0 := time.Now()
	for i, cmd := range cmds {
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := cmd.Run()
			lat[i] = time.Since(t0)
			outs[i] = mergeOutput{stdout: out.Bytes(), stderr: errOut.String(), err: err, done: lat[i]}
		}()
	}
	wg.Wait()
	return outs, lat, time.Since(t0)
}

// The subsection's markers, so that "-only merge" replaces it alone.
const (
	mergeBegin = "<!-- subsection: pull requests merged (begin) -->"
	mergeEnd   = "<!-- subsection: pull requests merged (end) -->"
)

// renderMergeTable is the subsection, when its rows ran.
func renderMergeTable(b *strings.Builder, rows []mergeResult, command string) {
	if len(rows) == 0 {
		return
	}
	r0 := rows[0]
	fmt.Fprintf(b, "%s\n### Pull requests merged, separate machines (issues #45, #46)\n\n", mergeBegin)
	fmt.Fprintf(b, "%d (merge-now: 8) `ghcommitter commit --pull-request -b promote/stage-NN --base main --MODE --wait --json` processes started at once, each as on a machine of its own (its own HOME, cache and rate-limit state directory), each promoting its own `stages/stage-NN/values.yaml` into a `main` whose ruleset requires pull requests and the check `ci` (**merge-queue**: and a merge queue, groups of up to 5, no minimum wait). The repository allows auto-merge. `ci` reports success on every new head, the pull requests' and the queue's, %s (two scaled minutes) after it is pushed, so each pull request waits for it. The fake runs with `githubtest.GitHubLimits`, windows %g times shorter, and the CLI with `%s=%g`. **merged** counts the processes whose `--json` says `merged` and whose file `main` holds; **writes / merged** is every write the fake received (refused ones included) per merged change: the floor is 5 (tree, commit and branch of the head branch, the pull request, the auto-merge or the enqueue; GitHub's merge is not the client's). **shared edit** rows (issue #46): each promotion also sets its own key `stages.stage-NN` of one shared `%s` (`--set`), so every pull request conflicts with `main` as soon as another merged (the fake merges by path) and is **rebuilt** while it waits: a commit on its head branch whose tree is its change set re-run on `main`'s new head, parents [`main`'s head, its old head] (a fast-forward), 3 writes (tree, commit, branch) and the merge asked again; **rebuilds** counts them over the merged promotions, and `main`'s `%s` is checked to hold each merged promotion's line exactly once. **last merge** is when the last process had its outcome, from the launch.\n\n",
		mergeWriters, secs(r0.CI), r0.Scale, limitScaleEnv, r0.Scale, sharedPath, sharedPath)
	fmt.Fprintf(b, "| mode | merged | how | rebuilds | wall | last merge | p50 | writes | writes / merged | refused writes | reads (304) |\n")
	fmt.Fprintf(b, "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	var notes []string
	for _, r := range rows {
		var how []string
		for v, n := range r.Via {
			how = append(how, fmt.Sprintf("%s %d", v, n))
		}
		sort.Strings(how)
		fmt.Fprintf(b, "| %s | %d/%d | %s | %d | %s | %s | %s | %d | %.2f | %d | %d (%d) |\n", r.label(), r.Merged, r.Writers, strings.Join(how, ", "), r.Rebuilds,
			secs(r.Wall), secs(r.Last), secs(r.P50), r.Writes, r.WritesPerMerged(), r.WritesRef, r.Reads, r.NotModified)
		for _, e := range r.Errors {
			notes = append(notes, "- "+r.label()+": "+e)
		}
	}
	if len(notes) > 0 {
		fmt.Fprintf(b, "\n%s\n", strings.Join(notes, "\n"))
	}
	fmt.Fprintf(b, "\nCommand for these rows: `%s`.\n%s\n\n", command, mergeEnd)
}

// runMergeOnly runs the rows alone ("-only merge") and puts their
// subsection in place of the one of an existing report (else before the
// limits section's end, else at the end).
func runMergeOnly(ctx context.Context, cfg config, args []string, stdout, stderr io.Writer) error {
	tmp, done, err := tempDir("ghcommitter-bench-")
	if err != nil {
		return err
	}
	defer done()
	bin, err := buildCLI(ctx, tmp)
	if err != nil {
		return err
	}
	rows, err := mergeRuns(ctx, cfg, bin, stderr)
	if err != nil {
		return err
	}
	var b strings.Builder
	renderMergeTable(&b, rows, commandLine(args))
	return spliceSubsection(cfg.out, b.String(), mergeBegin, mergeEnd, stdout) // limitsshards.go
}
