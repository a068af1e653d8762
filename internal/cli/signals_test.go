package cli

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/githubtest"
)

const (
	routePatchRef    = "PATCH /repos/{owner}/{repo}/git/refs/{ref...}"
	routeGraphQLPost = "POST /graphql"
	routePutContents = "PUT /repos/{owner}/{repo}/contents/{path...}"
)

// startCommit starts the ghcommitter binary on srv with args and returns
// the process, its output and a channel closed when it has exited.
func startCommit(t *testing.T, bin string, srv *githubtest.TestServer, args ...string) (*exec.Cmd, *strings.Builder, *strings.Builder, <-chan struct{}) {
	t.Helper()
	cmd := exec.Command(bin, commitArgs(srv, args...)...)
	cmd.Env = append(os.Environ(), "GH_TOKEN="+testToken, "GITHUB_OUTPUT=", "GITHUB_STEP_SUMMARY=", "GITHUB_GRAPHQL_URL=")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	exited := make(chan struct{})
	go func() {
		var xe *exec.ExitError
		if err := cmd.Wait(); err != nil && !errors.As(err, &xe) {
			t.Errorf("waiting for ghcommitter: %v", err)
		}
		close(exited)
	}()
	return cmd, &stdout, &stderr, exited
}

func waitExit(t *testing.T, exited <-chan struct{}) {
	t.Helper()
	select {
	case <-exited:
	case <-time.After(60 * time.Second):
		t.Fatal("ghcommitter did not exit after the signal")
	}
}

// TestBlackBoxSignalDuringLandingWrite sends a real SIGINT or SIGTERM to
// ghcommitter while its landing write (ref update, GraphQL mutation,
// contents PUT) is held by the server, which applies it afterwards. The
// reply comes within the grace period: the command reports the commit and
// exits 0. It never says "nothing was committed", and the --edit lands
// exactly once.
func TestBlackBoxSignalDuringLandingWrite(t *testing.T) {
	bin := buildCLI(t)
	for _, tc := range []struct {
		engine, route string
		sig           syscall.Signal
	}{
		{"git-data", routeGraphQLPost, syscall.SIGINT}, // updateRefs
		{"graphql", routeGraphQLPost, syscall.SIGTERM},
		{"contents", routePutContents, syscall.SIGINT},
		{"auto", routePutContents, syscall.SIGTERM},
	} {
		t.Run(tc.engine+"/"+tc.sig.String(), func(t *testing.T) {
			srv := fake(t, githubtest.File{Path: "log", Content: []byte("start\n")})
			received, release := srv.HoldNextWrite(tc.route)
			t.Cleanup(release)
			cmd, stdout, stderr, exited := startCommit(t, bin, srv, "-m", "once", "--json", "--engine", tc.engine, "--edit", "log=cat; echo once")
			select {
			case <-received:
			case <-exited:
				t.Fatalf("ghcommitter exited before its write: %s", stderr.String())
			}
			if err := cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			time.Sleep(200 * time.Millisecond) // the write is still held after the signal
			release()
			waitExit(t, exited)
			if code := cmd.ProcessState.ExitCode(); code != 0 {
				t.Errorf("exit %d, want 0: the commit landed\nstderr: %s", code, stderr.String())
			}
			if strings.Contains(stderr.String(), "nothing was committed") {
				t.Errorf("stderr says nothing was committed, but the write landed: %s", stderr.String())
			}
			var res struct{ Commit string }
			if err := json.Unmarshal([]byte(stdout.String()), &res); err != nil || res.Commit != head(t, srv, "main") {
				t.Errorf("stdout = %q (%v), want the result with the head %s", stdout.String(), err, head(t, srv, "main"))
			}
			if got, _ := readFile(t, srv, "main", "log"); got != "start\nonce\n" {
				t.Errorf("log = %q, want the edit exactly once", got)
			}
		})
	}
}

// TestBlackBoxSignalNoReplyWithinGrace: the held landing write gets no
// reply within the grace period after SIGTERM. ghcommitter exits 143 with
// kind unknown_outcome and the hint to check the branch, never "nothing
// was committed"; the server then applies the write. Re-running as told —
// after checking the branch, which has the commit — is not needed, and a
// check of the branch finds the edit once.
func TestBlackBoxSignalNoReplyWithinGrace(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out the 5 s landing grace period")
	}
	bin := buildCLI(t)
	srv := fake(t, githubtest.File{Path: "log", Content: []byte("start\n")})
	received, release := srv.HoldNextWrite(routeGraphQLPost) // updateRefs
	t.Cleanup(release)
	cmd, stdout, stderr, exited := startCommit(t, bin, srv, "-m", "once", "--json", "--edit", "log=cat; echo once")
	select {
	case <-received:
	case <-exited:
		t.Fatalf("ghcommitter exited before its write: %s", stderr.String())
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitExit(t, exited)
	release() // GitHub applies it late
	if code := cmd.ProcessState.ExitCode(); code != 143 {
		t.Errorf("exit %d, want 143\nstderr: %s", code, stderr.String())
	}
	if strings.Contains(stderr.String(), "nothing was committed") {
		t.Errorf("stderr says nothing was committed after the write was sent: %s", stderr.String())
	}
	var obj struct{ Error struct{ Kind, Hint string } }
	if err := json.Unmarshal([]byte(stdout.String()), &obj); err != nil || obj.Error.Kind != "unknown_outcome" || !strings.Contains(obj.Error.Hint, "check the branch") {
		t.Errorf("stdout = %q (%v), want one JSON failure of kind unknown_outcome telling to check the branch", stdout.String(), err)
	}
	eventually(t, "the held write is applied", func() bool { got, _ := readFile(t, srv, "main", "log"); return got != "start\n" })
	if got, _ := readFile(t, srv, "main", "log"); got != "start\nonce\n" {
		t.Errorf("log = %q, want the edit exactly once", got)
	}
}
