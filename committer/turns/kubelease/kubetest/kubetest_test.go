package kubetest

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestMain(m *testing.M) {
	if os.Getenv("KUBETEST_PANIC_HELPER") != "" {
		panicWithServer(os.Getenv("KUBETEST_PANIC_HELPER"))
	}
	os.Exit(Main(m))
}

// panicWithServer starts a server, writes its pids and directory to out,
// and panics as a failing test would.
func panicWithServer(out string) {
	s, err := Start(context.Background())
	if err != nil {
		panic(err)
	}
	line := strconv.Itoa(s.etcd.cmd.Process.Pid) + " " + strconv.Itoa(s.apiserver.cmd.Process.Pid) + " " + s.dir
	if err := os.WriteFile(out, []byte(line), 0o600); err != nil {
		panic(err)
	}
	panic("kubetest: the helper panics with its servers running")
}

func TestServerServesLeases(t *testing.T) {
	s := Shared(t)
	ns := Namespace(t)
	leases := s.Client.CoordinationV1().Leases(ns)
	holder := "a"
	_, err := leases.Create(t.Context(), &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: "l"},
		Spec:       coordinationv1.LeaseSpec{HolderIdentity: &holder},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := leases.Get(t.Context(), "l", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Spec.HolderIdentity == nil || *got.Spec.HolderIdentity != "a" {
		t.Fatalf("holder = %v, want a", got.Spec.HolderIdentity)
	}
	// Optimistic concurrency is the API server's: a stale update conflicts.
	stale := got.DeepCopy()
	got.Spec.HolderIdentity = new("b")
	if _, err := leases.Update(t.Context(), got, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := leases.Update(t.Context(), stale, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
		t.Fatalf("stale update: %v, want a conflict", err)
	}
}

// TestPanicLeavesNoServer runs a test binary that starts a server and
// panics: its etcd and kube-apiserver die with it, and the next Start
// removes its directory.
func TestPanicLeavesNoServer(t *testing.T) {
	Shared(t) // the binaries are there
	if testing.Short() {
		t.Skip("starts two more servers")
	}
	out := filepath.Join(t.TempDir(), "pids")
	cmd := exec.Command(os.Args[0], "-test.run=^$") // #nosec G204 -- this test binary
	cmd.Env = append(os.Environ(), "KUBETEST_PANIC_HELPER="+out)
	if err := cmd.Run(); err == nil {
		t.Fatal("the helper exited 0, want a panic")
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("the helper wrote no pids: %v", err)
	}
	f := strings.Fields(string(b))
	if len(f) != 3 {
		t.Fatalf("pids file %q", b)
	}
	for _, p := range f[:2] {
		pid, _ := strconv.Atoi(p)
		waitGone(t, pid)
	}
	if _, err := os.Stat(f[2]); err != nil {
		t.Fatalf("the helper's directory should outlive its panic: %v", err)
	}
	s, err := Start(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	s.Stop()
	if _, err := os.Stat(f[2]); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Start left the dead run's directory %s: %v", f[2], err)
	}
	if _, err := os.Stat(s.dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Stop left its directory %s: %v", s.dir, err)
	}
}

// waitGone waits for pid to exit (a zombie counts as gone: no parent of
// ours reaps it).
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) || isZombie(pid) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("process %d still runs after its test binary panicked", pid)
}

func isZombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// pid (comm) state ...: the state follows the last ')'.
	i := strings.LastIndexByte(string(b), ')')
	return i >= 0 && i+2 < len(b) && b[i+2] == 'Z'
}

// TestFailedStartLeavesNothing: a Start that fails half-way (etcd runs, the
// API server cannot start) kills what it started and removes its directory.
func TestFailedStartLeavesNothing(t *testing.T) {
	Shared(t) // the binaries are there
	t.Setenv(EnvAPIServer, filepath.Join(t.TempDir(), "no-such-kube-apiserver"))
	mine := filepath.Join(os.TempDir(), dirPrefix+strconv.Itoa(os.Getpid())+"-*")
	before, _ := filepath.Glob(mine)
	if s, err := Start(t.Context()); err == nil {
		s.Stop()
		t.Fatal("Start succeeded without a kube-apiserver binary")
	}
	after, _ := filepath.Glob(mine)
	if len(after) != len(before) {
		t.Fatalf("directories of this process: %v before the failed Start, %v after", before, after)
	}
}
