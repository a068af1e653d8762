package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/githubtest"
	commitcmd "github.com/ghcommitter/ghcommitter/internal/cli/commit"
)

// TestSeparateMachinesMergeNowRebuild and
// TestSeparateMachinesAutoMergeRebuild (issue #46's goals): promotions
// run at once as separate CLI processes (their own HOME and cache), each
// with its own file and one shared YAML edit that adds its own line to
// promotions.yaml, into a main that takes changes through pull requests
// only. Every pull request conflicts with main as soon as another merged
// (the fake merges by path): the later ones are rebuilt on main's new
// head while they wait. All must merge, with every line on main exactly
// once; the test logs the rebuilds and the writes per merged change.
func TestSeparateMachinesMergeNowRebuild(t *testing.T) {
	srv := rebuildFake(t, githubtest.RequirePullRequest())
	runRebuildMachines(t, srv, 8, "--merge-now")
}

// TestSeparateMachinesAutoMergeRebuild: 16 promotions with --auto-merge
// --wait, main requiring the check ci (reported on each new head two
// minutes after it is pushed, on the fake's clock: a minute every 300 ms).
func TestSeparateMachinesAutoMergeRebuild(t *testing.T) {
	srv := rebuildFake(t, githubtest.RequirePullRequest(), githubtest.RequireStatusChecks("ci"))
	if err := srv.AddAutoCheck("acme", "mono", "ci", "**", githubtest.CheckSuccess, 2*time.Minute); err != nil {
		t.Fatal(err)
	}
	runRebuildMachines(t, srv, 16, "--auto-merge")
}

// rebuildFake is machinesFake with main holding promotions.yaml.
func rebuildFake(t *testing.T, rules ...githubtest.Rule) *githubtest.TestServer {
	t.Helper()
	if testing.Short() {
		t.Skip("CLI processes: not with -short")
	}
	srv := fake(t, githubtest.File{Path: "promotions.yaml", Content: []byte("stages:\n  seed: v0\n")})
	m := githubtest.DefaultMergeSettings()
	m.AllowAutoMerge = true
	if err := srv.SetMergeSettings("acme", "mono", m); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.AddRuleset("acme", "mono", githubtest.Ruleset{Include: []string{"main"}, Rules: rules}); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(300 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				srv.Pass(time.Minute)
			}
		}
	}()
	t.Cleanup(func() { close(done); wg.Wait() })
	return srv
}

// machine is one promotion's process.
type machine struct {
	out, err strings.Builder
	code     int
}

// runMachine runs the CLI with args as a separate machine whose HOME is
// home, and returns what it printed and its exit status.
func runMachine(ctx context.Context, bin, home string, args []string, p *machine) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), "GH_TOKEN="+testToken, "GITHUB_TOKEN=", "GITHUB_OUTPUT=", "GITHUB_STEP_SUMMARY=", "GITHUB_ACTIONS=",
		"HOME="+home, "XDG_CACHE_HOME="+filepath.Join(home, ".cache"), "XDG_STATE_HOME="+filepath.Join(home, ".state"), commitcmd.LimitScaleEnv+"=100")
	cmd.Stdout, cmd.Stderr = &p.out, &p.err
	if err := cmd.Run(); err != nil {
		p.code = -1
		var xe *exec.ExitError
		if errors.As(err, &xe) {
			p.code = xe.ExitCode()
		}
	}
}

// promoArgs are stage i's promotion: its own file and its line of
// promotions.yaml, through the pull request promo/s<i>.
func promoArgs(t *testing.T, srv *githubtest.TestServer, home string, i int, extra ...string) []string {
	local := filepath.Join(home, "stage.txt")
	writeFile(t, local, fmt.Sprintf("stage %d\n", i), 0o644)
	args := commitArgs(srv, "-m", fmt.Sprintf("promote s%d", i), "--add", fmt.Sprintf("stages/s%d.txt=%s", i, local),
		"--set", fmt.Sprintf("promotions.yaml:stages.s%d=v%d", i, i), "--pull-request", "-b", fmt.Sprintf("promo/s%d", i))
	return append(args, extra...)
}

