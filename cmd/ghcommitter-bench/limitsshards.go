package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Issue #39's rows: examples/shards (a module of its own, which links
// client-go: this module must not) run as a program, twice — the shard
// processes taking turns through Kubernetes Leases on a real API server,
// then the same shards uncoordinated (-turns local: each its own lock
// files, which they do not share). The API server's binaries are the ones
// scripts/kube-tools.sh built once; without them the rows are skipped
// with a note.

// The shape of #39's run, and its goal.
const (
	shards39, stages39 = 4, 5
	writes39           = 3.2 // at most, per landed change, through the Leases
)

// shardsRow is one run of examples/shards: the fields of its -json report
// that the bench shows.
type shardsRow struct {
	Turns           string        `json:"turns"`
	Shards          int           `json:"shards"`
	Stages          int           `json:"stages"`
	Lease           string        `json:"lease"`
	Landed          int           `json:"landed"`
	Want            int           `json:"want"`
	Writes          int           `json:"writes"`
	WritesPerLanded float64       `json:"writes_per_landed"`
	WritesLimited   int           `json:"writes_limited"`
	LostRaces       int           `json:"lost_races"`
	MaxAttempts     int           `json:"max_attempts"`
	LeaseTurns      int           `json:"lease_turns"`
	Queued          int           `json:"queued"`
	Unreported      int           `json:"unreported"`
	Wall            time.Duration `json:"wall_ns"`
	Errors          []string      `json:"errors"`
}

// shardsReport is the rows, or why they did not run.
type shardsReport struct {
	NotRun  string
	Command string // how the example ran, for the report
	Rows    []shardsRow
}

// runShards builds examples/shards and runs it through the Leases, then
// uncoordinated.
func runShards(ctx context.Context, cfg config, log io.Writer) *shardsReport {
	rep := &shardsReport{}
	root, err := repoRoot(ctx)
	if err != nil {
		rep.NotRun = err.Error()
		return rep
	}
	kubeEnv, err := exec.CommandContext(ctx, "bash", filepath.Join(root, "scripts", "kube-tools.sh"), "--cached").Output()
	if err != nil {
		rep.NotRun = "skipped: kube-apiserver and etcd are not built (`make kube-tools` builds them once, minutes cold)"
		fmt.Fprintf(log, "shards rows %s\n", rep.NotRun)
		return rep
	}
	tmp, done, err := tempDir("ghcommitter-bench-shards-")
	if err != nil {
		rep.NotRun = err.Error()
		return rep
	}
	defer done()
	bin := filepath.Join(tmp, "shards")
	if out, err := exec.CommandContext(ctx, "go", "build", "-C", filepath.Join(root, "examples", "shards"), "-o", bin, ".").CombinedOutput(); err != nil {
		rep.NotRun = fmt.Sprintf("not run: building examples/shards failed: %v: %s", err, bytes.TrimSpace(out))
		fmt.Fprintf(log, "shards rows %s\n", rep.NotRun)
		return rep
	}
	args := []string{"-shards", strconv.Itoa(shards39), "-stages", strconv.Itoa(stages39),
		"-scale", strconv.FormatFloat(cfg.limits.scale, 'g', -1, 64), "-latency", cfg.latency.String(), "-json"}
	rep.Command = "go run -C examples/shards . " + strings.Join(args[:len(args)-1], " ")
	env := append(os.Environ(), strings.Fields(string(kubeEnv))...)
	for _, turns := range []string{"lease", "local"} {
		row, err := runShardsOnce(ctx, bin, env, append(args, "-turns", turns), cfg.limits.timeout)
		if err != nil {
			row = shardsRow{Turns: turns, Errors: []string{err.Error()}}
		}
		fmt.Fprintf(log, "shards %d × %d, turns %s: landed %d/%d in %s, %d writes (%.2f per landed), %d lost races, %d Lease turns (%d waited for)\n",
			shards39, stages39, turns, row.Landed, row.Want, secs(row.Wall), row.Writes, row.WritesPerLanded, row.LostRaces, row.LeaseTurns, row.Queued)
		for _, e := range row.Errors {
			fmt.Fprintf(log, "    %s\n", e)
		}
		rep.Rows = append(rep.Rows, row)
	}
	return rep
}

// runShardsOnce runs the example once and reads its -json report.
func runShardsOnce(ctx context.Context, bin string, env, args []string, timeout time.Duration) (shardsRow, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...) // #nosec G204 -- the example built above
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return shardsRow{}, fmt.Errorf("examples/shards %s: %w: %s", strings.Join(args, " "), err, tailLines(stderr.String(), 5))
	}
	var row shardsRow
	if err := json.Unmarshal(out, &row); err != nil {
		return shardsRow{}, fmt.Errorf("examples/shards: its report: %w", err)
	}
	return row, nil
}

