package kubelease

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"

	"github.com/ghcommitter/ghcommitter/committer/turns"
	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// The annotations that say which key a Lease is for (its name is a hash),
// and the label that marks the Leases of these turns.
const (
	AnnotationAPI        = "turns.ghcommitter.io/api"
	AnnotationRepository = "turns.ghcommitter.io/repository"
	AnnotationBranch     = "turns.ghcommitter.io/branch"
	LabelManagedBy       = "app.kubernetes.io/managed-by"
	managedBy            = "ghcommitter"
)

// Turns hands out turns through the Leases of one namespace. It implements
// turns.Turns; its methods may be called from many goroutines at once.
type Turns struct {
	leases    coordinationv1client.LeasesGetter
	namespace string
	opt       *options
	// nonce and seq make each turn's holder identity its own: nonce is
	// random for each Turns (a process started again, or a second Turns,
	// under the same WithIdentity numbers its turns from 1 again), seq
	// numbers the turns of this one.
	nonce string
	seq   atomic.Uint64
}

var _ turns.Turns = (*Turns)(nil)

// New returns the turns of every writer that reaches the same API server
// and names the same namespace, in this process or any other, on any
// machine. leases is a clientset's CoordinationV1(); its user needs get,
// create, update and watch on coordination.k8s.io leases in namespace.
// The client's rate limiter paces these requests too: client-go's default
// (5 a second) is low for many writers.
func New(leases coordinationv1client.LeasesGetter, namespace string, opts ...Option) (*Turns, error) {
	if leases == nil {
		return nil, errors.New("kubelease: nil client")
	}
	if namespace == "" {
		return nil, errors.New("kubelease: no namespace")
	}
	o, err := newOptions(opts)
	if err != nil {
		return nil, err
	}
	var r [4]byte
	_, _ = rand.Read(r[:]) // never fails (crypto/rand)
	return &Turns{leases: leases, namespace: namespace, opt: o, nonce: hex.EncodeToString(r[:])}, nil
}

// LeaseName is the name of key's Lease: "ghcommitter-turn-" and the first
// 32 hex digits of the SHA-256 of key.String(), a valid name for any key.
func LeaseName(key turns.Key) string {
	sum := sha256.Sum256([]byte(key.String()))
	return "ghcommitter-turn-" + hex.EncodeToString(sum[:16])
}

// Take waits until key's Lease is free (released, expired or not yet made)
// and makes it the turn's, or until ctx ends. A granted turn renews its
// Lease until Release. An error that waiting cannot mend (no such
// namespace, a forbidden verb) returns at once.
func (t *Turns) Take(ctx context.Context, key turns.Key) (turns.Turn, error) {
	id := t.opt.identity + "/" + t.nonce + "-" + strconv.FormatUint(t.seq.Add(1), 10)
	a := &acquire{
		t:   t,
		key: key,
		id:  id,
		lock: &resourcelock.LeaseLock{
			LeaseMeta:  metav1.ObjectMeta{Namespace: t.namespace, Name: LeaseName(key)},
			Client:     t.leases,
			LockConfig: resourcelock.ResourceLockConfig{Identity: id},
		},
	}
	turn, err := a.run(ctx)
	if err != nil {
		return nil, fmt.Errorf("kubelease: turn at %s/%s (Lease %s/%s): %w",
			key.Repository, key.Branch, t.namespace, a.lock.LeaseMeta.Name, err)
	}
	return turn, nil
}

// newLease is key's Lease as first made, held by rec's holder.
func (t *Turns) newLease(key turns.Key, name string, rec resourcelock.LeaderElectionRecord) *coordinationv1.Lease {
	return &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{
			Name:      name,
			Namespace: t.namespace,
			Labels:    map[string]string{LabelManagedBy: managedBy},
			Annotations: map[string]string{
				AnnotationAPI:        key.API,
				AnnotationRepository: key.Repository,
				AnnotationBranch:     key.Branch,
			},
		},
		Spec: resourcelock.LeaderElectionRecordToLeaseSpec(&rec),
	}
}

// permanent reports whether err is one that waiting will not mend.
func permanent(err error) bool {
	return apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) ||
		apierrors.IsInvalid(err) || apierrors.IsBadRequest(err) ||
		apierrors.IsMethodNotSupported(err) || apierrors.IsNotAcceptable(err) ||
		apierrors.IsUnsupportedMediaType(err)
}
