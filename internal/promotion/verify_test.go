package promotion

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// branchWith is the branch as it is after the given stages landed, built
// by hand (not by the code under test).
func branchWith(stages []Stage) Branch {
	kust, vals := SeedKustomization, SeedValues
	b := Branch{Files: map[string][]byte{}, Messages: []string{"Seed the shared files"}}
	for _, s := range stages {
		kust += fmt.Sprintf("  - name: api-%s\n    newName: ghcr.io/acme/api\n    newTag: %s\n", s.Name, s.Tag)
		vals += fmt.Sprintf("  %s:\n    tag: \"%s\"\n", s.Name, s.Tag)
		for p, c := range s.Rendered() {
			b.Files[s.RenderedDir()+"/"+p] = []byte(c)
		}
		b.Messages = append([]string{s.Message()}, b.Messages...)
	}
	b.Files[KustomizationPath], b.Files[ValuesPath] = []byte(kust), []byte(vals)
	return b
}

func TestVerify(t *testing.T) {
	stages := Stages(3)
	all := []bool{true, true, true}
	if out, err := Verify(branchWith(stages), stages, all); err != nil || out.Unreported != 0 {
		t.Fatalf("a correct branch: %+v, %v", out, err)
	}
	// Stage 3 did not report landing: absent is fine, whole is counted.
	if out, err := Verify(branchWith(stages[:2]), stages, []bool{true, true, false}); err != nil || out.Unreported != 0 {
		t.Fatalf("stage 3 absent: %+v, %v", out, err)
	}
	if out, err := Verify(branchWith(stages), stages, []bool{true, true, false}); err != nil || out.Unreported != 1 {
		t.Fatalf("stage 3 unreported but on the branch: %+v, %v", out, err)
	}
	if _, err := Verify(branchWith(stages[:2]), stages, all); err == nil || !strings.Contains(err.Error(), "stage-03") {
		t.Fatalf("stage 3 reported landed but absent: %v", err)
	}

	edit := func(path, old, repl string) func(Branch) {
		return func(b Branch) {
			if !strings.Contains(string(b.Files[path]), old) {
				t.Fatalf("%s has no %q", path, old)
			}
			b.Files[path] = []byte(strings.Replace(string(b.Files[path]), old, repl, 1))
		}
	}
	for name, c := range map[string]struct {
		landed []bool
		damage func(Branch)
		want   string
	}{
		"a lost values edit": {all, edit(ValuesPath, "  stage-02:\n    tag: \"1.2.0\"\n", ""), "stage-02"},
		"a lost image edit":  {all, edit(KustomizationPath, "  - name: api-stage-01\n    newName: ghcr.io/acme/api\n    newTag: 1.1.0\n", ""), "stage-01"},
		"an image set twice": {all, edit(KustomizationPath, "  - name: api-stage-01\n", "  - name: api-stage-01\n    newName: ghcr.io/acme/api\n    newTag: 1.1.0\n  - name: api-stage-01\n"), "stage-01"},
		"a stale tag":        {all, edit(ValuesPath, "tag: \"1.3.0\"", "tag: \"1.0.0\""), "stage-03"},
		"a comment lost":     {all, edit(KustomizationPath, "  # the base image, for reference\n", ""), "comment"},
		"a values comment":   {all, edit(ValuesPath, "  # promoted by hand", ""), "seed"},
		"a lost rendered file": {all, func(b Branch) {
			delete(b.Files, stages[0].RenderedDir()+"/service.yaml")
		}, "stage-01"},
		"an extra rendered file": {all, func(b Branch) {
			b.Files[stages[1].RenderedDir()+"/old.yaml"] = []byte("x")
		}, "stage-02"},
		"a commit twice": {all, func(b Branch) {
			b.Messages[1] = b.Messages[0]
		}, "commits"},
		"a foreign stage": {all, edit(ValuesPath, "  stage-01:", "  stage-99:\n    tag: x\n  stage-01:"), "stages"},
		"not landed but in part": {[]bool{true, true, false}, func(b Branch) {
			delete(b.Files, stages[2].RenderedDir()+"/service.yaml")
			delete(b.Files, stages[2].RenderedDir()+"/deployment.yaml")
		}, "stage-03"},
	} {
		t.Run(name, func(t *testing.T) {
			b := branchWith(stages)
			c.damage(b)
			_, err := Verify(b, stages, c.landed)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Verify = %v, want an error about %q", err, c.want)
			}
		})
	}
}

// TestWrite: the manifest a stage writes names its own stage and tag
// everywhere, and its sync's local directory holds the rendered files.
func TestWrite(t *testing.T) {
	s := Stages(7)[6]
	dir := t.TempDir()
	m, err := s.Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(m)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`message: "Promote api 1.7.0 to stage-07"`, `remote: "stages/stage-07/rendered"`, `name: "api-stage-07"`, `key: "stages.stage-07.tag"`, `value: "1.7.0"`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("manifest lacks %s:\n%s", want, data)
		}
	}
	if strings.Contains(string(data), "{{") {
		t.Errorf("manifest left a template action:\n%s", data)
	}
	for p, c := range s.Rendered() {
		got, err := os.ReadFile(filepath.Join(dir, "rendered", p))
		if err != nil || string(got) != c {
			t.Errorf("rendered/%s: %q, %v", p, got, err)
		}
	}
}
