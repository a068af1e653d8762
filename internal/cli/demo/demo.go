// Package demo is the demo command: concurrent promotions into one branch
// of an embedded fake GitHub.
package demo

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/edits"
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

// round is one way of making the promotions: its outcomes, and what it
// cost.
type round struct {
	out    []demoOutcome
	took   time.Duration
	writes int
}

func (r round) landed() (landed, lost int) {
	for _, o := range r.out {
		if o.err == nil {
			landed++
			lost += o.res.Attempts - 1
		}
	}
	return landed, lost
}

func runDemo(ctx context.Context, e *cmdutil.Env, writers int, latency time.Duration) error {
	fake := githubtest.New(githubtest.WithToken(demoToken), githubtest.WithLatency(latency))
	hs := httptest.NewServer(fake)
	defer hs.Close()
	api := hs.URL + "/"
	if err := seedDemo(fake, writers); err != nil {
		return err
	}
	fmt.Fprintf(e.Stdout, "ghcommitter demo: %d promotions into %s/%s@main, twice\n", writers, demoOwner, demoRepo)
	fmt.Fprintf(e.Stdout, "(embedded fake GitHub at %s, %v latency per request)\n\n", api, latency)
	fmt.Fprintf(e.Stdout, "1. %d separate `ghcommitter commit` processes that share nothing but GitHub,\n   as on separate machines or CI jobs: they race for the branch\n", writers)
	apart, err := separateProcesses(ctx, fake, api, writers)
	if err != nil {
		return err
	}
	between, _ := fake.Head(demoOwner, demoRepo, "main")
	fmt.Fprintf(e.Stdout, "2. %d writers of one process: its coordinator batches them\n\n", writers)
	fake.ResetRequests()
	together := inOneProcess(ctx, fake, api, writers)
	printRounds(e, writers, apart, together)
	last, _ := fake.Head(demoOwner, demoRepo, "main")
	problems := verifyDemo(fake, apart, between, "v2.0.")
	problems = append(problems, verifyDemo(fake, together, last, "v3.0.")...)
	problems = append(problems, verifyHistory(fake, 2*writers+1, apart, together)...)
	index, _, err := fake.ReadFile(demoOwner, demoRepo, "main", demoIndex)
	if err != nil {
		return fmt.Errorf("read back %s: %w", demoIndex, err)
	}
	fmt.Fprintf(e.Stdout, "\n%s on main:\n%s", demoIndex, indent(string(index)))
	if len(problems) > 0 {
		return fmt.Errorf("demo failed: %s", strings.Join(problems, "; "))
	}
	fmt.Fprintf(e.Stdout, "\nOK: every promotion landed exactly once, each round's edits are all in %s,\nand main only moved by fast-forward.\n", demoIndex)
	return nil
}

// seedDemo creates the monorepo: each stage's values file, and the shared
// index naming each stage's tag.
func seedDemo(fake *githubtest.Server, writers int) error {
	index := "promotions:\n"
	seed := []githubtest.File{{Path: "README.md", Content: []byte("# acme monorepo\n")}}
	for i := 1; i <= writers; i++ {
		seed = append(seed, githubtest.File{Path: stageFile(i), Content: stageValues(i, "v1.0.0")})
		index += fmt.Sprintf("  stage-%d: v1.0.0\n", i)
	}
	seed = append(seed, githubtest.File{Path: demoIndex, Content: []byte(index)})
	if _, err := fake.Seed(demoOwner, demoRepo, "main", "Initial commit", seed...); err != nil {
		return fmt.Errorf("seed the fake: %w", err)
	}
	return nil
}

// inOneProcess promotes every stage to v3.0.N from goroutines of this
// process, each with its own client and Committer, as a controller's
// workers would: the process's coordinator batches them.
func inOneProcess(ctx context.Context, fake *githubtest.Server, api string, writers int) round {
	out := make([]demoOutcome, writers)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := 1; i <= writers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			res, err := promote(ctx, api, i, fmt.Sprintf("v3.0.%d", i))
			out[i-1] = demoOutcome{stage: i, res: res, err: err}
		}()
	}
	began := time.Now()
	close(start)
	wg.Wait()
	return round{out: out, took: time.Since(began), writes: fake.CountWrites()}
}

