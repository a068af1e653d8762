//go:build unix

package cli

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ghcommitter/ghcommitter/internal/cli/cmdutil"
	"github.com/ghcommitter/ghcommitter/internal/cli/input"
)

// TestEditSignalKillsTheGroupAndCommitsNothing plays SIGTERM and SIGINT
// while an --edit command waits on a child: the exit status is 143 or 130,
// the command's whole process group is gone, and nothing was written.
func TestEditSignalKillsTheGroupAndCommitsNothing(t *testing.T) {
	for _, tt := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGTERM, 143}, {syscall.SIGINT, 130}} {
		t.Run(tt.sig.String(), func(t *testing.T) {
			srv := fake(t)
			before := head(t, srv, "main")
			pidFile := filepath.Join(t.TempDir(), "pid")
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			done := make(chan cliResult, 1)
			go func() {
				done <- newCLI(t).runCtx(ctx, commitArgs(srv, "-m", "m", "--edit", "a.txt=echo $$ > "+pidFile+"; sleep 300; echo 1")...)
			}()
			pgid := readPid(t, pidFile)
			cancel(cmdutil.SignalCause{Sig: tt.sig})
			var r cliResult
			select {
			case r = <-done:
			case <-time.After(60 * time.Second):
				t.Fatal("ghcommitter did not return after the signal")
			}
			r.wantCode(t, tt.code)
			if !strings.Contains(r.stderr, "nothing was committed") {
				t.Errorf("stderr = %q, want it to say nothing was committed", r.stderr)
			}
			eventually(t, "the edit command's process group is gone", func() bool { return !groupAlive(t, pgid) })
			if head(t, srv, "main") != before || writes(srv) != 0 {
				t.Errorf("the branch moved or %d writes were sent", writes(srv))
			}
		})
	}
}

// TestEditBackgroundChildDoesNotBlock: a command that leaves a child
// holding its stdout still completes the commit, and the child is killed.
func TestEditBackgroundChildDoesNotBlock(t *testing.T) {
	srv := fake(t)
	pidFile := filepath.Join(t.TempDir(), "pid")
	// Without the fix the commit waits for the 300 s sleep; the CLI run's
	// 60 s context then fails it.
	r := newCLI(t).run(commitArgs(srv, "-m", "m", "--edit", "a.txt=(sleep 300 & echo $! > "+pidFile+"); echo 1")...)
	r.wantCode(t, 0)
	if got, _ := readFile(t, srv, "main", "a.txt"); got != "1\n" {
		t.Errorf("a.txt = %q, want 1", got)
	}
	pid := readPid(t, pidFile)
	eventually(t, "the background child is killed", func() bool { return !pidAlive(pid) })
}

func TestEditTimeout(t *testing.T) {
	srv := fake(t)
	before := head(t, srv, "main")
	pidFile := filepath.Join(t.TempDir(), "pid")
	r := newCLI(t).run(commitArgs(srv, "-m", "m", "--edit-timeout", "500ms", "--edit", "a.txt=echo $$ > "+pidFile+"; sleep 300")...)
	r.wantCode(t, 1)
	if !strings.Contains(r.stderr, "timed out") || !strings.Contains(r.stderr, "--edit-timeout") {
		t.Errorf("stderr = %q, want a timeout naming --edit-timeout", r.stderr)
	}
	pgid := readPid(t, pidFile)
	eventually(t, "the timed-out group is gone", func() bool { return !groupAlive(t, pgid) })
	if head(t, srv, "main") != before || writes(srv) != 0 {
		t.Error("a timed-out edit wrote")
	}
	for _, bad := range []string{"0s", "-1s"} {
		newCLI(t).run(commitArgs(srv, "-m", "m", "--edit-timeout", bad, "--edit", "a=echo a")...).wantCode(t, 2)
	}
}

