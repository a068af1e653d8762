package main

import (
	"fmt"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/ghcommitter/ghcommitter/examples/internal/target/targettest"
)

func checkLanded(t *testing.T, args []string, stages int) {
	t.Helper()
	fake, out := targettest.Run(t, run, args...)
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
		stage, tag := stageName(i), fmt.Sprintf("v1.%d.0", i+1)
		if doc.Stages[stage] != tag {
			t.Errorf("index: %s = %q, want %q", stage, doc.Stages[stage], tag)
		}
		values, _, err := fake.ReadFile("acme", "monorepo", "main", "envs/"+stage+"/values.yaml")
		if err != nil || !strings.Contains(string(values), "tag: "+tag) {
			t.Errorf("envs/%s/values.yaml = %q (%v), want tag %s", stage, values, err, tag)
		}
		if !strings.Contains(out, stage) {
			t.Errorf("table does not list %s", stage)
		}
	}
	for _, u := range fake.RefUpdates("acme", "monorepo") {
		if u.Old != "" && u.New != "" && (u.Forced || !u.FastForward) {
			t.Errorf("ref %s moved without fast-forward", u.Ref)
		}
	}
}

func TestRun(t *testing.T) { checkLanded(t, nil, 6) }

func TestRunMoreStages(t *testing.T) { checkLanded(t, []string{"-stages", "10"}, 10) }

func TestRunQueue(t *testing.T) { checkLanded(t, []string{"-queue"}, 6) }

func TestSetIndexEntryKeepsOtherKeys(t *testing.T) {
	got, err := setIndexEntry("qa", "v2")([]byte("app: api\nstages:\n  dev: v1\n"), true)
	if err != nil {
		t.Fatal(err)
	}
	want := "app: api\nstages:\n  dev: v1\n  qa: v2\n"
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if _, err := setIndexEntry("qa", "v2")([]byte("stages: [unclosed"), true); err == nil {
		t.Error("a broken index was overwritten instead of failing the commit")
	}
}

func TestSetIndexEntryKeepsCommentsAndOrder(t *testing.T) {
	in := `# Promotions, written by the pipeline. Do not reorder.
app: api # the service
stages:
  # production first
  prod: "v1.0.0" # pinned by change CHG-7
  dev: v0.9.0
owner: platform
`
	got, err := setIndexEntry("prod", "v1.1.0")([]byte(in), true)
	if err != nil {
		t.Fatal(err)
	}
	want := `# Promotions, written by the pipeline. Do not reorder.
app: api # the service
stages:
  # production first
  prod: "v1.1.0" # pinned by change CHG-7
  dev: v0.9.0
owner: platform
`
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	got, err = setIndexEntry("qa", "v1.0.1")(got, true)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(got), "  dev: v0.9.0\n  qa: v1.0.1\nowner: platform\n") {
		t.Errorf("a new stage was not appended after the others:\n%s", got)
	}
	// An absent or empty index starts a document.
	for _, old := range []string{"", "\n"} {
		got, err := setIndexEntry("dev", "v1")([]byte(old), old != "")
		if err != nil || string(got) != "stages:\n  dev: v1\n" {
			t.Errorf("from %q: got %q, %v", old, got, err)
		}
	}
	if _, err := setIndexEntry("dev", "v1")([]byte("stages: [a, b]\n"), true); err == nil {
		t.Error("stages as a list was overwritten instead of failing the commit")
	}
}
