package kubelease_test

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/turns/kubelease"
	"github.com/ghcommitter/ghcommitter/committer/turns/kubelease/kubetest"
)

// TestKilledHolderDelaysAtMostOneLeaseDuration: a process that holds the
// turn is killed with SIGKILL (no Release, no cleanup of any kind); a
// writer already waiting gets the turn within one lease duration of the
// kill, through the Lease's expiry.
func TestKilledHolderDelaysAtMostOneLeaseDuration(t *testing.T) {
	s := kubetest.Shared(t)
	ns := kubetest.Namespace(t)
	const lease = 3 * time.Second
	child := exec.Command(os.Args[0], "-test.run=^$") // #nosec G204 -- this test binary
	child.Env = append(os.Environ(), s.Env()...)
	child.Env = append(child.Env, envHoldNamespace+"="+ns, envHoldDuration+"="+lease.String())
	child.Stderr = os.Stderr
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = child.Process.Kill(); _ = child.Wait() }()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "held" {
		t.Fatalf("the holder process said %q (%v), want held", line, err)
	}
	if h := holder(t, ns, key); !strings.HasPrefix(h, "doomed/") {
		t.Fatalf("holder %q, want the child's", h)
	}
	before := getLease(t, ns, key).Spec.LeaseTransitions

	w := newTurns(t, leases(t), ns, kubelease.WithIdentity("survivor"), kubelease.WithLeaseDuration(lease))
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	waiting := takeAsync(ctx, w, key)
	time.Sleep(lease + lease/2) // the child renews: no expiry while it lives
	notYet(t, waiting, "survivor")

	killed := time.Now()
	if err := child.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	r := <-waiting
	if r.err != nil {
		t.Fatal(r.err)
	}
	defer r.turn.Release()
	// One lease duration after the last renewal the waiter saw (at most
	// the kill), plus half of one for the requests on a loaded machine (a
	// waiter that waited two lease durations fails).
	if d := r.at.Sub(killed); d > lease+lease/2 {
		t.Fatalf("the turn came %v after the holder was killed, want at most the %v lease (+%v)", d, lease, lease/2)
	}
	t.Logf("the turn came %v after the holder was killed (lease %v)", r.at.Sub(killed), lease)
	if !r.turn.Queued() {
		t.Error("the survivor waited for the killed holder but Queued is false")
	}
	l := getLease(t, ns, key)
	if h := *l.Spec.HolderIdentity; !strings.HasPrefix(h, "survivor/") {
		t.Fatalf("holder %q, want the survivor's", h)
	}
	if *l.Spec.LeaseTransitions != *before+1 {
		t.Errorf("lease transitions %d → %d, want one more (a take-over)", *before, *l.Spec.LeaseTransitions)
	}
}