// TestEditOutputIsBounded: "yes" never ends; its output is cut at the cap
// (lowered here) and the commit fails at once with nothing written.
func TestEditOutputIsBounded(t *testing.T) {
	old := input.EditOutputLimit
	input.EditOutputLimit = 1 << 20
	defer func() { input.EditOutputLimit = old }()
	srv := fake(t)
	before := head(t, srv, "main")
	pidFile := filepath.Join(t.TempDir(), "pid")
	r := newCLI(t).run(commitArgs(srv, "-m", "m", "--edit", "big.txt=echo $$ > "+pidFile+"; yes")...)
	r.wantCode(t, 1)
	if !strings.Contains(r.stderr, "1048576 bytes") || !strings.Contains(r.stderr, "100 MB") {
		t.Errorf("stderr = %q, want the cap and GitHub's limit named", r.stderr)
	}
	pgid := readPid(t, pidFile)
	eventually(t, "yes is killed", func() bool { return !groupAlive(t, pgid) })
	if head(t, srv, "main") != before || writes(srv) != 0 {
		t.Error("an over-long edit wrote")
	}
	// Exactly the cap is fine.
	newCLI(t).run(commitArgs(srv, "-m", "m", "--edit", "big.txt=head -c 1048576 /dev/zero")...).wantCode(t, 0)
	if got, _ := readFile(t, srv, "main", "big.txt"); len(got) != 1<<20 {
		t.Errorf("big.txt holds %d bytes, want %d", len(got), 1<<20)
	}
}

// TestEditEnvironmentHasNoCredentials: --edit commands see the environment
// without the credentials ghcommitter consumed.
func TestEditEnvironmentHasNoCredentials(t *testing.T) {
	srv := fake(t)
	c := newCLI(t)
	// The fake is not github.com, so (as gh does) GH_ENTERPRISE_TOKEN is
	// the token that authenticates: it holds the fake's token.
	secrets := map[string]string{
		"GITHUB_TOKEN": "s-github", "GH_ENTERPRISE_TOKEN": testToken, "GITHUB_ENTERPRISE_TOKEN": "s-githubent",
		"GHCOMMITTER_SIGN_PASSPHRASE": "s-pass", "INPUT_SIGN_KEY": "s-key",
	}
	for k, v := range secrets {
		c.env[k] = v
	}
	c.env["KEEP_ME"] = "kept"
	r := c.run(commitArgs(srv, "-m", "m", "--edit", "env.txt=env")...)
	r.wantCode(t, 0)
	got, _ := readFile(t, srv, "main", "env.txt")
	if !strings.Contains(got, "KEEP_ME=kept") || !strings.Contains(got, "GHCOMMITTER_PATH=env.txt") {
		t.Errorf("the environment lost ordinary variables:\n%s", got)
	}
	for _, v := range append([]string{testToken}, valuesOf(secrets)...) {
		if strings.Contains(got, v) {
			t.Errorf("an --edit command saw the secret %q", v)
		}
	}
}

func valuesOf(m map[string]string) []string {
	var vs []string
	for _, v := range m {
		vs = append(vs, v)
	}
	return vs
}

// TestEditStderrIsBounded: a command's stderr is kept up to a cap, with a
// note of what was dropped.
func TestEditStderrIsBounded(t *testing.T) {
	srv := fake(t)
	r := newCLI(t).run(commitArgs(srv, "-m", "m", "--edit", "a.txt=head -c 200000 /dev/zero | tr '\\0' x >&2; echo a")...)
	r.wantCode(t, 0)
	if n := strings.Count(r.stderr, "x"); n != input.EditStderrLimit {
		t.Errorf("%d bytes of stderr shown, want the cap %d", n, input.EditStderrLimit)
	}
	if !strings.Contains(r.stderr, fmt.Sprintf("%d more bytes dropped", 200000-input.EditStderrLimit)) {
		t.Errorf("no note of the dropped stderr: %q", r.stderr[len(r.stderr)-100:])
	}
}

// TestSignalWhileReadingStdin: a signal while stdin is read (-F -, --add
// PATH=-) ends the command with the signal's status, not a hang.
func TestSignalWhileReadingStdin(t *testing.T) {
	srv := fake(t)
	pr, pw := io.Pipe() // never written: the read blocks
	defer pw.Close()
	ctx, cancel := context.WithCancelCause(context.Background())
	done := make(chan cliResult, 1)
	go func() {
		c := newCLI(t)
		done <- c.runStdin(ctx, pr, commitArgs(srv, "-F", "-", "--edit", "a=echo a")...)
	}()
	cancel(cmdutil.SignalCause{Sig: syscall.SIGINT})
	select {
	case r := <-done:
		r.wantCode(t, 130)
	case <-time.After(60 * time.Second):
		t.Fatal("a signal did not end a blocked stdin read")
	}
	if writes(srv) != 0 {
		t.Error("something was written")
	}
}
