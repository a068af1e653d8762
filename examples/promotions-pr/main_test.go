package main

import (
	"fmt"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/ghcommitter/ghcommitter/examples/internal/target/targettest"
)

// checkMerged runs the example and checks that every stage merged into
// main: its values file there, its key in the index once, the rebuilds
// reported, and main and every head branch moved by fast-forward only.
func checkMerged(t *testing.T, stages int, args ...string) {
	t.Helper()
	fake, out := targettest.Run(t, run, append([]string{"-stages", fmt.Sprint(stages)}, args...)...)
	idx, _, err := fake.ReadFile("acme", "monorepo", "main", indexPath)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Stages map[string]string `yaml:"stages"`
	}
	if err := yaml.Unmarshal(idx, &doc); err != nil {
		t.Fatalf("index is not YAML: %v\n%s", err, idx)
	}
	if len(doc.Stages) != stages {
		t.Errorf("index holds %d stages, want %d:\n%s", len(doc.Stages), stages, idx)
	}
	for i := range stages {
		stage, tag := fmt.Sprintf("stage-%d", i+1), fmt.Sprintf("v1.%d.0", i+1)
		if doc.Stages[stage] != tag || strings.Count(string(idx), stage+":") != 1 {
			t.Errorf("index: %s = %q (%d times), want %q once", stage, doc.Stages[stage], strings.Count(string(idx), stage+":"), tag)
		}
		values, _, err := fake.ReadFile("acme", "monorepo", "main", "envs/"+stage+"/values.yaml")
		if err != nil || !strings.Contains(string(values), "tag: "+tag) {
			t.Errorf("envs/%s/values.yaml = %q (%v), want tag %s", stage, values, err, tag)
		}
	}
	if strings.Count(out, "merged (") != stages {
		t.Errorf("not every stage reports merged:\n%s", out)
	}
	for _, u := range fake.RefUpdates("acme", "monorepo") {
		if u.Old != "" && u.New != "" && (u.Forced || !u.FastForward) {
			t.Errorf("ref %s moved without fast-forward", u.Ref)
		}
	}
	t.Logf("\n%s", out)
}

func TestRunAutoMerge(t *testing.T) { checkMerged(t, 6) }

func TestRunMergeNow(t *testing.T) { checkMerged(t, 8, "-merge-now") }
