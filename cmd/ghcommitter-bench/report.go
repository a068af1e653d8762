package main

import (
	"fmt"
	"strings"
	"time"
)

// render writes the report as markdown: the goals, the cost of one commit,
// a table per configuration, the backoff note and the machine.
func render(r *report) string {
	var b strings.Builder
	cfg := r.Config
	fmt.Fprintf(&b, "# Benchmarks: throughput under contention\n\n")
	fmt.Fprintf(&b, "Written by `cmd/ghcommitter-bench`; every number below comes from that program's run. Rerun it rather than editing this file.\n\n")
	fmt.Fprintf(&b, "Command (from the module root), which took %s:\n\n```\n%s\n```\n\n", r.Took.Round(time.Second), r.Command)
	if cfg.note != "" {
		fmt.Fprintf(&b, "**Conditions of this run:** %s\n\n", cfg.note)
	}
	fmt.Fprintf(&b, "Load average (1, 5, 15 min) before the run: %s; after: %s.\n\n", orDash(r.LoadBefore), orDash(r.LoadAfter))
	renderSetup(&b, r)
	renderGoals(&b, r)
	renderCosts(&b, r)
	renderTables(&b, r)
	renderBackoff(&b, r)
	renderChain(&b, r)
	renderMachine(&b, r)
	return b.String()
}

func renderSetup(b *strings.Builder, r *report) {
	cfg := r.Config
	fmt.Fprintf(b, "## Setup\n\n")
	fmt.Fprintf(b, "N writers each add their own small file to `main` at once, in a repository of F small text files spread across directories (the same files on both sides). Every HTTP request gets %s of added latency, on both sides; everything runs on 127.0.0.1.\n\n", cfg.latency)
	fmt.Fprintf(b, "- **cli**: N separate `ghcommitter commit --json --add REMOTE=LOCAL --max-attempts %d` processes started at once (binary built once with `go build -o`), against the fake GitHub (`committer/githubtest`) on an in-process httptest server. Attempts are read from the JSON.\n", cfg.maxAttempts)
	fmt.Fprintf(b, "- **cli-separate**: the same processes, each as on a machine of its own (issue #37): its own `HOME`, `XDG_CACHE_HOME` and rate-limit state directory, so no turn lock file and no rate-limit state is shared, as on separate CI runners (`-limit-machines separate` in the limits section). Its requests include the conditional reads, answered 304 or not, as git's include every HTTP request.\n")
	fmt.Fprintf(b, "- **goroutines**: N goroutines in one process sharing one `Committer` (ghclient defaults, so at most 4 requests in flight), each calling `Committer.Commit`; no queue.\n")
	fmt.Fprintf(b, "- **queue-chain** / **queue-squash**: the same N goroutines calling `Queue.Commit` on one `committer.NewQueue` (chained commits / `Squash()`).\n")
	fmt.Fprintf(b, "- **git**: the clone-based baseline: N writers, each in its own directory running git processes: `git clone --depth 1`, write, commit, `git push`; when the push is rejected, wait 1 s × 1.5^(n-1) jittered uniformly to ×0.5–×1.5, `git pull --rebase`, push again; at most %d pushes. Served by `git http-backend` through `net/http/cgi`.\n\n", cfg.gitAttempts)
	if cfg.backoff[0] > 0 {
		fmt.Fprintf(b, "**The library modes use `committer.ExponentialBackoff(%s, %s)` (-backoff), not the default; the CLI uses the default.** ", cfg.backoff[0], cfg.backoff[1])
	}
	fmt.Fprintf(b, "This matrix runs against the fake **without rate limits**. The cli processes keep the client's defaults: write pacing (80 writes a minute after a burst of 8, 500 an hour, per process, with the token's budget shared by the run's processes through a state directory of its own) and turns at the branch (lock files in the user cache directory: they land one after another); the in-process modes turn pacing off (`ghclient.RateLimits{Pacing: &ghclient.Pacing{}}`). For figures under GitHub's limits see the section above.\n\n")
	fmt.Fprintf(b, "Library and CLI use the default backoff, `committer.AdaptiveBackoff(50ms, 10s)` (full jitter, scaled to the duration of the lost attempt), unless said otherwise above. Requests and bytes for ghcommitter come from the fake's request log (RequestBytes + ResponseBytes); for git, from a wrapper around the CGI handler counting every HTTP request (ref advertisements, upload-pack and receive-pack) and the bodies read and written. Conditional reads count as requests (answered 304 or not; the 304s are in brackets). Headers are not counted on either side. MB = 10^6 bytes. Latency is per writer, from its start (process start for cli and git) to its outcome; p99 is nearest-rank, so with few writers it is the slowest one. Every writer reported as landed is checked on the server afterwards.\n\n")
	if len(r.Skipped) > 0 {
		for _, m := range allModes {
			if why := r.Skipped[m]; why != "" {
				fmt.Fprintf(b, "**Mode %s was skipped:** %s\n\n", m, why)
			}
		}
	}
}

