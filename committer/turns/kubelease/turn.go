package kubelease

import (
	"context"
	"errors"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// releaseTimeout bounds Release's requests (it has no context).
const releaseTimeout = 5 * time.Second

// turn is a granted turn: its Lease is renewed every third of the lease
// duration until Release, which clears the holder.
type turn struct {
	a      *acquire
	rec    resourcelock.LeaderElectionRecord
	queued bool
	stop   chan struct{} // closed by Release
	done   chan struct{} // closed when renew has returned
	once   sync.Once
	lost   bool // renew found the Lease another's (read after done)
}

// grant makes the turn that try's update or create won, and starts its
// renewals.
func (a *acquire) grant() *turn {
	a.stopWatch()
	t := &turn{a: a, rec: *a.rec, queued: a.queued, stop: make(chan struct{}), done: make(chan struct{})}
	go t.renew()
	return t
}

func (t *turn) Queued() bool { return t.queued }

// renew keeps the Lease the turn's. A renewal in flight when Release comes
// is let finish (bounded by its own timeout): cancelling it could leave the
// lock's copy of the Lease older than the server's, and the release would
// then conflict.
func (t *turn) renew() {
	defer close(t.done)
	every := t.a.t.opt.duration / 3
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-t.stop:
			return
		case <-tick.C:
		}
		next := t.rec
		next.RenewTime = metav1.NewTime(time.Now())
		// Until the Lease would expire: a slow answer is still in time.
		ctx, cancel := context.WithTimeout(context.Background(), t.a.t.opt.duration-every)
		err := t.a.lock.Update(ctx, next)
		cancel()
		switch {
		case err == nil:
			t.rec = next
		case apierrors.IsConflict(err) || apierrors.IsNotFound(err):
			t.lost = true
			t.a.t.opt.log.Warn("kubelease: the turn's Lease was taken over (renewed too late); the attempt goes on unguarded by it", "lease", t.a.lock.Describe(), "holder", t.a.id)
			return
		default:
			t.a.t.opt.log.Warn("kubelease: renewing the Lease failed; trying again", "lease", t.a.lock.Describe(), "err", err)
		}
	}
}

// Release stops the renewals and clears the Lease's holder, so that a
// waiter takes it at once rather than after the lease duration.
func (t *turn) Release() {
	t.once.Do(func() {
		close(t.stop)
		<-t.done
		if t.lost {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), releaseTimeout)
		defer cancel()
		err := t.a.lock.Update(ctx, released(t.rec))
		if apierrors.IsConflict(err) {
			err = clearIfMine(t.a.lock, t.a.id)
		}
		if err != nil {
			t.a.t.opt.log.Warn("kubelease: releasing the Lease failed; it expires", "lease", t.a.lock.Describe(), "err", err)
			return
		}
		t.a.t.opt.log.Debug("kubelease: released", "lease", t.a.lock.Describe(), "holder", t.a.id)
	})
}

// released is rec with no holder, as client-go's leader election writes it
// when it lets go (ReleaseOnCancel).
func released(rec resourcelock.LeaderElectionRecord) resourcelock.LeaderElectionRecord {
	now := metav1.NewTime(time.Now())
	return resourcelock.LeaderElectionRecord{
		LeaderTransitions:    rec.LeaderTransitions,
		LeaseDurationSeconds: 1,
		AcquireTime:          now,
		RenewTime:            now,
	}
}

// clearIfMine reads the Lease and clears its holder if that is id (a few
// tries, should another writer's renewal or take race with it).
func clearIfMine(lock *resourcelock.LeaseLock, id string) error {
	ctx, cancel := context.WithTimeout(context.Background(), releaseTimeout)
	defer cancel()
	for range 3 {
		rec, _, err := lock.Get(ctx)
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		if rec.HolderIdentity != id {
			return nil
		}
		err = lock.Update(ctx, released(*rec))
		if !apierrors.IsConflict(err) {
			return err
		}
	}
	return errors.New("the Lease kept changing")
}
