// Command promotion-manifest promotes an image to N stages at once, each
// stage a separate `ghcommitter commit --manifest` process writing to the
// same branch: its rendered manifests (a sync), its image in one shared
// kustomization.yaml (set-image) and its tag in one shared values file
// (set), with no clone and no shell edit. It checks that every stage landed
// exactly once with the shared files' comments intact, and counts the write
// requests per landed change.
//
//	go run ./examples/promotion-manifest -stages 16
//
// It builds the CLI with `go build` unless -ghcommitter names a binary.
// Against GitHub (GITHUB_TOKEN with contents: write; GITHUB_API_URL for
// GHES), on a branch holding deploy/kustomization.yaml and deploy/values.yaml:
//
//	GITHUB_TOKEN=... go run ./examples/promotion-manifest -repo you/scratch -branch ghcommitter-promotions
package main

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"text/tabwriter"
	"text/template"

	"github.com/ghcommitter/ghcommitter/committer/githubtest"
	"github.com/ghcommitter/ghcommitter/examples/internal/target"
)

//go:embed manifest.yaml
var manifestTemplate string

const (
	kustomizationPath = "deploy/kustomization.yaml"
	valuesPath        = "deploy/values.yaml"
	fakeToken         = "example-token"
)

// Seed content of the shared files, with comments that must survive.
const (
	seedKustomization = "# Every stage's api image; set by promotions.\napiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - base\nimages:\n  # the base image, for reference\n  - name: api\n    newName: ghcr.io/acme/api\n    newTag: \"1.0.0\"\n"
	seedValues        = "# Values shared by every stage.\nreplicas: 2\n\n# One entry per stage, written by its promotion.\nstages:\n  dev:\n    tag: \"1.0.0\"  # promoted by hand\n"
)

func main() { target.Main("promotion-manifest", run) }

// stage is one stage's promotion and its outcome.
type stage struct {
	Stage, Tag string
	dir        string
	res        struct {
		Commit   string `json:"commit"`
		Attempts int    `json:"attempts"`
	}
	err error
}

func run(ctx context.Context, args []string, stdout io.Writer) (*githubtest.Server, error) {
	fs := flag.NewFlagSet("promotion-manifest", flag.ContinueOnError)
	fs.SetOutput(stdout)
	repo := fs.String("repo", "", "OWNER/NAME on GitHub (needs GITHUB_TOKEN); default: an embedded fake GitHub")
	branch := fs.String("branch", "main", "branch every stage commits to")
	n := fs.Int("stages", 16, "number of stages promoting at once, each a process")
	bin := fs.String("ghcommitter", "", "the ghcommitter binary (default: go build it)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if *n < 1 || *n > 100 {
		return nil, errors.New("-stages must be between 1 and 100")
	}
	work, err := os.MkdirTemp("", "promotion-manifest-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	if *bin == "" {
		if *bin, err = buildCLI(ctx, work); err != nil {
			return nil, err
		}
	}

	api, owner, name, token := os.Getenv("GITHUB_API_URL"), "", "", os.Getenv("GITHUB_TOKEN")
	var fake *githubtest.Server
	if *repo == "" {
		fake = githubtest.New(githubtest.WithToken(fakeToken))
		owner, name, token = target.FakeOwner, target.FakeName, fakeToken
		if err := fake.CreateRepo(owner, name, false); err != nil {
			return nil, err
		}
		if _, err := fake.Seed(owner, name, *branch, "Seed the shared files",
			githubtest.File{Path: kustomizationPath, Content: []byte(seedKustomization)},
			githubtest.File{Path: valuesPath, Content: []byte(seedValues)}); err != nil {
			return nil, err
		}
		hs := httptest.NewServer(fake)
		defer hs.Close()
		api = hs.URL
	} else {
		if token == "" {
			return nil, errors.New("-repo needs a token in GITHUB_TOKEN")
		}
		owner, name, _ = strings.Cut(*repo, "/")
	}
	if api == "" {
		api = target.DefaultAPI
	}

	tmpl, err := template.New("manifest").Parse(manifestTemplate)
	if err != nil {
		return fake, err
	}
	stages := make([]*stage, *n)
	for i := range stages {
		s := &stage{Stage: fmt.Sprintf("stage-%02d", i+1), Tag: fmt.Sprintf("1.%d.0", i+1)}
		s.dir = filepath.Join(work, s.Stage)
		if err := s.write(tmpl); err != nil {
			return fake, err
		}
		stages[i] = s
	}

	var wg sync.WaitGroup
	for _, s := range stages {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.err = s.promote(ctx, *bin, api, owner+"/"+name, *branch, token)
		}()
	}
	wg.Wait()

	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "STAGE\tTAG\tCOMMIT\tATTEMPTS")
	var errs []error
	for _, s := range stages {
		if s.err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", s.Stage, s.err))
			fmt.Fprintf(tw, "%s\t%s\t-\tfailed: %v\n", s.Stage, s.Tag, s.err)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%.12s\t%d\n", s.Stage, s.Tag, s.res.Commit, s.res.Attempts)
	}
	tw.Flush()
	if fake != nil {
		w := fake.LimitStats(fakeToken).Writes
		fmt.Fprintf(stdout, "\n%d stages landed with %d write requests: %.1f per landed change\n", len(stages)-len(errs), w, float64(w)/float64(max(1, len(stages)-len(errs))))
		for _, p := range []string{valuesPath, kustomizationPath} {
			data, _, err := fake.ReadFile(owner, name, *branch, p)
			if err != nil {
				return fake, err
			}
			fmt.Fprintf(stdout, "\n%s:\n%s", p, data)
		}
	}
	return fake, errors.Join(errs...)
}

