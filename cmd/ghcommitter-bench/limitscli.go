package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The CLI's knobs for runs against the fake (internal/cli/commit/auth.go):
// limitScaleEnv scales its own rate-limit windows (set to the fake's
// scale); fakeClientEnv names the process in the X-Githubtest-Client
// header, so that the fake counts a write sent inside a retry-after told
// to that same process apart from one told to another process sharing the
// token.
const (
	limitScaleEnv = "GHCOMMITTER_LIMIT_SCALE"
	fakeClientEnv = "GHCOMMITTER_FAKE_CLIENT"
	// stateDirEnv names the directory through which the processes of a
	// run share the token's rate-limit state, as the CLI does by default
	// against github.com (a fake on a loopback address gets it only when
	// named: see ghclient.RateLimits.StateDir).
	stateDirEnv = "GHCOMMITTER_LIMIT_STATE_DIR"
)

// runLimitProcesses starts n "ghcommitter commit --json" processes at once
// against a fresh fake with the limits on, as on one machine or on
// separate machines (cfg.limits.separate: limitProcessEnv). Writer i sets its own stage file
// and, in the index scenario, appends its line to the shared index with
// --edit (re-run on the fresh content at every attempt).
func runLimitProcesses(ctx context.Context, cfg config, bin, sc, eng string, n int, engineFlag bool) (limitResult, error) {
	fake, err := newLimitsFake(cfg.limits, cfg.latency, n)
	if err != nil {
		return limitResult{}, err
	}
	defer fake.Close()
	work, done, err := tempDir("ghcommitter-bench-limits-")
	if err != nil {
		return limitResult{}, err
	}
	defer done()

	cmds := make([]*exec.Cmd, n)
	for i := range n {
		args, err := limitArgs(work, fake.URL, sc, eng, i, cfg.maxAttempts, engineFlag)
		if err != nil {
			return limitResult{}, err
		}
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Dir = work
		env, err := limitProcessEnv(work, i, cfg.limits)
		if err != nil {
			return limitResult{}, err
		}
		cmd.Env = env
		if dir := cfg.limits.trace; dir != "" {
			cmd.Args = append(cmd.Args, "-v")
			where := ""
			if cfg.limits.separate {
				where = "-separate"
			}
			f, err := os.Create(filepath.Join(dir, fmt.Sprintf("%s-%s-%d%s-process-%02d.log", sc, eng, n, where, i)))
			if err != nil {
				return limitResult{}, err
			}
			defer f.Close()
			cmd.Stderr = f
		}
		cmds[i] = cmd
	}

	fake.srv.ResetRequests()
	ws, wall := runProcesses(cmds, cfg.maxAttempts)
	return limitSummary(fake, sc, eng, ws, wall, cfg)
}

// limitArgs is writer i's command line. --engine is passed only when the
// CLI has it (git-data is the default engine either way).
func limitArgs(work, api, sc, eng string, i, maxAttempts int, engineFlag bool) ([]string, error) {
	local := filepath.Join(work, fmt.Sprintf("stage-%02d.yaml", i))
	if err := os.WriteFile(local, stageContent(i, "v2.0.0"), 0o644); err != nil {
		return nil, err
	}
	args := []string{"commit", "--api-url", api, "-R", owner + "/" + repoName, "-b", branch,
		"-m", fmt.Sprintf("Promote stage-%02d to v2.0.0", i),
		"--add", stagePath(i) + "=" + local,
		"--max-attempts", strconv.Itoa(maxAttempts), "--json"}
	if sc == scenarioIndex {
		args = append(args, "--edit", indexPath+"=cat; printf '"+indexLine(i)[:len(indexLine(i))-1]+"\\n'")
	}
	if engineFlag {
		args = append(args, "--engine", eng)
	}
	return args, nil
}

// limitSummary reads the fake's counters and checks the branch.
func limitSummary(fake *limitsFake, sc, eng string, ws []writerResult, wall time.Duration, cfg config) (limitResult, error) {
	stats, reqs := fake.stats()
	reads, notModified := fake.reads()
	rr := summarize(eng, 0, ws, wall, int64(reqs), 0, cfg.maxAttempts)
	landed := make([]bool, len(ws))
	for i, w := range ws {
		landed[i] = w.Landed
	}
	unreported, err := fake.verify(sc, landed)
	if err != nil {
		return limitResult{}, err
	}
	return limitResult{Scenario: sc, Engine: eng, Writers: len(ws), Landed: rr.Landed, Wall: wall,
		MeanAttempts: rr.MeanAttempts, MaxAttempts: rr.MaxAttempts, Exhausted: rr.Exhausted, Errors: rr.Errors,
		Requests: reqs, Stats: stats, Scale: cfg.limits.scale, Unreported: unreported, Routes: fake.routes(),
		Kinds: fake.writeKinds(), LastLanded: lastLanded(ws, wall), P50: rr.P50, MaxLatency: percentile(latencies(ws), 100), Reads: reads, NotModified: notModified}, nil
}

