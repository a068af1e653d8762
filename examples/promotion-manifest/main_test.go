package main

import (
	"fmt"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/ghcommitter/ghcommitter/examples/internal/target"
	"github.com/ghcommitter/ghcommitter/examples/internal/target/targettest"
	"github.com/ghcommitter/ghcommitter/internal/promotion"
)

// TestRun: 16 processes each apply their stage's manifest at once; every
// stage lands exactly once — its rendered files, its image, its values key
// — in a linear history, and the shared files keep their comments.
func TestRun(t *testing.T) {
	const n = 16
	fake, out := targettest.Run(t, run, "-stages", fmt.Sprint(n))
	owner, name := target.FakeOwner, target.FakeName
	files, err := fake.Files(owner, name, "main")
	if err != nil {
		t.Fatal(err)
	}
	kust, values := string(files[promotion.KustomizationPath].Content), string(files[promotion.ValuesPath].Content)
	var k struct {
		Images []struct {
			Name    string `yaml:"name"`
			NewName string `yaml:"newName"`
			NewTag  string `yaml:"newTag"`
		} `yaml:"images"`
	}
	if err := yaml.Unmarshal([]byte(kust), &k); err != nil {
		t.Fatalf("kustomization.yaml: %v\n%s", err, kust)
	}
	var v struct {
		Replicas int                          `yaml:"replicas"`
		Stages   map[string]map[string]string `yaml:"stages"`
	}
	if err := yaml.Unmarshal([]byte(values), &v); err != nil {
		t.Fatalf("values.yaml: %v\n%s", err, values)
	}
	if len(k.Images) != n+1 || len(v.Stages) != n+1 || v.Replicas != 2 {
		t.Errorf("%d images (want %d), %d stages (want %d):\n%s\n%s", len(k.Images), n+1, len(v.Stages), n+1, kust, values)
	}
	for i := range n {
		st, tag := fmt.Sprintf("stage-%02d", i+1), fmt.Sprintf("1.%d.0", i+1)
		if got := v.Stages[st]["tag"]; got != tag {
			t.Errorf("values: %s tag = %q, want %q", st, got, tag)
		}
		if c := strings.Count(kust, "name: api-"+st+"\n"); c != 1 {
			t.Errorf("kustomization: api-%s appears %d times", st, c)
		}
		if !strings.Contains(string(files["stages/"+st+"/rendered/deployment.yaml"].Content), "image: ghcr.io/acme/api:"+tag) {
			t.Errorf("stages/%s/rendered/deployment.yaml missing or wrong", st)
		}
		if !strings.Contains(out, st) {
			t.Errorf("the table does not list %s", st)
		}
	}
	for _, im := range k.Images {
		if strings.HasPrefix(im.Name, "api-") && (im.NewName != "ghcr.io/acme/api" || im.NewTag == "") {
			t.Errorf("image %+v", im)
		}
	}
	for _, keep := range []string{"# Every stage's api image; set by promotions.\n", "  # the base image, for reference\n"} {
		if !strings.Contains(kust, keep) {
			t.Errorf("kustomization.yaml lost %q", keep)
		}
	}
	for _, keep := range []string{"# Values shared by every stage.\nreplicas: 2\n\n# One entry per stage, written by its promotion.\nstages:\n  dev:\n    tag: \"1.0.0\"  # promoted by hand\n"} {
		if !strings.HasPrefix(values, keep) {
			t.Errorf("values.yaml lost %q:\n%s", keep, values)
		}
	}
	hist, err := fake.History(owner, name, "main")
	if err != nil || len(hist) != n+1 {
		t.Fatalf("history: %d commits (%v), want %d", len(hist), err, n+1)
	}
	seen := map[string]int{}
	for _, c := range hist[:n] {
		seen[strings.SplitN(c.Message, "\n", 2)[0]]++
	}
	for i := range n {
		if msg := fmt.Sprintf("Promote api 1.%d.0 to stage-%02d", i+1, i+1); seen[msg] != 1 {
			t.Errorf("%q landed %d times", msg, seen[msg])
		}
	}
	if !strings.Contains(out, "per landed change") {
		t.Errorf("output does not say the writes per landed change")
	}
}