// write lays out the stage's rendered directory and its manifest.
func (s *stage) write(tmpl *template.Template) error {
	rendered := filepath.Join(s.dir, "rendered")
	if err := os.MkdirAll(rendered, 0o755); err != nil {
		return err
	}
	files := map[string]string{
		"deployment.yaml": fmt.Sprintf("kind: Deployment\nmetadata:\n  name: api\n  namespace: %s\nspec:\n  template:\n    spec:\n      containers:\n        - name: api\n          image: ghcr.io/acme/api:%s\n", s.Stage, s.Tag),
		"service.yaml":    fmt.Sprintf("kind: Service\nmetadata:\n  name: api\n  namespace: %s\n", s.Stage),
	}
	for p, content := range files {
		if err := os.WriteFile(filepath.Join(rendered, p), []byte(content), 0o644); err != nil {
			return err
		}
	}
	var b bytes.Buffer
	if err := tmpl.Execute(&b, s); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(s.dir, "manifest.yaml"), b.Bytes(), 0o644)
}

// promote runs one `ghcommitter commit --manifest` process for the stage.
func (s *stage) promote(ctx context.Context, bin, api, repo, branch, token string) error {
	cmd := exec.CommandContext(ctx, bin, "commit", "--api-url", api, "-R", repo, "-b", branch,
		"--max-attempts", "100", "--json", "--manifest", filepath.Join(s.dir, "manifest.yaml"))
	// The token goes in the environment, never on the command line.
	cmd.Env = append(os.Environ(), "GH_TOKEN="+token, "GITHUB_TOKEN=", "GITHUB_OUTPUT=", "GITHUB_STEP_SUMMARY=")
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%v: %s", err, strings.TrimSpace(stderr.String()))
	}
	return json.Unmarshal(out.Bytes(), &s.res)
}

// buildCLI builds cmd/ghcommitter from this module into dir.
func buildCLI(ctx context.Context, dir string) (string, error) {
	bin := filepath.Join(dir, "ghcommitter")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/ghcommitter/ghcommitter/cmd/ghcommitter")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ghcommitter: %v\n%s", err, out)
	}
	return bin, nil
}
