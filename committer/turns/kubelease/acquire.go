package kubelease

import (
	"context"
	"encoding/json"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/turns"
	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// acquire is one Take: leader election's protocol (tryAcquireOrRenew) in a
// loop of its own. A holder's Lease expires when its record has not changed
// for its lease duration by this waiter's clock (no clocks are compared
// across machines); a free or expired Lease is taken by an update that
// carries the resourceVersion it was read at, so of two takers one gets a
// conflict and reads again. Between tries the waiter watches the Lease: a
// release wakes it at once, a renewal moves its expiry.
type acquire struct {
	t    *Turns
	key  turns.Key
	id   string
	lock *resourcelock.LeaseLock

	rec      *resourcelock.LeaderElectionRecord // as last seen; nil: not seen or deleted
	raw      []byte                             // rec as JSON, to see it change
	seenAt   time.Time                          // when raw last changed
	queued   bool                               // another writer's turn was seen: this one waited
	watching watch.Interface                    // nil: none open
}

func (a *acquire) run(ctx context.Context) (*turn, error) {
	defer a.stopWatch()
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		backoff := time.Duration(0)
		if a.free() {
			got, err := a.try(ctx)
			switch {
			case got:
				return a.grant(), nil
			case err != nil && ctx.Err() != nil:
				return nil, ctx.Err()
			case err != nil && permanent(err):
				return nil, err
			case err != nil:
				a.t.opt.log.Warn("kubelease: reading or taking the Lease failed; trying again", "lease", a.lock.Describe(), "err", err)
				backoff = a.t.opt.wait
			}
			if backoff == 0 && a.free() {
				continue // a conflict, or the Lease came free meanwhile: read again
			}
		}
		a.wait(ctx, backoff)
	}
}

// free reports whether the Lease, as last seen, may be taken: not seen
// yet, held by nobody (released), or expired.
func (a *acquire) free() bool {
	if a.rec == nil || a.rec.HolderIdentity == "" || a.rec.HolderIdentity == a.id {
		return true
	}
	return !time.Now().Before(a.expiry())
}

func (a *acquire) expiry() time.Time {
	return a.seenAt.Add(time.Duration(a.rec.LeaseDurationSeconds) * time.Second)
}

// observe records what the Lease holds now.
func (a *acquire) observe(rec *resourcelock.LeaderElectionRecord, raw []byte) {
	if a.rec == nil || string(raw) != string(a.raw) {
		a.rec, a.raw, a.seenAt = rec, raw, time.Now()
	}
	if !a.free() {
		a.queued = true // another writer's turn: this one waits for it
	}
}

// try reads the Lease and, when it is free, takes it: got reports success.
func (a *acquire) try(ctx context.Context) (got bool, err error) {
	rec, raw, err := a.lock.Get(ctx)
	if apierrors.IsNotFound(err) {
		a.rec = nil
		return a.create(ctx)
	}
	if err != nil {
		return false, err
	}
	a.observe(rec, raw)
	if !a.free() {
		return false, nil
	}
	next := a.held(rec.LeaderTransitions)
	if rec.HolderIdentity != a.id {
		next.LeaderTransitions++
	}
	err = a.lock.Update(ctx, next)
	switch {
	case err == nil:
		a.rec = &next
		if rec.HolderIdentity != "" {
			a.t.opt.log.Debug("kubelease: took over an expired Lease", "lease", a.lock.Describe(), "from", rec.HolderIdentity, "holder", a.id)
		}
		return true, nil
	case apierrors.IsConflict(err):
		a.rec = nil // another writer moved it: read again
		return false, nil
	case ctx.Err() != nil:
		a.abandon() // the update may have landed after all
	}
	return false, err
}

// create makes the Lease, held by this turn.
func (a *acquire) create(ctx context.Context) (bool, error) {
	rec := a.held(0)
	lease := a.t.newLease(a.key, a.lock.LeaseMeta.Name, rec)
	_, err := a.t.leases.Leases(a.t.namespace).Create(ctx, lease, metav1.CreateOptions{})
	switch {
	case apierrors.IsAlreadyExists(err):
		return false, nil // another writer made it first: read it
	case err != nil && ctx.Err() != nil:
		a.abandon()
		return false, err
	case err != nil:
		return false, err
	}
	// The lock needs the object it updates (resourceVersion and all).
	if _, _, err := a.lock.Get(ctx); err != nil {
		a.abandon()
		return false, err
	}
	a.rec = &rec
	return true, nil
}

// held is this turn's record, as taken now.
func (a *acquire) held(transitions int) resourcelock.LeaderElectionRecord {
	now := metav1.NewTime(time.Now())
	return resourcelock.LeaderElectionRecord{
		HolderIdentity:       a.id,
		LeaseDurationSeconds: int(a.t.opt.duration / time.Second),
		AcquireTime:          now,
		RenewTime:            now,
		LeaderTransitions:    transitions,
	}
}

// abandon lets go of a Lease that a write whose answer was lost (ctx ended)
// may have taken.
func (a *acquire) abandon() {
	if err := clearIfMine(a.lock, a.id); err != nil {
		a.t.opt.log.Warn("kubelease: could not let go of a Lease taken as the wait ended; it expires", "lease", a.lock.Describe(), "err", err)
	}
}

// wait sleeps until the Lease changes (the watch), it may have expired,
// backoff passes, or ctx ends. Without a watch it reads again after the
// option's wait at most.
func (a *acquire) wait(ctx context.Context, backoff time.Duration) {
	d := backoff
	if d == 0 {
		d = time.Until(a.expiry())
		if a.rec == nil || d <= 0 {
			d = a.t.opt.wait
		}
	}
	a.startWatch(ctx)
	if a.watching == nil && d > a.t.opt.wait {
		d = a.t.opt.wait
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	var events <-chan watch.Event
	if a.watching != nil {
		events = a.watching.ResultChan()
	}
	select {
	case <-ctx.Done():
	case <-timer.C:
	case ev, ok := <-events:
		a.event(ev, ok)
	}
}

// startWatch opens a watch on the Lease when none is open.
func (a *acquire) startWatch(ctx context.Context) {
	if a.watching != nil {
		return
	}
	sel := fields.OneTermEqualSelector("metadata.name", a.lock.LeaseMeta.Name).String()
	w, err := a.t.leases.Leases(a.t.namespace).Watch(ctx, metav1.ListOptions{FieldSelector: sel})
	if err != nil {
		a.t.opt.log.Warn("kubelease: cannot watch the Lease; polling", "lease", a.lock.Describe(), "err", err)
		return
	}
	a.watching = w
}

// event takes in what the watch saw.
func (a *acquire) event(ev watch.Event, ok bool) {
	if !ok || ev.Type == watch.Error {
		a.stopWatch() // the next wait opens another
		return
	}
	lease, isLease := ev.Object.(*coordinationv1.Lease)
	switch {
	case !isLease:
	case ev.Type == watch.Deleted:
		a.rec = nil
	case ev.Type == watch.Added || ev.Type == watch.Modified:
		rec := resourcelock.LeaseSpecToLeaderElectionRecord(&lease.Spec)
		raw, err := json.Marshal(*rec)
		if err == nil {
			a.observe(rec, raw)
		}
	}
}

func (a *acquire) stopWatch() {
	if a.watching != nil {
		a.watching.Stop()
		a.watching = nil
	}
}
