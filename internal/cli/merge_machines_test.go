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

// machinePromotions is the number of separate-machine promotions of the
// merge tests (issue #45's goal).
const machinePromotions = 16

// TestSeparateMachinesAutoMergeWait and TestSeparateMachinesMergeQueueWait
// run 16 "ghcommitter commit --pull-request ... --wait" processes at once,
// each with its own HOME and cache (as on separate machines: no turns, no
// rate-limit state shared), each promoting its own file into main, which
// takes changes through pull requests only and requires the check ci. ci
// reports on each new head ten minutes after it is pushed, on the fake's
// clock, which a ticker moves a minute every 300 ms: the pull requests
// wait for it (one whose ci passed before auto-merge was asked for is
// merged at once, merged_via merge-now). All 16 must be merged (exit 0,
// merged in --json, the file on main); the test logs the writes per
// merged change.
func TestSeparateMachinesAutoMergeWait(t *testing.T) {
	srv := machinesFake(t, githubtest.RequirePullRequest(), githubtest.RequireStatusChecks("ci"))
	runMachines(t, srv, "--auto-merge", "auto-merge")
}

func TestSeparateMachinesMergeQueueWait(t *testing.T) {
	mq := githubtest.RequireMergeQueue()
	mq.Parameters["min_entries_to_merge_wait_minutes"] = 0
	srv := machinesFake(t, githubtest.RequirePullRequest(), mq, githubtest.RequireStatusChecks("ci"))
	runMachines(t, srv, "--merge-queue", "merge-queue")
}

// machinesFake is fake with auto-merge allowed, rules on main, and ci on
// every branch's new heads (the pull requests' and the merge queue's).
func machinesFake(t *testing.T, rules ...githubtest.Rule) *githubtest.TestServer {
	t.Helper()
	if testing.Short() {
		t.Skip("16 CLI processes: not with -short")
	}
	srv := fake(t)
	m := githubtest.DefaultMergeSettings()
	m.AllowAutoMerge = true
	if err := srv.SetMergeSettings("acme", "mono", m); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.AddRuleset("acme", "mono", githubtest.Ruleset{Include: []string{"main"}, Rules: rules}); err != nil {
		t.Fatal(err)
	}
	if err := srv.AddAutoCheck("acme", "mono", "ci", "**", githubtest.CheckSuccess, 10*time.Minute); err != nil {
		t.Fatal(err)
	}
	// CI's clock: a minute every 300 ms, until the test ends.
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

// runMachines runs the promotions with mode and checks that every one
// merged, via how.
func runMachines(t *testing.T, srv *githubtest.TestServer, mode, how string) {
	bin := buildCLI(t)
	work := t.TempDir()
	srv.ResetRequests()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	type proc struct {
		out, err strings.Builder
		code     int
	}
	procs := make([]*proc, machinePromotions)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range procs {
		p := &proc{}
		procs[i] = p
		home := filepath.Join(work, fmt.Sprintf("machine%d", i))
		local := filepath.Join(home, "image.txt")
		writeFile(t, local, fmt.Sprintf("image %d\n", i), 0o644)
		args := commitArgs(srv, "-m", fmt.Sprintf("promote app%d", i), "--add", fmt.Sprintf("apps/app%d/image.txt=%s", i, local),
			"--pull-request", "-b", fmt.Sprintf("promote/app%d", i), mode, "--wait", "--wait-timeout", "3m", "--json")
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.CommandContext(ctx, bin, args...)
			cmd.Env = append(os.Environ(), "GH_TOKEN="+testToken, "GITHUB_TOKEN=", "GITHUB_OUTPUT=", "GITHUB_STEP_SUMMARY=", "GITHUB_ACTIONS=",
				"HOME="+home, "XDG_CACHE_HOME="+filepath.Join(home, ".cache"), "XDG_STATE_HOME="+filepath.Join(home, ".state"), commitcmd.LimitScaleEnv+"=100")
			cmd.Stdout, cmd.Stderr = &p.out, &p.err
			<-start
			if err := cmd.Run(); err != nil {
				p.code = -1
				var xe *exec.ExitError
				if errors.As(err, &xe) {
					p.code = xe.ExitCode()
				}
			}
		}()
	}
	close(start)
	wg.Wait()
	merged, vias := 0, map[string]int{}
	for i, p := range procs {
		var out mergeJSON
		if err := json.Unmarshal([]byte(p.out.String()), &out); err != nil || p.code != 0 || out.PullRequest == nil || out.PullRequest.Merge == nil {
			t.Errorf("promotion %d: exit %d, %v\nstdout: %s\nstderr: %s", i, p.code, err, p.out.String(), p.err.String())
			continue
		}
		if m := out.PullRequest.Merge; m.Merged && (m.MergedVia == how || how == "auto-merge" && m.MergedVia == "merge-now") {
			merged++
			vias[m.MergedVia]++
		} else {
			t.Errorf("promotion %d: merge %+v, want merged via %s", i, m, how)
		}
		if got, _ := readFile(t, srv, "main", fmt.Sprintf("apps/app%d/image.txt", i)); got != fmt.Sprintf("image %d\n", i) {
			t.Errorf("main's apps/app%d/image.txt = %q", i, got)
		}
	}
	w, polls, unchanged, graphql := writes(srv), 0, 0, 0
	for _, r := range srv.Requests() {
		switch {
		case r.Method == "GET" && r.Route == "GET /repos/{owner}/{repo}/pulls/{number}":
			polls++
			if r.Status == 304 {
				unchanged++
			}
		case r.Route == "POST /graphql" && !r.Write:
			graphql++
		}
	}
	t.Logf("%s --wait, %d separate machines: %d/%d merged (%v); %d writes, %.2f per merged change; %d requests, of them %d GET pulls/{n} (%d answered 304) and %d GraphQL reads",
		mode, machinePromotions, merged, machinePromotions, vias, w, float64(w)/float64(max(merged, 1)), len(srv.Requests()), polls, unchanged, graphql)
	if unchanged == 0 {
		t.Errorf("no wait read was conditional (304)")
	}
	if merged != machinePromotions {
		t.Fatalf("%d/%d merged", merged, machinePromotions)
	}
}
