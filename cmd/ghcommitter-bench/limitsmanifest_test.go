package main

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/githubtest"
	"github.com/ghcommitter/ghcommitter/internal/promotion"
)

// TestManifestRows runs a tiny version of the promotion-manifest row: 3
// "ghcommitter commit --manifest" processes against the fake with
// GitHub's limits, windows 600 times shorter. Every stage lands and the
// branch verifies; then one stage's values key is lost by a later blind
// write of the shared file, and the same verification must refuse the
// branch, naming that stage.
func TestManifestRows(t *testing.T) {
	cfg, err := parseFlags([]string{"-only", "manifest", "-limit-writers", "3", "-limit-engines", "git-data,contents", "-latency", "2ms", "-limit-scale", "600"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	bin, err := buildCLI(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	fake, err := newManifestFake(cfg.limits, cfg.latency)
	if err != nil {
		t.Fatal(err)
	}
	defer fake.Close()
	res, err := runManifestsOn(ctx, cfg, fake, bin, "git-data", 3, hasEngineFlag(ctx, bin))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("landed %d/%d, %d writes (%.2f per landed), %d limited, %v", res.Landed, res.Writers, res.Stats.Writes, res.WritesPerLanded(), res.Stats.Limited, res.Errors)
	if res.Landed != 3 || res.Stats.Writes < 3 || res.Unreported != 0 {
		t.Fatalf("3 stages, 10 attempts each: %+v", res)
	}

	// The rendered section: the row, the n/a row, the markers.
	doc := renderManifests(&manifestReport{Config: cfg.limits, Results: []limitResult{res,
		{Scenario: scenarioManifest, Engine: "contents", Writers: 3, NotRun: "n/a: the contents API writes one file per commit"}}})
	for _, want := range []string{manifestBegin, "| 3 | git-data | 3/3 | verified | ", "| 3 | contents | n/a", manifestEnd} {
		if !strings.Contains(doc, want) {
			t.Errorf("section lacks %q:\n%s", want, doc)
		}
	}

	// A lost edit: stage-02's key disappears from the shared values file.
	stages := promotion.Stages(3)
	vals, _, err := fake.srv.ReadFile(owner, repoName, branch, promotion.ValuesPath)
	if err != nil {
		t.Fatal(err)
	}
	before, after, ok := strings.Cut(string(vals), "  stage-02:\n    tag: ")
	_, after, ok2 := strings.Cut(after, "\n")
	if !ok || !ok2 {
		t.Fatalf("values.yaml holds no stage-02 entry:\n%s", vals)
	}
	lost := before + after
	if _, err := fake.srv.Seed(owner, repoName, branch, "A blind write of the values file",
		githubtest.File{Path: promotion.ValuesPath, Content: []byte(lost)}); err != nil {
		t.Fatal(err)
	}
	_, err = verifyManifests(fake.srv, stages, []bool{true, true, true})
	if err == nil || !strings.Contains(err.Error(), "stage-02") {
		t.Fatalf("verification after stage-02's edit was lost: %v", err)
	}
	t.Logf("caught: %v", err)
}

// TestComposeManifests: the section goes right after the limits section,
// a rerun replaces it, and a run of another section keeps it.
func TestComposeManifests(t *testing.T) {
	doc := "# Benchmarks\n\nintro\n\n" + limitsBegin + "\nlimits\n" + limitsEnd + "\n\n## Setup\n\nmatrix\n"
	first := spliceManifests(doc, manifestBegin+"\nrun-1\n"+manifestEnd+"\n")
	if i, j, k := strings.Index(first, limitsEnd), strings.Index(first, manifestBegin), strings.Index(first, "## Setup"); !(i < j && j < k) {
		t.Fatalf("section not put between the limits section and the matrix:\n%s", first)
	}
	second := spliceManifests(first, manifestBegin+"\nrun-2\n"+manifestEnd+"\n")
	if strings.Count(second, manifestBegin) != 1 || strings.Contains(second, "run-1") || !strings.Contains(second, "run-2") || !strings.Contains(second, "matrix") {
		t.Fatalf("rerun did not replace the section:\n%s", second)
	}
	cfg, err := parseFlags([]string{"-only", "limits"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	kept, err := composeManifests(context.Background(), cfg, nil, doc, second, io.Discard)
	if err != nil || !strings.Contains(kept, "run-2") || strings.Count(kept, manifestBegin) != 1 {
		t.Fatalf("-only limits lost the manifest section (%v):\n%s", err, kept)
	}
}
