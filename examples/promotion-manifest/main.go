// Command promotion-manifest promotes an image to N stages at once, each
// stage a separate `ghcommitter commit --manifest` process writing to the
// same branch: its rendered manifests (a sync), its image in one shared
// kustomization.yaml (set-image) and its tag in one shared values file
// (set), with no clone and no shell edit. It checks that every stage landed
// exactly once with the shared files' comments intact, and counts the write
// requests per landed change. The manifest each stage runs, the seed and
// the check are internal/promotion's (manifest.yaml there), which
// cmd/ghcommitter-bench also runs under GitHub's limits.
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

	"github.com/ghcommitter/ghcommitter/committer/githubtest"
	"github.com/ghcommitter/ghcommitter/examples/internal/target"
	"github.com/ghcommitter/ghcommitter/internal/promotion"
)

const fakeToken = "example-token"

func main() { target.Main("promotion-manifest", run) }

// stage is one stage's promotion and its outcome.
type stage struct {
	promotion.Stage
	manifest string
	res      struct {
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
		if _, err := fake.Seed(owner, name, *branch, "Seed the shared files", promotion.Seed()...); err != nil {
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

	stages := make([]*stage, *n)
	for i, ps := range promotion.Stages(*n) {
		s := &stage{Stage: ps}
		if s.manifest, err = ps.Write(filepath.Join(work, ps.Name)); err != nil {
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
			errs = append(errs, fmt.Errorf("%s: %w", s.Name, s.err))
			fmt.Fprintf(tw, "%s\t%s\t-\tfailed: %v\n", s.Name, s.Tag, s.err)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%.12s\t%d\n", s.Name, s.Tag, s.res.Commit, s.res.Attempts)
	}
	tw.Flush()
	if fake != nil {
		w := fake.LimitStats(fakeToken).Writes
		fmt.Fprintf(stdout, "\n%d stages landed with %d write requests: %.1f per landed change\n", len(stages)-len(errs), w, float64(w)/float64(max(1, len(stages)-len(errs))))
		if err := verify(fake, owner, name, *branch, stages); err != nil {
			errs = append(errs, err)
		}
		for _, p := range []string{promotion.ValuesPath, promotion.KustomizationPath} {
			data, _, err := fake.ReadFile(owner, name, *branch, p)
			if err != nil {
				return fake, err
			}
			fmt.Fprintf(stdout, "\n%s:\n%s", p, data)
		}
	}
	return fake, errors.Join(errs...)
}

// verify checks on the fake that every stage that landed is there whole,
// exactly once, and that the shared files kept their comments.
func verify(fake *githubtest.Server, owner, name, branch string, stages []*stage) error {
	b, err := promotion.Read(fake, owner, name, branch)
	if err != nil {
		return err
	}
	ps, landed := make([]promotion.Stage, len(stages)), make([]bool, len(stages))
	for i, s := range stages {
		ps[i], landed[i] = s.Stage, s.err == nil
	}
	if _, err := promotion.Verify(b, ps, landed); err != nil {
		return fmt.Errorf("the branch after the run: %w", err)
	}
	return nil
}

// promote runs one `ghcommitter commit --manifest` process for the stage.
func (s *stage) promote(ctx context.Context, bin, api, repo, branch, token string) error {
	cmd := exec.CommandContext(ctx, bin, "commit", "--api-url", api, "-R", repo, "-b", branch, //nolint:gosec // G204: bin is the CLI buildCLI just built
		"--max-attempts", "100", "--json", "--manifest", s.manifest)
	// The token goes in the environment, never on the command line.
	cmd.Env = append(os.Environ(), "GH_TOKEN="+token, "GITHUB_TOKEN=", "GITHUB_OUTPUT=", "GITHUB_STEP_SUMMARY=")
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return json.Unmarshal(out.Bytes(), &s.res)
}

// buildCLI builds cmd/ghcommitter from this module into dir.
func buildCLI(ctx context.Context, dir string) (string, error) {
	bin := filepath.Join(dir, "ghcommitter")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/ghcommitter/ghcommitter/cmd/ghcommitter") //nolint:gosec // G204: bin is a path in the example's own temporary directory
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ghcommitter: %w\n%s", err, out)
	}
	return bin, nil
}