// repoRoot is the repository's directory, found through this module's
// replace (as buildCLI finds it).
func repoRoot(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "list", "-m", "-f", "{{.Dir}}", "github.com/ghcommitter/ghcommitter").Output()
	if err != nil {
		return "", fmt.Errorf("go list -m github.com/ghcommitter/ghcommitter: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// tailLines is the last n lines of s, on one line.
func tailLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// renderShards writes the rows beside each other, with #39's goal.
func renderShards(b *strings.Builder, sr *shardsReport) {
	if sr == nil {
		return
	}
	fmt.Fprintf(b, "%s\n### Shard processes through Kubernetes Leases (`examples/shards`)\n\n", shardsBegin)
	fmt.Fprintf(b, "Issue #39's run: %d shard processes × %d stages, each process with its own `HOME` and `XDG_CACHE_HOME` (sharing nothing local), promote into one branch of the fake with github.com's limits on (every window scaled as above, the same token, the git-data engine, one `committer.Committer` per shard with a goroutine per stage: each syncs `stages/shard-i/stage-j/` (3 files) and adds its line to one shared index). **lease**: the shards take turns through `committer/turns/kubelease` on one real kube-apiserver and etcd (built by `scripts/kube-tools.sh`, started on loopback by `committer/turns/kubelease/kubetest`); **local**: the same shards uncoordinated, each with lock-file turns in its own cache directory. Writes are the fake's count (refused ones too); **lost races** are the stages' attempts that lost the race for the branch (`committer.EventLostRace`). Every landed stage is checked on the branch by the example.\n\n", shards39, stages39)
	if sr.NotRun != "" {
		fmt.Fprintf(b, "**Not run:** %s.\n\n%s\n\n", sr.NotRun, shardsEnd)
		return
	}
	fmt.Fprintf(b, "| turns | landed | wall | writes | writes / landed | refused (writes) | lost races | most attempts | Lease turns (waited for) |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range sr.Rows {
		fmt.Fprintf(b, "| %s | %d/%d | %s | %d | %.2f | %d | %d | %d | %d (%d) |\n", r.Turns, r.Landed, r.Want, secs(r.Wall), r.Writes, r.WritesPerLanded, r.WritesLimited, r.LostRaces, r.MaxAttempts, r.LeaseTurns, r.Queued)
	}
	for _, r := range sr.Rows {
		for _, e := range r.Errors {
			fmt.Fprintf(b, "\n- %s: %s", r.Turns, e)
		}
	}
	if len(sr.Rows) > 0 {
		r := sr.Rows[0]
		ok := r.Turns == "lease" && r.Landed == shards39*stages39 && r.Want == r.Landed && r.Unreported == 0 &&
			r.WritesPerLanded <= writes39 && r.LostRaces == 0
		fmt.Fprintf(b, "\n- #39's goal through the Leases (%d/%d land, at most %g writes per landed change, no lost race between shards): %s.", shards39*stages39, shards39*stages39, writes39, verdict(ok))
	}
	fmt.Fprintf(b, "\n\nCommands, with the environment `bash scripts/kube-tools.sh` prints: `%s -turns lease`, then `%s -turns local`.\n%s\n\n", sr.Command, sr.Command, shardsEnd)
}

// The subsection's markers, so that "-only shards" replaces it alone.
const (
	shardsBegin = "<!-- subsection: shards (begin) -->"
	shardsEnd   = "<!-- subsection: shards (end) -->"
)

// runShardsOnly runs the rows alone ("-only shards") and puts them in
// place of the subsection of an existing report (else before the limits
// section's end, else at the end).
func runShardsOnly(ctx context.Context, cfg config, stdout, stderr io.Writer) error {
	var b strings.Builder
	renderShards(&b, runShards(ctx, cfg, stderr))
	return spliceSubsection(cfg.out, b.String(), shardsBegin, shardsEnd, stdout)
}

// spliceSubsection writes sec to stdout (out "" or "-") or in place of
// the part of the file out between begin and end.
func spliceSubsection(out, sec, begin, end string, stdout io.Writer) error {
	if out == "" || out == "-" {
		_, err := io.WriteString(stdout, sec)
		return err
	}
	old, err := os.ReadFile(out)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	doc := string(old)
	switch i, j := strings.Index(doc, begin), strings.Index(doc, end); {
	case i >= 0 && j > i:
		doc = doc[:i] + strings.TrimRight(sec, "\n") + doc[j+len(end):]
	case strings.Contains(doc, limitsEnd):
		k := strings.Index(doc, limitsEnd)
		doc = doc[:k] + sec + doc[k:]
	default:
		doc = strings.TrimRight(doc, "\n") + "\n\n" + sec
	}
	return os.WriteFile(out, []byte(doc), 0o644)
}
