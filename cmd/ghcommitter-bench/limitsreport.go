package main

import (
	"fmt"
	"strings"
	"time"
)

// The section sits between these markers, so that "-only limits" can
// replace it in an existing BENCHMARKS.md and keep the rest.
const (
	limitsBegin = "<!-- section: under GitHub's limits (begin) -->"
	limitsEnd   = "<!-- section: under GitHub's limits (end) -->"
)

// renderLimits writes the "under GitHub's limits" section, markers included.
func renderLimits(lr *limitsReport) string {
	var b strings.Builder
	lc := lr.Config
	fmt.Fprintf(&b, "%s\n## Under GitHub's limits\n\n", limitsBegin)
	renderWhatHolds(&b, lr)
	fmt.Fprintf(&b, "Command for this section (from the module root), which took %s:\n\n```\n%s\n```\n\n", lr.Took.Round(time.Second), lr.Command)
	fmt.Fprintf(&b, "Machine: %s cores (`nproc`); %s; load average (1, 5, 15 min) before: %s; after: %s.\n\n", orDash(lr.Cores), orDash(lr.Note), orDash(lr.LoadBefore), orDash(lr.LoadAfter))
	fmt.Fprintf(&b, "### Setup\n\n")
	fmt.Fprintf(&b, "The fake (`committer/githubtest`, in-process) runs with `githubtest.WithLimits(githubtest.GitHubLimits)` — what `ghcommitter fake-github --limits github --limits-scale %g` serves: per token 80 content-creating requests a minute and 500 an hour, 900 points a minute per endpoint, 100 concurrent requests, 5,000 requests an hour; over a limit it answers 403 or 429 with GitHub's body, with `retry-after` on some replies and not others (seed %d). **Every window is %g times shorter** (a minute lasts %s, an hour %s); the counts are GitHub's. The clients are scaled the same way: `%s=%g` for every CLI process, the limit-scale test seam (`testseam.Seams{LimitScale: %g}`) for the Queue; everything else is the library's default (write pacing 80 a minute after a burst of 8 and 500 an hour, per process, and the token's budget and `retry-after` windows shared by the run's processes through a state directory of the run's own, `GHCOMMITTER_LIMIT_STATE_DIR`, as they are by default against github.com; writers of one branch take turns through lock files in the user cache directory; at least a minute after a bare secondary limit; `--max-attempts %d`). Every writer uses the same token. Each request gets %s of added latency.\n\n",
		lc.scale, lc.seed, lc.scale, secs(scaledMinute(lc.scale)), secs(scaledMinute(lc.scale)*60), limitScaleEnv, lc.scale, lc.scale, lr.MaxAttempts, lr.Latency)
	renderMachines(&b, lr)
	fmt.Fprintf(&b, "- **index** (the seed's scenario): N separate `ghcommitter commit --json` processes started at once; writer i sets its own `stages/stage-NN/values.yaml` (`--add`) and appends its line to one shared `%s` (`--edit %s='cat; printf ...'`, re-run on the fresh content at every attempt).\n", indexPath, indexPath)
	fmt.Fprintf(&b, "- **single**: the same, each writer only its own file.\n")
	fmt.Fprintf(&b, "- **queue-chain** / **queue-squash**: the index scenario from N goroutines in one process through one `committer.NewQueue` (chained commits / `Squash()`), one client.\n")
	if lr.hasEngine("queue-squash-graphql") {
		fmt.Fprintf(&b, "- **queue-squash-graphql**: the same with `Squash()` and `committer.WithEngine(committer.EngineGraphQL)`: one `createCommitOnBranch` mutation per batch.\n")
	}
	fmt.Fprintln(&b)
	fmt.Fprintf(&b, "Each CLI process names itself with `%s=process-NN`, which it sends as the `X-Githubtest-Client` header; the fake then counts a write sent inside a `retry-after` told to that same process apart from one sent inside a window told to another process that shares the token, which it could not have seen. ", fakeClientEnv)
	fmt.Fprintf(&b, "Counts come from the fake (`LimitStats`, also served at `GET /_githubtest/limits`). **writes** are every content-creating request sent (POST, PATCH, PUT, DELETE, GraphQL mutations), refused ones included; **403/429** are the replies a rate limit gave (any request; writes among them in brackets); **own window** / **another's window** are writes sent inside a `retry-after` told to the same process / to another process; **after bare** are writes within one (scaled) minute of a secondary limit that named no `retry-after`, from any process. **floor** is the least time in which the write budget admits the writes the fake admitted (the last of W writes cannot go out before ⌊(W−1)/80⌋ minutes nor ⌊(W−1)/500⌋ hours, scaled); **× %g** is that floor on github.com. **waste per landed** (CLI rows), from the fake's request log, is sent − landed per landed change for trees (`POST …/git/trees`), commits (`POST …/git/commits`) and landing writes (`PATCH …/git/refs/…`, GraphQL mutations — `updateRefs` on git-data, `createCommitOnBranch` on graphql and auto — and contents `PUT`s), then the writes of any type a limit refused (answered 403 or 429) per landed change; refused writes count among those sent, and \"–\" marks a type the row sent none of (auto mixes engines, so its sent − landed is against all its landed changes). **reads / landed** is every request that is not a write (REST GETs, GraphQL queries, conditional reads included), from the fake's request log, per landed change, and in brackets the conditional reads among them that the fake answered 304 Not Modified, per landed change. Every writer reported as landed is checked on the branch, and each landed writer's line must be in the index exactly once.\n\n", lc.scale)
	if !lr.EngineFlag {
		fmt.Fprintf(&b, "**The CLI built for this run has no `--engine` flag** (the GraphQL and contents engines are not on main yet): only the default Git Data engine ran; the other rows say \"not run\".\n\n")
	}
	if lr.CLIUnbuilt != "" {
		fmt.Fprintf(&b, "**The CLI runs were skipped:** %s.\n\n", lr.CLIUnbuilt)
	}
	renderLimitGoals(&b, lr)
	renderLimitTables(&b, lr)
	renderBaseline(&b, lr) // limits37.go
	renderRepeats(&b, lr)  // limitsrepeat.go
	renderProcessTable(&b, lr)
	renderMergeTable(&b, lr.Merge, lr.Command) // prmerge.go
	renderUnscaledWait(&b, lr)
	renderScale(&b, lr)
	renderShards(&b, lr.Shards) // limitsshards.go
	fmt.Fprintf(&b, "%s\n", limitsEnd)
	return b.String()
}

