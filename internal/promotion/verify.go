package promotion

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

// Branch is what Verify checks: every file on the branch and the first
// line of each commit message of its history.
type Branch struct {
	Files    map[string][]byte
	Messages []string
}

// Read reads branch of owner/name from the fake.
func Read(srv *githubtest.Server, owner, name, branch string) (Branch, error) {
	files, err := srv.Files(owner, name, branch)
	if err != nil {
		return Branch{}, err
	}
	hist, err := srv.History(owner, name, branch)
	if err != nil {
		return Branch{}, err
	}
	b := Branch{Files: map[string][]byte{}}
	for p, f := range files {
		b.Files[p] = f.Content
	}
	for _, c := range hist {
		first, _, _ := strings.Cut(c.Message, "\n")
		b.Messages = append(b.Messages, first)
	}
	return b, nil
}

// Outcome is what Verify found beyond what the stages reported.
type Outcome struct {
	// Unreported counts stages that did not report landing but are on the
	// branch whole all the same (an unknown outcome that landed).
	Unreported int
}

// Verify checks the branch after stages ran, landed[i] saying whether
// stage i reported landing. Each stage is on the branch whole or not at
// all: its rendered files exactly, its image entry and its values key
// exactly once with its tag, its commit once; a stage that reported
// landing is there. The shared files keep every comment and entry of the
// seed and hold no entry of anyone else. Any other state is an error
// naming the stage and what is wrong: a result is never taken on trust.
func Verify(b Branch, stages []Stage, landed []bool) (Outcome, error) {
	var out Outcome
	if len(landed) != len(stages) {
		return out, fmt.Errorf("verify: %d outcomes for %d stages", len(landed), len(stages))
	}
	k, v, err := parseShared(b)
	if err != nil {
		return out, err
	}
	var errs []error
	errs = append(errs, checkSeed(b, k, v)...)
	present := 0
	for i, s := range stages {
		parts := stageParts(b, k, v, s)
		var right, wrong, absent []string
		for _, p := range parts {
			switch {
			case p.right:
				right = append(right, p.name)
			case p.wrong != "":
				wrong = append(wrong, p.name+": "+p.wrong)
			default:
				absent = append(absent, p.name)
			}
		}
		switch {
		case len(right) == len(parts):
			present++
			if !landed[i] {
				out.Unreported++
			}
		case len(right) == 0 && len(wrong) == 0:
			if landed[i] {
				errs = append(errs, fmt.Errorf("%s reported landed but none of its change is on the branch", s.Name))
			}
		default:
			errs = append(errs, fmt.Errorf("%s (reported landed: %v) is not on the branch whole: right: %s; wrong: %s; absent: %s",
				s.Name, landed[i], orNone(right), orNone(wrong), orNone(absent)))
		}
	}
	if got := len(k.Images); got != 1+present {
		errs = append(errs, fmt.Errorf("%s: %d images, want %d (the seed's and one per stage on the branch)", KustomizationPath, got, 1+present))
	}
	if got := len(v.Stages); got != 1+present {
		errs = append(errs, fmt.Errorf("%s: %d stages, want %d (the seed's and one per stage on the branch)", ValuesPath, got, 1+present))
	}
	return out, errors.Join(errs...)
}

type kustomization struct {
	Images []struct {
		Name    string `yaml:"name"`
		NewName string `yaml:"newName"`
		NewTag  string `yaml:"newTag"`
	} `yaml:"images"`
}

type values struct {
	Replicas int                          `yaml:"replicas"`
	Stages   map[string]map[string]string `yaml:"stages"`
}

func parseShared(b Branch) (kustomization, values, error) {
	var k kustomization
	var v values
	for p, into := range map[string]any{KustomizationPath: &k, ValuesPath: &v} {
		data, ok := b.Files[p]
		if !ok {
			return k, v, fmt.Errorf("%s is not on the branch", p)
		}
		if err := yaml.Unmarshal(data, into); err != nil {
			return k, v, fmt.Errorf("%s: not valid YAML any more: %w", p, err)
		}
	}
	return k, v, nil
}

// checkSeed: the shared files keep the seed's comments, byte for byte, and
// its entries.
func checkSeed(b Branch, k kustomization, v values) []error {
	var errs []error
	kust, vals := string(b.Files[KustomizationPath]), string(b.Files[ValuesPath])
	for _, line := range strings.SplitAfter(SeedKustomization, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "#") && strings.Count(kust, line) != 1 {
			errs = append(errs, fmt.Errorf("%s: the seed's comment %q is there %d times, want once", KustomizationPath, strings.TrimSpace(line), strings.Count(kust, line)))
		}
	}
	if !strings.HasPrefix(vals, SeedValues) {
		errs = append(errs, fmt.Errorf("%s does not start with the seed's bytes (comments, blank line, the dev entry)", ValuesPath))
	}
	base := 0
	for _, im := range k.Images {
		if im.Name == "api" && im.NewName == Image && im.NewTag == "1.0.0" {
			base++
		}
	}
	if base != 1 {
		errs = append(errs, fmt.Errorf("%s: the seed's api image is there %d times, want once", KustomizationPath, base))
	}
	if v.Replicas != 2 || v.Stages["dev"]["tag"] != "1.0.0" {
		errs = append(errs, fmt.Errorf("%s: the seed's replicas or dev tag changed", ValuesPath))
	}
	return errs
}

// part is one part of a stage's change as the branch holds it: right,
// wrong (what is wrong), or absent (neither).
type part struct {
	name  string
	right bool
	wrong string
}

// stageParts reads the four parts of stage s on the branch: its rendered
// files, its image entry, its values key and its commit.
func stageParts(b Branch, k kustomization, v values, s Stage) []part {
	rendered := part{name: "rendered files"}
	want := s.Rendered()
	var bad, there []string
	for _, p := range slices.Sorted(maps.Keys(b.Files)) {
		if rel, ok := strings.CutPrefix(p, s.RenderedDir()+"/"); ok {
			if w, ok := want[rel]; !ok || w != string(b.Files[p]) {
				bad = append(bad, p)
			} else {
				there = append(there, p)
			}
		}
	}
	switch {
	case len(bad) > 0:
		rendered.wrong = "wrong or extra " + strings.Join(bad, ", ")
	case len(there) == len(want):
		rendered.right = true
	case len(there) > 0:
		rendered.wrong = fmt.Sprintf("%d of %d files", len(there), len(want))
	}

	image := part{name: "image"}
	n, ok := 0, 0
	for _, im := range k.Images {
		if im.Name == s.ImageName() {
			n++
			if im.NewName == Image && im.NewTag == s.Tag {
				ok++
			}
		}
	}
	switch {
	case n == 1 && ok == 1:
		image.right = true
	case n > 0:
		image.wrong = fmt.Sprintf("%d entries named %s, %d of them with newTag %s", n, s.ImageName(), ok, s.Tag)
	}

	key := part{name: "values key"}
	if entry, there := v.Stages[s.Name]; there {
		if tag := entry["tag"]; tag == s.Tag && len(entry) == 1 {
			key.right = true
		} else {
			key.wrong = fmt.Sprintf("stages.%s is %v", s.Name, entry)
		}
	}

	commit := part{name: "commit"}
	c := 0
	for _, m := range b.Messages {
		if m == s.Message() {
			c++
		}
	}
	switch {
	case c == 1:
		commit.right = true
	case c > 1:
		commit.wrong = fmt.Sprintf("%d commits %q", c, s.Message())
	}
	return []part{rendered, image, key, commit}
}

func orNone(list []string) string {
	if len(list) == 0 {
		return "none"
	}
	return strings.Join(list, ", ")
}
