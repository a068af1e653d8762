package main

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"
)

// TestQuickLibraryModes runs the benchmark's core in -quick mode for the
// in-process modes (no CLI build, no git) and checks that every writer
// landed and the report renders.
func TestQuickLibraryModes(t *testing.T) {
	cfg, err := parseFlags([]string{"-quick", "-modes", "goroutines,queue-chain,queue-squash"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	rep, err := run(ctx, cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if want := len(cfg.writers) * 3; len(rep.Results) != want {
		t.Fatalf("got %d results, want %d", len(rep.Results), want)
	}
	for _, r := range rep.Results {
		if r.Landed != r.Writers {
			t.Errorf("%s, %d writers: %d landed (%v)", r.Mode, r.Writers, r.Landed, r.Errors)
		}
		if r.Requests == 0 || r.Bytes == 0 {
			t.Errorf("%s, %d writers: no traffic counted", r.Mode, r.Writers)
		}
	}
	// The branch, the path lookup (which also brings the repository's
	// node ID for updateRefs), the tree, the commit, the ref update; a
	// Queue that knows the head and the paths sends the 3 writes only.
	if len(rep.Costs) != 1 || rep.Costs[0].Requests != 5 || rep.Costs[0].QueueRequests > 4 {
		t.Errorf("uncontended cost = %+v, want 5 requests, and at most 4 through a Queue that knows the head", rep.Costs)
	}
	doc := render(rep)
	for _, want := range []string{"## Goals", "### 100 files, 8 writers", "| queue-squash |"} {
		if !strings.Contains(doc, want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

func TestParseFlags(t *testing.T) {
	cfg, err := parseFlags([]string{"-writers", "64,1,16", "-modes", "git,cli"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.writers; len(got) != 3 || got[0] != 1 || got[2] != 64 {
		t.Errorf("writers = %v", got)
	}
	if got := cfg.modes; len(got) != 2 || got[0] != "cli" || got[1] != "git" {
		t.Errorf("modes = %v, want allModes' order", got)
	}
	if !cfg.limits.runs("queue") || !cfg.limits.runs(scenarioIndex) {
		t.Errorf("without -limit-rows every row runs")
	}
	sub, err := parseFlags([]string{"-limit-rows", "index", "-limit-trace", "/tmp/t"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !sub.limits.runs(scenarioIndex) || sub.limits.runs(scenarioSingle) || sub.limits.runs("queue") || sub.limits.runs("process") || sub.limits.runs("scale") {
		t.Errorf("-limit-rows index runs %v", sub.limits.rows)
	}
	if sub.limits.trace != "/tmp/t" {
		t.Errorf("-limit-trace = %q", sub.limits.trace)
	}
	for _, bad := range [][]string{{"-modes", "svn"}, {"-writers", "0"}, {"-files", "x"}, {"extra"}, {"-limit-rows", "index,git"}, {"-limit-rows", ","}} {
		if _, err := parseFlags(bad, io.Discard); err == nil {
			t.Errorf("parseFlags(%q) succeeded", bad)
		}
	}
}

func TestPercentile(t *testing.T) {
	var ds []time.Duration
	for i := 1; i <= 100; i++ {
		ds = append(ds, time.Duration(i))
	}
	if p := percentile(ds, 50); p != 50 {
		t.Errorf("p50 = %d", p)
	}
	if p := percentile(ds, 99); p != 99 {
		t.Errorf("p99 = %d", p)
	}
	if p := percentile(ds[:3], 99); p != 3 {
		t.Errorf("p99 of 3 = %d", p)
	}
}