// writeKinds counts the fake's logged writes by type (see writeKinds).
// A GraphQL mutation is a landing write on every engine: updateRefs on
// git-data, createCommitOnBranch on graphql and auto.
func (f *limitsFake) writeKinds() writeKinds {
	var k writeKinds
	for _, r := range f.srv.Requests() {
		if !r.Write {
			continue
		}
		if r.Status == http.StatusForbidden || r.Status == http.StatusTooManyRequests {
			k.Refused++
		}
		route := strings.TrimPrefix(r.Route, r.Method+" ")
		switch {
		case r.Method == http.MethodPost && strings.HasSuffix(route, "/git/trees"):
			k.Trees++
		case r.Method == http.MethodPost && strings.HasSuffix(route, "/git/commits"):
			k.Commits++
		case r.Method == http.MethodPatch && strings.Contains(route, "/git/refs/"),
			r.Method == http.MethodPost && (route == "/graphql" || route == "/api/graphql"),
			r.Method == http.MethodPut && strings.Contains(route, "/contents/"):
			k.Landing++
		default:
			k.Other++
		}
	}
	return k
}

// reads counts the fake's logged requests that are not writes, and the
// conditional ones among them it answered 304 Not Modified.
func (f *limitsFake) reads() (reads, notModified int) {
	for _, r := range f.srv.Requests() {
		if r.Write {
			continue
		}
		reads++
		if r.Status == http.StatusNotModified {
			notModified++
		}
	}
	return reads, notModified
}

// routes sums the fake's log by route and status, writes first, for the
// progress log: where a row's writes and reads went.
func (f *limitsFake) routes() string {
	type key struct {
		write  bool
		route  string
		status int
	}
	n := map[key]int{}
	for _, r := range f.srv.Requests() {
		n[key{r.Write, r.Method + " " + strings.TrimPrefix(r.Route, r.Method+" "), r.Status}]++
	}
	keys := make([]key, 0, len(n))
	for k := range n {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b key) int {
		switch {
		case a.write != b.write:
			if a.write {
				return -1
			}
			return 1
		case a.route != b.route:
			return strings.Compare(a.route, b.route)
		}
		return a.status - b.status
	})
	var parts []string
	for _, k := range keys {
		w := ""
		if k.write {
			w = "write "
		}
		parts = append(parts, fmt.Sprintf("%s%s %d: %d", w, k.route, k.status, n[k]))
	}
	return strings.Join(parts, "; ")
}

// limitStateEnv is the environment entry that gives a run's processes the
// shared rate-limit state they have against github.com, in the run's own
// directory work.
func limitStateEnv(work string) string {
	return stateDirEnv + "=" + filepath.Join(work, "limits")
}

// limitProcessEnv is CLI process i's environment under the limits: the
// token, its name for the fake, the limit scale and the rate-limit state
// directory of the run (lc.separate: its own machine's, machineEnv).
func limitProcessEnv(work string, i int, lc limitsConfig) ([]string, error) {
	env := append(cleanEnv(), "GH_TOKEN="+fakeToken, fmt.Sprintf("%s=process-%02d", fakeClientEnv, i),
		limitScaleEnv+"="+strconv.FormatFloat(lc.scale, 'g', -1, 64))
	return machineEnv(env, work, i, lc.separate)
}

// machineEnv places CLI process i, whose environment is env, in the run's
// directory work: as on one machine (the run's rate-limit state directory,
// and the user cache directory of env, hence its turn lock files, shared)
// or, separate, as on a machine of its own: its own HOME, XDG_CACHE_HOME,
// XDG_CONFIG_HOME and rate-limit state directory under work, so that it
// shares nothing local with the others. The limits rows and the matrix's
// cli-separate mode place their processes through it.
func machineEnv(env []string, work string, i int, separate bool) ([]string, error) {
	if !separate {
		return append(env, limitStateEnv(work)), nil
	}
	machine := filepath.Join(work, fmt.Sprintf("machine-%02d", i))
	home, cache := filepath.Join(machine, "home"), filepath.Join(machine, "cache")
	for _, d := range []string{home, cache} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, err
		}
	}
	kept := env[:0]
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if k != "HOME" && k != "XDG_CACHE_HOME" && k != "XDG_CONFIG_HOME" {
			kept = append(kept, kv)
		}
	}
	return append(kept, "HOME="+home, "XDG_CACHE_HOME="+cache, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), limitStateEnv(machine)), nil
}

// latencies are the writers' times from their start to their outcome.
func latencies(ws []writerResult) []time.Duration {
	out := make([]time.Duration, len(ws))
	for i, w := range ws {
		out[i] = w.Latency
	}
	return out
}
