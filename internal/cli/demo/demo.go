// Package demo is the demo command: concurrent promotions into one branch
// of an embedded fake GitHub.
package demo

import (
	"bytes"
	"context"
	"fmt"
	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/ghclient"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"
)

const (
	demoOwner = "acme"
	demoRepo  = "monorepo"
	demoToken = "demo-token"
	demoIndex = "deploy/promotions.yaml"
)

// NewCmd is the demo command.
func NewCmd(e *cmdutil.Env) *cobra.Command {
	var writers int
	var latency time.Duration
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Race concurrent promotions into one branch of an embedded fake GitHub",
		Long: `demo starts a fake GitHub in-process (no token or network needed), creates
the monorepo acme/monorepo, and runs concurrent "promotions" into main: each
writer updates its own stage's values.yaml and records itself in one shared
file, deploy/promotions.yaml, through an edit function. Writers that lose the
race for the branch rebuild their commit on the new head and retry.

It prints who landed after how many attempts, then checks the result: every
promotion landed, the shared file holds every writer's edit, and the branch
only moved by fast-forward. It exits 0 only if all of that holds.`,
		Example: `  go run ./cmd/ghcommitter demo
  ghcommitter demo --writers 16 --latency 10ms`,
		Args: cobra.NoArgs,
		RunE: cmdutil.RunE(func(cmd *cobra.Command, _ []string) error {
			if writers < 1 || writers > 64 {
				return cmdutil.UsageErrorf("", "--writers must be between 1 and 64, got %d", writers)
			}
			if latency < 0 {
				return cmdutil.UsageErrorf("", "--latency must not be negative")
			}
			return runDemo(cmd.Context(), e, writers, latency)
		}),
	}
	cmd.Flags().IntVar(&writers, "writers", 8, "number of concurrent promotions (`N`)")
	cmd.Flags().DurationVar(&latency, "latency", 5*time.Millisecond, "latency the fake adds to every request (`DURATION`), so that races happen")
	return cmd
}

type demoOutcome struct {
	stage int
	res   *committer.Result
	err   error
}

func runDemo(ctx context.Context, e *cmdutil.Env, writers int, latency time.Duration) error {
	fake := githubtest.New(githubtest.WithToken(demoToken), githubtest.WithLatency(latency))
	hs := httptest.NewServer(fake)
	defer hs.Close()
	api := hs.URL + "/"

	seed := []githubtest.File{{Path: "README.md", Content: []byte("# acme monorepo\n")}, {Path: demoIndex, Content: []byte("promotions: {}\n")}}
	for i := 1; i <= writers; i++ {
		seed = append(seed, githubtest.File{Path: stageFile(i), Content: stageValues(i, "v1.0.0")})
	}
	if _, err := fake.Seed(demoOwner, demoRepo, "main", "Initial commit", seed...); err != nil {
		return fmt.Errorf("seed the fake: %w", err)
	}
	fmt.Fprintf(e.Stdout, "ghcommitter demo: %d concurrent promotions into %s/%s@main\n", writers, demoOwner, demoRepo)
	fmt.Fprintf(e.Stdout, "(embedded fake GitHub at %s, %v latency per request)\n\n", api, latency)

	start := make(chan struct{})
	out := make([]demoOutcome, writers)
	var wg sync.WaitGroup
	for i := 1; i <= writers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			res, err := promote(ctx, api, i)
			out[i-1] = demoOutcome{stage: i, res: res, err: err}
		}()
	}
	began := time.Now()
	close(start)
	wg.Wait()
	took := time.Since(began)

	tw := tabwriter.NewWriter(e.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "WRITER\tATTEMPTS\tCOMMIT\tCHANGED")
	landed, retries := 0, 0
	var failures []string
	for _, o := range out {
		if o.err != nil {
			fmt.Fprintf(tw, "stage-%d\t-\tFAILED\t%v\n", o.stage, o.err)
			failures = append(failures, fmt.Sprintf("stage-%d: %v", o.stage, o.err))
			continue
		}
		landed++
		retries += o.res.Attempts - 1
		fmt.Fprintf(tw, "stage-%d\t%d\t%s\t%s\n", o.stage, o.res.Attempts, cmdutil.Short(o.res.Commit), strings.Join(o.res.Changed, ", "))
	}
	tw.Flush()
	fmt.Fprintf(e.Stdout, "\n%d/%d promotions landed in %.2fs; %d lost races were rebuilt on the new head and retried\n",
		landed, writers, took.Seconds(), retries)

	problems := verifyDemo(fake, out)
	problems = append(failures, problems...)

	index, _, err := fake.ReadFile(demoOwner, demoRepo, "main", demoIndex)
	if err != nil {
		return fmt.Errorf("read back %s: %w", demoIndex, err)
	}
	fmt.Fprintf(e.Stdout, "\n%s on main:\n%s", demoIndex, indent(string(index)))
	files, err := fake.Files(demoOwner, demoRepo, "main")
	if err != nil {
		return fmt.Errorf("read back the tree: %w", err)
	}
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	fmt.Fprintf(e.Stdout, "\nfinal tree of main:\n")
	for _, p := range paths {
		mode := files[p].Mode
		if mode == "" {
			mode = string(committer.ModeFile)
		}
		fmt.Fprintf(e.Stdout, "  %s  %s\n", mode, p)
	}
	if len(problems) > 0 {
		return fmt.Errorf("demo failed: %s", strings.Join(problems, "; "))
	}
	fmt.Fprintf(e.Stdout, "\nOK: every promotion landed once, %s holds every writer's edit, and main only moved by fast-forward.\n", demoIndex)
	return nil
}

