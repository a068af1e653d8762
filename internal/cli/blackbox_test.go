package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	commitcmd "github.com/ghcommitter/ghcommitter/internal/cli/commit"

	"github.com/ghcommitter/ghcommitter/committer/ghclient"
	"github.com/google/go-github/v66/github"
)

// TestBlackBoxConcurrentProcesses builds the binary, serves the fake with
// "ghcommitter fake-github", and runs 12 "ghcommitter commit" processes at
// once against it: 8 add their own file, 4 increment one counter file.
func TestBlackBoxConcurrentProcesses(t *testing.T) {
	bin := buildCLI(t)

	const token = "black-box-token"
	server := exec.Command(bin, "fake-github", "--listen", "127.0.0.1:0", "--repo", "acme/mono", "--token", token, "--latency", "2ms")
	stdout, err := server.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	server.Stderr = io.Discard
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	stopped := false
	defer func() {
		if !stopped {
			_ = server.Process.Kill()
			_ = server.Wait()
		}
	}()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the URL line: %v", err)
	}
	url := strings.TrimSpace(line)
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/") {
		t.Fatalf("first line = %q, want the API base URL", line)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	client, err := ghclient.New(ctx, ghclient.WithBaseURL(url), ghclient.WithToken(token))
	if err != nil {
		t.Fatal(err)
	}
	ref, _, err := client.Git.GetRef(ctx, "acme", "mono", "heads/main")
	if err != nil {
		t.Fatal(err)
	}
	initial := ref.GetObject().GetSHA()

	work := t.TempDir()
	type proc struct {
		args []string
		out  strings.Builder
		err  strings.Builder
		code int
	}
	var procs []*proc
	for i := range 8 {
		local := filepath.Join(work, fmt.Sprintf("w%d.txt", i))
		writeFile(t, local, fmt.Sprintf("writer %d\n", i), 0o644)
		procs = append(procs, &proc{args: []string{"-m", fmt.Sprintf("writer %d", i), "--add", fmt.Sprintf("writers/w%d.txt=%s", i, local)}})
	}
	for i := range 4 {
		procs = append(procs, &proc{args: []string{"-m", fmt.Sprintf("count %d", i), "--edit", "counter.txt=read n; echo $((${n:-0}+1))"}})
	}
	start := make(chan struct{})
	var wg sync.WaitGroup
	for _, p := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			args := append([]string{"commit", "--api-url", url, "-R", "acme/mono", "-b", "main", "--max-attempts", "50"}, p.args...)
			cmd := exec.CommandContext(ctx, bin, args...)
			cmd.Env = append(os.Environ(), "GH_TOKEN="+token, "GITHUB_TOKEN=", "GITHUB_OUTPUT=", "GITHUB_STEP_SUMMARY=", commitcmd.LimitScaleEnv+"=100")
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
	for _, p := range procs {
		if p.code != 0 {
			t.Errorf("%v: exit %d\nstderr: %s", p.args, p.code, p.err.String())
		} else if out := strings.TrimSpace(p.out.String()); !shaLine.MatchString(out) || !strings.Contains(out, url+"acme/mono/commit/") {
			t.Errorf("%v: stdout = %q", p.args, out)
		}
	}

	// 12 new commits, each on the one before: a linear history.
	ref, _, err = client.Git.GetRef(ctx, "acme", "mono", "heads/main")
	if err != nil {
		t.Fatal(err)
	}
	sha := ref.GetObject().GetSHA()
	for i := 0; i < 12; i++ {
		c, _, err := client.Git.GetCommit(ctx, "acme", "mono", sha)
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Parents) != 1 {
			t.Fatalf("commit %s has %d parents", sha, len(c.Parents))
		}
		sha = c.Parents[0].GetSHA()
	}
	if sha != initial {
		t.Errorf("12 commits back from main is %s, want the initial commit %s", sha, initial)
	}

	for i := range 8 {
		if got := content(ctx, t, client, fmt.Sprintf("writers/w%d.txt", i)); got != fmt.Sprintf("writer %d\n", i) {
			t.Errorf("writers/w%d.txt = %q", i, got)
		}
	}
	if got := content(ctx, t, client, "counter.txt"); got != "4\n" {
		t.Errorf("counter.txt = %q, want 4: an increment was lost", got)
	}

	if err := server.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	stopped = true
	errc := make(chan error, 1)
	go func() { errc <- server.Wait() }()
	select {
	case err := <-errc:
		if err != nil {
			t.Errorf("fake-github after SIGTERM: %v, want exit 0", err)
		}
	case <-time.After(10 * time.Second):
		_ = server.Process.Kill()
		t.Fatal("fake-github did not exit after SIGTERM")
	}
}

func content(ctx context.Context, t *testing.T, client *github.Client, path string) string {
	t.Helper()
	fc, _, _, err := client.Repositories.GetContents(ctx, "acme", "mono", path, &github.RepositoryContentGetOptions{Ref: "main"})
	if err != nil {
		t.Fatalf("get %s: %v", path, err)
	}
	s, err := fc.GetContent()
	if err != nil {
		t.Fatalf("decode %s: %v", path, err)
	}
	return s
}

// buildCLI builds the ghcommitter binary into a temporary directory.
func buildCLI(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "ghcommitter")
	build := exec.Command("go", "build", "-o", bin, "github.com/ghcommitter/ghcommitter/cmd/ghcommitter")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestBlackBoxSignalDuringEdit sends real SIGTERM and SIGINT to a
// ghcommitter process whose --edit command waits on a child: it exits 143
// or 130, prints one JSON failure with --json, leaves no process of the
// command's group behind, and commits nothing.
func TestBlackBoxSignalDuringEdit(t *testing.T) {
	bin := buildCLI(t)
	for _, tt := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGTERM, 143}, {syscall.SIGINT, 130}} {
		t.Run(tt.sig.String(), func(t *testing.T) {
			srv := fake(t)
			before := head(t, srv, "main")
			pidFile := filepath.Join(t.TempDir(), "pid")
			cmd := exec.Command(bin, commitArgs(srv, "-m", "m", "--json", "--edit", "a.txt=echo $$ > "+pidFile+"; sleep 300; echo 1")...)
			cmd.Env = append(os.Environ(), "GH_TOKEN="+testToken, "GITHUB_OUTPUT=", "GITHUB_STEP_SUMMARY=")
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { _ = cmd.Process.Kill() }()
			pgid := readPid(t, pidFile)
			if err := cmd.Process.Signal(tt.sig); err != nil {
				t.Fatal(err)
			}
			errc := make(chan error, 1)
			go func() { errc <- cmd.Wait() }()
			select {
			case err := <-errc:
				var xe *exec.ExitError
				if err != nil && !errors.As(err, &xe) {
					t.Fatalf("waiting for ghcommitter: %v", err)
				}
			case <-time.After(60 * time.Second):
				t.Fatal("ghcommitter did not exit after the signal")
			}
			if code := cmd.ProcessState.ExitCode(); code != tt.code {
				t.Errorf("exit %d, want %d\nstderr: %s", code, tt.code, stderr.String())
			}
			var obj struct{ Error struct{ Kind string } }
			if err := json.Unmarshal([]byte(stdout.String()), &obj); err != nil || obj.Error.Kind != "interrupted" {
				t.Errorf("stdout = %q (%v), want one JSON failure of kind interrupted", stdout.String(), err)
			}
			eventually(t, "the edit command's process group is gone", func() bool { return !groupAlive(t, pgid) })
			if head(t, srv, "main") != before || writes(srv) != 0 {
				t.Errorf("the branch moved or %d writes were sent", writes(srv))
			}
		})
	}
}