// renderWhatHolds says which figures hold on github.com.
func renderWhatHolds(b *strings.Builder, lr *limitsReport) {
	f := lr.Config.scale
	fmt.Fprintf(b, "**Which figures hold on github.com.** This section is measured against the fake with github.com's documented limits on, windows %g times shorter on both sides. Its counts — landed/N, writes per landed change, 403/429 answers, writes inside a `retry-after` — are what the same clients would send to github.com, as far as the fake's model of the limits is right (GitHub documents the counts, statuses and headers; that every write counts, that windows slide, that refused requests use no budget and how long a `retry-after` is are the fake's guesses). Its times are real seconds at that scale: the budget floor × %g is the least time github.com would need; wall times × %g are only a rough guide, since latency and CPU did not scale. ", f, f, f)
	fmt.Fprintf(b, "**Everything outside this section** was measured against the fake **without limits**, before the client paced its writes: its request and byte counts per commit hold on github.com (the same requests), but its wall times, throughputs and the many-writer runs do not — for example 64 CLI writers sending about 1,550 requests (roughly 18 writes per landed change) in 18 s would, on github.com, be held to 80 writes a minute and 500 an hour and answered with secondary rate limits.\n\n")
}

// row finds the one-machine row of a scenario, engine and writer count
// (the Queue's rows are one process, hence one machine).
func (lr *limitsReport) row(sc, eng string, n int) (limitResult, bool) {
	return lr.rowIn(sc, eng, n, false)
}

