package kubelease_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/turns"
	"github.com/ghcommitter/ghcommitter/committer/turns/kubelease"
	"github.com/ghcommitter/ghcommitter/committer/turns/kubelease/kubetest"
	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"
)

// Environment of the child process that holds a turn until it is killed.
const (
	envHoldNamespace = "KUBELEASE_HOLD_NAMESPACE"
	envHoldDuration  = "KUBELEASE_HOLD_DURATION"
)

func TestMain(m *testing.M) {
	if ns := os.Getenv(envHoldNamespace); ns != "" {
		os.Exit(holdUntilKilled(ns))
	}
	os.Exit(kubetest.Main(m))
}

// holdUntilKilled takes key's turn, says "held" on stdout, and renews it
// until the process is killed (the test sends SIGKILL: no Release runs).
func holdUntilKilled(ns string) int {
	cfg, err := kubetest.ConfigFromEnv()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	d, err := time.ParseDuration(os.Getenv(envHoldDuration))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	tt, err := kubelease.New(cs.CoordinationV1(), ns, kubelease.WithIdentity("doomed"), kubelease.WithLeaseDuration(d))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	if _, err := tt.Take(context.Background(), key); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	w := bufio.NewWriter(os.Stdout)
	fmt.Fprintln(w, "held")
	_ = w.Flush()
	select {} // renewing, until SIGKILL
}

// key is the branch the tests take turns at.
var key = turns.Key{API: "https://api.github.com/", Repository: "acme/mono", Branch: "main"}

// leases is a client of the shared server's Leases (no client-side
// throttling).
func leases(t *testing.T) coordinationv1client.CoordinationV1Interface {
	t.Helper()
	return kubetest.Shared(t).Client.CoordinationV1()
}

// newTurns is kubelease.New on the shared server, failing t on error.
func newTurns(t *testing.T, c coordinationv1client.LeasesGetter, ns string, opts ...kubelease.Option) *kubelease.Turns {
	t.Helper()
	tt, err := kubelease.New(c, ns, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return tt
}

// take is Take with a bound, failing t when no turn is granted.
func take(t *testing.T, tt turns.Turns, k turns.Key, within time.Duration) turns.Turn {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), within)
	defer cancel()
	turn, err := tt.Take(ctx, k)
	if err != nil {
		t.Fatalf("Take: %v", err)
	}
	return turn
}

// holder reads key's Lease holder in ns ("" when none).
func holder(t *testing.T, ns string, k turns.Key) string {
	t.Helper()
	l := getLease(t, ns, k)
	if l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}

func getLease(t *testing.T, ns string, k turns.Key) *coordinationv1.Lease {
	t.Helper()
	l, err := leases(t).Leases(ns).Get(t.Context(), kubelease.LeaseName(k), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// result is a Take's outcome, sent from a goroutine.
type result struct {
	turn turns.Turn
	err  error
	at   time.Time
}

// takeAsync runs Take in a goroutine.
func takeAsync(ctx context.Context, tt turns.Turns, k turns.Key) <-chan result {
	ch := make(chan result, 1)
	go func() {
		turn, err := tt.Take(ctx, k)
		ch <- result{turn: turn, err: err, at: time.Now()}
	}()
	return ch
}

// notYet fails t if ch already has a result (the taker should still wait).
func notYet(t *testing.T, ch <-chan result, what string) {
	t.Helper()
	select {
	case r := <-ch:
		t.Fatalf("%s: Take returned (err %v) while another writer held the turn", what, r.err)
	default:
	}
}
