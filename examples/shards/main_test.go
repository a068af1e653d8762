package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/turns/kubelease/kubetest"
)

// TestMain runs a shard when the run starts this test binary as one (the
// run starts its own executable with the shard subcommand).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == shardCommand {
		if err := runShard(context.Background(), os.Args[2:], os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "shard:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// needKube skips t without the kube-apiserver and etcd binaries (fails it
// under KUBETEST_REQUIRE=1, as make test-kube sets).
func needKube(t *testing.T) {
	t.Helper()
	if os.Getenv(kubetest.EnvAPIServer) == "" || os.Getenv(kubetest.EnvEtcd) == "" {
		if os.Getenv(kubetest.EnvRequire) == "1" {
			t.Fatal(kubetest.ErrNoBinaries)
		}
		t.Skip(kubetest.ErrNoBinaries)
	}
}

func runT(t *testing.T, args ...string) *report {
	t.Helper()
	cfg, err := parseFlags(args, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := run(t.Context(), cfg, testLog{t})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	_ = rep.write(&b, false)
	t.Log("\n" + b.String())
	return rep
}

// TestShardsTakeTurnsThroughLeases is issue 39's goal: 4 shard processes ×
// 5 stages, each its own HOME and XDG_CACHE_HOME, one API server for the
// Leases, git-data, GitHub's limits scaled 60×: 20/20 land, at most 3.2
// writes per landed change, no lost race between shards; the shards
// waited for each other's turns, and every turn was released.
func TestShardsTakeTurnsThroughLeases(t *testing.T) {
	needKube(t)
	r := runT(t, "-shards", "4", "-stages", "5", "-scale", "60")
	if r.Landed != 20 || r.Want != 20 || r.Unreported != 0 {
		t.Errorf("landed %d/%d (%d unreported), want 20/20: %v", r.Landed, r.Want, r.Unreported, r.Errors)
	}
	if r.WritesPerLanded > 3.2 {
		t.Errorf("%.2f writes per landed change (%d writes), want at most 3.2", r.WritesPerLanded, r.Writes)
	}
	if r.LostRaces != 0 || r.MaxAttempts != 1 {
		t.Errorf("%d lost races, a stage took %d attempts; want none lost, one attempt each", r.LostRaces, r.MaxAttempts)
	}
	if len(r.Results) != 4 {
		t.Fatalf("%d shards reported, want 4", len(r.Results))
	}
	for _, s := range r.Results {
		if s.Turns == 0 {
			t.Errorf("shard %d took no Lease turn", s.Shard)
		}
	}
	if r.Queued == 0 {
		t.Error("no shard waited for another's turn: the Leases coordinated nothing")
	}
	if r.FinalHolder != "" {
		t.Errorf("the Lease is held by %q after every shard exited, want released", r.FinalHolder)
	}
}

// TestKilledShardDelaysOthersAtMostOneLease: shard 0 is killed with
// SIGKILL while it holds the turn (its landing write stalled, its Lease
// renewed), the 3 others waiting for it; one of them takes the expired
// Lease over directly (one transition, no release between), no sooner
// than one lease duration after the dead shard's last renewal, and shard
// 0 started again lands its stages: 20/20, none twice, no lost race.
func TestKilledShardDelaysOthersAtMostOneLease(t *testing.T) {
	needKube(t)
	const lease = 3 * time.Second
	r := runT(t, "-kill", "-lease", lease.String())
	k := r.Kill
	if k == nil {
		t.Fatal("no kill in the report")
	}
	if r.Landed != 20 || r.Unreported != 0 || r.LostRaces != 0 {
		t.Errorf("landed %d/20 (%d unreported), %d lost races; want 20/20, none lost: %v", r.Landed, r.Unreported, r.LostRaces, r.Errors)
	}
	if !strings.HasPrefix(k.Holder, "shard-0/") || k.Waiting != 3 {
		t.Fatalf("killed %q with %d waiting, want shard 0 in its turn with 3 waiting", k.Holder, k.Waiting)
	}
	if k.TakenBy == "" || k.TakenBy == k.Holder || k.TransitionsAfter != k.TransitionsBefore+1 {
		t.Errorf("after the kill the Lease went to %q, transitions %d → %d; want another holder by one take-over", k.TakenBy, k.TransitionsBefore, k.TransitionsAfter)
	}
	// The Lease's own record: the take-over came after the dead holder's
	// lease had run out (the protocol), and the others waited at most one
	// lease duration after the kill, plus slack for a loaded machine (a
	// generous bound: a waiter that missed the expiry by a lease duration
	// fails).
	if k.Expiry < lease {
		t.Errorf("taken over %v after the dead holder's last renewal, before its %v lease ran out", k.Expiry, lease)
	}
	if k.Delay > lease+lease/2+time.Second {
		t.Errorf("the others got the turn %v after the kill, want at most the %v lease (+%v slack)", k.Delay, lease, lease/2+time.Second)
	}
	if r.FinalHolder != "" {
		t.Errorf("the Lease is held by %q at the end, want released", r.FinalHolder)
	}
}

// TestFlags: bad flags are refused with the flag named, before anything
// starts.
func TestFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-shards", "0"}, {"-stages", "0"}, {"-turns", "etcd"}, {"-scale", "0"}, {"-lease", "500ms"},
		{"-kill", "-turns", "local"}, {"-kill", "-shards", "1"}, {"extra"},
	} {
		if _, err := parseFlags(args, io.Discard); err == nil {
			t.Errorf("%q accepted", args)
		}
	}
	if _, err := parseShardFlags([]string{"-index", "1"}); err == nil || !strings.Contains(err.Error(), "-api") {
		t.Errorf("a shard without -api: %v", err)
	}
	if _, err := parseShardFlags([]string{"-api", "http://x/", "-token-file", "t"}); err == nil || !strings.Contains(err.Error(), "-kubeconfig") {
		t.Errorf("a Lease shard without -kubeconfig: %v", err)
	}
}

// testLog writes the run's progress to t.Log.
type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
