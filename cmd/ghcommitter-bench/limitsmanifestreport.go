package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"
)

// The promotion-manifest section sits between these markers, right after
// the "under GitHub's limits" section, so that "-only manifest" can
// replace it in an existing BENCHMARKS.md and keep the rest.
const (
	manifestBegin = "<!-- section: promotion manifests under GitHub's limits (begin) -->"
	manifestEnd   = "<!-- section: promotion manifests under GitHub's limits (end) -->"
)

// composeManifests runs the promotion-manifest section when cfg asks for it
// (everything, or -only manifest) and puts it into doc; otherwise it keeps
// the section of old, the report being replaced.
func composeManifests(ctx context.Context, cfg config, args []string, doc, old string, log io.Writer) (string, error) {
	sec := between(old, manifestBegin, manifestEnd)
	if cfg.only == "" || cfg.only == "manifest" {
		t0 := time.Now()
		mr, err := runManifestSection(ctx, cfg, log)
		if err != nil {
			return "", err
		}
		mr.Command, mr.Took = commandLine(args), time.Since(t0)
		sec = renderManifests(mr)
	}
	if sec == "" {
		return doc, nil
	}
	return spliceManifests(doc, sec), nil
}

// between returns the part of doc from begin to end, markers included and
// a newline after, or "".
func between(doc, begin, end string) string {
	i := strings.Index(doc, begin)
	if i < 0 {
		return ""
	}
	j := strings.Index(doc[i:], end)
	if j < 0 {
		return ""
	}
	return doc[i:i+j+len(end)] + "\n"
}

// spliceManifests puts sec in place of an earlier copy, else right after
// the limits section, else before doc's first "## " heading, else at the
// end.
func spliceManifests(doc, sec string) string {
	if old := between(doc, manifestBegin, manifestEnd); old != "" {
		i := strings.Index(doc, old)
		return doc[:i] + sec + doc[i+len(old):]
	}
	if lim := between(doc, limitsBegin, limitsEnd); lim != "" {
		i := strings.Index(doc, lim) + len(lim)
		return doc[:i] + "\n" + sec + doc[i:]
	}
	if i := strings.Index(doc, "\n## "); i >= 0 {
		return doc[:i+1] + sec + "\n" + doc[i+1:]
	}
	return strings.TrimRight(doc, "\n") + "\n\n" + sec
}

// renderManifests writes the section, markers included.
func renderManifests(mr *manifestReport) string {
	var b strings.Builder
	lc := mr.Config
	fmt.Fprintf(&b, "%s\n## Promotion manifests under GitHub's limits (issue #26)\n\n", manifestBegin)
	fmt.Fprintf(&b, "N separate `ghcommitter commit --manifest FILE --json` processes started at once, one per stage, each applying its stage's change manifest (`internal/promotion/manifest.yaml`, the one `examples/promotion-manifest` runs): a `sync` of its rendered directory to `stages/stage-NN/rendered` (two files), a `set-image` of its own entry `api-stage-NN` in one shared `deploy/kustomization.yaml`, and a `set` of `stages.stage-NN.tag` in one shared `deploy/values.yaml`, both shared files seeded with comments. ")
	fmt.Fprintf(&b, "The fake and the clients are those of the section above: `githubtest.GitHubLimits`, every window %g times shorter (a minute lasts %s), seed %d, `%s=%g` and `%s=process-NN` in every process, the same token for all, %s of added latency per request, `--max-attempts %d`; the repository also holds the 100 files of that section. ",
		lc.scale, secs(scaledMinute(lc.scale)), lc.seed, limitScaleEnv, lc.scale, fakeClientEnv, mr.Latency, mr.MaxAttempts)
	fmt.Fprintf(&b, "After each run the branch is verified (`promotion.Verify`), and the run fails otherwise: every stage that reported landing is on the branch whole — its rendered files byte for byte, its image entry and its values key exactly once with its tag, its commit once — a stage that did not is there whole or not at all, the shared files hold no other entry, and every comment of the seed is there byte for byte. The columns are the limits table's.\n\n")
	fmt.Fprintf(&b, "Command for this section (from the module root), which took %s:\n\n```\n%s\n```\n\n", mr.Took.Round(time.Second), mr.Command)
	fmt.Fprintf(&b, "Machine: %s cores (`nproc`); %s; load average (1, 5, 15 min) before: %s; after: %s.\n\n", orDash(mr.Cores), orDash(mr.Note), orDash(mr.LoadBefore), orDash(mr.LoadAfter))
	if mr.CLIUnbuilt != "" {
		fmt.Fprintf(&b, "**The runs were skipped:** %s.\n\n", mr.CLIUnbuilt)
	}
	fmt.Fprintf(&b, "| writers | engine | landed | every edit once, comments intact | wall | floor | floor × %g | writes | writes / landed | 403/429 (writes) | own window | another's window | after bare | attempts mean / max |\n", lc.scale)
	fmt.Fprintf(&b, "|---:|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	var notes []string
	for _, r := range mr.Results {
		if r.NotRun != "" {
			fmt.Fprintf(&b, "| %d | %s | %s | | | | | | | | | | | |\n", r.Writers, r.Engine, r.NotRun)
			continue
		}
		s := r.Stats
		fmt.Fprintf(&b, "| %d | %s | %d/%d | verified | %s | %s | %s | %d | %.2f | %d (%d) | %d | %d | %d | %.2f / %d |\n",
			r.Writers, r.Engine, r.Landed, r.Writers, secs(r.Wall), secs(r.Floor()), human(time.Duration(float64(r.Floor())*r.Scale)),
			s.Writes, r.WritesPerLanded(), s.Limited, s.WritesLimited, s.WritesInOwnRetryAfter, r.InOthersWindow(), s.WritesAfterBare,
			r.MeanAttempts, r.MaxAttempts)
		notes = append(notes, rowNotes(r)...)
	}
	if len(notes) > 0 {
		fmt.Fprintf(&b, "\n%s\n", strings.Join(notes, "\n"))
	}
	fmt.Fprintf(&b, "\n%s\n", manifestEnd)
	return b.String()
}