func runRebuildMachines(t *testing.T, srv *githubtest.TestServer, n int, mode string) {
	bin := buildCLI(t)
	work := t.TempDir()
	srv.ResetRequests()
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	procs := make([]*machine, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range procs {
		p := &machine{}
		procs[i] = p
		home := filepath.Join(work, fmt.Sprintf("machine%d", i))
		args := promoArgs(t, srv, home, i, mode, "--wait", "--wait-timeout", "6m", "--json")
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			runMachine(ctx, bin, home, args, p)
		}()
	}
	close(start)
	wg.Wait()
	merged, rebuilds := 0, 0
	for i, p := range procs {
		var out mergeJSON
		if err := json.Unmarshal([]byte(p.out.String()), &out); err != nil || p.code != 0 || out.PullRequest == nil || out.PullRequest.Merge == nil {
			t.Errorf("promotion %d: exit %d, %v\nstdout: %s\nstderr: %s", i, p.code, err, p.out.String(), p.err.String())
			continue
		}
		if m := out.PullRequest.Merge; m.Merged {
			merged++
			rebuilds += m.Rebuilds
		} else {
			t.Errorf("promotion %d: merge %+v, want merged", i, m)
		}
		if got, _ := readFile(t, srv, "main", fmt.Sprintf("stages/s%d.txt", i)); got != fmt.Sprintf("stage %d\n", i) {
			t.Errorf("main's stages/s%d.txt = %q", i, got)
		}
	}
	yaml, _ := readFile(t, srv, "main", "promotions.yaml")
	for i := range n {
		if c := strings.Count(yaml, fmt.Sprintf("  s%d: v%d\n", i, i)); c != 1 {
			t.Errorf("main's promotions.yaml holds stage s%d's line %d times:\n%s", i, c, yaml)
		}
	}
	w := writes(srv)
	t.Logf("%s --wait, %d separate machines, each its own file and one shared YAML edit: %d/%d merged, %d rebuilds (%.2f per merged change); %d writes, %.2f per merged change; %d requests",
		mode, n, merged, n, rebuilds, float64(rebuilds)/float64(max(merged, 1)), w, float64(w)/float64(max(merged, 1)), len(srv.Requests()))
	if merged != n {
		t.Fatalf("%d/%d merged", merged, n)
	}
	if rebuilds == 0 {
		t.Errorf("no pull request was rebuilt: the promotions did not conflict as they should")
	}
}

// TestRebuildRefusedOtherWriter: a pull request whose head branch another
// writer pushed to is reported (exit 4, kind pull_request_stale) when it
// goes stale, not rebuilt: the other writer's commit stays.
func TestRebuildRefusedOtherWriter(t *testing.T) {
	srv := rebuildFake(t, githubtest.RequirePullRequest())
	bin := buildCLI(t)
	ctx := context.Background()
	home := t.TempDir()
	var p machine
	runMachine(ctx, bin, home, promoArgs(t, srv, home, 1), &p)
	if p.code != 0 {
		t.Fatalf("opening s1's pull request: exit %d\n%s", p.code, p.err.String())
	}
	theirs, err := srv.Seed("acme", "mono", "promo/s1", "a fix by hand", githubtest.File{Path: "notes.txt", Content: []byte("mine\n")})
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(t.TempDir(), "other")
	var q machine
	runMachine(ctx, bin, other, promoArgs(t, srv, other, 2, "--merge-now"), &q)
	if q.code != 0 {
		t.Fatalf("merging s2: exit %d\n%s", q.code, q.err.String())
	}
	var r machine
	runMachine(ctx, bin, home, promoArgs(t, srv, home, 1, "--merge-now", "--wait", "--json"), &r)
	var out mergeJSON
	_ = json.Unmarshal([]byte(r.out.String()), &out)
	if r.code != 4 || out.Error == nil || out.Error.Kind != "pull_request_stale" {
		t.Fatalf("exit %d, %+v; want exit 4, kind pull_request_stale\nstdout: %s\nstderr: %s", r.code, out.Error, r.out.String(), r.err.String())
	}
	if !strings.Contains(out.Error.Message, theirs[:7]) {
		t.Errorf("message %q does not name the other writer's commit %s", out.Error.Message, theirs[:7])
	}
	if got := head(t, srv, "promo/s1"); got != theirs {
		t.Errorf("promo/s1 moved to %s; want it left at the other writer's commit %s", got, theirs)
	}
	if got, _ := readFile(t, srv, "promo/s1", "notes.txt"); got != "mine\n" {
		t.Errorf("the other writer's notes.txt = %q", got)
	}
}