func renderCosts(b *strings.Builder, r *report) {
	fmt.Fprintf(b, "## One uncontended commit\n\n")
	fmt.Fprintf(b, "One commit of one small file, nothing else running. \"Queue, head known\" is the second of two commits made one after the other through one `Queue`, which remembers the head its last batch made.\n\n")
	fmt.Fprintf(b, "| files | Commit: requests | Commit: bytes | Queue, head known: requests | Queue, head known: bytes | git (clone, commit, push): requests | git: MB |\n")
	fmt.Fprintf(b, "|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, c := range r.Costs {
		gitReq, gitMB := "—", "—"
		if c.GitRequests > 0 {
			gitReq, gitMB = fmt.Sprint(c.GitRequests), fmt.Sprintf("%.3f", float64(c.GitBytes)/1e6)
		}
		fmt.Fprintf(b, "| %s | %d | %d | %d | %d | %s | %s |\n", num(c.Files), c.Requests, c.Bytes, c.QueueRequests, c.QueueBytes, gitReq, gitMB)
	}
	if len(r.Costs) > 0 {
		fmt.Fprintf(b, "\nRequests of one commit: %s. Through the Queue with the head known: %s.\n\n", r.Costs[0].Routes, r.Costs[0].QueueRoutes)
	}
}

func renderTables(b *strings.Builder, r *report) {
	cfg := r.Config
	fmt.Fprintf(b, "## Results\n\n")
	for _, f := range cfg.files {
		for _, n := range cfg.writers {
			var rows []runResult
			for _, m := range cfg.modes {
				if x, ok := r.result(m, f, n); ok {
					rows = append(rows, x)
				}
			}
			if len(rows) == 0 {
				continue
			}
			fmt.Fprintf(b, "### %s files, %d writer%s\n\n", num(f), n, plural(n))
			fmt.Fprintf(b, "| mode | landed | wall | mean attempts | max attempts | requests / landed | requests | MB moved | p50 latency | p99 latency | landed/s |\n")
			fmt.Fprintf(b, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
			var notes []string
			for _, x := range rows {
				reqs := fmt.Sprint(x.Requests)
				if x.NotModified > 0 {
					reqs += fmt.Sprintf(" (%d 304s)", x.NotModified)
				}
				fmt.Fprintf(b, "| %s | %d/%d | %s | %.2f | %d | %.2f | %s | %s | %s | %s | %.1f |\n",
					x.Mode, x.Landed, x.Writers, secs(x.Wall), x.MeanAttempts, x.MaxAttempts, x.RequestsPerLanded(),
					reqs, mb(x.Bytes), secs(x.P50), secs(x.P99), x.Throughput())
				if x.Landed < x.Writers {
					eg := ""
					if len(x.Errors) > 0 {
						eg = fmt.Sprintf(", e.g. `%s`", strings.ReplaceAll(x.Errors[0], "`", "'"))
					}
					notes = append(notes, fmt.Sprintf("- %s: %d did not land (%d used every attempt)%s", x.Mode, x.Writers-x.Landed, x.Exhausted, eg))
				}
			}
			if len(notes) > 0 {
				fmt.Fprintf(b, "\n%s\n", strings.Join(notes, "\n"))
			}
			fmt.Fprintln(b)
		}
	}
}

// renderChain explains the chain queue's throughput from its numbers: when
// its wall time divided by its requests is close to the added latency, the
// requests went one after the other.
func renderChain(b *strings.Builder, r *report) {
	var lines []string
	for _, f := range r.Config.files {
		for _, n := range r.Config.writers {
			x, ok := r.result("queue-chain", f, n)
			if !ok || n < 16 || x.Requests == 0 || r.Config.latency <= 0 {
				continue
			}
			per := x.Wall / time.Duration(x.Requests)
			if per*5 >= r.Config.latency*4 {
				lines = append(lines, fmt.Sprintf("- %s files, %d writers: %d requests in %s, %s per request against %s of latency per request.",
					num(f), n, x.Requests, secs(x.Wall), per.Round(100*time.Microsecond), r.Config.latency))
			}
		}
	}
	if len(lines) == 0 {
		return
	}
	fmt.Fprintf(b, "## Queue, chain mode: requests in sequence\n\n")
	fmt.Fprintf(b, "In chain mode a batch lands with one ref update, but each change set still gets its own tree and commit, each built on the previous one. The wall time divided by the requests is close to one request's latency, so those requests went one after the other, and the batch's time grows with its size:\n\n%s\n\n", strings.Join(lines, "\n"))
}

func renderMachine(b *strings.Builder, r *report) {
	fmt.Fprintf(b, "## Machine\n\n```\n")
	for _, m := range r.Machine {
		fmt.Fprintf(b, "$ %s\n%s\n", m.Command, m.Output)
	}
	fmt.Fprintf(b, "```\n")
}

func secs(d time.Duration) string {
	if d >= 10*time.Second {
		return fmt.Sprintf("%.1f s", d.Seconds())
	}
	return fmt.Sprintf("%.2f s", d.Seconds())
}

func mb(n int64) string {
	if n < 100_000 {
		return fmt.Sprintf("%.4f", float64(n)/1e6)
	}
	return fmt.Sprintf("%.2f", float64(n)/1e6)
}

// num writes n with thousands separators: 20,000.
func num(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}
