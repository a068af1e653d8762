package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/ghcommitter/ghcommitter/committer"
	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

// separateProcesses promotes every stage to v2.0.N with a `ghcommitter
// commit` process of this same binary per stage, as separate CI jobs
// would: each has its own HOME and cache directory (no turns, no shared
// rate-limit state: as on a machine of its own), and an environment of
// its own making, which holds no credential (the fake's token is read
// from a file).
func separateProcesses(ctx context.Context, fake *githubtest.Server, api string, writers int) (round, error) {
	self, err := os.Executable()
	if err != nil {
		return round{}, fmt.Errorf("find this binary to run its commit command: %w", err)
	}
	work, err := os.MkdirTemp("", "ghcommitter-demo-")
	if err != nil {
		return round{}, err
	}
	defer os.RemoveAll(work)
	tokenFile := filepath.Join(work, "token")
	if err := os.WriteFile(tokenFile, []byte(demoToken), 0o600); err != nil {
		return round{}, err
	}
	cmds := make([]*exec.Cmd, writers)
	outs := make([]*bytes.Buffer, writers)
	for i := 1; i <= writers; i++ {
		cmd, out, err := commitProcess(ctx, self, work, tokenFile, api, i)
		if err != nil {
			return round{}, err
		}
		cmds[i-1], outs[i-1] = cmd, out
	}
	fake.ResetRequests()
	r := round{out: make([]demoOutcome, writers)}
	began := time.Now()
	var wg sync.WaitGroup
	for i, cmd := range cmds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := outcome(cmd.Run(), outs[i].Bytes())
			r.out[i] = demoOutcome{stage: i + 1, res: res, err: err}
		}()
	}
	wg.Wait()
	r.took, r.writes = time.Since(began), fake.CountWrites()
	return r, nil
}

// commitProcess is stage i's `ghcommitter commit`: its values file put
// from a local copy, and its tag set in the shared index on every attempt.
func commitProcess(ctx context.Context, self, work, tokenFile, api string, i int) (*exec.Cmd, *bytes.Buffer, error) {
	home := filepath.Join(work, "machine-"+strconv.Itoa(i))
	local := filepath.Join(home, "values.yaml")
	if err := os.MkdirAll(filepath.Join(home, ".cache"), 0o700); err != nil {
		return nil, nil, err
	}
	tag := fmt.Sprintf("v2.0.%d", i)
	if err := os.WriteFile(local, stageValues(i, tag), 0o600); err != nil {
		return nil, nil, err
	}
	// self is this binary (os.Executable), its arguments the demo's own.
	cmd := exec.CommandContext(ctx, self, "commit", //nolint:gosec // G204: see above
		"-R", demoOwner+"/"+demoRepo, "--branch", "main",
		"--api-url", api, "--token-file", tokenFile, "--json", "--max-attempts", "30",
		"-m", fmt.Sprintf("Promote stage-%d to %s", i, tag),
		"--add", stageFile(i)+"="+local,
		"--set-string", fmt.Sprintf("%s:promotions.stage-%d=%s", demoIndex, i, tag))
	cmd.Dir = home
	// GitHub's rate limits, which the fake does not enforce, are paced 60
	// times faster than github.com's, so that the demo takes seconds.
	cmd.Env = []string{"HOME=" + home, "XDG_CACHE_HOME=" + filepath.Join(home, ".cache"), "PATH=" + os.Getenv("PATH"), "GHCOMMITTER_LIMIT_SCALE=60"}
	out := &bytes.Buffer{}
	cmd.Stdout, cmd.Stderr = out, io.Discard
	return cmd, out, nil
}

// outcome reads a commit process's --json result.
func outcome(runErr error, out []byte) (*committer.Result, error) {
	var res struct {
		committer.Result
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(bytes.TrimSpace(out), &res); err != nil {
		if runErr == nil {
			runErr = errors.New("no result")
		}
		return nil, fmt.Errorf("%w: %s", runErr, bytes.TrimSpace(out))
	}
	if res.Error != nil {
		return nil, errors.New(res.Error.Message)
	}
	if runErr != nil {
		return nil, runErr
	}
	return &res.Result, nil
}
