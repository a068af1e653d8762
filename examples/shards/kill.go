package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ghcommitter/ghcommitter/committer/turns/kubelease"
	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// killReport is what the Lease recorded around the kill of shard 0.
type killReport struct {
	// Holder is the killed shard's holder identity, in its turn when
	// killed; TakenBy the identity that held the Lease next.
	Holder  string `json:"holder"`
	TakenBy string `json:"taken_by"`
	// TransitionsBefore and TransitionsAfter are the Lease's
	// leaseTransitions when killed and once taken over.
	TransitionsBefore int32 `json:"transitions_before"`
	TransitionsAfter  int32 `json:"transitions_after"`
	// Waiting is how many other shards had asked for the turn when shard
	// 0 was killed.
	Waiting int `json:"waiting"`
	// Delay is from the kill to the next holder's acquireTime; Expiry from
	// the killed holder's last renewTime to it (the Lease must have
	// expired: at least one lease duration).
	Delay  time.Duration `json:"delay_ns"`
	Expiry time.Duration `json:"expiry_ns"`
	Lease  time.Duration `json:"lease_ns"`
}

// runKill runs shard 0 alone until it holds the turn with its landing
// write stalled, starts the others and waits until each has asked for the
// turn, kills shard 0 with SIGKILL (no release, no clean-up), starts it
// again as a restarted pod would be, and reads from the Lease who took the
// turn over and when.
func (e *runEnv) runKill(ctx context.Context) ([]shardResult, *killReport, error) {
	doomed, err := e.start(ctx, 0, true)
	if err != nil {
		return nil, nil, err
	}
	if err := doomed.await(ctx, sayInTurn); err != nil {
		killAll([]*shardProc{doomed})
		return nil, nil, err
	}
	procs := make([]*shardProc, e.cfg.shards)
	for i := 1; i < e.cfg.shards; i++ {
		if procs[i], err = e.start(ctx, i, false); err != nil {
			killAll(append(procs, doomed))
			return nil, nil, err
		}
	}
	for _, p := range procs[1:] {
		if err := p.await(ctx, sayTaking); err != nil {
			killAll(append(procs, doomed))
			return nil, nil, err
		}
	}
	before, err := e.lease(ctx)
	if err != nil {
		killAll(append(procs, doomed))
		return nil, nil, err
	}
	k := &killReport{Holder: holderOf(before), Waiting: e.cfg.shards - 1, Lease: e.cfg.lease}
	if !strings.HasPrefix(k.Holder, "shard-0/") {
		killAll(append(procs, doomed))
		return nil, nil, fmt.Errorf("shard 0 stalled its landing write but the Lease is held by %q", k.Holder)
	}
	killed := time.Now()
	killAll([]*shardProc{doomed}) // SIGKILL
	if procs[0], err = e.start(ctx, 0, false); err != nil {
		killAll(procs)
		return nil, nil, err
	}
	after, lastRenew, err := e.takenOver(ctx, k.Holder)
	if err != nil {
		killAll(procs)
		return nil, nil, err
	}
	k.TakenBy = holderOf(after)
	k.TransitionsBefore, k.TransitionsAfter = derefInt(before.Spec.LeaseTransitions), derefInt(after.Spec.LeaseTransitions)
	if at := after.Spec.AcquireTime; at != nil {
		k.Delay = at.Sub(killed)
		k.Expiry = at.Sub(lastRenew)
	}
	res, err := waitAll(procs)
	return res, k, err
}

// await waits until the shard says what, or exits, or ctx ends.
func (p *shardProc) await(ctx context.Context, what string) error {
	for {
		select {
		case line := <-p.events:
			if line == what {
				return nil
			}
		case <-p.done:
			return fmt.Errorf("shard %d exited (%w) before it said %q; its stderr ends:\n%s", p.index, p.err, what, tail(p.stderr.String()))
		case <-ctx.Done():
			return fmt.Errorf("shard %d did not say %q: %w", p.index, what, ctx.Err())
		}
	}
}

// lease reads the shards' Lease: the one Lease of the namespace that
// the turns made (the key's is named by a hash of it).
func (e *runEnv) lease(ctx context.Context) (*coordinationv1.Lease, error) {
	list, err := e.kube.Client.CoordinationV1().Leases(e.ns).List(ctx,
		metav1.ListOptions{LabelSelector: kubelease.LabelManagedBy + "=ghcommitter"})
	if err != nil {
		return nil, fmt.Errorf("listing the Leases of %s: %w", e.ns, err)
	}
	if len(list.Items) != 1 {
		return nil, fmt.Errorf("%d Leases in %s, want 1 (one branch)", len(list.Items), e.ns)
	}
	return &list.Items[0], nil
}

// takenOver reads the Lease every 50 ms until its holder is no longer
// dead's, and returns it and dead's last renewTime.
func (e *runEnv) takenOver(ctx context.Context, dead string) (*coordinationv1.Lease, time.Time, error) {
	var lastRenew time.Time
	for {
		l, err := e.lease(ctx)
		if err != nil {
			return nil, lastRenew, err
		}
		if holderOf(l) != dead {
			return l, lastRenew, nil
		}
		if l.Spec.RenewTime != nil {
			lastRenew = l.Spec.RenewTime.Time
		}
		select {
		case <-ctx.Done():
			return nil, lastRenew, fmt.Errorf("nobody took the turn over from the killed %s: %w", dead, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func holderOf(l *coordinationv1.Lease) string {
	if l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}

func derefInt(p *int32) int32 {
	if p == nil {
		return 0
	}
	return *p
}