// rowIn finds the row of a scenario, engine and writer count run as on one
// machine (separate false) or on separate machines.
func (lr *limitsReport) rowIn(sc, eng string, n int, separate bool) (limitResult, bool) {
	for _, r := range lr.Results {
		if r.Scenario == sc && r.Engine == eng && r.Writers == n && r.Separate == separate {
			return r, true
		}
	}
	return limitResult{}, false
}

// ranMachines reports whether CLI rows ran as on one machine and as on
// separate machines.
func (lr *limitsReport) ranMachines() (same, separate bool) {
	for _, r := range lr.Results {
		if !isCLIRow(r) {
			continue
		}
		if r.Separate {
			separate = true
		} else {
			same = true
		}
	}
	return same, separate
}

// renderMachines says how the CLI processes of the rows were placed: on
// one machine, on separate machines, or both (each CLI row twice).
func renderMachines(b *strings.Builder, lr *limitsReport) {
	same, sep := lr.ranMachines()
	if !same && !sep { // no CLI row ran: say what was asked
		switch lr.Config.machines {
		case "separate":
			sep = true
		case "both":
			same, sep = true, true
		default:
			same = true
		}
	}
	const one = "the processes share the user cache directory (so writers of one branch take turns through its lock files) and the run's one rate-limit state directory"
	const apart = "every CLI process runs with its own `HOME`, `XDG_CACHE_HOME` and rate-limit state directory, so the processes share nothing local — no turn lock file, no rate-limit state — as on separate CI runners or controller shards; they share only the token and the fake"
	switch {
	case same && sep:
		fmt.Fprintf(b, "**One machine and separate machines** (`-limit-machines both`): every CLI row ran twice, against a fresh fake each time. **One machine**: %s. **Separate machines**: %s. Each writer count has a table for each; the Queue and one-process rows are one process either way, ran once, and sit with the one-machine table.\n\n", one, apart)
	case sep:
		fmt.Fprintf(b, "**Separate machines** (`-limit-machines separate`): %s. (The Queue and one-process rows are one process either way.)\n\n", apart)
	default:
		fmt.Fprintf(b, "**One machine** (`-limit-machines same`): %s. (`-limit-machines separate` or `both` runs the CLI rows as on separate machines.)\n\n", one)
	}
}

func renderLimitTables(b *strings.Builder, lr *limitsReport) {
	same, sep := lr.ranMachines()
	for _, n := range lr.Config.writers {
		fmt.Fprintf(b, "### %d writers\n\n", n)
		if !(same && sep) {
			renderLimitTable(b, lr, n, func(limitResult) bool { return true })
			continue
		}
		fmt.Fprintf(b, "#### One machine (turns through the user cache directory)\n\n")
		renderLimitTable(b, lr, n, func(r limitResult) bool { return !r.Separate })
		fmt.Fprintf(b, "#### Separate machines (nothing local shared)\n\n")
		renderLimitTable(b, lr, n, func(r limitResult) bool { return r.Separate })
	}
}

