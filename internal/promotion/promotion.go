// Package promotion is the promotion-manifest scenario of issue 26, shared
// by examples/promotion-manifest (which runs it) and cmd/ghcommitter-bench
// (which measures it under GitHub's limits): N stages, each one
// `ghcommitter commit --manifest` process against the same branch, that
// syncs its rendered directory, sets its image in one shared
// kustomization.yaml and its tag in one shared values file.
//
// It holds the seed of the shared files, lays out each stage's directory
// and manifest (manifest.yaml, a template), and checks a branch's content
// afterwards (Verify).
package promotion

import (
	"bytes"
	_ "embed"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"text/template"

	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

//go:embed manifest.yaml
var manifestTemplate string

var manifestTmpl = template.Must(template.New("manifest.yaml").Parse(manifestTemplate))

// The shared files every stage edits.
const (
	KustomizationPath = "deploy/kustomization.yaml"
	ValuesPath        = "deploy/values.yaml"
)

// Seed content of the shared files, with comments that must survive.
const (
	SeedKustomization = "# Every stage's api image; set by promotions.\napiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - base\nimages:\n  # the base image, for reference\n  - name: api\n    newName: ghcr.io/acme/api\n    newTag: \"1.0.0\"\n"
	SeedValues        = "# Values shared by every stage.\nreplicas: 2\n\n# One entry per stage, written by its promotion.\nstages:\n  dev:\n    tag: \"1.0.0\"  # promoted by hand\n"
)

// Image is the image every stage promotes (its kustomization entry is
// named "api-" + the stage's name).
const Image = "ghcr.io/acme/api"

// Seed is the shared files as the branch holds them before any stage runs.
func Seed() []githubtest.File {
	return []githubtest.File{
		{Path: KustomizationPath, Content: []byte(SeedKustomization)},
		{Path: ValuesPath, Content: []byte(SeedValues)},
	}
}

// Stage is one stage's promotion: stage-NN gets tag 1.N.0.
type Stage struct {
	Name, Tag string
}

// Stages returns stage-01 … stage-n.
func Stages(n int) []Stage {
	out := make([]Stage, n)
	for i := range out {
		out[i] = Stage{Name: fmt.Sprintf("stage-%02d", i+1), Tag: fmt.Sprintf("1.%d.0", i+1)}
	}
	return out
}

// Message is the first line of the stage's commit message.
func (s Stage) Message() string { return fmt.Sprintf("Promote api %s to %s", s.Tag, s.Name) }

// ImageName is the stage's entry in the kustomization's images list.
func (s Stage) ImageName() string { return "api-" + s.Name }

// RenderedDir is where on the branch the stage's rendered manifests go.
func (s Stage) RenderedDir() string { return path.Join("stages", s.Name, "rendered") }

// Rendered is the stage's rendered manifests: file name → content.
func (s Stage) Rendered() map[string]string {
	return map[string]string{
		"deployment.yaml": fmt.Sprintf("kind: Deployment\nmetadata:\n  name: api\n  namespace: %s\nspec:\n  template:\n    spec:\n      containers:\n        - name: api\n          image: %s:%s\n", s.Name, Image, s.Tag),
		"service.yaml":    fmt.Sprintf("kind: Service\nmetadata:\n  name: api\n  namespace: %s\n", s.Name),
	}
}

// Write lays out the stage's rendered directory and its manifest under dir
// and returns the manifest's path (the manifest's sync is relative to it).
func (s Stage) Write(dir string) (string, error) {
	rendered := filepath.Join(dir, "rendered")
	if err := os.MkdirAll(rendered, 0o750); err != nil {
		return "", err
	}
	for p, content := range s.Rendered() {
		if err := os.WriteFile(filepath.Join(rendered, p), []byte(content), 0o600); err != nil {
			return "", err
		}
	}
	var b bytes.Buffer
	if err := manifestTmpl.Execute(&b, s); err != nil {
		return "", err
	}
	manifest := filepath.Join(dir, "manifest.yaml")
	return manifest, os.WriteFile(manifest, b.Bytes(), 0o600)
}
