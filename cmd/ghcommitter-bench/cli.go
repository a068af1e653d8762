package main

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
	"strings"
	"sync"
	"time"
)

// cliPackage is the CLI the cli mode builds once and runs as N processes.
const cliPackage = "github.com/ghcommitter/ghcommitter/cmd/ghcommitter"

// buildCLI builds the ghcommitter binary into dir with "go build -o", in
// the repository's own module (found through this module's replace), so
// the CLI is built with the repository's go.sum exactly as "make build"
// builds it, not with the bench module's.
func buildCLI(ctx context.Context, dir string) (string, error) {
	bin, err := filepath.Abs(filepath.Join(dir, "ghcommitter"))
	if err != nil {
		return "", err
	}
	root, err := exec.CommandContext(ctx, "go", "list", "-m", "-f", "{{.Dir}}", "github.com/ghcommitter/ghcommitter").Output()
	if err != nil {
		return "", fmt.Errorf("go list -m github.com/ghcommitter/ghcommitter: %w", err)
	}
	cmd := exec.CommandContext(ctx, "go", "build", "-C", strings.TrimSpace(string(root)), "-o", bin, cliPackage)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %w\n%s", cliPackage, err, bytes.TrimSpace(out))
	}
	return bin, nil
}

// cliResult is the part of "ghcommitter commit --json" the bench reads.
type cliResult struct {
	Commit   string `json:"commit"`
	Attempts int    `json:"attempts"`
	NoOp     bool   `json:"noop"`
}

// runCLIMode starts n "ghcommitter commit --json" processes at once against
// a fresh fake, each adding its own file with --add REMOTE=LOCAL, as on
// one machine (mode cli) or each as on a machine of its own (mode
// cli-separate: machineEnv).
func runCLIMode(ctx context.Context, cfg config, mode, bin string, files []seedFile, n int) (runResult, error) {
	fake, err := newFakeGitHub(files, cfg.latency)
	if err != nil {
		return runResult{}, err
	}
	defer fake.Close()
	run := fmt.Sprintf("%s-%d-%d", mode, len(files), n)
	work, err := os.MkdirTemp("", "ghcommitter-bench-cli-")
	if err != nil {
		return runResult{}, err
	}
	defer os.RemoveAll(work)

	cmds := make([]*exec.Cmd, n)
	for i := range n {
		local := filepath.Join(work, fmt.Sprintf("writer-%03d.txt", i))
		if err := os.WriteFile(local, writerContent(run, i), 0o644); err != nil {
			return runResult{}, err
		}
		cmd := exec.CommandContext(ctx, bin, "commit",
			"--api-url", fake.URL, "-R", owner+"/"+repoName, "-b", branch,
			"-m", fmt.Sprintf("bench %s: writer %d", run, i),
			"--add", writerPath(run, i)+"="+local,
			"--max-attempts", strconv.Itoa(cfg.maxAttempts), "--json")
		cmd.Dir = work
		if cmd.Env, err = machineEnv(append(cleanEnv(), "GH_TOKEN="+fakeToken), work, i, mode == "cli-separate"); err != nil {
			return runResult{}, err
		}
		if d := cfg.limits.trace; d != "" {
			cmd.Args = append(cmd.Args, "-v")
			f, err := os.Create(filepath.Join(d, fmt.Sprintf("%s-process-%02d.log", run, i)))
			if err != nil {
				return runResult{}, err
			}
			defer f.Close()
			cmd.Stderr = f
		}
		cmds[i] = cmd
	}

	fake.srv.ResetRequests()
	ws, wall := runProcesses(cmds, cfg.maxAttempts)
	reqs, byts := fake.traffic()
	if err := fake.landed(run, ws); err != nil {
		return runResult{}, err
	}
	res := summarize(mode, len(files), ws, wall, reqs, byts, cfg.maxAttempts)
	res.NotModified = fake.notModified()
	return res, nil
}

// runProcesses starts every command at once, waits for all of them and
// reads each one's outcome from its exit status and --json output.
func runProcesses(cmds []*exec.Cmd, maxAttempts int) ([]writerResult, time.Duration) {
	ws := make([]writerResult, len(cmds))
	var wg sync.WaitGroup
	t0 := time.Now()
	for i, cmd := range cmds {
		var out, errOut bytes.Buffer
		stamp := &stampWriter{w: &out, t0: t0}
		cmd.Stdout = stamp
		if cmd.Stderr != nil { // a trace file (-limit-trace): keep it too
			cmd.Stderr = io.MultiWriter(&errOut, cmd.Stderr)
		} else {
			cmd.Stderr = &errOut
		}
		start := time.Now()
		if err := cmd.Start(); err != nil {
			ws[i] = writerResult{Err: "start: " + err.Error()}
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := cmd.Wait()
			ws[i] = cliOutcome(err, out.Bytes(), errOut.String(), maxAttempts)
			ws[i].Latency = time.Since(start)
			ws[i].Done = stamp.first // Wait has waited for the copy to stdout
			if ws[i].Done == 0 {
				ws[i].Done = time.Since(t0)
			}
		}()
	}
	wg.Wait()
	return ws, time.Since(t0)
}

// stampWriter notes when its first bytes came, from t0: a CLI process
// prints its --json result once its change landed (or failed).
type stampWriter struct {
	w     io.Writer
	t0    time.Time
	first time.Duration
}

func (s *stampWriter) Write(p []byte) (int, error) {
	if s.first == 0 && len(p) > 0 {
		s.first = time.Since(s.t0)
	}
	return s.w.Write(p)
}

// lastLanded is when the last writer that landed had its outcome, from
// the launch (writerResult.Done); wall where a landed writer's is unknown,
// 0 when none landed.
func lastLanded(ws []writerResult, wall time.Duration) time.Duration {
	var last time.Duration
	for _, w := range ws {
		switch {
		case !w.Landed:
		case w.Done == 0:
			return wall
		default:
			last = max(last, w.Done)
		}
	}
	return last
}

// cliOutcome reads one process's exit status and JSON result. Exit status 3
// is a conflict: every attempt lost the race (or a precondition failed).
func cliOutcome(err error, stdout []byte, stderr string, maxAttempts int) writerResult {
	var w writerResult
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() == 3 {
			w.Attempts = maxAttempts
		}
		w.Err = fmt.Sprintf("%v: %s", err, firstLine(stderr))
		return w
	}
	var r cliResult
	if err := json.Unmarshal(bytes.TrimSpace(stdout), &r); err != nil {
		w.Err = fmt.Sprintf("reading --json output %q: %v", firstLine(string(stdout)), err)
		return w
	}
	w.Landed = !r.NoOp && r.Commit != ""
	w.Attempts = r.Attempts
	if !w.Landed {
		w.Err = "no commit made (noop)"
	}
	return w
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// cleanEnv is the environment for child processes without the variables
// that would point the CLI or git somewhere else.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "GITHUB_"), strings.HasPrefix(k, "GH_"), strings.HasPrefix(k, "GIT_"), strings.HasPrefix(k, "GHCOMMITTER_"):
			continue
		}
		env = append(env, kv)
	}
	return env
}
