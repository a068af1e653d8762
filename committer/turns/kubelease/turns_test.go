package kubelease_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/turns"
	"github.com/ghcommitter/ghcommitter/committer/turns/kubelease"
	"github.com/ghcommitter/ghcommitter/committer/turns/kubelease/kubetest"
)

// TestHoldersExcludeEachOther: writers of two Turns (two processes, as far
// as the API server can tell) and several goroutines each take turns at one
// key; never are two inside at once, and every one gets its turns.
func TestHoldersExcludeEachOther(t *testing.T) {
	ns := kubetest.Namespace(t)
	c := leases(t)
	a := newTurns(t, c, ns, kubelease.WithIdentity("writer-a"))
	b := newTurns(t, c, ns, kubelease.WithIdentity("writer-b"))
	const perWriter, rounds = 3, 4
	var inside, most, queued atomic.Int32
	var wg sync.WaitGroup
	errs := make(chan error, 2*perWriter*rounds)
	for _, tt := range []*kubelease.Turns{a, b} {
		for range perWriter {
			wg.Go(func() {
				for range rounds {
					ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
					turn, err := tt.Take(ctx, key)
					cancel()
					if err != nil {
						errs <- err
						return
					}
					if turn.Queued() {
						queued.Add(1)
					}
					raise(&most, inside.Add(1))
					time.Sleep(20 * time.Millisecond)
					inside.Add(-1)
					turn.Release()
				}
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if most.Load() != 1 {
		t.Fatalf("%d writers held the turn at once, want 1", most.Load())
	}
	if queued.Load() == 0 {
		t.Errorf("no turn of %d reported Queued, though 6 writers contended", 2*perWriter*rounds)
	}
	if h := holder(t, ns, key); h != "" {
		t.Errorf("after every Release the Lease is held by %q", h)
	}
}

// TestReleaseHandsOverAtOnce: a waiter gets the turn as soon as the holder
// releases it, long before the lease would expire.
func TestReleaseHandsOverAtOnce(t *testing.T) {
	ns := kubetest.Namespace(t)
	c := leases(t)
	const lease = 30 * time.Second
	a := newTurns(t, c, ns, kubelease.WithIdentity("a"), kubelease.WithLeaseDuration(lease))
	b := newTurns(t, c, ns, kubelease.WithIdentity("b"), kubelease.WithLeaseDuration(lease))
	held := take(t, a, key, 30*time.Second)
	if held.Queued() {
		t.Error("the first turn at a free Lease reports Queued")
	}
	waiting := takeAsync(t.Context(), b, key)
	time.Sleep(500 * time.Millisecond)
	notYet(t, waiting, "b")
	released := time.Now()
	held.Release()
	r := <-waiting
	if r.err != nil {
		t.Fatal(r.err)
	}
	defer r.turn.Release()
	// Without the release clearing the holder b would wait for the lease
	// to expire: 30 s.
	if d := r.at.Sub(released); d > lease/3 {
		t.Fatalf("b got the turn %v after a's Release, want well under the %v lease", d, lease)
	}
	if !r.turn.Queued() {
		t.Error("b waited for a's turn but Queued is false")
	}
	if h := holder(t, ns, key); !strings.HasPrefix(h, "b/") {
		t.Errorf("holder %q, want b's", h)
	}
}

// TestRenewalKeepsTheTurn: a holder whose attempt outlasts several lease
// durations keeps its turn (the renewals), and a waiter gets it only after
// the release.
func TestRenewalKeepsTheTurn(t *testing.T) {
	ns := kubetest.Namespace(t)
	c := leases(t)
	const lease = 2 * time.Second // short, yet renewals every 667 ms keep it on a loaded machine
	a := newTurns(t, c, ns, kubelease.WithIdentity("a"), kubelease.WithLeaseDuration(lease))
	b := newTurns(t, c, ns, kubelease.WithIdentity("b"), kubelease.WithLeaseDuration(lease))
	held := take(t, a, key, 30*time.Second)
	first := getLease(t, ns, key).Spec.RenewTime.Time
	waiting := takeAsync(t.Context(), b, key)
	time.Sleep(5 * lease / 2)
	notYet(t, waiting, "b")
	if h := holder(t, ns, key); !strings.HasPrefix(h, "a/") {
		t.Fatalf("holder %q after 2.5 lease durations, want a's", h)
	}
	if renewed := getLease(t, ns, key).Spec.RenewTime.Time; !renewed.After(first) {
		t.Errorf("renew time %v did not move from %v", renewed, first)
	}
	held.Release()
	r := <-waiting
	if r.err != nil {
		t.Fatal(r.err)
	}
	r.turn.Release()
}

// TestContextEndsTheWait: a Take whose context ends returns its error and
// leaves the holder's Lease alone; an ended context grants nothing.
func TestContextEndsTheWait(t *testing.T) {
	ns := kubetest.Namespace(t)
	c := leases(t)
	a := newTurns(t, c, ns, kubelease.WithIdentity("a"))
	b := newTurns(t, c, ns, kubelease.WithIdentity("b"))
	held := take(t, a, key, 30*time.Second)
	defer held.Release()

	ctx, cancel := context.WithCancel(t.Context())
	waiting := takeAsync(ctx, b, key)
	time.Sleep(300 * time.Millisecond)
	notYet(t, waiting, "b")
	cancel()
	r := <-waiting
	if !errors.Is(r.err, context.Canceled) || r.turn != nil {
		t.Fatalf("Take after cancel = %v, %v; want no turn and context.Canceled", r.turn, r.err)
	}

	ctx, cancel2 := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel2()
	if turn, err := b.Take(ctx, key); !errors.Is(err, context.DeadlineExceeded) || turn != nil {
		t.Fatalf("Take past its deadline = %v, %v; want context.DeadlineExceeded", turn, err)
	}
	if h := holder(t, ns, key); !strings.HasPrefix(h, "a/") {
		t.Fatalf("holder %q after b gave up, want a's", h)
	}
	done, stop := context.WithCancel(t.Context())
	stop()
	other := turns.Key{API: key.API, Repository: key.Repository, Branch: "free"}
	if turn, err := b.Take(done, other); err == nil {
		turn.Release()
		t.Fatal("Take with an ended context granted a turn")
	}
}

// TestKeysAreSeparate: each key has its own Lease, named by a hash and
// annotated with the key; turns at different keys do not wait.
func TestKeysAreSeparate(t *testing.T) {
	ns := kubetest.Namespace(t)
	a := newTurns(t, leases(t), ns)
	other := turns.Key{API: key.API, Repository: key.Repository, Branch: "release/1.x"}
	t1 := take(t, a, key, 30*time.Second)
	defer t1.Release()
	t2 := take(t, a, other, 5*time.Second) // would wait 5 s for a shared Lease
	defer t2.Release()
	if kubelease.LeaseName(key) == kubelease.LeaseName(other) {
		t.Fatal("two keys share a Lease name")
	}
	l := getLease(t, ns, other)
	got := [3]string{l.Annotations[kubelease.AnnotationAPI], l.Annotations[kubelease.AnnotationRepository], l.Annotations[kubelease.AnnotationBranch]}
	if got != [3]string{other.API, other.Repository, other.Branch} {
		t.Fatalf("annotations %v, want the key %v", got, other)
	}
	if l.Labels[kubelease.LabelManagedBy] != "ghcommitter" {
		t.Errorf("labels %v", l.Labels)
	}
}

// raise sets *m to n if n is larger.
func raise(m *atomic.Int32, n int32) {
	for {
		cur := m.Load()
		if n <= cur || m.CompareAndSwap(cur, n) {
			return
		}
	}
}

// TestOneNameTwoWriters: two Turns under the same WithIdentity (a process
// started again under its pod's name while its predecessor's turn is
// held, or two Turns in one program) are two writers: the second waits
// for the first's turn instead of taking it for its own.
func TestOneNameTwoWriters(t *testing.T) {
	ns := kubetest.Namespace(t)
	c := leases(t)
	before := newTurns(t, c, ns, kubelease.WithIdentity("shard-0"))
	again := newTurns(t, c, ns, kubelease.WithIdentity("shard-0"))
	held := take(t, before, key, 30*time.Second)
	first := holder(t, ns, key)
	waiting := takeAsync(t.Context(), again, key)
	time.Sleep(500 * time.Millisecond)
	notYet(t, waiting, "the second writer of the same name")
	held.Release()
	r := <-waiting
	if r.err != nil {
		t.Fatal(r.err)
	}
	defer r.turn.Release()
	if second := holder(t, ns, key); second == first || !strings.HasPrefix(second, "shard-0/") {
		t.Fatalf("holders %q then %q: want two identities, both of shard-0", first, second)
	}
	if !r.turn.Queued() {
		t.Error("the second writer waited but Queued is false")
	}
}
