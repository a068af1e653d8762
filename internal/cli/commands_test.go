package cli

import (
	"bufio"
	"bytes"
	"context"
	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/ghclient"
	"github.com/spf13/cobra"
)

func TestEveryCommandHelpHasExample(t *testing.T) {
	root := newRootCmd(&cmdutil.Env{Stdout: io.Discard, Stderr: io.Discard, Getenv: func(string) string { return "" }})
	cmds := []*cobra.Command{root}
	cmds = append(cmds, root.Commands()...)
	for _, cmd := range cmds {
		if cmd.Name() == "help" || cmd.Name() == "completion" {
			continue
		}
		args := []string{"--help"}
		if cmd != root {
			args = []string{cmd.Name(), "--help"}
		}
		r := newCLI(t).run(args...)
		r.wantCode(t, 0)
		if !strings.Contains(r.stdout, "Example") {
			t.Errorf("%s --help has no Example:\n%s", cmd.Name(), r.stdout)
		}
	}
}

func TestUnknownCommandIsUsageError(t *testing.T) {
	r := newCLI(t).run("comit")
	r.wantCode(t, 2)
	if !strings.HasPrefix(r.stderr, "ghcommitter: unknown command") {
		t.Errorf("stderr = %q", r.stderr)
	}
}

// TestDemo runs the demo as a newcomer does, as a binary (its first round
// runs that binary's commit command once per writer): both rounds land
// every promotion, and the checks pass. README's sample is held to its
// output by make readme-check.
func TestDemo(t *testing.T) {
	bin := buildCLI(t)
	cmd := exec.Command(bin, "demo", "--writers", "4")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("demo: %v\n%s", err, out)
	}
	for _, want := range []string{"1. SEPARATE PROCESSES", "2. ONE PROCESS", "1. 4/4 landed", "2. 4/4 landed", "writes per landed change", "stage-4: v3.0.4", "OK: every promotion landed exactly once"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
}

// TestFakeGitHubSeedInProcess serves a seeded fake in-process, commits to it,
// and stops it by cancelling the context (as SIGTERM does).
func TestFakeGitHubSeedInProcess(t *testing.T) {
	seed := t.TempDir()
	writeFile(t, filepath.Join(seed, "app/config.yaml"), "a: 1\n", 0o644)
	writeFile(t, filepath.Join(seed, "bin/run"), "#!/bin/sh\n", 0o755)
	if err := os.Symlink("app/config.yaml", filepath.Join(seed, "current")); err != nil {
		t.Fatal(err)
	}
	pr, pw := io.Pipe()
	var errb bytes.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, []string{"fake-github", "--listen", "127.0.0.1:0", "--repo", "acme/mono", "--seed", seed, "--token", testToken},
			&cmdutil.Env{Stdout: pw, Stderr: &errb, Getenv: func(string) string { return "" }})
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("no URL line: %v", err)
	}
	url := strings.TrimSpace(line)
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/") {
		t.Fatalf("first line = %q, want the API base URL", line)
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()

	client, err := ghclient.New(ctx, ghclient.WithBaseURL(url), ghclient.WithToken(testToken))
	if err != nil {
		t.Fatal(err)
	}
	tree, _, err := client.Git.GetTree(ctx, "acme", "mono", "main", true)
	if err != nil {
		t.Fatal(err)
	}
	modes := map[string]string{}
	for _, e := range tree.Entries {
		if e.GetType() == "blob" {
			modes[e.GetPath()] = e.GetMode()
		}
	}
	if modes["app/config.yaml"] != "100644" || modes["bin/run"] != "100755" || modes["current"] != "120000" || len(modes) != 3 {
		t.Errorf("seeded tree = %v", modes)
	}

	r := newCLI(t).run("commit", "--api-url", url, "-R", "acme/mono", "-m", "m", "--edit", "app/config.yaml=echo a: 2")
	r.wantCode(t, 0)

	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("fake-github exited %d after cancel; stderr:\n%s", code, errb.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("fake-github did not stop")
	}
}

func TestFakeGitHubBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"fake-github", "--repo", "nope"},
		{"fake-github", "--seed", "/nonexistent", "--repo", "a/b"},
		{"fake-github", "--seed", "x"},
		{"fake-github", "--listen", "256.0.0.1:99999"},
	} {
		r := newCLI(t).run(args...)
		r.wantCode(t, 2)
		if r.stdout != "" {
			t.Errorf("%v: printed %q before failing", args, r.stdout)
		}
	}
}