// promote is one independent writer, as a separate CI job would be: its own
// client, its own committer.
func promote(ctx context.Context, api string, stage int) (*committer.Result, error) {
	// Separate jobs would not share a write pacer; in one process they do.
	client, err := ghclient.NewHTTPClient(ctx, ghclient.WithBaseURL(api), ghclient.WithToken(demoToken),
		ghclient.WithRateLimits(ghclient.RateLimits{Pacing: &ghclient.Pacing{}}))
	if err != nil {
		return nil, err
	}
	c, err := committer.New(demoOwner, demoRepo, committer.WithHTTPClient(client),
		committer.WithRetries(4*64, committer.ExponentialBackoff(5*time.Millisecond, 200*time.Millisecond)))
	if err != nil {
		return nil, err
	}
	tag := fmt.Sprintf("v2.0.%d", stage)
	cs := committer.NewChangeSet(fmt.Sprintf("Promote stage-%d to %s", stage, tag))
	cs.Put(stageFile(stage), stageValues(stage, tag))
	cs.Edit(demoIndex, func(old []byte, _ bool) ([]byte, error) {
		var idx struct {
			Promotions map[string]string `yaml:"promotions"`
		}
		if err := yaml.Unmarshal(old, &idx); err != nil {
			return nil, fmt.Errorf("parse %s: %w", demoIndex, err)
		}
		if idx.Promotions == nil {
			idx.Promotions = map[string]string{}
		}
		idx.Promotions[fmt.Sprintf("stage-%d", stage)] = tag
		var buf bytes.Buffer
		enc := yaml.NewEncoder(&buf)
		enc.SetIndent(2)
		if err := enc.Encode(&idx); err != nil {
			return nil, err
		}
		return buf.Bytes(), enc.Close()
	})
	return c.Commit(ctx, "main", cs)
}

// verifyDemo checks the branch through the fake: the index holds every
// landed writer's edit, each commit is on main's first-parent chain exactly
// once, and main never moved other than by fast-forward.
func verifyDemo(fake *githubtest.Server, out []demoOutcome) []string {
	var problems []string
	index, _, err := fake.ReadFile(demoOwner, demoRepo, "main", demoIndex)
	if err != nil {
		return []string{err.Error()}
	}
	var idx struct {
		Promotions map[string]string `yaml:"promotions"`
	}
	if err := yaml.Unmarshal(index, &idx); err != nil {
		return []string{fmt.Sprintf("parse %s: %v", demoIndex, err)}
	}
	hist, err := fake.History(demoOwner, demoRepo, "main")
	if err != nil {
		return []string{err.Error()}
	}
	onMain := map[string]int{}
	for _, c := range hist {
		onMain[c.SHA]++
		if len(c.Parents) > 1 {
			problems = append(problems, fmt.Sprintf("merge commit %s on main", cmdutil.Short(c.SHA)))
		}
	}
	for _, o := range out {
		if o.err != nil {
			continue
		}
		key, tag := fmt.Sprintf("stage-%d", o.stage), fmt.Sprintf("v2.0.%d", o.stage)
		if idx.Promotions[key] != tag {
			problems = append(problems, fmt.Sprintf("%s lost %s's edit (has %q)", demoIndex, key, idx.Promotions[key]))
		}
		if onMain[o.res.Commit] != 1 {
			problems = append(problems, fmt.Sprintf("%s's commit %s is not on main", key, cmdutil.Short(o.res.Commit)))
		}
		got, _, err := fake.ReadFile(demoOwner, demoRepo, "main", stageFile(o.stage))
		if err != nil || string(got) != string(stageValues(o.stage, tag)) {
			problems = append(problems, fmt.Sprintf("%s is not at %s", stageFile(o.stage), tag))
		}
	}
	for _, u := range fake.RefUpdates(demoOwner, demoRepo) {
		if u.Forced || (u.Old != "" && !u.FastForward) {
			problems = append(problems, fmt.Sprintf("%s moved %s→%s without a fast-forward", u.Ref, cmdutil.Short(u.Old), cmdutil.Short(u.New)))
		}
	}
	if len(hist) != len(out)+1 {
		problems = append(problems, fmt.Sprintf("main has %d commits, want %d", len(hist), len(out)+1))
	}
	if len(problems) == 0 {
		return nil
	}
	return problems
}

func stageFile(i int) string { return fmt.Sprintf("deploy/stage-%d/values.yaml", i) }

func stageValues(i int, tag string) []byte {
	return []byte(fmt.Sprintf("stage: %d\nimage: registry.acme.dev/app:%s\nreplicas: 2\n", i, tag))
}

func indent(s string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(s, "\n") {
		if line != "" {
			b.WriteString("  " + line)
		}
	}
	return b.String()
}
