// Package kubelease is turns.Turns on Kubernetes Leases
// (coordination.k8s.io/v1): writers in different processes, machines or
// clusters that reach one API server take turns at a branch, as client-go's
// leader election takes turns at leading.
//
// Each key (API, repository, branch) has one Lease in the namespace the
// program names, called by a hash of the key (LeaseName) and annotated with
// it. A turn's holder identity is the Turns' identity (WithIdentity; the
// host, the pid and a random suffix by default) followed by "/", a random
// suffix of the Turns and the turn's number. The protocol is leader election's, record and all
// (resourcelock.LeaseLock): a Lease whose holder has not renewed it for its
// lease duration, by the waiter's clock, is taken over; every write
// carries the resourceVersion it read, and a conflict is read again. The
// loop is its own: a waiter watches its Lease, so a release (which clears
// the holder at once) wakes it without leader election's 2 s retry period.
// A holder renews its Lease every third of the lease duration
// (WithLeaseDuration, DefaultLeaseDuration) until Release, so a writer that
// dies in its turn delays the others by at most one lease duration.
//
// The module is separate from ghcommitter's so that programs without
// Kubernetes link no client-go:
//
//	cs, err := kubernetes.NewForConfig(cfg) // QPS high enough for the writers
//	if err != nil { ... }
//	t, err := kubelease.New(cs.CoordinationV1(), "ghcommitter")
//	if err != nil { ... }
//	c, err := committer.New("acme", "mono", committer.WithHTTPClient(hc), committer.WithTurns(t))
//
// A turn only saves lost races: a writer whose turn is not granted (the
// API server cannot be reached, the wait ran out) races, and the branch's
// compare-and-swap update keeps every change safe.
//
// The RBAC a writer's service account needs, in that namespace:
//
//	rules:
//	- apiGroups: ["coordination.k8s.io"]
//	  resources: ["leases"]
//	  verbs: ["get", "create", "update", "watch"]
package kubelease
