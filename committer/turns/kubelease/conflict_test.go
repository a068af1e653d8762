package kubelease_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/turns/kubelease"
	"github.com/ghcommitter/ghcommitter/committer/turns/kubelease/kubetest"
	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"
)

// meddler is a Leases client that, before each of the first n updates
// through it, changes the same Lease through another client: the update
// then carries a stale resourceVersion and the API server answers 409.
type meddler struct {
	coordinationv1client.LeasesGetter
	other     coordinationv1client.LeasesGetter
	n         atomic.Int32
	meddled   atomic.Int32
	conflicts atomic.Int32
}

func (m *meddler) Leases(ns string) coordinationv1client.LeaseInterface {
	return meddlingLeases{LeaseInterface: m.LeasesGetter.Leases(ns), m: m, ns: ns}
}

type meddlingLeases struct {
	coordinationv1client.LeaseInterface
	m  *meddler
	ns string
}

func (l meddlingLeases) Update(ctx context.Context, lease *coordinationv1.Lease, opts metav1.UpdateOptions) (*coordinationv1.Lease, error) {
	if l.m.meddled.Add(1) <= l.m.n.Load() {
		cur, err := l.m.other.Leases(l.ns).Get(ctx, lease.Name, metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		if cur.Labels == nil {
			cur.Labels = map[string]string{}
		}
		cur.Labels["meddled"] = time.Now().Format("150405.000000")
		if _, err := l.m.other.Leases(l.ns).Update(ctx, cur, metav1.UpdateOptions{}); err != nil {
			return nil, err
		}
	}
	got, err := l.LeaseInterface.Update(ctx, lease, opts)
	if apierrors.IsConflict(err) {
		l.m.conflicts.Add(1)
	}
	return got, err
}

// TestConflictsAreRetried: a take whose update meets a newer
// resourceVersion (409 Conflict) reads the Lease again and takes it; so
// does a release.
func TestConflictsAreRetried(t *testing.T) {
	ns := kubetest.Namespace(t)
	c := leases(t)
	// The Lease exists, released: taking it is an update.
	first := take(t, newTurns(t, c, ns), key, 30*time.Second)
	first.Release()

	m := &meddler{LeasesGetter: c, other: c}
	m.n.Store(3)
	// A long lease: no renewal (an update too) comes between the meddling
	// and the updates it is for.
	tt := newTurns(t, m, ns, kubelease.WithIdentity("persistent"), kubelease.WithLeaseDuration(time.Minute))
	turn := take(t, tt, key, 30*time.Second)
	if m.conflicts.Load() < 3 {
		t.Fatalf("%d conflicts, want the 3 the meddler made", m.conflicts.Load())
	}
	if h := holder(t, ns, key); !strings.HasPrefix(h, "persistent/") {
		t.Fatalf("holder %q, want persistent's", h)
	}
	// The release meets a conflict too, and still clears the holder.
	m.meddled.Store(0)
	m.n.Store(1)
	before := m.conflicts.Load()
	turn.Release()
	if m.conflicts.Load() != before+1 {
		t.Fatalf("the release met %d conflicts, want 1", m.conflicts.Load()-before)
	}
	if h := holder(t, ns, key); h != "" {
		t.Fatalf("holder %q after a conflicted release, want none", h)
	}
}

// TestRacingCreatorsOneWins: takers that find no Lease race to create it;
// one wins, the others read it (AlreadyExists) and wait.
func TestRacingCreatorsOneWins(t *testing.T) {
	ns := kubetest.Namespace(t)
	c := leases(t)
	const n = 4
	start := make(chan struct{})
	results := make(chan result, n)
	for range n {
		tt := newTurns(t, c, ns)
		go func() {
			<-start
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
			defer cancel()
			turn, err := tt.Take(ctx, key)
			results <- result{turn: turn, err: err}
		}()
	}
	close(start)
	granted := 0
	for range n {
		r := <-results
		if r.err == nil {
			granted++ // held to the end: the others time out
			defer r.turn.Release()
		}
	}
	if granted != 1 {
		t.Fatalf("%d of %d racing creators were granted the turn within 5 s, want 1", granted, n)
	}
}