// printRounds prints each writer's attempts in both rounds, side by side,
// and what each round cost.
func printRounds(e *cmdutil.Env, writers int, apart, together round) {
	tw := tabwriter.NewWriter(e.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "WRITER\t1. SEPARATE PROCESSES\t2. ONE PROCESS")
	cell := func(o demoOutcome) string {
		if o.err != nil {
			return "FAILED: " + o.err.Error()
		}
		return fmt.Sprintf("%d attempt%s, %s", o.res.Attempts, plural(o.res.Attempts), cmdutil.Short(o.res.Commit))
	}
	for i := range writers {
		fmt.Fprintf(tw, "stage-%d\t%s\t%s\n", i+1, cell(apart.out[i]), cell(together.out[i]))
	}
	tw.Flush()
	for n, r := range []round{apart, together} {
		landed, lost := r.landed()
		per := 0.0
		if landed > 0 {
			per = float64(r.writes) / float64(landed)
		}
		fmt.Fprintf(e.Stdout, "%d. %d/%d landed in %.2fs; %d lost race%s rebuilt on the new head and retried; %.2f writes per landed change\n",
			n+1, landed, writers, r.took.Seconds(), lost, plural(lost), per)
	}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// promote is one writer of this process, as a controller's worker would
// be: its own client, its own committer.
func promote(ctx context.Context, api string, stage int, tag string) (*committer.Result, error) {
	// Separate jobs would not share a write pacer; in one process they do.
	client, err := ghclient.NewHTTPClient(ctx, ghclient.WithBaseURL(api), ghclient.WithToken(demoToken),
		ghclient.WithRateLimits(ghclient.RateLimits{Pacing: &ghclient.Pacing{}}))
	if err != nil {
		return nil, err
	}
	c, err := committer.New(demoOwner, demoRepo, committer.WithHTTPClient(client))
	if err != nil {
		return nil, err
	}
	cs := committer.NewChangeSet(fmt.Sprintf("Promote stage-%d to %s", stage, tag))
	cs.Put(stageFile(stage), stageValues(stage, tag))
	cs.Edit(demoIndex, edits.Set(edits.YAML, "promotions.stage-"+strconv.Itoa(stage), tag, edits.AsString()))
	return c.Commit(ctx, "main", cs)
}

// verifyDemo checks a round through the fake: every writer landed, with
// its own commit on main holding its values file and its tag in the index,
// and at head (the round's last commit) the index holds every writer's tag.
func verifyDemo(fake *githubtest.Server, r round, head, prefix string) []string {
	var problems []string
	for _, o := range r.out {
		key, tag := fmt.Sprintf("stage-%d", o.stage), prefix+strconv.Itoa(o.stage)
		if o.err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", key, o.err))
			continue
		}
		if got, _, err := fake.ReadFile(demoOwner, demoRepo, o.res.Commit, stageFile(o.stage)); err != nil || string(got) != string(stageValues(o.stage, tag)) {
			problems = append(problems, fmt.Sprintf("%s's commit %s does not hold %s at %s", key, cmdutil.Short(o.res.Commit), stageFile(o.stage), tag))
		}
	}
	index, _, err := fake.ReadFile(demoOwner, demoRepo, head, demoIndex)
	if err != nil {
		return append(problems, err.Error())
	}
	var idx struct {
		Promotions map[string]string `yaml:"promotions"`
	}
	if err := yaml.Unmarshal(index, &idx); err != nil {
		return append(problems, fmt.Sprintf("parse %s: %v", demoIndex, err))
	}
	for _, o := range r.out {
		key, tag := fmt.Sprintf("stage-%d", o.stage), prefix+strconv.Itoa(o.stage)
		if idx.Promotions[key] != tag {
			problems = append(problems, fmt.Sprintf("%s lost %s's edit (has %q)", demoIndex, key, idx.Promotions[key]))
		}
	}
	return problems
}

// verifyHistory checks main: commits, each of the rounds' on its
// first-parent chain exactly once, no merge, and only fast-forward moves.
func verifyHistory(fake *githubtest.Server, commits int, rounds ...round) []string {
	var problems []string
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
	for _, r := range rounds {
		for _, o := range r.out {
			if o.err == nil && onMain[o.res.Commit] != 1 {
				problems = append(problems, fmt.Sprintf("stage-%d's commit %s is not on main once", o.stage, cmdutil.Short(o.res.Commit)))
			}
		}
	}
	for _, u := range fake.RefUpdates(demoOwner, demoRepo) {
		if u.Forced || (u.Old != "" && !u.FastForward) {
			problems = append(problems, fmt.Sprintf("%s moved %s→%s without a fast-forward", u.Ref, cmdutil.Short(u.Old), cmdutil.Short(u.New)))
		}
	}
	if len(hist) != commits {
		problems = append(problems, fmt.Sprintf("main has %d commits, want %d", len(hist), commits))
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