// renderLimitTable writes the table of the rows of n writers that keep
// selects.
func renderLimitTable(b *strings.Builder, lr *limitsReport, n int, keep func(limitResult) bool) {
	fmt.Fprintf(b, "| scenario | engine | landed | wall | floor | floor × %g | writes | writes / landed | waste per landed: trees / commits / landing writes / refused | reads / landed (304s) | 403/429 (writes) | own window | another's window | after bare | attempts mean / max |\n", lr.Config.scale)
	fmt.Fprintf(b, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	var notes []string
	for _, r := range lr.Results {
		if r.Writers != n || r.Scenario == scenarioSync || !keep(r) {
			continue
		}
		if r.NotRun != "" {
			fmt.Fprintf(b, "| %s | %s | %s | | | | | | | | | | | | |\n", r.Scenario, r.Engine, r.NotRun)
			continue
		}
		s := r.Stats
		waste := ""
		if isCLIRow(r) {
			waste = orDash(r.waste())
		}
		fmt.Fprintf(b, "| %s | %s | %d/%d | %s | %s | %s | %d | %.2f | %s | %s | %d (%d) | %d | %d | %d | %.2f / %d |\n",
			r.Scenario, r.Engine, r.Landed, r.Writers, secs(r.Wall), secs(r.Floor()), human(time.Duration(float64(r.Floor())*r.Scale)),
			s.Writes, r.WritesPerLanded(), waste, orDash(r.readsPerLanded()), s.Limited, s.WritesLimited, s.WritesInOwnRetryAfter, r.InOthersWindow(), s.WritesAfterBare,
			r.MeanAttempts, r.MaxAttempts)
		notes = append(notes, rowNotes(r)...)
	}
	if len(notes) > 0 {
		fmt.Fprintf(b, "\n%s\n", strings.Join(notes, "\n"))
	}
	fmt.Fprintln(b)
}

func rowNotes(r limitResult) []string {
	var out []string
	name := r.Scenario + ", " + r.Engine
	if r.Separate {
		name += ", separate machines"
	}
	if r.Landed < r.Writers {
		eg := ""
		if len(r.Errors) > 0 {
			eg = fmt.Sprintf(", e.g. `%s`", strings.ReplaceAll(r.Errors[0], "`", "'"))
		}
		out = append(out, fmt.Sprintf("- %s: %d did not land (%d used every attempt)%s", name, r.Writers-r.Landed, r.Exhausted, eg))
	}
	if r.Unreported > 0 {
		out = append(out, fmt.Sprintf("- %s: %d writers that did not report landing are on the branch all the same (an unknown outcome)", name, r.Unreported))
	}
	return out
}

// human writes a github.com duration: seconds, minutes or hours.
func human(d time.Duration) string {
	switch {
	case d >= time.Hour:
		return fmt.Sprintf("%.1f h", d.Hours())
	case d >= time.Minute:
		return fmt.Sprintf("%.1f min", d.Minutes())
	}
	return secs(d)
}

// splice puts section (markers included) into doc: in place of an earlier
// copy between the markers, else before doc's first "## " heading, else at
// the end.
func splice(doc, section string) string {
	if i := strings.Index(doc, limitsBegin); i >= 0 {
		if j := strings.Index(doc[i:], limitsEnd); j >= 0 {
			rest := strings.TrimPrefix(doc[i+j+len(limitsEnd):], "\n")
			return doc[:i] + section + rest
		}
	}
	if i := strings.Index(doc, "\n## "); i >= 0 {
		return doc[:i+1] + section + "\n" + doc[i+1:]
	}
	return strings.TrimRight(doc, "\n") + "\n\n" + section
}

// section returns the limits section of doc, markers included, or "".
func section(doc string) string {
	i := strings.Index(doc, limitsBegin)
	if i < 0 {
		return ""
	}
	j := strings.Index(doc[i:], limitsEnd)
	if j < 0 {
		return ""
	}
	return doc[i:i+j+len(limitsEnd)] + "\n"
}

// wplGoal is the bound on writes per landed change at 16 writers.
var wplGoal = map[string]float64{"git-data": 10, "graphql": 4.5, "contents": 4.5}

// limitGoals evaluates the issues' targets for this section.
func limitGoals(lr *limitsReport) []goal {
	var gs []goal
	add := func(what, measured string, ok bool) { gs = append(gs, goal{what, measured, verdict(ok)}) }
	for _, r := range lr.Results {
		if r.Engine == "contents" && r.Scenario == scenarioIndex {
			continue // cannot carry two files: no goal
		}
		if r.Separate {
			continue // the issues' goals measured one machine; #37's are below
		}
		p := fmt.Sprintf("%d writers, %s, %s: ", r.Writers, r.Scenario, r.Engine)
		if r.NotRun != "" {
			gs = append(gs, goal{p + fmt.Sprintf("%d/%d land", r.Writers, r.Writers), "—", r.NotRun})
			continue
		}
		add(p+fmt.Sprintf("%d/%d land", r.Writers, r.Writers), fmt.Sprintf("%d/%d", r.Landed, r.Writers), r.Landed == r.Writers)
		add(p+"no write inside its own retry-after window", fmt.Sprint(r.Stats.WritesInOwnRetryAfter), r.Stats.WritesInOwnRetryAfter == 0)
		if bound, ok := wplGoal[r.Engine]; ok && r.Writers == 16 {
			add(p+fmt.Sprintf("≤ %g writes per landed change", bound), fmt.Sprintf("%.2f", r.WritesPerLanded()), r.Landed > 0 && r.WritesPerLanded() <= bound)
		}
	}
	// Issue #23: separate processes, the index scenario.
	for _, g := range []struct {
		n     int
		eng   string
		bound float64
	}{{16, "git-data", 8}, {16, "auto", 2.5}, {64, "git-data", 12}, {64, "auto", 4}} {
		if r, ok := lr.rowIn(scenarioIndex, g.eng, g.n, false); ok && r.NotRun == "" {
			add(fmt.Sprintf("#23: %d writers, index, %s: ≤ %g writes per landed change, all landing", g.n, g.eng, g.bound),
				fmt.Sprintf("%.2f, %d/%d, last landing %s", r.WritesPerLanded(), r.Landed, r.Writers, secs(r.Wall)),
				r.Landed == r.Writers && r.WritesPerLanded() <= g.bound)
		}
	}
	for _, sc := range []string{scenarioIndex, scenarioSingle} {
		if g, ok := autoGoal(lr, sc, 16); ok {
			gs = append(gs, g)
		}
	}
	return append(gs, goals37(lr)...)
}

// wpl37 is issue #37's bound on writes per landed change on separate
// machines, the index scenario, by engine and writer count.
var wpl37 = []struct {
	eng   string
	bound map[int]float64
}{
	{"git-data", map[int]float64{16: 4.5, 64: 5.0}},
	{"graphql", map[int]float64{16: 1.6, 64: 1.8}},
	{"auto", map[int]float64{16: 1.6, 64: 1.8}},
}

// refused37 is issue #37's bound on the share of writes a limit refused.
var refused37 = map[int]float64{16: 0.02, 64: 0.08}

// goals37 evaluates issue #37's targets on the separate-machine index
// rows: writes per landed change, every writer landing, and the share of
// writes refused by a limit (Stats.WritesLimited / Stats.Writes). Rows
// that did not run are left out.
func goals37(lr *limitsReport) []goal {
	var gs []goal
	add := func(what, measured string, ok bool) { gs = append(gs, goal{what, measured, verdict(ok)}) }
	for _, n := range []int{16, 64} {
		for _, g := range wpl37 {
			row, ok := lr.rowIn(scenarioIndex, g.eng, n, true)
			if !ok || row.NotRun != "" {
				continue
			}
			r := row.pooled() // over every run (-limit-repeat)
			p := fmt.Sprintf("#37: %d writers, index, %s, separate machines: ", n, g.eng)
			add(p+fmt.Sprintf("≤ %g writes per landed change", g.bound[n]),
				perRun(row, fmt.Sprintf("%.2f", r.WritesPerLanded()), func(x limitResult) string { return fmt.Sprintf("%.2f", x.WritesPerLanded()) }),
				r.Landed > 0 && r.WritesPerLanded() <= g.bound[n])
			add(p+fmt.Sprintf("%d/%d land", n, n),
				perRun(row, fmt.Sprintf("%d/%d", r.Landed, r.Writers), func(x limitResult) string { return fmt.Sprintf("%d/%d", x.Landed, x.Writers) }),
				r.Landed == r.Writers)
			add(p+fmt.Sprintf("≤ %g%% of writes refused by a limit", 100*refused37[n]),
				fmt.Sprintf("%.1f%% (%d of %d)", 100*r.RefusedShare(), r.Stats.WritesLimited, r.Stats.Writes),
				r.RefusedShare() <= refused37[n])
		}
	}
	return append(append(gs, readsGoal37(lr)...), baselineGoals37(lr)...) // limits37.go
}

// autoGoal: auto's writes per landed change within 10% of the best engine
// that can carry the scenario's change sets, on one machine.
func autoGoal(lr *limitsReport, sc string, n int) (goal, bool) {
	auto, ok := lr.rowIn(sc, "auto", n, false)
	if !ok {
		return goal{}, false
	}
	what := fmt.Sprintf("%d writers, %s, auto: writes per landed change within 10%% of the best engine that can carry it", n, sc)
	if auto.NotRun != "" {
		return goal{what, "—", auto.NotRun}, true
	}
	best, bestEng := 0.0, ""
	for _, eng := range []string{"git-data", "graphql", "contents"} {
		r, ok := lr.rowIn(sc, eng, n, false)
		if !ok || r.NotRun != "" || r.Landed != r.Writers {
			continue
		}
		if bestEng == "" || r.WritesPerLanded() < best {
			best, bestEng = r.WritesPerLanded(), eng
		}
	}
	if bestEng == "" {
		return goal{what, "—", "no other engine landed every change"}, true
	}
	return goal{what, fmt.Sprintf("%.2f vs %.2f (%s)", auto.WritesPerLanded(), best, bestEng),
		verdict(auto.Landed == auto.Writers && auto.WritesPerLanded() <= 1.1*best)}, true
}

func renderLimitGoals(b *strings.Builder, lr *limitsReport) {
	fmt.Fprintf(b, "### Goals (issues #13, #14, #23 and #37)\n\n")
	fmt.Fprintf(b, "The goals of #13, #14 and #23 are evaluated on the one-machine rows (what those issues measured); #37's on the separate-machine index rows. Goals whose rows were not in this run are left out.\n\n")
	fmt.Fprintf(b, "| goal | measured | verdict |\n|---|---|---|\n")
	for _, g := range limitGoals(lr) {
		fmt.Fprintf(b, "| %s | %s | %s |\n", g.What, g.Measured, g.Verdict)
	}
	fmt.Fprintln(b)
}

// renderUnscaledWait explains rows that took a real minute or more: the
// commit loop waits at least a real minute after a secondary limit that
// names no retry-after, whatever the scale (ghclient.RateLimits'
// SecondaryWait, which the commit loop applies; seen with "ghcommitter
// commit -v": "write refused by a rate limit ... wait=1m0s"), while the
// client's own waits are scaled.
func renderUnscaledWait(b *strings.Builder, lr *limitsReport) {
	var rows []string
	for _, r := range lr.Results {
		if r.NotRun == "" && r.Wall >= time.Minute && r.Stats.Secondary > 0 && r.Floor() < r.Wall/2 {
			rows = append(rows, fmt.Sprintf("%d writers %s %s (%s)", r.Writers, r.Scenario, r.Engine, secs(r.Wall)))
		}
	}
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(b, "**Wall times of a minute or more** (%s) are the commit loop's own wait after a secondary limit that names no `retry-after`: it waits at least one real minute whatever the scale (`ghclient.RateLimits.SecondaryWait`, applied by `committer/internal/loop`; `ghcommitter commit -v` logs `write refused by a rate limit … wait=1m0s`), while the client's waits and pacing follow `%s`. At this scale that minute stands for %s on github.com, so those wall times overstate what github.com would take; the counts are unaffected.\n\n",
		strings.Join(rows, "; "), limitScaleEnv, human(time.Duration(float64(time.Minute)*lr.Config.scale)))
}

// hasEngine reports whether any row ran with engine (or queue mode) eng.
func (lr *limitsReport) hasEngine(eng string) bool {
	for _, r := range lr.Results {
		if r.Engine == eng && r.NotRun == "" {
			return true
		}
	}
	return false
}
